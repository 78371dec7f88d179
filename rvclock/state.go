package rvclock

import "strconv"

// State is the readiness of a [Clock] (rule 3.6):
//
//	Pending <------> Ready -----> Stopped
//	   |                             ^
//	   └-----------------------------┘
//
// Pending → Ready on every successful list (Reset), Ready → Pending when the
// source is lost (SetPending), and Stopped is irreversible.
type State int

const (
	// Pending: no list has completed since start or since the source was
	// lost; reads must not be served from the cache (rule 3.7).
	Pending State = iota
	// Ready: the cache reflects etcd up to Current.
	Ready
	// Stopped: the cache is shut down for good; every call fails with
	// ErrStopped.
	Stopped
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case Pending:
		return "Pending"
	case Ready:
		return "Ready"
	case Stopped:
		return "Stopped"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// State returns the current state. It is a single atomic load.
func (c *Clock) State() State { return State(c.state.Load()) }

// Ready returns nil when the clock is Ready, a *NotReadyError when it is
// Pending, and ErrStopped when it is Stopped. The NotReadyError's Since, and
// so its RetryAfterSeconds, is measured from the last state transition
// (rule 3.7), not from the last SetPending call, so repeated list failures
// do not reset the client backoff.
func (c *Clock) Ready() error {
	switch State(c.state.Load()) {
	case Ready:
		return nil
	case Stopped:
		return ErrStopped
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch State(c.state.Load()) { // it may have moved since the lock-free look
	case Ready:
		return nil
	case Stopped:
		return ErrStopped
	}
	return &NotReadyError{Since: c.now().Sub(c.changed), Err: c.lastErr}
}

// SetPending marks the source as lost (the watch ended or failed, rule 3.6):
// Ready → Pending. err, which may be nil, is reported by Ready until the next
// Reset; calling SetPending while already Pending only replaces it, so the
// latest failure is shown. It does nothing once Stopped. The RV and the
// waiters are left alone: the data up to Current is still valid, and waiters
// are bounded by their own timeout.
func (c *Clock) SetPending(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if State(c.state.Load()) == Stopped {
		return
	}
	c.lastErr = err
	c.setStateLocked(Pending)
}

// Stop moves the clock to Stopped for good and fails every blocked WaitFor
// with ErrStopped. Later calls are no-ops.
func (c *Clock) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if State(c.state.Load()) == Stopped {
		return
	}
	c.setStateLocked(Stopped)
	c.waiters.fail(ErrStopped)
}

// setStateLocked records a transition to s; staying in the same state keeps
// the original transition time, as the apiserver's ready.set does.
func (c *Clock) setStateLocked(s State) {
	if State(c.state.Load()) == s {
		return
	}
	c.state.Store(int32(s))
	c.changed = c.now()
}
