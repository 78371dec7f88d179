package watchcache

import (
	"fmt"
	"testing"
	"time"
)

// TestEventQueueBudget: a push fails once the queue would exceed its bytes or its count, or when
// events have waited longer than the stall time for a consumer that delivered nothing meanwhile;
// a consumer that delivers (initial events) is never stalled, and an empty queue accepts anything.
func TestEventQueueBudget(t *testing.T) {
	obj := make([]byte, 1000)
	ev := wevent{typ: Modified, obj: obj, rv: 1}
	const cost = 1000 + queuedEventCost
	sec := time.Second
	tests := []struct {
		name   string
		budget queueBudget
		// pushes at these times (s); progress, if > 0, is recorded before the last push
		at       []time.Duration
		progress time.Duration
		want     []bool
	}{
		{"bytes", queueBudget{bytes: 3 * cost, stall: 10 * sec}, []time.Duration{0, 0, 0, 0}, 0, []bool{true, true, true, false}},
		{"first event always", queueBudget{bytes: 10, stall: sec}, []time.Duration{0, 0}, 0, []bool{true, false}},
		{"count", queueBudget{bytes: 1 << 20, events: 2, stall: 10 * sec}, []time.Duration{0, 0, 0}, 0, []bool{true, true, false}},
		{"stalled", queueBudget{bytes: 1 << 20, stall: 2 * sec}, []time.Duration{1 * sec, 2 * sec, 4 * sec}, 0, []bool{true, true, false}},
		{"waiting, not stalled", queueBudget{bytes: 1 << 20, stall: 2 * sec}, []time.Duration{1 * sec, 2 * sec, 3 * sec}, 0, []bool{true, true, true}},
		{"delivering other events", queueBudget{bytes: 1 << 20, stall: 2 * sec}, []time.Duration{1 * sec, 5 * sec, 9 * sec}, 8 * sec, []bool{true, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newEventQueue()
			q.progress.Store(0)
			for i, at := range tt.at {
				if i == len(tt.at)-1 && tt.progress > 0 {
					q.progress.Store(int64(tt.progress))
				}
				if got := q.push(ev, at, tt.budget); got != tt.want[i] {
					t.Fatalf("push %d at %v = %t, want %t", i, at, got, tt.want[i])
				}
				if !tt.want[i] {
					// The dispatcher closes a watcher over its budget; here, keep probing.
					continue
				}
			}
		})
	}
}

// TestEventQueueTakeAndClose: take hands out everything queued in order and frees the budget;
// close delivers what is queued (or drops it), then take reports the end.
func TestEventQueueTakeAndClose(t *testing.T) {
	b := queueBudget{bytes: 2 * (10 + queuedEventCost), stall: time.Hour}
	q := newEventQueue()
	push := func(rv uint64) bool { return q.push(wevent{obj: make([]byte, 10), rv: rv}, sinceEpoch(), b) }
	if !push(1) || !push(2) || push(3) {
		t.Fatal("budget of two events not applied")
	}
	evs, open := q.take()
	if !open || len(evs) != 2 || evs[0].rv != 1 || evs[1].rv != 2 {
		t.Fatalf("take = %v, %t", evs, open)
	}
	if !push(3) || !push(4) {
		t.Fatal("take did not free the budget")
	}
	q.close(false)
	if !push(5) {
		t.Fatal("push to a closed queue must not ask for another close")
	}
	if evs, open = q.take(); !open || len(evs) != 2 || evs[0].rv != 3 {
		t.Fatalf("after close: take = %v, %t; want the queued 3, 4", evs, open)
	}
	if evs, open = q.take(); open || len(evs) != 0 {
		t.Fatalf("closed and empty: take = %v, %t", evs, open)
	}
	d := newEventQueue()
	d.push(wevent{rv: 1}, sinceEpoch(), b)
	d.close(true)
	if evs, open := d.take(); open || len(evs) != 0 {
		t.Fatalf("dropped: take = %v, %t", evs, open)
	}
}

// A watch-list whose client reads its initial events slowly keeps its stream while live events
// pile up behind them — far more than any fixed queue of the apiserver's sizes (rule 5.9) — and
// gets every one of them, in order, in that one stream.
func TestWatchListSlowReaderNotCut(t *testing.T) {
	c := newPodCache(t)
	const initial, live = 300, 1000
	var objs [][]byte
	for i := range initial {
		objs = append(objs, pod("a", fmt.Sprintf("p%04d", i), "n1", "", uint64(i+1)))
	}
	if err := c.Replace(objs, initial); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	yes := true
	w := watch(t, c, WatchOptions{SendInitialEvents: &yes, ResourceVersionMatch: MatchNotOlderThan, AllowWatchBookmarks: true})
	first := <-w.Events()
	if first.Type != Added {
		t.Fatalf("first event %v", first.Type)
	}
	for i := range live {
		mustApply(t, c, Modified, pod("a", fmt.Sprintf("p%04d", i%initial), "n2", "", 0), uint64(initial+1+i))
	}
	n, modified, last := 1, 0, uint64(0)
	for ev := range w.Events() {
		if n < initial {
			time.Sleep(200 * time.Microsecond) // a client decoding its initial events
		}
		switch ev.Type {
		case Added:
			n++
		case Modified:
			if ev.ResourceVersion != last+1 && last != 0 {
				t.Fatalf("gap: %d after %d", ev.ResourceVersion, last)
			}
			last = ev.ResourceVersion
			if modified++; modified == live {
				w.Stop()
			}
		}
	}
	if n != initial || modified != live {
		t.Fatalf("stream ended after %d initial and %d live events, want %d and %d", n, modified, initial, live)
	}
}

// A watcher whose client stops reading is closed once queued events have waited Options.WatchStall
// (and the events it had not taken are dropped with it); Apply never waits for it.
func TestStalledWatcherIsClosed(t *testing.T) {
	c := smallCache(t, func(o *Options) { o.WatchStall = 50 * time.Millisecond })
	w := watch(t, c, WatchOptions{ResourceVersion: "10"})
	mustApply(t, c, Modified, pod("a", "p1", "n1", "", 0), 11)
	time.Sleep(20 * time.Millisecond) // the watcher takes the event and waits to hand it over
	for rv := uint64(12); rv < 40; rv++ {
		mustApply(t, c, Modified, pod("a", "p1", "n1", "", 0), rv)
		time.Sleep(5 * time.Millisecond)
	}
	waitFor(t, func() bool { return c.Watchers() == 0 })
	var got []uint64
	for ev := range w.Events() {
		got = append(got, ev.ResourceVersion)
	}
	if len(got) == 0 || len(got) > 2 || got[0] != 11 {
		t.Fatalf("stalled watcher delivered %v, want 11 (and at most the one it held)", got)
	}
}
