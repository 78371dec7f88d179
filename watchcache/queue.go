package watchcache

import (
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a watcher's budget.
const (
	// DefaultWatchQueueBytes bounds the bytes of the objects queued for one watcher (plus
	// queuedEventCost each). A watch-list's live events queue up behind its initial events for as
	// long as the client takes to read them: a reflector decodes ≈5,000 pods/s, so a 100,000-pod
	// sync takes ≈20 s, during which 100 changes/s of 4 KiB pods queue 8 MiB. The queued objects
	// are mostly the records the cache holds anyway; what a watcher pins beyond them is bounded
	// by this. (kube-apiserver bounds a watcher at 10–1000 events and 100 ms of blocking, rule
	// 5.9, 5.10: under churn it closes such a watch-list before its initial events end.)
	DefaultWatchQueueBytes = 16 << 20
	// DefaultWatchStall is how long a watcher may take nothing while events wait for it before it
	// is closed: a client that stopped reading (its connection's buffers full) is dropped, one
	// that reads — however long its initial events take — is not. Long against any pause of a
	// live client (a GC, a scheduling delay), short against the window (rule 5.3), so that the
	// client can resume from its last resourceVersion.
	DefaultWatchStall = 10 * time.Second
	// queuedEventCost is what one queued event costs besides its object: the queue entry (40 B)
	// and its share of the queue's slices.
	queuedEventCost = 64
)

// epoch is the origin of the queues' monotonic timestamps.
var epoch = time.Now()

// sinceEpoch is a monotonic timestamp (time.Since reads the monotonic clock).
func sinceEpoch() time.Duration { return time.Since(epoch) }

// eventQueue is a watcher's queue of live events: the dispatcher pushes under Cache.mu and never
// waits; the watcher's goroutine takes everything queued at once. A push that would exceed the
// watcher's budget — bytes, the event count if set, or a consumer that made no progress for the
// stall time while events waited — fails, and the dispatcher closes the watcher.
//
// Concurrency: push and close are called with Cache.mu held (one writer); take, wait and
// progressed by the watcher's goroutine; the queue's own mutex orders them.
type eventQueue struct {
	mu    sync.Mutex
	evs   []wevent
	spare []wevent // the slice take handed out last, reused once the consumer comes back
	bytes int
	// since is when the queue last became non-empty; with progress it tells a stalled consumer
	// from one that is busy with earlier events (the initial ones).
	since  time.Duration
	closed bool
	ready  chan struct{} // one token: events or the close are waiting

	// progress is when the consumer last delivered an event (sinceEpoch).
	progress atomic.Int64
}

// queueBudget is the bound of one watcher's queue.
type queueBudget struct {
	bytes  int
	events int // 0: no bound on the count
	stall  time.Duration
}

func newEventQueue() *eventQueue {
	q := &eventQueue{ready: make(chan struct{}, 1)}
	q.progress.Store(int64(sinceEpoch()))
	return q
}

// push queues ev unless that would exceed the budget b at time now; false means the watcher is
// over its budget and must be closed. A closed queue accepts nothing (true: nothing to close).
func (q *eventQueue) push(ev wevent, now time.Duration, b queueBudget) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return true
	}
	cost := len(ev.obj) + queuedEventCost
	if n := len(q.evs); n > 0 {
		busy := max(q.since, time.Duration(q.progress.Load()))
		if q.bytes+cost > b.bytes || (b.events > 0 && n >= b.events) || now-busy > b.stall {
			return false
		}
	} else {
		q.since = now
	}
	q.evs = append(q.evs, ev)
	q.bytes += cost
	q.signal()
	return true
}

func (q *eventQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// close ends the queue: the consumer gets what is queued, then open=false from take. With drop,
// the queued events are discarded (a watcher closed for its budget resumes from its last RV: the
// window has them, and the memory is freed now).
func (q *eventQueue) close(drop bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	if drop {
		clear(q.evs)
		q.evs, q.bytes = q.evs[:0], 0
	}
	q.signal()
}

// take returns every queued event, in order, and whether the queue is still open (false once it
// is closed and nothing is left). The slice is valid until the next take.
func (q *eventQueue) take() ([]wevent, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs := q.evs
	if len(evs) == 0 {
		return nil, !q.closed
	}
	clear(q.spare) // the previous batch's references, kept alive by nothing else
	q.evs, q.spare = q.spare[:0], evs
	q.bytes = 0
	q.progress.Store(int64(sinceEpoch()))
	return evs, true
}

// progressed records that the consumer delivered an event (an initial one, a replayed one or a
// queued one), so that a consumer busy with its initial events is not taken for a stalled one.
func (q *eventQueue) progressed() { q.progress.Store(int64(sinceEpoch())) }
