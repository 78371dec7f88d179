package kube

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/watchcache/watchcache/watchcache"
)

// TestReadsDuringRelist: while B re-lists after a 410, its readers keep getting B's last complete
// state — never 429 — and the re-list replaces it in one step, at a resourceVersion not older.
func TestReadsDuringRelist(t *testing.T) {
	a := newUpstream(t, 100, watchcache.Options{WindowEvents: 20})
	api, client := serve(t, a.cache)
	src, b := newDownstream(t, client, Options{MinRetry: time.Millisecond, MaxRetry: 10 * time.Millisecond})
	a.apply(t, 10)
	assertSame(t, a.cache, b)
	before, err := b.List(context.Background(), watchcache.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	api.hold()
	api.breakAll(true)
	waitFor(t, "B's watch to wait at the gate", func() bool { return api.waiting() == 1 })
	a.apply(t, 100) // B's resourceVersion leaves A's window: the watch gets 410
	api.holdLists()
	api.release()
	waitFor(t, "B's re-list to wait at the gate", func() bool { return api.listsHeld() == 1 })

	ctx := context.Background()
	for _, o := range []watchcache.ListOptions{{}, {ResourceVersion: "0"}, {Limit: 7}, {Namespace: "ns-1"}} {
		res, err := b.List(ctx, o)
		if err != nil {
			t.Fatalf("List %+v during the re-list: %v", o, err)
		}
		if res.ResourceVersion != before.ResourceVersion {
			t.Fatalf("List %+v during the re-list at %d, want the last state's %d", o, res.ResourceVersion, before.ResourceVersion)
		}
	}
	name := gjson.GetBytes(before.Items[0], "metadata.name").String()
	ns := gjson.GetBytes(before.Items[0], "metadata.namespace").String()
	if _, _, err := b.Get(ctx, ns, name, ""); err != nil {
		t.Fatalf("Get during the re-list: %v", err)
	}

	api.releaseLists()
	waitFor(t, "B to re-list", func() bool { return src.Stats().Lists == 2 })
	assertSame(t, a.cache, b)
	after, err := b.List(ctx, watchcache.ListOptions{})
	if err != nil || after.ResourceVersion <= before.ResourceVersion {
		t.Fatalf("after the re-list: RV %d (before %d), err %v", after.ResourceVersion, before.ResourceVersion, err)
	}
}

// TestListBehindRefused: a re-list answered at a resourceVersion older than B's (a lagging server)
// is not applied; B keeps its state and lists again.
func TestListBehindRefused(t *testing.T) {
	a := newUpstream(t, 10, watchcache.Options{})
	_, client := serve(t, a.cache)
	b := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	if err := b.Replace(nil, a.rv+50); err != nil {
		t.Fatal(err)
	}
	src := testFeed(t, client, "pods", b, Options{})
	_, err := src.list(context.Background())
	if !errors.Is(err, ErrListBehind) {
		t.Fatalf("list at %d into a cache at %d: %v, want ErrListBehind", a.rv, a.rv+50, err)
	}
	if b.ResourceVersion() != a.rv+50 || b.Len() != 0 {
		t.Fatalf("cache changed: RV %d, %d objects", b.ResourceVersion(), b.Len())
	}
}

// TestTransformStripsManagedFields: with StripManagedFields as the source's transform, B holds A's
// objects without metadata.managedFields, listed and watched, and otherwise byte for byte.
func TestTransformStripsManagedFields(t *testing.T) {
	a := newUpstream(t, 50, watchcache.Options{})
	_, client := serve(t, a.cache)
	_, b := newDownstream(t, client, Options{PageSize: 20, Transform: watchcache.StripManagedFields})
	a.apply(t, 30)
	waitFor(t, "B at A's resourceVersion", func() bool { return b.ResourceVersion() >= a.rv })
	ra, _ := a.cache.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
	rb, _ := b.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
	if len(ra.Items) != len(rb.Items) {
		t.Fatalf("A %d objects, B %d", len(ra.Items), len(rb.Items))
	}
	stripped := 0
	for i := range ra.Items {
		if gjson.GetBytes(ra.Items[i], "metadata.managedFields").Exists() {
			stripped++
		}
		if gjson.GetBytes(rb.Items[i], "metadata.managedFields").Exists() {
			t.Fatalf("B object %d keeps managedFields", i)
		}
		if want := watchcache.StripManagedFields(ra.Items[i]); !bytes.Equal(want, rb.Items[i]) {
			t.Fatalf("object %d:\nwant %.300s\ngot  %.300s", i, want, rb.Items[i])
		}
	}
	if stripped == 0 {
		t.Fatal("A's objects have no managedFields: the test checks nothing")
	}
}

// TestWatchList: with Options.WatchList the source syncs from a watch-list (no list request at
// all), follows the same stream, and after a 410 streams the state again.
func TestWatchList(t *testing.T) {
	a := newUpstream(t, 120, watchcache.Options{WindowEvents: 20})
	api, client := serve(t, a.cache)
	api.holdLists() // a list request would wait here, and be counted
	src, b := newDownstream(t, client, Options{WatchList: true, MinRetry: time.Millisecond, MaxRetry: 10 * time.Millisecond})
	assertSame(t, a.cache, b)
	a.apply(t, 15)
	assertSame(t, a.cache, b)

	api.hold()
	api.breakAll(true)
	waitFor(t, "B's watch to wait at the gate", func() bool { return api.waiting() == 1 })
	a.apply(t, 100) // past A's window: the resumed watch gets 410, and B streams the state again
	api.release()
	waitFor(t, "B to stream the state again", func() bool { return src.Stats().Lists == 2 })
	assertSame(t, a.cache, b)
	if n := api.listsHeld(); n != 0 {
		t.Fatalf("%d list requests; want none", n)
	}
	if st := src.Stats(); st.Expired != 1 {
		t.Fatalf("stats %+v: want one 410", st)
	}
	api.releaseLists()
}
