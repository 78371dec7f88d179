package rvclock_test

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/watchcache/watchcache/rvclock"
)

func TestErrorMessagesAndIdentity(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		wantMsg string
		is      []error // errors.Is must hold
		isNot   []error // errors.Is must not hold
	}{
		{
			name:    "regression",
			err:     &rvclock.RegressionError{Current: 7, Got: 3},
			wantMsg: "rvclock: resourceVersion went backwards: got 3, current 7",
			is:      []error{rvclock.ErrRegression},
			isNot:   []error{rvclock.ErrTooLarge, rvclock.ErrNotReady, rvclock.ErrStopped},
		},
		{
			// Rule 3.4: the edge prefixes "Timeout: ", so the body must match
			// the apiserver's byte for byte.
			name:    "too large",
			err:     &rvclock.TooLargeError{Requested: 20, Current: 10},
			wantMsg: "Too large resource version: 20, current: 10",
			is:      []error{rvclock.ErrTooLarge},
			isNot:   []error{rvclock.ErrRegression, rvclock.ErrNotReady, rvclock.ErrStopped},
		},
		{
			// Rule 3.6, before the first list.
			name:    "not ready without cause",
			err:     &rvclock.NotReadyError{},
			wantMsg: "storage is (re)initializing",
			is:      []error{rvclock.ErrNotReady},
			isNot:   []error{rvclock.ErrStopped, io.EOF},
		},
		{
			// Rule 3.6, after the source was lost.
			name:    "not ready with cause",
			err:     &rvclock.NotReadyError{Err: io.EOF},
			wantMsg: "storage is (re)initializing: EOF",
			is:      []error{rvclock.ErrNotReady, io.EOF},
			isNot:   []error{rvclock.ErrStopped},
		},
		{
			name:    "stopped",
			err:     rvclock.ErrStopped,
			wantMsg: "apiserver cacher is stopped",
			is:      []error{rvclock.ErrStopped},
			isNot:   []error{rvclock.ErrNotReady},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.wantMsg {
				t.Errorf("Error() = %q, want %q", got, tt.wantMsg)
			}
			for _, target := range tt.is {
				if !errors.Is(tt.err, target) {
					t.Errorf("errors.Is(err, %v) = false, want true", target)
				}
			}
			for _, target := range tt.isNot {
				if errors.Is(tt.err, target) {
					t.Errorf("errors.Is(err, %v) = true, want false", target)
				}
			}
		})
	}
}

func TestNotReadyRetryAfterSeconds(t *testing.T) {
	// Rule 3.7: clamp(int(exp(0.06·s)), 1, 30).
	tests := []struct {
		since time.Duration
		want  int
	}{
		{0, 1},
		{-time.Minute, 1},                           // clock stepped back: never below 1
		{11 * time.Second, 1},                       // exp(0.66) = 1.93
		{12 * time.Second, 2},                       // exp(0.72) = 2.05
		{30 * time.Second, 6},                       // exp(1.8) = 6.05
		{56 * time.Second, 28},                      // exp(3.36) = 28.79
		{57 * time.Second, 30},                      // exp(3.42) = 30.57, clamped
		{100 * time.Second, 30},                     // exp(6) = 403, clamped
		{1 << 62, 30},                               // exp overflows to +Inf
		{1500 * time.Millisecond, 1},                // fractional seconds count
		{45*time.Second + 500*time.Millisecond, 15}, // exp(2.73) = 15.33
	}
	for _, tt := range tests {
		t.Run(tt.since.String(), func(t *testing.T) {
			e := &rvclock.NotReadyError{Since: tt.since}
			if got := e.RetryAfterSeconds(); got != tt.want {
				t.Errorf("RetryAfterSeconds() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestTooLargeRetryAfterSeconds(t *testing.T) {
	// Rule 3.4: resourceVersionTooHighRetrySeconds.
	if got := (&rvclock.TooLargeError{Requested: 2, Current: 1}).RetryAfterSeconds(); got != 1 {
		t.Errorf("RetryAfterSeconds() = %d, want 1", got)
	}
}
