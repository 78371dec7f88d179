package rvclock

import "container/heap"

// waiter is one blocked WaitFor call. The waker (Advance, Reset or Stop)
// fills rv and err, then closes ch; closing publishes those fields to the
// waiting goroutine.
type waiter struct {
	target uint64
	index  int // position in waiterHeap; -1 once popped or removed
	ch     chan struct{}
	rv     uint64 // the RV that released the waiter
	err    error  // ErrStopped when released by Stop
}

// waiterHeap is a min-heap of waiters by target RV, so that an Advance
// releases exactly the waiters it satisfies by popping from the top, in
// O(k log n) for k released waiters, and an idle clock costs nothing per
// waiter. It implements heap.Interface; use it only through container/heap
// and the helpers below, with Clock.mu held.
type waiterHeap []*waiter

func (h waiterHeap) Len() int           { return len(h) }
func (h waiterHeap) Less(i, j int) bool { return h[i].target < h[j].target }

func (h waiterHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *waiterHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}

func (h *waiterHeap) Pop() any {
	old := *h
	n := len(old) - 1
	w := old[n]
	old[n] = nil // let the waiter be collected
	w.index = -1
	*h = old[:n]
	return w
}

// maxIdleCap is the heap capacity kept once the heap empties. A burst of
// thousands of waiters (e.g. every client re-listing after an apiserver
// restart) should not pin its backing array forever; 256 slots (2 KiB)
// cover the steady state without regrowing.
const maxIdleCap = 256

// push registers w.
func (h *waiterHeap) push(w *waiter) { heap.Push(h, w) }

// release pops and wakes every waiter whose target is at most rv.
func (h *waiterHeap) release(rv uint64) {
	for len(*h) > 0 && (*h)[0].target <= rv {
		w := heap.Pop(h).(*waiter)
		w.rv = rv
		close(w.ch)
	}
	h.shrink()
}

// remove takes w out of the heap if it is still there and reports whether
// it was; false means a waker already released it.
func (h *waiterHeap) remove(w *waiter) bool {
	if w.index < 0 {
		return false
	}
	heap.Remove(h, w.index)
	h.shrink()
	return true
}

// fail wakes every waiter with err and empties the heap.
func (h *waiterHeap) fail(err error) {
	for _, w := range *h {
		w.index = -1
		w.err = err
		close(w.ch)
	}
	*h = nil
}

func (h *waiterHeap) shrink() {
	if len(*h) == 0 && cap(*h) > maxIdleCap {
		*h = nil
	}
}
