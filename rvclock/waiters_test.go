package rvclock

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWaiterHeapModel drives waiterHeap with random push, remove and release
// operations and compares it with a plain slice: release must wake exactly
// the waiters with target ≤ rv, remove must report whether the waiter was
// still registered, and every index must match the waiter's position.
func TestWaiterHeapModel(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, seed))
		var h waiterHeap
		var model []*waiter // registered waiters
		var all []*waiter   // everything ever pushed
		for step := range 2000 {
			switch op := r.IntN(10); {
			case op < 5:
				w := &waiter{target: uint64(r.IntN(100)), ch: make(chan struct{})}
				h.push(w)
				model = append(model, w)
				all = append(all, w)
			case op < 8 && len(all) > 0:
				w := all[r.IntN(len(all))]
				i := slices.Index(model, w)
				if got := h.remove(w); got != (i >= 0) {
					t.Fatalf("seed %d step %d: remove = %v, want %v", seed, step, got, i >= 0)
				}
				if i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
			default:
				rv := uint64(r.IntN(100))
				h.release(rv)
				model = slices.DeleteFunc(model, func(w *waiter) bool {
					if w.target > rv {
						return false
					}
					select {
					case <-w.ch:
					default:
						t.Fatalf("seed %d step %d: waiter %d not released by %d", seed, step, w.target, rv)
					}
					if w.rv != rv || w.index != -1 {
						t.Fatalf("seed %d step %d: released waiter has rv=%d index=%d", seed, step, w.rv, w.index)
					}
					return true
				})
			}
			if len(h) != len(model) {
				t.Fatalf("seed %d step %d: len = %d, want %d", seed, step, len(h), len(model))
			}
			for i, w := range h {
				if w.index != i {
					t.Fatalf("seed %d step %d: h[%d].index = %d", seed, step, i, w.index)
				}
				if !slices.Contains(model, w) {
					t.Fatalf("seed %d step %d: heap holds an unregistered waiter", seed, step)
				}
				select {
				case <-w.ch:
					t.Fatalf("seed %d step %d: registered waiter %d was woken", seed, step, w.target)
				default:
				}
			}
		}
		h.fail(ErrStopped)
		for _, w := range model {
			if _, err := w.result(); err != ErrStopped {
				t.Fatalf("seed %d: after fail, result err = %v", seed, err)
			}
		}
		if len(h) != 0 {
			t.Fatalf("seed %d: len after fail = %d", seed, len(h))
		}
	}
}

// TestWaiterHeapShrink checks that a burst of waiters does not pin its
// backing array once it is gone.
func TestWaiterHeapShrink(t *testing.T) {
	var h waiterHeap
	for i := range 10 * maxIdleCap {
		h.push(&waiter{target: uint64(i), ch: make(chan struct{})})
	}
	h.release(uint64(10 * maxIdleCap))
	if cap(h) > maxIdleCap {
		t.Errorf("cap after release = %d, want ≤ %d", cap(h), maxIdleCap)
	}
}
