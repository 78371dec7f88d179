package fake

import (
	"fmt"
	"sync"
	"testing"
)

// TestObjectLocks checks the per-object locks with their entries pooled: writers of one object
// exclude each other (the race detector sees the counters' writes; the totals count them), writers
// of different objects do not wait for each other, the table is empty once every lock is released,
// and a lock taken and released allocates nothing.
func TestObjectLocks(t *testing.T) {
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cms, nss := s.res["/v1/configmaps"], s.res["/v1/namespaces"]
	const objects, writers, rounds = 3, 8, 200
	counts := make([]int, objects)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range rounds {
				o := (w + i) % objects
				unlock := s.lockObject(cms, "default", fmt.Sprint("c", o))
				counts[o]++ // guarded by the object's lock only
				unlock()
			}
		})
	}
	wg.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != writers*rounds {
		t.Errorf("%d increments, want %d", total, writers*rounds)
	}
	// Another object's lock, and a cluster-scoped resource's (whose namespace is ignored), is
	// free while one is held.
	unlock := s.lockObject(cms, "default", "c0")
	s.lockObject(cms, "other", "c0")()
	s.lockObject(nss, "x", "c0")()
	s.lockObject(nss, "", "c0")()
	unlock()
	s.locks.mu.Lock()
	left := len(s.locks.m)
	s.locks.mu.Unlock()
	if left != 0 {
		t.Errorf("%d entries left in the table", left)
	}
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(100, func() { s.lockObject(cms, "default", "c")() }); n != 0 {
		t.Errorf("a lock taken and released allocates %v times", n)
	}
}
