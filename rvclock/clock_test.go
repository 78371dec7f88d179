package rvclock_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/watchcache/watchcache/rvclock"
)

// shortTimeout keeps timeout tests fast; longTimeout is used where the test
// must observe a wake-up that happens well before the timeout.
const (
	shortTimeout = 50 * time.Millisecond
	longTimeout  = 10 * time.Second
)

// TestAdvance checks the monotonic clock of rule 3.1 against a sequence of
// Advance calls.
func TestAdvance(t *testing.T) {
	tests := []struct {
		name    string
		start   uint64 // via Reset, 0 means a fresh clock
		rvs     []uint64
		wantErr []error // per call; a *RegressionError is checked by value
		wantRV  uint64
	}{
		{name: "forward with gaps", rvs: []uint64{1, 5, 100}, wantErr: []error{nil, nil, nil}, wantRV: 100},
		{name: "equal is a no-op (repeated bookmark)", start: 10, rvs: []uint64{10, 10}, wantErr: []error{nil, nil}, wantRV: 10},
		{name: "zero on fresh clock is a no-op", rvs: []uint64{0}, wantErr: []error{nil}, wantRV: 0},
		{
			name:    "backwards is rejected and leaves the clock alone",
			start:   10,
			rvs:     []uint64{9, 11, 3},
			wantErr: []error{&rvclock.RegressionError{Current: 10, Got: 9}, nil, &rvclock.RegressionError{Current: 11, Got: 3}},
			wantRV:  11,
		},
		{
			name:    "max uint64",
			rvs:     []uint64{1<<64 - 1, 1<<64 - 2},
			wantErr: []error{nil, &rvclock.RegressionError{Current: 1<<64 - 1, Got: 1<<64 - 2}},
			wantRV:  1<<64 - 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rvclock.New(rvclock.Options{})
			if tt.start != 0 {
				c.Reset(tt.start)
			}
			for i, rv := range tt.rvs {
				err := c.Advance(rv)
				want := tt.wantErr[i]
				if want == nil {
					if err != nil {
						t.Errorf("Advance(%d) = %v, want nil", rv, err)
					}
					continue
				}
				var got *rvclock.RegressionError
				if !errors.As(err, &got) {
					t.Errorf("Advance(%d) = %#v, want *RegressionError", rv, err)
					continue
				}
				if *got != *want.(*rvclock.RegressionError) {
					t.Errorf("Advance(%d) = %+v, want %+v", rv, *got, want)
				}
				if !errors.Is(err, rvclock.ErrRegression) {
					t.Errorf("errors.Is(Advance(%d), ErrRegression) = false", rv)
				}
			}
			if got := c.Current(); got != tt.wantRV {
				t.Errorf("Current() = %d, want %d", got, tt.wantRV)
			}
		})
	}
}

func TestStoppedClock(t *testing.T) {
	c := rvclock.New(rvclock.Options{WaitTimeout: shortTimeout})
	c.Reset(5)
	c.Stop()
	c.Stop() // idempotent
	if err := c.Advance(6); err != rvclock.ErrStopped {
		t.Errorf("Advance after Stop = %v, want ErrStopped", err)
	}
	// ErrStopped wins even where an unstopped clock would return at once.
	for _, rv := range []uint64{0, 5, 6} {
		if got, err := c.WaitFor(context.Background(), rv); err != rvclock.ErrStopped || got != 0 {
			t.Errorf("WaitFor(%d) after Stop = (%d, %v), want (0, ErrStopped)", rv, got, err)
		}
	}
	c.Reset(10)
	if got := c.Current(); got != 5 {
		t.Errorf("Current() after Reset on stopped clock = %d, want 5 (frozen)", got)
	}
}

// TestWaitForImmediate checks the fast paths of rule 3.3: rv 0 or an rv
// already reached returns the current RV without blocking, whatever the
// readiness (WaitFor does not check it).
func TestWaitForImmediate(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(c *rvclock.Clock)
		rv      uint64
		wantRV  uint64
		pending bool
	}{
		{name: "zero on fresh clock", setup: func(*rvclock.Clock) {}, rv: 0, wantRV: 0, pending: true},
		{name: "zero on advanced clock", setup: func(c *rvclock.Clock) { c.Reset(7) }, rv: 0, wantRV: 7},
		{name: "equal", setup: func(c *rvclock.Clock) { c.Reset(7) }, rv: 7, wantRV: 7},
		{name: "below", setup: func(c *rvclock.Clock) { c.Reset(7) }, rv: 3, wantRV: 7},
		{name: "reached while pending", setup: func(c *rvclock.Clock) { mustAdvance(t, c, 7) }, rv: 7, wantRV: 7, pending: true},
		{
			name:    "reached after source lost",
			setup:   func(c *rvclock.Clock) { c.Reset(7); c.SetPending(nil) },
			rv:      6,
			wantRV:  7,
			pending: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A long timeout makes an accidental block visible.
			c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
			tt.setup(c)
			if got := c.State() == rvclock.Pending; got != tt.pending {
				t.Fatalf("pending = %v, want %v", got, tt.pending)
			}
			start := time.Now()
			got, err := c.WaitFor(context.Background(), tt.rv)
			if err != nil || got != tt.wantRV {
				t.Errorf("WaitFor(%d) = (%d, %v), want (%d, nil)", tt.rv, got, err, tt.wantRV)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("WaitFor blocked for %v", d)
			}
			if n := c.Waiters(); n != 0 {
				t.Errorf("Waiters() = %d, want 0", n)
			}
		})
	}
}

type result struct {
	rv  uint64
	err error
	d   time.Duration
}

// goWait starts WaitFor in a goroutine and waits until it is registered.
func goWait(t *testing.T, ctx context.Context, c *rvclock.Clock, rv uint64) <-chan result {
	t.Helper()
	before := c.Waiters()
	ch := make(chan result, 1)
	go func() {
		start := time.Now()
		got, err := c.WaitFor(ctx, rv)
		ch <- result{got, err, time.Since(start)}
	}()
	waitForWaiters(t, c, before+1)
	return ch
}

// waitForWaiters polls until c has n registered waiters; registration has
// no observable event other than the count.
func waitForWaiters(t testing.TB, c *rvclock.Clock, n int) {
	t.Helper()
	deadline := time.Now().Add(longTimeout)
	for c.Waiters() != n {
		if time.Now().After(deadline) {
			t.Fatalf("Waiters() = %d, want %d", c.Waiters(), n)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func receive(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(longTimeout):
		t.Fatal("WaitFor did not return")
		return result{}
	}
}

func assertBlocked(t *testing.T, ch <-chan result) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("WaitFor returned early: (%d, %v)", r.rv, r.err)
	default:
	}
}

func TestWaitForWokenByAdvance(t *testing.T) {
	c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
	c.Reset(10)
	ch := goWait(t, context.Background(), c, 20)

	mustAdvance(t, c, 19) // not enough
	if n := c.Waiters(); n != 1 {
		t.Fatalf("Waiters() after Advance(19) = %d, want 1", n)
	}
	assertBlocked(t, ch)

	mustAdvance(t, c, 25) // overshoot: the waiter sees the RV that released it
	r := receive(t, ch)
	if r.err != nil || r.rv != 25 {
		t.Fatalf("WaitFor(20) = (%d, %v), want (25, nil)", r.rv, r.err)
	}
	if r.d > longTimeout/2 {
		t.Errorf("WaitFor took %v, want well below the %v timeout", r.d, longTimeout)
	}
	if n := c.Waiters(); n != 0 {
		t.Errorf("Waiters() = %d, want 0", n)
	}
}

func TestWaitForWokenByReset(t *testing.T) {
	c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
	mustAdvance(t, c, 100)
	low := goWait(t, context.Background(), c, 150)
	high := goWait(t, context.Background(), c, 300)

	// A re-list to 200 releases the waiter for 150 only, and makes the
	// clock Ready (rule 3.6).
	c.Reset(200)
	if r := receive(t, low); r.err != nil || r.rv != 200 {
		t.Errorf("WaitFor(150) = (%d, %v), want (200, nil)", r.rv, r.err)
	}
	if c.State() != rvclock.Ready {
		t.Errorf("State() = %v, want Ready", c.State())
	}
	assertBlocked(t, high)

	// Going back releases nobody.
	c.Reset(10)
	if n := c.Waiters(); n != 1 {
		t.Errorf("Waiters() after Reset(10) = %d, want 1", n)
	}
	assertBlocked(t, high)

	mustAdvance(t, c, 300)
	if r := receive(t, high); r.err != nil || r.rv != 300 {
		t.Errorf("WaitFor(300) = (%d, %v), want (300, nil)", r.rv, r.err)
	}
}

// TestWaitForTimeout checks rules 3.3 and 3.4: the wait gives up after
// WaitTimeout, independently of the request context, with the requested and
// current RV in the error.
func TestWaitForTimeout(t *testing.T) {
	longCtx, cancel := context.WithTimeout(context.Background(), longTimeout)
	defer cancel()
	tests := []struct {
		name string
		ctx  context.Context
	}{
		{"background ctx", context.Background()},
		{"ctx with later deadline", longCtx},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rvclock.New(rvclock.Options{WaitTimeout: shortTimeout})
			c.Reset(5)
			start := time.Now()
			got, err := c.WaitFor(tt.ctx, 10)
			d := time.Since(start)

			var tl *rvclock.TooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("WaitFor(10) = (%d, %v), want *TooLargeError", got, err)
			}
			if want := (rvclock.TooLargeError{Requested: 10, Current: 5}); *tl != want {
				t.Errorf("error = %+v, want %+v", *tl, want)
			}
			if !errors.Is(err, rvclock.ErrTooLarge) {
				t.Error("errors.Is(err, ErrTooLarge) = false")
			}
			if got != 0 {
				t.Errorf("returned RV = %d, want 0 on error", got)
			}
			if d < shortTimeout {
				t.Errorf("returned after %v, before the %v timeout", d, shortTimeout)
			}
			if d > longTimeout/2 {
				t.Errorf("returned after %v, timeout was %v", d, shortTimeout)
			}
			if n := c.Waiters(); n != 0 {
				t.Errorf("Waiters() = %d, want 0 after timeout", n)
			}
		})
	}
}

func TestWaitForTimeoutReportsCurrentAtExpiry(t *testing.T) {
	// Long enough for goWait to see the waiter registered before it expires.
	c := rvclock.New(rvclock.Options{WaitTimeout: 5 * shortTimeout})
	c.Reset(5)
	ch := goWait(t, context.Background(), c, 100)
	mustAdvance(t, c, 42)
	r := receive(t, ch)
	var tl *rvclock.TooLargeError
	if !errors.As(r.err, &tl) || *tl != (rvclock.TooLargeError{Requested: 100, Current: 42}) {
		t.Errorf("WaitFor(100) err = %v, want Too large resource version: 100, current: 42", r.err)
	}
}

func TestWaitForContext(t *testing.T) {
	t.Run("cancelled while waiting", func(t *testing.T) {
		c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch := goWait(t, ctx, c, 1)
		cancel()
		r := receive(t, ch)
		if r.err != context.Canceled || r.rv != 0 {
			t.Errorf("WaitFor = (%d, %v), want (0, context.Canceled)", r.rv, r.err)
		}
		if n := c.Waiters(); n != 0 {
			t.Errorf("Waiters() = %d, want 0", n)
		}
	})
	t.Run("deadline before wait timeout", func(t *testing.T) {
		c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
		ctx, cancel := context.WithTimeout(context.Background(), shortTimeout)
		defer cancel()
		start := time.Now()
		got, err := c.WaitFor(ctx, 1)
		if err != context.DeadlineExceeded || got != 0 {
			t.Errorf("WaitFor = (%d, %v), want (0, context.DeadlineExceeded)", got, err)
		}
		if d := time.Since(start); d > longTimeout/2 {
			t.Errorf("WaitFor took %v, want about %v", d, shortTimeout)
		}
		if n := c.Waiters(); n != 0 {
			t.Errorf("Waiters() = %d, want 0", n)
		}
	})
}

func TestWaitForCancelledContextUnreached(t *testing.T) {
	c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := c.WaitFor(ctx, 1); err != context.Canceled || got != 0 {
		t.Errorf("WaitFor = (%d, %v), want (0, context.Canceled)", got, err)
	}
	if n := c.Waiters(); n != 0 {
		t.Errorf("Waiters() = %d, want 0", n)
	}
}

func TestStopWakesWaiters(t *testing.T) {
	c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
	c.Reset(1)
	var chs []<-chan result
	for rv := uint64(2); rv < 12; rv++ {
		chs = append(chs, goWait(t, context.Background(), c, rv))
	}
	c.Stop()
	for i, ch := range chs {
		r := receive(t, ch)
		if r.err != rvclock.ErrStopped || r.rv != 0 {
			t.Errorf("waiter %d: (%d, %v), want (0, ErrStopped)", i, r.rv, r.err)
		}
		if r.d > longTimeout/2 {
			t.Errorf("waiter %d took %v, want well below the %v timeout", i, r.d, longTimeout)
		}
	}
	if n := c.Waiters(); n != 0 {
		t.Errorf("Waiters() = %d, want 0", n)
	}
}

func TestManyWaitersReleasedByOneAdvance(t *testing.T) {
	const n = 10_000
	c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
	c.Reset(1)
	results := make(chan result, n)
	for i := range n {
		go func() {
			start := time.Now()
			rv, err := c.WaitFor(context.Background(), uint64(2+i%n))
			results <- result{rv, err, time.Since(start)}
		}()
	}
	waitForWaiters(t, c, n)
	mustAdvance(t, c, n+1)
	for range n {
		r := receive(t, results)
		if r.err != nil || r.rv != n+1 {
			t.Fatalf("WaitFor = (%d, %v), want (%d, nil)", r.rv, r.err, n+1)
		}
	}
	if got := c.Waiters(); got != 0 {
		t.Errorf("Waiters() = %d, want 0", got)
	}
}

// TestAdvanceReleasesOnlySatisfied registers waiters at every target in
// 1..n in random order and advances in random steps: each Advance must
// release exactly the waiters whose target it reached.
func TestAdvanceReleasesOnlySatisfied(t *testing.T) {
	const n = 200
	c := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
	r := rand.New(rand.NewPCG(1, 2))
	chs := make([]<-chan result, n+1)
	for _, target := range r.Perm(n) {
		chs[target+1] = goWait(t, context.Background(), c, uint64(target+1))
	}
	released := uint64(0)
	for released < n {
		next := min(released+uint64(r.IntN(20)), n)
		mustAdvance(t, c, next)
		for target := released + 1; target <= next; target++ {
			if res := receive(t, chs[target]); res.err != nil || res.rv != next {
				t.Fatalf("WaitFor(%d) = (%d, %v), want (%d, nil)", target, res.rv, res.err, next)
			}
		}
		if got, want := c.Waiters(), int(n-next); got != want {
			t.Fatalf("after Advance(%d): Waiters() = %d, want %d", next, got, want)
		}
		released = next
	}
}

func TestGivenUpWaitersAreRemoved(t *testing.T) {
	const n = 250
	// Separate clocks, so that the waiters meant to give up on ctx cannot
	// time out first on a slow machine.
	timing := rvclock.New(rvclock.Options{WaitTimeout: shortTimeout})
	cancelling := rvclock.New(rvclock.Options{WaitTimeout: longTimeout})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var wg sync.WaitGroup
	timedOut := make(chan error, n)
	cancelled := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := timing.WaitFor(context.Background(), uint64(1+i))
			timedOut <- err
		})
		wg.Go(func() {
			_, err := cancelling.WaitFor(ctx, uint64(1+i))
			cancelled <- err
		})
	}
	waitForWaiters(t, cancelling, n)
	cancel()
	wg.Wait()
	close(timedOut)
	close(cancelled)
	for err := range timedOut {
		if !errors.Is(err, rvclock.ErrTooLarge) {
			t.Errorf("WaitFor = %v, want *TooLargeError", err)
		}
	}
	for err := range cancelled {
		if err != context.Canceled {
			t.Errorf("WaitFor = %v, want context.Canceled", err)
		}
	}
	for name, c := range map[string]*rvclock.Clock{"timed out": timing, "cancelled": cancelling} {
		if got := c.Waiters(); got != 0 {
			t.Errorf("%s: Waiters() = %d, want 0", name, got)
		}
		// The clock still works after removals emptied its heap.
		c.Reset(0)
		ch := goWait(t, context.Background(), c, 3)
		mustAdvance(t, c, 3)
		if r := receive(t, ch); r.err != nil || r.rv != 3 {
			t.Errorf("%s: WaitFor(3) = (%d, %v), want (3, nil)", name, r.rv, r.err)
		}
	}
}

// TestConcurrentUse runs every method at once under -race and checks the
// invariants that must hold whatever the interleaving.
func TestConcurrentUse(t *testing.T) {
	c := rvclock.New(rvclock.Options{WaitTimeout: shortTimeout})
	stop := make(chan struct{})
	var feeders, readers sync.WaitGroup

	feeders.Go(func() { // the feeder
		rv := uint64(0)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			switch i % 50 {
			case 0:
				c.SetPending(errors.New("lost"))
			case 1:
				rv /= 2 // re-list may go back
				c.Reset(rv)
			default:
				rv += uint64(1 + i%3)
				if err := c.Advance(rv); err != nil {
					t.Errorf("Advance(%d) = %v", rv, err)
					return
				}
			}
		}
	})
	for range 8 {
		readers.Go(func() {
			for i := uint64(0); ; i++ {
				// Deadlines of 0-2 ms make some waits give up on ctx while
				// the feeder is releasing others.
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%3)*time.Millisecond)
				target := c.Current() + i%5
				got, err := c.WaitFor(ctx, target)
				cancel()
				switch {
				case err == nil:
					if got < target {
						t.Errorf("WaitFor(%d) = %d, below target", target, got)
					}
				case errors.Is(err, rvclock.ErrStopped):
					return
				case errors.Is(err, rvclock.ErrTooLarge), errors.Is(err, context.DeadlineExceeded):
				default:
					t.Errorf("WaitFor(%d) = %v", target, err)
				}
				_ = c.Ready()
				_ = c.State()
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	close(stop)
	feeders.Wait()
	c.Stop()
	readers.Wait()
	if got := c.Waiters(); got != 0 {
		t.Errorf("Waiters() = %d, want 0", got)
	}
}

func BenchmarkAdvanceNoWaiters(b *testing.B) {
	c := rvclock.New(rvclock.Options{})
	b.ReportAllocs()
	rv := uint64(0)
	for b.Loop() {
		rv++
		if err := c.Advance(rv); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWaitForReached(b *testing.B) {
	c := rvclock.New(rvclock.Options{})
	c.Reset(100)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.WaitFor(ctx, 50); err != nil {
			b.Fatal(err)
		}
	}
}
