package etcd

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/watchcache"
)

// seen is one event reduced for comparison.
type seen struct {
	typ string
	key string
	rv  uint64
}

// collector gathers a cache watch's events (bookmarks aside) until the channel closes.
type collector struct {
	mu     sync.Mutex
	evs    []seen
	lastRV uint64
	done   chan struct{}
}

func collect(w *watchcache.Watcher) *collector {
	c := &collector{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for ev := range w.Events() {
			c.mu.Lock()
			c.lastRV = max(c.lastRV, ev.ResourceVersion)
			if ev.Type != watchcache.Bookmark {
				s := seen{typ: string(ev.Type), rv: ev.ResourceVersion}
				var obj struct {
					Metadata struct{ Namespace, Name string }
				}
				_ = json.Unmarshal(ev.Object, &obj)
				s.key = obj.Metadata.Namespace + "/" + obj.Metadata.Name
				c.evs = append(c.evs, s)
			}
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *collector) reached(rv uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastRV >= rv
}

func (c *collector) events() []seen {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.evs)
}

// history reads etcd's own events under prefix in (from, to], bypassing the breakable watcher.
func history(t *testing.T, w clientv3.Watcher, prefix string, from, to int64) []seen {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var evs []seen
	for wr := range w.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(from+1)) {
		if err := wr.Err(); err != nil {
			t.Fatal(err)
		}
		for _, ev := range wr.Events {
			s := seen{typ: string(watchcache.Deleted), key: string(ev.Kv.Key[len(prefix):]), rv: uint64(ev.Kv.ModRevision)}
			if ev.Type == clientv3.EventTypePut {
				s.typ = string(watchcache.Modified)
				if ev.IsCreate() {
					s.typ = string(watchcache.Added)
				}
			}
			evs = append(evs, s)
			if ev.Kv.ModRevision >= to {
				return evs
			}
		}
	}
	t.Fatal("history: watch ended early")
	return nil
}

// churn makes n random writes to pods 0..99 and returns the last revision.
func churn(t *testing.T, h *feedHarness, rng *rand.Rand, version map[int]int, n int) int64 {
	var rev int64
	for range n {
		i := rng.IntN(100)
		v, live := version[i]
		switch {
		case live && rng.IntN(4) == 0:
			rev = del(t, h.cli, h.gen, i)
			delete(version, i)
		case live:
			rev = put(t, h.cli, h.gen, i, v+1)
			version[i] = v + 1
		default:
			rev = put(t, h.cli, h.gen, i, 0)
			version[i] = 0
		}
	}
	return rev
}

// TestResumeAfterBrokenWatch: watches broken again and again while writes go on are resumed from
// the last revision, without a re-list: a watcher of the cache sees exactly etcd's history, no event
// lost or repeated.
func TestResumeAfterBrokenWatch(t *testing.T) {
	cli := startEtcd(t)
	bw := installBreakable(cli)
	h := newFeed(t, cli, Options{MinRetry: time.Millisecond, MaxRetry: 20 * time.Millisecond})
	rng := rand.New(rand.NewPCG(3, 4))
	version := map[int]int{}
	churn(t, h, rng, version, 30)
	runSource(t, h.src, h.cache)
	start := h.cache.ResourceVersion()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := h.cache.Watch(ctx, watchcache.WatchOptions{ResourceVersion: fmt.Sprint(start)})
	if err != nil {
		t.Fatal(err)
	}
	got := collect(w)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // break the watch every few milliseconds while the writes go on
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(1+rng.IntN(10)) * time.Millisecond):
				bw.breakAll()
			}
		}
	})
	end := churn(t, h, rand.New(rand.NewPCG(5, 6)), version, 1500)
	close(stop)
	wg.Wait()
	waitFor(t, "the cache watcher at the last revision", func() bool { return got.reached(uint64(end)) })
	evs := got.events()

	want := history(t, bw.Watcher, "/registry/pods/", int64(start), end)
	if !slices.Equal(evs, want) {
		t.Fatalf("cache watch saw %d events, etcd history has %d; first difference at %d", len(evs), len(want), firstDiff(evs, want))
	}
	assertMirrors(t, cli, "/registry/pods/", h.cache)
	st := h.src.Stats()
	if st.Lists != 1 || st.Reconnects < 10 || st.Compactions != 0 {
		t.Fatalf("stats %+v: want 1 list, several reconnects, no compaction", st)
	}
	t.Logf("%d events through %d watches (%d reconnects)", len(evs), bw.started(), st.Reconnects)
}

func firstDiff(a, b []seen) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRelistAfterCompaction: a watch that resumes at a compacted revision makes the source mark the
// cache pending and re-list; the cache converges and its watchers are closed (rule 3.6).
func TestRelistAfterCompaction(t *testing.T) {
	cli := startEtcd(t)
	bw := installBreakable(cli)
	h := newFeed(t, cli, Options{MinRetry: time.Millisecond, MaxRetry: 20 * time.Millisecond})
	rng := rand.New(rand.NewPCG(7, 8))
	version := map[int]int{}
	churn(t, h, rng, version, 50)
	runSource(t, h.src, h.cache)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := h.cache.Watch(ctx, watchcache.WatchOptions{ResourceVersion: fmt.Sprint(h.cache.ResourceVersion())})
	if err != nil {
		t.Fatal(err)
	}
	got := collect(w)

	waitFor(t, "the source's watch", func() bool { return bw.opened() == 1 }) // Ready comes just before it
	bw.hold()
	bw.breakAll()
	waitFor(t, "the source to see its watch break", func() bool { return h.src.Stats().Reconnects == 1 })
	stale := h.cache.ResourceVersion()
	end := churn(t, h, rng, version, 50)
	if _, err := cli.Compact(context.Background(), end); err != nil {
		t.Fatal(err)
	}
	bw.release()

	waitFor(t, "re-list", func() bool { return h.src.Stats().Lists == 2 && h.cache.Ready() == nil })
	if rv := assertMirrors(t, cli, "/registry/pods/", h.cache); rv < uint64(end) {
		t.Fatalf("list at %d, want ≥ %d", rv, end)
	}
	select {
	case <-got.done: // closed by the re-list; it saw nothing of the compacted stretch
		for _, ev := range got.events() {
			if ev.rv > stale {
				t.Fatalf("watcher got %+v from after the break", ev)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cache's watcher was not closed by the re-list")
	}
	if st := h.src.Stats(); st.Compactions != 1 {
		t.Fatalf("stats %+v: want 1 compaction", st)
	}
	// The feed goes on watching after the re-list.
	put(t, cli, h.gen, 500, 0)
	assertMirrors(t, cli, "/registry/pods/", h.cache)
}

// TestSurvivesEtcdRestart: etcd going away and coming back on the same data breaks every stream of
// the client; the source resumes from its revision and the cache's watcher sees etcd's history
// exactly, with no re-list.
func TestSurvivesEtcdRestart(t *testing.T) {
	te := startTestEtcd(t)
	h := newFeed(t, te.cli, Options{MinRetry: 10 * time.Millisecond, MaxRetry: 100 * time.Millisecond})
	rng := rand.New(rand.NewPCG(11, 12))
	version := map[int]int{}
	churn(t, h, rng, version, 30)
	runSource(t, h.src, h.cache)
	start := h.cache.ResourceVersion()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := h.cache.Watch(ctx, watchcache.WatchOptions{ResourceVersion: fmt.Sprint(start)})
	if err != nil {
		t.Fatal(err)
	}
	got := collect(w)
	churn(t, h, rng, version, 50)
	te.restart()
	end := churn(t, h, rng, version, 50)
	waitFor(t, "the cache watcher at the last revision", func() bool { return got.reached(uint64(end)) })
	want := history(t, te.cli.Watcher, "/registry/pods/", int64(start), end)
	if evs := got.events(); !slices.Equal(evs, want) {
		t.Fatalf("cache watch saw %d events, etcd history has %d; first difference at %d", len(evs), len(want), firstDiff(evs, want))
	}
	assertMirrors(t, te.cli, "/registry/pods/", h.cache)
	if st := h.src.Stats(); st.Lists != 1 {
		t.Fatalf("stats %+v: want no re-list", st)
	}
	t.Logf("stats after the restart: %+v", h.src.Stats())
}
