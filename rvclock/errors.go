package rvclock

import (
	"errors"
	"math"
	"strconv"
	"time"
)

// ErrRegression is matched (via errors.Is) by the *RegressionError that
// [Clock.Advance] returns when asked to move the RV backwards. Only a re-list
// may do that, through [Clock.Reset] (rule 3.1).
var ErrRegression = errors.New("rvclock: resourceVersion went backwards")

// ErrStopped is returned by [Clock.Advance], [Clock.Ready] and
// [Clock.WaitFor] once [Clock.Stop] has been called, including to waiters
// that were blocked when Stop ran. The text is the apiserver's own (rule 3.6)
// and deliberately carries no package prefix, because the edge passes it to
// clients verbatim.
var ErrStopped = errors.New("apiserver cacher is stopped")

// ErrTooLarge is matched (via errors.Is) by the *TooLargeError that
// [Clock.WaitFor] returns when the clock did not reach the requested RV
// within the wait timeout (rules 3.3, 3.4).
var ErrTooLarge = errors.New("rvclock: too large resource version")

// ErrNotReady is matched (via errors.Is) by the *NotReadyError that
// [Clock.Ready] returns while the clock is Pending (rules 3.6, 3.7).
var ErrNotReady = errors.New("rvclock: not ready")

// RegressionError is returned by [Clock.Advance] when Got is below the
// current RV. It signals a bug in the feeder (events out of order), not a
// condition to retry.
type RegressionError struct {
	Current uint64 // the clock's RV when Advance was called
	Got     uint64 // the RV Advance was called with
}

// Error returns the message with both RVs.
func (e *RegressionError) Error() string {
	return "rvclock: resourceVersion went backwards: got " + strconv.FormatUint(e.Got, 10) +
		", current " + strconv.FormatUint(e.Current, 10)
}

// Is reports whether target is [ErrRegression].
func (e *RegressionError) Is(target error) bool { return target == ErrRegression }

// TooLargeError is returned by [Clock.WaitFor] when the wait timeout expired
// before the clock reached Requested (rule 3.3).
type TooLargeError struct {
	Requested uint64 // the RV the caller waited for
	Current   uint64 // the clock's RV when the wait gave up
}

// Error returns exactly the apiserver's message body (rule 3.4,
// storage.NewTooLargeResourceVersionError). It has no package prefix because
// the edge wraps it as "Timeout: <this>" in the Status it sends.
func (e *TooLargeError) Error() string {
	return "Too large resource version: " + strconv.FormatUint(e.Requested, 10) +
		", current: " + strconv.FormatUint(e.Current, 10)
}

// Is reports whether target is [ErrTooLarge].
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// RetryAfterSeconds is always 1: the apiserver's
// resourceVersionTooHighRetrySeconds (rule 3.4). The cache is usually only
// milliseconds behind, so clients should come back soon.
func (e *TooLargeError) RetryAfterSeconds() int { return 1 }

// NotReadyError is returned by [Clock.Ready] while the clock is Pending: it
// has not completed its first list yet, or lost its source and is re-listing.
type NotReadyError struct {
	// Since is how long the clock has been Pending, measured with
	// Options.Now when Ready built the error.
	Since time.Duration
	// Err is why the source was lost, as passed to SetPending; nil before
	// the first list.
	Err error
}

// Error returns the apiserver's message (rule 3.6).
func (e *NotReadyError) Error() string {
	if e.Err == nil {
		return "storage is (re)initializing"
	}
	return "storage is (re)initializing: " + e.Err.Error()
}

// Is reports whether target is [ErrNotReady].
func (e *NotReadyError) Is(target error) bool { return target == ErrNotReady }

// Unwrap returns the cause passed to SetPending, if any.
func (e *NotReadyError) Unwrap() error { return e.Err }

// Bounds and growth of the not-ready Retry-After (rule 3.7,
// calculateRetryAfterForUnreadyCache): exp(0.06·s) stays at 1 s for the
// first ~11 s of an outage, then backs clients off so that a long re-list is
// not hammered, reaching the 30 s cap after ~57 s.
const (
	retryAfterGrowth = 0.06
	minRetryAfter    = 1
	maxRetryAfter    = 30
)

// RetryAfterSeconds is clamp(int(exp(0.06·Since)), 1, 30) (rule 3.7).
func (e *NotReadyError) RetryAfterSeconds() int {
	// Clamp in float64 before converting: for very long outages exp
	// overflows to +Inf, and int(+Inf) is implementation-defined.
	r := math.Exp(retryAfterGrowth * e.Since.Seconds())
	if r >= maxRetryAfter {
		return maxRetryAfter
	}
	if r < minRetryAfter {
		return minRetryAfter
	}
	return int(r)
}
