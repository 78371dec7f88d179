package watchcache

import (
	"context"
	"testing"
	"time"
)

// TestStats checks each figure of Stats after the step that changes it.
func TestStats(t *testing.T) {
	c := newPodCache(t, func(o *Options) { o.WatchBuffer = 2; o.WindowEvents = 3 })
	defer c.Stop()
	// The watch below is never read: its goroutine ends with its context (goleak checks).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps := []struct {
		name string
		do   func(t *testing.T)
		want func(s Stats) bool
	}{
		{"empty", func(*testing.T) {}, func(s Stats) bool { return s == Stats{} }},
		{"first list", func(t *testing.T) {
			if err := c.Replace([][]byte{pod("a", "p1", "n1", "", 0), pod("a", "p2", "n1", "", 0)}, 10); err != nil {
				t.Fatal(err)
			}
		}, func(s Stats) bool {
			return s.Objects == 2 && s.ResourceVersion == 10 && s.Relists == 1 && s.EventsApplied == 0 && s.WindowEvents == 1
		}},
		{"events", func(t *testing.T) {
			mustApply(t, c, Added, pod("a", "p3", "n1", "", 0), 11)
			mustApply(t, c, Deleted, pod("a", "p1", "n1", "", 0), 12)
		}, func(s Stats) bool {
			return s.Objects == 2 && s.ResourceVersion == 12 && s.EventsApplied == 2 && s.WindowEvents == 3
		}},
		{"bookmark", func(t *testing.T) {
			if err := c.Apply(Event{Type: Bookmark, ResourceVersion: 20}); err != nil {
				t.Fatal(err)
			}
		}, func(s Stats) bool { return s.ResourceVersion == 20 && s.EventsApplied == 2 }},
		{"window bound", func(t *testing.T) {
			for i := range 5 {
				mustApply(t, c, Modified, pod("a", "p2", "n1", "", 0), uint64(21+i))
			}
		}, func(s Stats) bool { return s.EventsApplied == 7 && s.WindowEvents == 3 }},
		{"watcher", func(t *testing.T) {
			if _, err := c.Watch(ctx, WatchOptions{ResourceVersion: "25"}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, func() bool { return c.Watchers() == 1 })
		}, func(s Stats) bool { return s.Watchers == 1 && s.WatchersBehind == 0 }},
		{"watcher behind", func(t *testing.T) {
			// Nobody reads the watch: a buffer of 2 overflows.
			for i := range 10 {
				mustApply(t, c, Modified, pod("a", "p2", "n1", "", 0), uint64(30+i))
			}
			waitFor(t, func() bool { return c.Watchers() == 0 })
		}, func(s Stats) bool { return s.Watchers == 0 && s.WatchersBehind == 1 && s.EventsApplied == 17 }},
	}
	for _, st := range steps {
		st.do(t)
		deadline := time.Now().Add(2 * time.Second)
		s := c.Stats()
		for !st.want(s) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
			s = c.Stats()
		}
		if !st.want(s) {
			t.Fatalf("after %s: Stats() = %+v", st.name, s)
		}
	}
}
