package watchcache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"go.uber.org/goleak"

	"github.com/watchcache/watchcache/index"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type seen struct {
	typ  EventType
	name string
	rv   uint64
	end  bool
}

func (s seen) String() string { return fmt.Sprintf("%s %s@%d", s.typ, s.name, s.rv) }

// collectEvents reads events until n have arrived or the timeout passes.
func collectEvents(t *testing.T, w *Watcher, n int, timeout time.Duration) []seen {
	t.Helper()
	var out []seen
	deadline := time.After(timeout)
	for len(out) < n {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				return out
			}
			s := seen{typ: ev.Type, rv: ev.ResourceVersion, end: ev.InitialEventsEnd}
			if ev.Object != nil {
				s.name = names([][]byte{ev.Object})[0]
				if got := gjsonRV(ev.Object); got != fmt.Sprint(ev.ResourceVersion) && ev.Type != Added {
					t.Errorf("%s object RV %s != event RV %d", ev.Type, got, ev.ResourceVersion)
				}
			}
			if ev.Err != nil {
				s.name = ToStatus(ev.Err).ErrStatus.Message
			}
			out = append(out, s)
		case <-deadline:
			return out
		}
	}
	return out
}

func watch(t *testing.T, c *Cache, o WatchOptions) *Watcher {
	t.Helper()
	w, err := c.Watch(context.Background(), o)
	if err != nil {
		t.Fatalf("Watch(%+v): %v", o, err)
	}
	t.Cleanup(w.Stop)
	return w
}

func smallCache(t *testing.T, opts ...func(*Options)) *Cache {
	c := newPodCache(t, opts...)
	if err := c.Replace([][]byte{
		pod("a", "p1", "n1", "app=web", 5),
		pod("a", "p2", "n2", "app=db", 6),
		pod("b", "p3", "n1", "app=web", 7),
	}, 10); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

func TestWatchStartRules(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		o    WatchOptions
		want []seen
	}{
		{"rule 5.1/0.7: RV unset is a watch-list, initial ADDED in key order", WatchOptions{},
			[]seen{{Added, "a/p1", 5, false}, {Added, "a/p2", 6, false}, {Added, "b/p3", 7, false}, {Modified, "a/p1", 11, false}}},
		{"rule 5.8: watch-list with bookmarks ends initial events with the marker", WatchOptions{ResourceVersion: "0", AllowWatchBookmarks: true},
			[]seen{{Added, "a/p1", 5, false}, {Added, "a/p2", 6, false}, {Added, "b/p3", 7, false}, {Bookmark, "", 10, true}, {Modified, "a/p1", 11, false}}},
		{"rule 5.1: S=false RV=0 starts now", WatchOptions{ResourceVersion: "0", SendInitialEvents: &no, ResourceVersionMatch: MatchNotOlderThan},
			[]seen{{Modified, "a/p1", 11, false}, {Deleted, "a/p2", 12, false}}},
		{"rule 5.1: S=true with selector", WatchOptions{ResourceVersion: "10", SendInitialEvents: &yes, ResourceVersionMatch: MatchNotOlderThan, LabelSelector: "app=db"},
			[]seen{{Added, "a/p2", 6, false}, {Deleted, "a/p2", 12, false}}},
		{"rule 5.1: RV=N at the list RV starts with the next event", WatchOptions{ResourceVersion: "10"},
			[]seen{{Modified, "a/p1", 11, false}, {Deleted, "a/p2", 12, false}}},
		{"rule 5.12: namespace scope", WatchOptions{ResourceVersion: "0", Namespace: "b"},
			[]seen{{Added, "b/p3", 7, false}, {Added, "b/p4", 13, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := smallCache(t)
			w := watch(t, c, tt.o)
			// No pause: a watch whose start the cache has reached is registered when Watch
			// returns, so the writes right after it are its events, never its initial state.
			mustApply(t, c, Modified, pod("a", "p1", "n1", "app=web,v=2", 0), 11)
			mustApply(t, c, Deleted, pod("a", "p2", "n2", "app=db", 0), 12)
			mustApply(t, c, Added, pod("b", "p4", "n3", "app=x", 0), 13)
			got := collectEvents(t, w, len(tt.want), 2*time.Second)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("events = %v\nwant     %v", got, tt.want)
			}
		})
	}
}

func TestWatchReplayAndTooOld(t *testing.T) {
	c := smallCache(t, func(o *Options) { o.WindowEvents = 3 })
	for i := range 5 {
		mustApply(t, c, Modified, pod("a", "p1", "n1", "app=web", 0), uint64(20+i))
	}
	// Window holds RVs 22, 23, 24; oldest-1 = 21 is the oldest watchable RV (rule 5.3).
	w := watch(t, c, WatchOptions{ResourceVersion: "21"})
	got := collectEvents(t, w, 3, time.Second)
	want := []seen{{Modified, "a/p1", 22, false}, {Modified, "a/p1", 23, false}, {Modified, "a/p1", 24, false}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("replay = %v, want %v", got, want)
	}
	w = watch(t, c, WatchOptions{ResourceVersion: "20"})
	ev, ok := <-w.Events()
	if !ok || ev.Type != Error || !errors.Is(ev.Err, ErrExpired) {
		t.Fatalf("too-old watch: %+v", ev)
	}
	if st := ToStatus(ev.Err).ErrStatus; st.Code != 410 || st.Message != "too old resource version: 20 (21)" {
		t.Fatalf("too-old status = %d %q (rule 5.3)", st.Code, st.Message)
	}
	if _, ok := <-w.Events(); ok {
		t.Fatal("stream not closed after the ERROR event (rule 5.1)")
	}
	// After a re-list, anything below the list RV is too old, however recent (rule 5.3).
	if err := c.Replace([][]byte{pod("a", "p1", "n1", "", 30)}, 40); err != nil {
		t.Fatal(err)
	}
	w = watch(t, c, WatchOptions{ResourceVersion: "38"})
	if ev := <-w.Events(); ev.Type != Error || ToStatus(ev.Err).ErrStatus.Message != "too old resource version: 38 (40)" {
		t.Fatalf("after re-list: %+v", ev)
	}
}

func TestWatchFutureRVAndWaits(t *testing.T) {
	c := smallCache(t)
	yes := true
	// Rule 5.1: RV=N in the future without initial events is accepted and delivers events > N.
	w := watch(t, c, WatchOptions{ResourceVersion: "15"})
	time.Sleep(10 * time.Millisecond)
	mustApply(t, c, Modified, pod("a", "p1", "n1", "", 0), 14)
	mustApply(t, c, Modified, pod("a", "p1", "n1", "", 0), 16)
	if got := collectEvents(t, w, 1, time.Second); len(got) != 1 || got[0].rv != 16 {
		t.Fatalf("future watch events = %v, want only RV 16", got)
	}
	// Watch-list at a future RV waits, then times out with an ERROR event (rule 3.4, 5.1).
	w = watch(t, c, WatchOptions{ResourceVersion: "1000", SendInitialEvents: &yes, ResourceVersionMatch: MatchNotOlderThan})
	ev := <-w.Events()
	if st := ToStatus(ev.Err); ev.Type != Error || st.ErrStatus.Code != 504 || st.ErrStatus.Message != "Timeout: Too large resource version: 1000, current: 16" {
		t.Fatalf("too-large watch-list: %+v", ev)
	}
}

func TestWatchTransitions(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		t.Run(fmt.Sprint("indexed=", indexed), func(t *testing.T) {
			c := smallCache(t)
			if indexed {
				if err := c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"}); err != nil {
					t.Fatal(err)
				}
			}
			w := watch(t, c, WatchOptions{ResourceVersion: "10", FieldSelector: "spec.nodeName=n1"})
			time.Sleep(10 * time.Millisecond)
			mustApply(t, c, Modified, pod("a", "p1", "n2", "", 0), 11) // leaves n1: DELETED with the previous object at RV 11
			mustApply(t, c, Modified, pod("a", "p2", "n1", "", 0), 12) // enters n1: ADDED
			mustApply(t, c, Modified, pod("a", "p2", "n1", "x=y", 0), 13)
			mustApply(t, c, Modified, pod("a", "p1", "n3", "", 0), 14) // neither: nothing
			mustApply(t, c, Deleted, pod("b", "p3", "n1", "", 0), 15)
			got := collectEvents(t, w, 4, time.Second)
			want := []seen{{Deleted, "a/p1", 11, false}, {Added, "a/p2", 12, false}, {Modified, "a/p2", 13, false}, {Deleted, "b/p3", 15, false}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("events = %v\nwant     %v (rule 5.5)", got, want)
			}
		})
	}
}

// The DELETED of a selector exit carries the previous object (old node), stamped with the new RV.
func TestWatchExitCarriesPreviousObject(t *testing.T) {
	c := smallCache(t)
	w := watch(t, c, WatchOptions{ResourceVersion: "10", FieldSelector: "spec.nodeName=n1"})
	time.Sleep(10 * time.Millisecond)
	mustApply(t, c, Modified, pod("a", "p1", "n2", "", 0), 11)
	ev := <-w.Events()
	if ev.Type != Deleted || getPath(ev.Object, "spec.nodeName") != "n1" || gjsonRV(ev.Object) != "11" {
		t.Fatalf("exit event %s %s", ev.Type, ev.Object)
	}
}

func TestWatchBookmarks(t *testing.T) {
	c := smallCache(t, func(o *Options) { o.BookmarkInterval = 20 * time.Millisecond })
	w := watch(t, c, WatchOptions{ResourceVersion: "10", AllowWatchBookmarks: true, LabelSelector: "app=none"})
	time.Sleep(10 * time.Millisecond)
	mustApply(t, c, Modified, pod("a", "p1", "n1", "app=web", 0), 11)
	mustApply(t, c, Bookmark, nil, 50) // a source bookmark advances the RV without objects (rule 3.1, 5.7)
	deadline := time.After(2 * time.Second)
	for {
		select {
		case ev := <-w.Events():
			if ev.Type != Bookmark || ev.InitialEventsEnd {
				t.Fatalf("unexpected %+v", ev)
			}
			if ev.ResourceVersion == 50 {
				return
			}
		case <-deadline:
			t.Fatal("no bookmark at RV 50")
		}
	}
}

func TestWatchEndsOnContextStopAndReplace(t *testing.T) {
	c := smallCache(t)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Watch(ctx, WatchOptions{ResourceVersion: "10"})
	if err != nil {
		t.Fatal(err)
	}
	w2 := watch(t, c, WatchOptions{ResourceVersion: "10"})
	time.Sleep(10 * time.Millisecond)
	if n := c.Watchers(); n != 2 {
		t.Fatalf("Watchers = %d", n)
	}
	cancel()
	for range w.Events() {
	}
	// Rule 3.6: a re-list closes watchers without an error event.
	if err := c.Replace(nil, 100); err != nil {
		t.Fatal(err)
	}
	for ev := range w2.Events() {
		t.Fatalf("event after re-list: %+v", ev)
	}
	waitFor(t, func() bool { return c.Watchers() == 0 })
}

// A watcher that does not read is closed once its queue is full (here Options.WatchBuffer = 4);
// Apply never blocks (rule 5.10). Its queued events are dropped with it: it resumes from the last
// RV it got.
func TestSlowWatcherIsClosedNotBlocking(t *testing.T) {
	c := smallCache(t, func(o *Options) { o.WatchBuffer = 4 })
	w := watch(t, c, WatchOptions{ResourceVersion: "10"})
	time.Sleep(10 * time.Millisecond)
	done := make(chan struct{})
	go func() {
		for i := range 100 {
			mustApply(t, c, Modified, pod("a", "p1", "n1", "", 0), uint64(11+i))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Apply blocked on a slow watcher")
	}
	var last uint64
	n := 0
	for ev := range w.Events() {
		if ev.ResourceVersion != last+1 && last != 0 {
			t.Fatalf("gap: %d after %d", ev.ResourceVersion, last)
		}
		last = ev.ResourceVersion
		n++
	}
	if n >= 100 {
		t.Fatalf("slow watcher got %d events, want a prefix then close", n)
	}
	if last == 0 {
		last = 10
	}
	// It re-watches from its last RV without loss.
	w = watch(t, c, WatchOptions{ResourceVersion: fmt.Sprint(last)})
	got := collectEvents(t, w, 110-int(last), time.Second)
	if len(got) != 110-int(last) || got[0].rv != last+1 {
		t.Fatalf("re-watch from %d got %d events", last, len(got))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if cond() {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}

// Rule 5.1: a watch without initial events from RV "0" or "" starts where the cache is when Watch
// returns: a change applied right after reaches it (found by the apiserver's storage suite,
// storagetest/RESULTS.md bug 2).
func TestWatchStartFixedBeforeReturn(t *testing.T) {
	no := false
	for _, rv := range []string{"0", ""} {
		t.Run("RV="+rv, func(t *testing.T) {
			c := smallCache(t)
			w := watch(t, c, WatchOptions{ResourceVersion: rv, SendInitialEvents: &no, ResourceVersionMatch: MatchNotOlderThan})
			mustApply(t, c, Added, pod("a", "new", "n1", "", 0), 11) // no sleep: right after Watch returned
			got := collectEvents(t, w, 1, time.Second)
			if len(got) != 1 || got[0] != (seen{Added, "a/new", 11, false}) {
				t.Fatalf("events = %v, want the ADDED at 11", got)
			}
		})
	}
}

// TestReadAfterWatchEvent: once a watcher has an event, a read of the latest state (Get and List
// at resourceVersion "0") sees it. An informer's handler runs on the watcher's events, and a
// controller reads the cache right after its handler was told (controller-runtime's
// read-your-writes client does exactly that), so the state a reader gets must never be older than
// what a watcher was sent. Other watchers registered after the observing one keep Apply busy
// between queueing the event and returning, which widens the window a stale read would fall in.
func TestReadAfterWatchEvent(t *testing.T) {
	c := smallCache(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := watch(t, c, WatchOptions{ResourceVersion: "10"})
	for range 200 {
		watch(t, c, WatchOptions{ResourceVersion: "10"})
	}
	const events = 2000
	stale := make(chan string, events)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.Events() {
			if ev.Type != Added {
				continue
			}
			name := gjson.GetBytes(ev.Object, "metadata.name").String()
			if _, _, err := c.Get(ctx, "a", name, "0"); err != nil {
				stale <- fmt.Sprintf("Get %s after its ADDED event at RV %d: %v", name, ev.ResourceVersion, err)
			}
			if ev.ResourceVersion == 10+events {
				return
			}
		}
	}()
	for i := range events {
		mustApply(t, c, Added, pod("a", fmt.Sprintf("q%d", i), "n1", "", 0), uint64(11+i))
		if i%100 == 99 {
			time.Sleep(time.Millisecond) // let the other watchers drain, so none is closed behind
		}
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the watcher did not get every event")
	}
	close(stale)
	n := 0
	for s := range stale {
		if n++; n <= 3 {
			t.Error(s)
		}
	}
	if n > 0 {
		t.Fatalf("%d of %d reads right after a watch event did not see it", n, events)
	}
}
