package rvclock_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/watchcache/watchcache/rvclock"
)

// fakeNow is a manually advanced time source for Options.Now.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeNow() *fakeNow { return &fakeNow{t: time.Unix(1_700_000_000, 0)} }

func (f *fakeNow) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeNow) Step(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

func TestStateString(t *testing.T) {
	tests := []struct {
		s    rvclock.State
		want string
	}{
		{rvclock.Pending, "Pending"},
		{rvclock.Ready, "Ready"},
		{rvclock.Stopped, "Stopped"},
		{rvclock.State(7), "State(7)"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("State(%d).String() = %q, want %q", int(tt.s), got, tt.want)
		}
	}
}

// TestStateMachine walks Pending → Ready → Pending → Ready → Stopped (rule
// 3.6) and checks Ready() after every step, including the Retry-After
// backoff measured from the last transition with a fake clock (rule 3.7).
func TestStateMachine(t *testing.T) {
	lost := errors.New("watch closed")
	relistFailed := errors.New("list failed")

	type want struct {
		state rvclock.State
		rv    uint64
		// Ready() outcome: nil, ErrStopped, or a *NotReadyError with since,
		// cause and retry below.
		err   error
		since time.Duration
		cause error
		retry int
	}
	steps := []struct {
		name string
		step time.Duration // fake time that passes before op
		op   func(c *rvclock.Clock)
		want want
	}{
		{
			name: "new clock is pending",
			op:   func(*rvclock.Clock) {},
			want: want{state: rvclock.Pending, err: rvclock.ErrNotReady, retry: 1},
		},
		{
			name: "advance while pending moves RV, not state",
			step: 30 * time.Second,
			op:   func(c *rvclock.Clock) { mustAdvance(t, c, 5) },
			want: want{state: rvclock.Pending, rv: 5, err: rvclock.ErrNotReady, since: 30 * time.Second, retry: 6},
		},
		{
			name: "first list makes it ready",
			step: time.Second,
			op:   func(c *rvclock.Clock) { c.Reset(10) },
			want: want{state: rvclock.Ready, rv: 10},
		},
		{
			name: "lost source",
			step: time.Hour,
			op:   func(c *rvclock.Clock) { c.SetPending(lost) },
			want: want{state: rvclock.Pending, rv: 10, err: rvclock.ErrNotReady, cause: lost, retry: 1},
		},
		{
			// Another failure replaces the cause but keeps the transition
			// time, so the client backoff keeps growing.
			name: "second failure while pending",
			step: 30 * time.Second,
			op:   func(c *rvclock.Clock) { c.SetPending(relistFailed) },
			want: want{state: rvclock.Pending, rv: 10, err: rvclock.ErrNotReady, since: 30 * time.Second, cause: relistFailed, retry: 6},
		},
		{
			name: "long outage is clamped",
			step: 70 * time.Second,
			op:   func(*rvclock.Clock) {},
			want: want{state: rvclock.Pending, rv: 10, err: rvclock.ErrNotReady, since: 100 * time.Second, cause: relistFailed, retry: 30},
		},
		{
			name: "re-list may go back and clears the cause",
			step: time.Second,
			op:   func(c *rvclock.Clock) { c.Reset(8) },
			want: want{state: rvclock.Ready, rv: 8},
		},
		{
			name: "reset while ready stays ready",
			op:   func(c *rvclock.Clock) { c.Reset(9) },
			want: want{state: rvclock.Ready, rv: 9},
		},
		{
			name: "lost source without cause",
			op:   func(c *rvclock.Clock) { c.SetPending(nil) },
			want: want{state: rvclock.Pending, rv: 9, err: rvclock.ErrNotReady, retry: 1},
		},
		{
			name: "ready again",
			op:   func(c *rvclock.Clock) { c.Reset(12) },
			want: want{state: rvclock.Ready, rv: 12},
		},
		{
			name: "stop",
			op:   func(c *rvclock.Clock) { c.Stop() },
			want: want{state: rvclock.Stopped, rv: 12, err: rvclock.ErrStopped},
		},
		{
			name: "stop is irreversible",
			op: func(c *rvclock.Clock) {
				c.Reset(20)
				c.SetPending(lost)
				c.Stop()
			},
			want: want{state: rvclock.Stopped, rv: 12, err: rvclock.ErrStopped},
		},
	}

	now := newFakeNow()
	c := rvclock.New(rvclock.Options{Now: now.Now})
	for _, s := range steps {
		// Steps depend on their predecessors, so a failure is reported
		// but later steps still run.
		now.Step(s.step)
		s.op(c)
		if got := c.State(); got != s.want.state {
			t.Errorf("%s: State() = %v, want %v", s.name, got, s.want.state)
		}
		if got := c.Current(); got != s.want.rv {
			t.Errorf("%s: Current() = %d, want %d", s.name, got, s.want.rv)
		}
		err := c.Ready()
		switch {
		case s.want.err == nil:
			if err != nil {
				t.Errorf("%s: Ready() = %v, want nil", s.name, err)
			}
		case s.want.err == rvclock.ErrStopped:
			if err != rvclock.ErrStopped {
				t.Errorf("%s: Ready() = %v, want ErrStopped", s.name, err)
			}
		default:
			var nr *rvclock.NotReadyError
			if !errors.As(err, &nr) {
				t.Errorf("%s: Ready() = %#v, want *NotReadyError", s.name, err)
				continue
			}
			if !errors.Is(err, rvclock.ErrNotReady) {
				t.Errorf("%s: errors.Is(Ready(), ErrNotReady) = false", s.name)
			}
			if nr.Since != s.want.since {
				t.Errorf("%s: Since = %v, want %v", s.name, nr.Since, s.want.since)
			}
			if nr.Err != s.want.cause {
				t.Errorf("%s: Err = %v, want %v", s.name, nr.Err, s.want.cause)
			}
			if got := nr.RetryAfterSeconds(); got != s.want.retry {
				t.Errorf("%s: RetryAfterSeconds() = %d, want %d", s.name, got, s.want.retry)
			}
		}
	}
}

func mustAdvance(t testing.TB, c *rvclock.Clock, rv uint64) {
	t.Helper()
	if err := c.Advance(rv); err != nil {
		t.Fatalf("Advance(%d) = %v", rv, err)
	}
}
