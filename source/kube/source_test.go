package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

// upstream is cache A, the one served over HTTP, with the churn that changes it.
type upstream struct {
	cache *watchcache.Cache
	churn *testdata.Churn
	rv    uint64
	log   []seen // every change applied, in order
}

// seen is one event reduced for comparison.
type seen struct {
	typ string
	key string
	rv  uint64
}

func newUpstream(t *testing.T, pods int, opts watchcache.Options) *upstream {
	t.Helper()
	gen := testdata.New(testdata.Config{Pods: pods, Namespaces: 5, Nodes: 20, Seed: 3})
	opts.Resource = watchcache.Resource{Name: "pods", Namespaced: true}
	opts.WatchBuffer = 100_000
	u := &upstream{cache: watchcache.New(opts), churn: gen.NewChurn(4), rv: 1000}
	objs := make([][]byte, pods)
	for i := range objs {
		objs[i] = gen.Pod(i, uint64(1+i))
	}
	if err := u.cache.Replace(objs, u.rv); err != nil {
		t.Fatal(err)
	}
	return u
}

// apply makes n changes to A, with RV gaps as etcd's global revisions have.
func (u *upstream) apply(t *testing.T, n int) {
	t.Helper()
	for range n {
		u.rv += 1 + u.rv%3
		ch := u.churn.Next(u.rv)
		typ := []watchcache.EventType{watchcache.Added, watchcache.Modified, watchcache.Deleted}[ch.Type]
		if err := u.cache.Apply(watchcache.Event{Type: typ, Object: ch.Object, ResourceVersion: u.rv}); err != nil {
			t.Fatal(err)
		}
		u.log = append(u.log, seen{typ: string(typ), key: ch.Namespace + "/" + ch.Name, rv: u.rv})
	}
}

func newDownstream(t *testing.T, client rest.Interface, opts Options) (*Source, *watchcache.Cache) {
	t.Helper()
	b := watchcache.New(watchcache.Options{
		Resource:    watchcache.Resource{Name: "pods", Namespaced: true},
		WatchBuffer: 100_000,
	})
	opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	src := New(client, opts)
	if err := src.Add("pods", b); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	waitFor(t, "cache B ready", func() bool { return b.Ready() == nil })
	return src, b
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// assertSame checks that B holds byte for byte what A holds, at the same resourceVersion.
func assertSame(t *testing.T, a, b *watchcache.Cache) {
	t.Helper()
	waitFor(t, "B at A's resourceVersion", func() bool { return b.ResourceVersion() >= a.ResourceVersion() })
	ra, err := a.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if ra.ResourceVersion != rb.ResourceVersion {
		t.Fatalf("A at %d, B at %d", ra.ResourceVersion, rb.ResourceVersion)
	}
	if len(ra.Items) != len(rb.Items) {
		t.Fatalf("A has %d objects, B %d", len(ra.Items), len(rb.Items))
	}
	for i := range ra.Items {
		if !bytes.Equal(ra.Items[i], rb.Items[i]) {
			t.Fatalf("object %d differs:\nA %.200s\nB %.200s", i, ra.Items[i], rb.Items[i])
		}
	}
}

// collector gathers a cache watch's events (bookmarks aside) until the channel closes.
type collector struct {
	mu     sync.Mutex
	evs    []seen
	lastRV uint64
}

func collect(t *testing.T, c *watchcache.Cache) *collector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Watch(ctx, watchcache.WatchOptions{ResourceVersion: fmt.Sprint(c.ResourceVersion())})
	if err != nil {
		t.Fatal(err)
	}
	col := &collector{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.Events() {
			col.mu.Lock()
			col.lastRV = max(col.lastRV, ev.ResourceVersion)
			if ev.Type != watchcache.Bookmark {
				var obj struct {
					Metadata struct{ Namespace, Name string }
				}
				_ = json.Unmarshal(ev.Object, &obj)
				col.evs = append(col.evs, seen{typ: string(ev.Type), key: obj.Metadata.Namespace + "/" + obj.Metadata.Name, rv: ev.ResourceVersion})
			}
			col.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return col
}

func (c *collector) until(t *testing.T, rv uint64) []seen {
	t.Helper()
	waitFor(t, "B's watcher to reach the last change", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.lastRV >= rv
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.evs)
}

// TestSyncAndChurn: cache B fed through client-go from cache A served over HTTP lists A in pages,
// then follows A's changes: B holds A's bytes at A's resourceVersion, B's watchers see A's changes
// exactly, and A's bookmarks move B's clock without changes (rule 3.1).
func TestSyncAndChurn(t *testing.T) {
	a := newUpstream(t, 300, watchcache.Options{BookmarkInterval: 20 * time.Millisecond})
	_, client := serve(t, a.cache)
	src, b := newDownstream(t, client, Options{PageSize: 40})
	assertSame(t, a.cache, b)
	if st := src.Stats(); st.Lists != 1 {
		t.Fatalf("stats %+v", st)
	}

	col := collect(t, b)
	a.apply(t, 500)
	if got := col.until(t, a.rv); !slices.Equal(got, a.log) {
		t.Fatalf("B's watcher saw %d events, A had %d changes", len(got), len(a.log))
	}
	assertSame(t, a.cache, b)

	// A's clock moves without a change; B learns it from A's periodic bookmarks.
	if err := a.cache.Apply(watchcache.Event{Type: watchcache.Bookmark, ResourceVersion: a.rv + 100}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B to reach A's bookmark", func() bool { return b.ResourceVersion() == a.rv+100 })
	st := src.Stats()
	if st.Lists != 1 || st.Events != 500 || st.Bookmarks == 0 || st.Expired != 0 || st.Skipped != 0 {
		t.Fatalf("stats %+v: want 1 list, 500 events, some bookmarks", st)
	}
}

// TestItemsWithoutTypeMeta: a kube-apiserver's list items carry no kind or apiVersion; the source
// writes them in from the list's, so listed objects look like watched ones.
func TestItemsWithoutTypeMeta(t *testing.T) {
	a := newUpstream(t, 30, watchcache.Options{})
	api, client := serve(t, a.cache)
	api.omitItemTypeMeta = true
	_, b := newDownstream(t, client, Options{PageSize: 7})
	ra, _ := a.cache.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
	rb, _ := b.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
	if len(ra.Items) != len(rb.Items) || len(rb.Items) != 30 {
		t.Fatalf("A %d objects, B %d", len(ra.Items), len(rb.Items))
	}
	for i := range ra.Items {
		var oa, ob map[string]any
		if err := json.Unmarshal(ra.Items[i], &oa); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(rb.Items[i], &ob); err != nil {
			t.Fatalf("B object %d: %v: %s", i, err, rb.Items[i])
		}
		if !reflect.DeepEqual(oa, ob) || ob["kind"] != "Pod" || ob["apiVersion"] != "v1" {
			t.Fatalf("object %d: A %.120s, B %.120s", i, ra.Items[i], rb.Items[i])
		}
	}
}

// TestRelistAfterGone: B's watch resumes at a resourceVersion A's window no longer holds; A answers
// 410 Gone (rule 5.3), B marks itself pending, re-lists and converges.
func TestRelistAfterGone(t *testing.T) {
	a := newUpstream(t, 100, watchcache.Options{WindowEvents: 20})
	api, client := serve(t, a.cache)
	src, b := newDownstream(t, client, Options{MinRetry: time.Millisecond, MaxRetry: 10 * time.Millisecond})
	a.apply(t, 10)
	assertSame(t, a.cache, b)

	api.hold()
	api.breakAll(true)
	waitFor(t, "B's watch to wait at the gate", func() bool { return api.waiting() == 1 })
	a.apply(t, 100) // more than A's window: B's resourceVersion leaves it
	api.release()
	waitFor(t, "B to re-list", func() bool { return src.Stats().Lists == 2 && b.Ready() == nil })
	assertSame(t, a.cache, b)
	a.apply(t, 10) // and B follows A again
	assertSame(t, a.cache, b)
	if st := src.Stats(); st.Expired != 1 || st.Lists != 2 {
		t.Fatalf("stats %+v: want one 410 and one re-list", st)
	}
}

// TestResumeAfterBrokenStream: watch streams that end normally or are cut mid-stream, again and
// again while A changes, are resumed from B's last resourceVersion without a re-list, and B's
// watchers see every change of A exactly once.
func TestResumeAfterBrokenStream(t *testing.T) {
	a := newUpstream(t, 100, watchcache.Options{})
	api, client := serve(t, a.cache)
	src, b := newDownstream(t, client, Options{MinRetry: time.Millisecond, MaxRetry: 10 * time.Millisecond})
	col := collect(t, b)
	for i := range 40 {
		waitFor(t, "a watch stream", func() bool { return api.streaming() > 0 })
		a.apply(t, 25)
		time.Sleep(time.Millisecond) // let part of the changes through
		api.breakAll(i%2 == 0)
	}
	if got := col.until(t, a.rv); !slices.Equal(got, a.log) {
		t.Fatalf("B's watcher saw %d events, A had %d changes", len(got), len(a.log))
	}
	assertSame(t, a.cache, b)
	st := src.Stats()
	if st.Lists != 1 || st.Expired != 0 || st.Watches < 40 {
		t.Fatalf("stats %+v: want 1 list, no 410, many watches", st)
	}
	t.Logf("stats %+v", st)
}

// testFeed returns the feed of resource in a new source, for tests of one loop's steps.
func testFeed(t *testing.T, client rest.Interface, resource string, c *watchcache.Cache, opts Options) *feed {
	t.Helper()
	s := New(client, opts)
	if err := s.Add(resource, c); err != nil {
		t.Fatal(err)
	}
	return s.feeds[0]
}
