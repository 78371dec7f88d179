package informer

import (
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
)

// notification is one call to make on a handler.
type notification struct {
	kind     uint8 // notifyAdd, notifyUpdate, notifyDelete, notifySynced
	old, obj any
	initial  bool
}

const (
	notifyAdd uint8 = iota
	notifyUpdate
	notifyDelete
	notifySynced // not a call: the handler has been given its initial list
)

// listener delivers notifications to one handler on its own goroutine, from an unbounded queue, as
// client-go's processorListener does: a slow handler delays only itself, never the informer.
type listener struct {
	h      cache.ResourceEventHandler
	resync time.Duration

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []notification
	spare   []notification // the last delivered batch, emptied: the next queue, so a busy listener allocates no queue per event
	stopped bool

	synced chan struct{} // closed once the initial list has been delivered
	name   string
	done   chan struct{} // closed when the goroutine has returned
}

func newListener(h cache.ResourceEventHandler, resync time.Duration, name string) *listener {
	l := &listener{h: h, resync: resync, synced: make(chan struct{}), name: name, done: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	go l.run()
	return l
}

func (l *listener) add(n notification) {
	l.mu.Lock()
	if !l.stopped {
		l.queue = append(l.queue, n)
		l.cond.Signal()
	}
	l.mu.Unlock()
}

// stop ends the goroutine after the notification being delivered; queued ones are dropped.
func (l *listener) stop() {
	l.mu.Lock()
	l.stopped = true
	l.queue, l.spare = nil, nil
	l.cond.Signal()
	l.mu.Unlock()
}

func (l *listener) run() {
	defer close(l.done)
	for {
		l.mu.Lock()
		for len(l.queue) == 0 && !l.stopped {
			l.cond.Wait()
		}
		if l.stopped {
			l.mu.Unlock()
			return
		}
		batch := l.queue
		l.queue, l.spare = l.spare[:0], nil
		l.mu.Unlock()
		for i := range batch {
			n := &batch[i]
			switch n.kind {
			case notifyAdd:
				l.h.OnAdd(n.obj, n.initial)
			case notifyUpdate:
				l.h.OnUpdate(n.old, n.obj)
			case notifyDelete:
				l.h.OnDelete(n.obj)
			case notifySynced:
				close(l.synced)
			}
			batch[i] = notification{} // let delivered objects go
		}
		l.mu.Lock()
		if cap(batch) <= maxSpare {
			l.spare = batch[:0]
		}
		l.mu.Unlock()
	}
}

// maxSpare bounds the batch a listener keeps for reuse: a handler that fell behind by a whole
// initial list (thousands of notifications) does not keep that much memory for good.
const maxSpare = 1024

// HasSynced reports whether the informer has synced and this handler has been given every object
// of the initial list.
func (l *listener) HasSynced() bool {
	select {
	case <-l.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker returns the same as a cache.DoneChecker.
func (l *listener) HasSyncedChecker() cache.DoneChecker {
	return doneChecker{name: l.name, ch: l.synced}
}

// doneChecker is a cache.DoneChecker over a channel.
type doneChecker struct {
	name string
	ch   <-chan struct{}
}

func (d doneChecker) Name() string          { return d.name }
func (d doneChecker) Done() <-chan struct{} { return d.ch }
