package watchcache

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/selection"
)

// TestStripManagedFields: the member is cut with exactly one separating comma wherever it sits, the
// rest of the object is unchanged, and objects without it come back as the same slice.
func TestStripManagedFields(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"middle", `{"metadata":{"name":"p","managedFields":[{"manager":"m"}],"uid":"u"},"spec":{}}`, `{"metadata":{"name":"p","uid":"u"},"spec":{}}`},
		{"last", `{"metadata":{"name":"p", "managedFields" : [ {"a":{"b":"}"}} ] },"spec":{}}`, `{"metadata":{"name":"p" },"spec":{}}`},
		{"first", `{"metadata":{"managedFields":[],"name":"p"}}`, `{"metadata":{"name":"p"}}`},
		{"only", `{"metadata":{"managedFields":null}}`, `{"metadata":{}}`},
		{"nested elsewhere is kept", `{"spec":{"managedFields":[1]},"metadata":{"name":"p"}}`, `{"spec":{"managedFields":[1]},"metadata":{"name":"p"}}`},
		{"none", `{"metadata":{"name":"p"}}`, `{"metadata":{"name":"p"}}`},
		{"not an object", `[1,2]`, `[1,2]`},
		{"malformed", `{"metadata":`, `{"metadata":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			got := StripManagedFields(in)
			if string(got) != tc.want {
				t.Fatalf("got %s\nwant %s", got, tc.want)
			}
			if string(in) != tc.in {
				t.Fatalf("input modified: %s", in)
			}
			if tc.in == tc.want && &got[0] != &in[0] {
				t.Fatal("an unchanged object was copied")
			}
			if json.Valid(in) && !json.Valid(got) {
				t.Fatalf("result is not JSON: %s", got)
			}
		})
	}
}

// TestCacheTransform: Options.Transform rewrites objects of Replace and Apply before they are
// parsed, so lists, gets and watches serve the result.
func TestCacheTransform(t *testing.T) {
	withMF := func(name string, rv uint64) []byte {
		b := pod("a", name, "n1", "app=web", rv)
		return []byte(string(b[:len(`{"kind":"Pod","apiVersion":"v1","metadata":{`)]) + `"managedFields":[{"manager":"kubectl"}],` + string(b[len(`{"kind":"Pod","apiVersion":"v1","metadata":{`):]))
	}
	c := newPodCache(t, func(o *Options) { o.Transform = StripManagedFields })
	t.Cleanup(c.Stop)
	if err := c.Replace([][]byte{withMF("p1", 5), withMF("p2", 6)}, 10); err != nil {
		t.Fatal(err)
	}
	w := watch(t, c, WatchOptions{ResourceVersion: "10"})
	mustApply(t, c, Modified, withMF("p1", 0), 11)
	ev := <-w.Events()
	res := mustList(t, c, ListOptions{LabelSelector: "app=web"})
	got, _, err := c.Get(context.Background(), "a", "p2", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, obj := range append(append(res.Items, got), ev.Object) {
		if getPath(obj, "metadata.managedFields") != "" {
			t.Fatalf("object %d keeps managedFields: %s", i, obj)
		}
		var m map[string]any
		if err := json.Unmarshal(obj, &m); err != nil {
			t.Fatalf("object %d: %v", i, err)
		}
	}
	if len(res.Items) != 2 || getPath(ev.Object, "metadata.resourceVersion") != "11" {
		t.Fatalf("list %d items, event %s", len(res.Items), ev.Object)
	}
}

// TestWatcherErr: every way the cache ends a watch is reported by Watcher.Err once the channel is
// closed, so an embedded consumer knows whether to re-watch from its last RV or to list again.
func TestWatcherErr(t *testing.T) {
	drain := func(w *Watcher) {
		t.Helper()
		timeout := time.After(5 * time.Second)
		for {
			select {
			case _, ok := <-w.Events():
				if !ok {
					return
				}
			case <-timeout:
				t.Fatal("watch did not end")
			}
		}
	}
	for _, tc := range []struct {
		name string
		end  func(c *Cache, w *Watcher)
		want error
	}{
		{"behind", func(c *Cache, w *Watcher) {
			for i := range 20 {
				mustApply(t, c, Modified, pod("a", "p1", "n1", "", 0), uint64(11+i))
			}
		}, ErrWatcherBehind},
		{"relisted", func(c *Cache, w *Watcher) {
			if err := c.Replace(nil, 100); err != nil {
				t.Fatal(err)
			}
		}, ErrRelisted},
		{"cache stopped", func(c *Cache, w *Watcher) { c.Stop() }, rvclock.ErrStopped},
		{"watch stopped", func(c *Cache, w *Watcher) { w.Stop() }, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := smallCache(t, func(o *Options) { o.WatchBuffer = 4 })
			w := watch(t, c, WatchOptions{ResourceVersion: "10"})
			waitFor(t, func() bool { return c.Watchers() == 1 })
			tc.end(c, w)
			drain(w)
			if err := w.Err(); !errors.Is(err, tc.want) {
				t.Fatalf("Err() = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("error event", func(t *testing.T) {
		c := smallCache(t)
		mustApply(t, c, Modified, pod("a", "p1", "n1", "", 0), 11)
		if err := c.Replace(nil, 100); err != nil {
			t.Fatal(err)
		}
		w := watch(t, c, WatchOptions{ResourceVersion: "11"})
		var got []WatchEvent
		for ev := range w.Events() {
			got = append(got, ev)
		}
		if len(got) != 1 || got[0].Type != Error || !reflect.DeepEqual(w.Err(), got[0].Err) || !errors.Is(w.Err(), ErrExpired) {
			t.Fatalf("events %+v, Err %v: want one 410 ERROR event, reported by Err", got, w.Err())
		}
	})
}

// TestRegisterFieldMultiValued: a field whose path yields one value per container is refused at
// registration (so no index on it can silently match nothing), and the cache is unchanged.
func TestRegisterFieldMultiValued(t *testing.T) {
	c := smallCache(t)
	err := c.RegisterField("image", "spec.containers.#.image")
	if !errors.Is(err, selection.ErrInvalidField) {
		t.Fatalf("RegisterField: %v, want selection.ErrInvalidField", err)
	}
	if _, ok := c.Schema().Field("image"); ok {
		t.Fatal("the refused field was registered")
	}
	if err := c.AddIndex(index.Spec{Kind: index.Field, Name: "image"}); !errors.Is(err, ErrUnknownIndexField) {
		t.Fatalf("AddIndex on the refused field: %v", err)
	}
}
