// Package rvclock is the watch cache's resourceVersion clock: the RV up to
// which the cache has applied etcd's history, plus the cache's readiness.
//
// It reproduces three pieces of the kube-apiserver cacher (see
// reference/apiserver-semantics.md §3):
//
//   - The cache RV (rule 3.1). The feeder calls [Clock.Advance] for every
//     event and bookmark (monotonic; an equal RV is a repeated bookmark and is
//     ignored) and [Clock.Reset] after every successful re-list, the only
//     moment the RV may go backwards.
//   - waitUntilFreshLocked (rule 3.3). [Clock.WaitFor] blocks a reader until
//     the cache has caught up with the RV it asked for, for at most
//     [DefaultWaitTimeout] measured from entry, then fails with
//     [*TooLargeError], which the HTTP edge turns into
//     "504 Timeout: Too large resource version" with Retry-After: 1 (rule 3.4).
//   - The ready state machine (rule 3.6): Pending → Ready on each re-list,
//     Ready → Pending when the source is lost ([Clock.SetPending]), and an
//     irreversible Stopped. [Clock.Ready] returns the error a request must
//     fail with while the cache is not usable, including the Retry-After
//     backoff of rule 3.7.
//
// Waiting is cheap: waiters sit in a min-heap keyed by target RV, so an idle
// clock costs nothing per waiter and an Advance touches only the waiters it
// releases.
package rvclock
