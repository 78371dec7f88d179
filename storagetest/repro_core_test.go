package storagetest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/watchcache/watchcache/watchcache"
)

// TestReproWatchStartAfterReturn reproduces bug 2 of RESULTS.md (watchcache): a watch without
// initial events from resourceVersion "" or "0" fixes its start RV in the watcher's goroutine, after
// Watch has returned. A change applied in between is below that start and never delivered, although
// it happened after the watch was established. The apiserver resolves the start inside Watch
// (cacher.go: getWatchCacheResourceVersion, and the cache RV read under the lock), so every change
// after Watch returns is delivered. RunWatchSemantics ("sendInitialEvents=false, RV=unset") fails
// intermittently on this.
//
// RV "": deterministic, with a CurrentResourceVersion that answers only after the change is applied
// (as a slow etcd round trip would) or after 200 ms. RV "0": a race; the test counts misses over many tries.
//
// It fails while the bug is there, so it runs only with STORAGETEST_REPRO=1.
func TestReproWatchStartAfterReturn(t *testing.T) {
	if os.Getenv("STORAGETEST_REPRO") == "" {
		t.Skip("reproduces an open watchcache bug; run with STORAGETEST_REPRO=1")
	}
	pod := func(name string) []byte {
		return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ns","name":%q}}`, name))
	}
	f := false

	t.Run(`RV=""`, func(t *testing.T) {
		applied := make(chan struct{})
		var c *watchcache.Cache
		c = watchcache.New(watchcache.Options{
			Resource: watchcache.Resource{Name: "pods", Namespaced: true},
			CurrentResourceVersion: func(ctx context.Context) (uint64, error) {
				// etcd answers slowly: after the write below has landed, or after 200 ms (a
				// Watch that asks before returning, as the apiserver's does, waits that long).
				select {
				case <-applied:
				case <-time.After(200 * time.Millisecond):
				}
				return c.ResourceVersion(), nil
			},
		})
		if err := c.Replace(nil, 1); err != nil {
			t.Fatal(err)
		}
		w, err := c.Watch(context.Background(), watchcache.WatchOptions{
			Namespace: "ns", ResourceVersion: "", SendInitialEvents: &f, ResourceVersionMatch: watchcache.MatchNotOlderThan,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		// Watch has returned: the watch is established. This change comes after it.
		if err := c.Apply(watchcache.Event{Type: watchcache.Added, Object: pod("a"), ResourceVersion: 2}); err != nil {
			t.Fatal(err)
		}
		close(applied)
		select {
		case ev := <-w.Events():
			t.Logf("got %s at %d", ev.Type, ev.ResourceVersion)
		case <-time.After(time.Second):
			t.Errorf("the ADDED at RV 2, applied after Watch returned, was never delivered")
		}
	})

	t.Run(`RV="0"`, func(t *testing.T) {
		missed, tries := 0, 50
		for i := 0; i < tries; i++ {
			c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
			if err := c.Replace(nil, 1); err != nil {
				t.Fatal(err)
			}
			w, err := c.Watch(context.Background(), watchcache.WatchOptions{
				Namespace: "ns", ResourceVersion: "0", SendInitialEvents: &f, ResourceVersionMatch: watchcache.MatchNotOlderThan,
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Apply(watchcache.Event{Type: watchcache.Added, Object: pod("a"), ResourceVersion: 2}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-w.Events():
			case <-time.After(100 * time.Millisecond):
				missed++
			}
			w.Stop()
			c.Stop()
		}
		if missed > 0 {
			t.Errorf("%d of %d changes applied right after Watch returned were never delivered", missed, tries)
		}
	})
}
