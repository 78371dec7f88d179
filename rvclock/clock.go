package rvclock

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultWaitTimeout bounds [Clock.WaitFor] when Options.WaitTimeout is 0.
// It is the apiserver's blockTimeout (rule 3.3): long enough for a few
// 100 ms progress-notify rounds to bring a lagging cache up to date, short
// enough that a client asking for an RV from the future gets a retryable
// 504 rather than a hung request.
const DefaultWaitTimeout = 3 * time.Second

// Options configures a [Clock]. The zero value is ready to use.
type Options struct {
	// WaitTimeout bounds WaitFor; 0 means DefaultWaitTimeout (3s, the
	// apiserver's blockTimeout, rule 3.3).
	WaitTimeout time.Duration
	// Now is the time source for readiness durations (tests); nil means
	// time.Now. It does not affect WaitTimeout, which always uses real timers.
	Now func() time.Time
}

// Clock is the cache's resourceVersion and readiness (rules 3.1, 3.3, 3.6).
//
// All methods are safe for concurrent use. Typically one goroutine (the
// feeder applying the etcd watch) calls Advance, Reset, SetPending and Stop,
// while any number of request goroutines call Current, Ready and WaitFor.
// Current and State are lock-free. Create a Clock with [New]; do not copy it.
type Clock struct {
	rv    atomic.Uint64 // written only with mu held, read lock-free
	state atomic.Int32  // a State; written only with mu held, read lock-free

	timeout time.Duration
	now     func() time.Time

	mu      sync.Mutex
	changed time.Time // time of the last state transition, for NotReadyError.Since
	lastErr error     // cause passed to SetPending; cleared by Reset
	waiters waiterHeap
}

// New returns a Clock at RV 0 in state Pending: the cache is unusable until
// its first list completes and the feeder calls Reset (rule 3.6).
func New(opts Options) *Clock {
	c := &Clock{timeout: opts.WaitTimeout, now: opts.Now}
	if c.timeout <= 0 {
		c.timeout = DefaultWaitTimeout
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.state.Store(int32(Pending))
	c.changed = c.now()
	return c
}

// Current returns the RV the cache has applied everything up to. It is a
// single atomic load.
func (c *Clock) Current() uint64 { return c.rv.Load() }

// Advance moves the clock to rv after the feeder applied an event or a
// bookmark with that RV (rule 3.1), and releases the waiters it satisfies.
//
// RVs are etcd-global revisions, so gaps are normal. An rv equal to the
// current one is a no-op, because progress notifications and bookmarks may
// repeat the last RV. An rv below the current one returns a
// *RegressionError and leaves the clock unchanged: only a re-list may go
// back, through Reset. Advancing while Pending is allowed and does not change
// the state; after Stop it returns ErrStopped.
func (c *Clock) Advance(rv uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if State(c.state.Load()) == Stopped {
		return ErrStopped
	}
	cur := c.rv.Load()
	switch {
	case rv < cur:
		return &RegressionError{Current: cur, Got: rv}
	case rv == cur:
		return nil
	}
	c.rv.Store(rv)
	c.waiters.release(rv)
	return nil
}

// Reset sets the clock to rv after a successful (re-)list, even if rv is
// below the current RV (a re-list against a restored etcd may go back), and
// makes the clock Ready (rules 3.1, 3.6). Waiters whose target is at most rv
// are released; the others keep waiting. Reset clears the cause recorded by
// SetPending. On a stopped clock it does nothing: Stop is irreversible and
// freezes the RV, as Advance does by returning ErrStopped.
func (c *Clock) Reset(rv uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if State(c.state.Load()) == Stopped {
		return
	}
	c.rv.Store(rv)
	c.lastErr = nil
	c.setStateLocked(Ready)
	c.waiters.release(rv)
}

// WaitFor blocks until the clock reaches rv and returns the RV that
// satisfied it, which is at least rv. This is the apiserver's
// waitUntilFreshLocked (rule 3.3): it returns at once when rv is 0 or already
// reached, otherwise it waits at most the wait timeout, measured from entry
// and independent of ctx, and then returns a *TooLargeError carrying rv and
// the RV reached so far (rule 3.4).
//
// WaitFor does not check readiness, so that a caller can wait for the first
// list; callers that need a Ready cache call Ready first. It returns
// ErrStopped if the clock is stopped before or during the wait, and ctx.Err()
// if ctx is done first. On error the returned RV is 0.
//
// A blocked WaitFor holds no lock and is not polled; it is released by the
// Advance, Reset or Stop that satisfies it and removes itself from the clock
// when it gives up, so abandoned waits do not accumulate.
func (c *Clock) WaitFor(ctx context.Context, rv uint64) (uint64, error) {
	if State(c.state.Load()) == Stopped {
		return 0, ErrStopped
	}
	if cur := c.rv.Load(); rv == 0 || cur >= rv {
		return cur, nil
	}
	timer := time.NewTimer(c.timeout)
	defer timer.Stop()

	c.mu.Lock()
	// Re-check under mu: Advance stores the RV and releases waiters under the
	// same lock, so a waiter registered here cannot miss its wake-up.
	if State(c.state.Load()) == Stopped {
		c.mu.Unlock()
		return 0, ErrStopped
	}
	if cur := c.rv.Load(); cur >= rv {
		c.mu.Unlock()
		return cur, nil
	}
	w := &waiter{target: rv, ch: make(chan struct{})}
	c.waiters.push(w)
	c.mu.Unlock()

	var ctxDone bool
	select {
	case <-w.ch:
		return w.result()
	case <-timer.C:
	case <-ctx.Done():
		ctxDone = true
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.waiters.remove(w) {
		// Released while we were giving up; the wake-up wins, since the
		// caller's condition now holds (or the clock is stopped).
		return w.result()
	}
	if ctxDone {
		return 0, ctx.Err()
	}
	return 0, &TooLargeError{Requested: rv, Current: c.rv.Load()}
}

// Waiters returns the number of WaitFor calls currently blocked, for tests
// and metrics.
func (c *Clock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

func (w *waiter) result() (uint64, error) {
	if w.err != nil {
		return 0, w.err
	}
	return w.rv, nil
}
