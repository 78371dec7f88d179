package fuzz

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/watchcache"
)

// Regression tests: minimal reproductions of the core bugs the differential tests and fuzzers
// found in package watchcache. Each comment says what a cache with the bug answers.

func regressionCache(t *testing.T) *watchcache.Cache {
	t.Helper()
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}, WaitTimeout: 10 * time.Millisecond, BookmarkInterval: time.Millisecond})
	t.Cleanup(c.Stop)
	pod := func(name, node string, rv int) []byte {
		return fmt.Appendf(nil, `{"metadata":{"name":%q,"namespace":"a","resourceVersion":"%d","labels":{"app":"web"}},"spec":{"nodeName":%q}}`, name, rv, node)
	}
	if err := c.Replace([][]byte{pod("p1", "n1", 1), pod("p2", "n1", 2), pod("p3", "n2", 3)}, 10); err != nil {
		t.Fatal(err)
	}
	return c
}

// Rule 5.1: sendInitialEvents=false with resourceVersion="" starts at the source's current RV
// (the cache's own when it has no source). The cache instead replays from RV 0 and fails the
// watch with 410 "too old resource version: 0 (10)": with Options.CurrentResourceVersion nil,
// currentSourceRV returns 0 and watcher.run uses it as sinceRV.
func TestRegressionWatchWithoutInitialEventsFromUnsetRV(t *testing.T) {
	c := regressionCache(t)
	no := false
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := c.Watch(ctx, watchcache.WatchOptions{ResourceVersionMatch: watchcache.MatchNotOlderThan, SendInitialEvents: &no, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		for range w.Events() {
		}
	}()
	if ev := <-w.Events(); ev.Type != watchcache.Bookmark {
		t.Fatalf("first event %s %v, want a periodic BOOKMARK and no error (rule 5.1)", ev.Type, ev.Err)
	}
}

// DESIGN "indexes are an optimisation, never a semantic" and rule 2.6: a page that stops at the
// limit carries a token whenever another key of the range follows. With an index on the selected
// field the plan walks only that value's entries, so the token depends on whether an index exists.
func TestRegressionIndexPlanChangesContinue(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		c := regressionCache(t)
		if indexed {
			if err := c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := c.List(context.Background(), watchcache.ListOptions{FieldSelector: "spec.nodeName=n1", Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 2 || res.Continue == "" {
			t.Errorf("indexed=%v: %d items, continue %q; want 2 items and a token (a/p3 follows a/p2)", indexed, len(res.Items), res.Continue)
		}
	}
}

// Cache.RegisterField documents "field selectors … may use the field from then on, at every RV".
// Snapshots taken before the registration keep the old schema: predicate.matchItem passes the
// snapshot's schema to record.fields, which returns the short value slice, and
// FieldSelector.Matches reads the new position as "" — an Exact list at an older RV selects
// nothing with `f=v` and everything with `f!=v`.
func TestRegressionRegisteredFieldOnOlderSnapshot(t *testing.T) {
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	t.Cleanup(c.Stop)
	p := func(name, prio string, rv int) []byte {
		return fmt.Appendf(nil, `{"metadata":{"name":%q,"namespace":"a","resourceVersion":"%d"},"spec":{"priorityClassName":%q}}`, name, rv, prio)
	}
	if err := c.Replace([][]byte{p("p1", "high", 1), p("p2", "low", 2)}, 10); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(watchcache.Event{Type: watchcache.Modified, Object: p("p2", "low", 11), ResourceVersion: 11}); err != nil {
		t.Fatal(err)
	}
	if err := c.RegisterField("spec.priorityClassName", "spec.priorityClassName"); err != nil {
		t.Fatal(err)
	}
	for _, rv := range []string{"10", "11"} {
		res, err := c.List(context.Background(), watchcache.ListOptions{FieldSelector: "spec.priorityClassName=high", ResourceVersion: rv, ResourceVersionMatch: watchcache.MatchExact})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 1 {
			t.Errorf("Exact list at %s with spec.priorityClassName=high: %d items, want p1", rv, len(res.Items))
		}
	}
}

// The apiserver's listOpts parses the selectors (400), then validates the options (422), then
// converts the field labels (400) (AS37 endpoints/handlers/get.go). The cache converts the field
// labels before validating, so a request with both an unsupported field and invalid options gets
// the 400 instead of the apiserver's 422.
func TestRegressionValidationBeforeFieldConversion(t *testing.T) {
	c := regressionCache(t)
	_, err := c.List(context.Background(), watchcache.ListOptions{FieldSelector: "spec.foo=bar", ResourceVersionMatch: watchcache.MatchNotOlderThan})
	if err == nil {
		t.Fatal("list accepted")
	}
	if st := apistatus.FromError(err).ErrStatus; st.Code != 422 {
		t.Errorf("list: %d %q, want 422 resourceVersionMatch is forbidden unless resourceVersion is provided", st.Code, st.Message)
	}
	w, err := c.Watch(context.Background(), watchcache.WatchOptions{FieldSelector: "spec.foo=bar", ResourceVersion: "5", ResourceVersionMatch: watchcache.MatchNotOlderThan})
	if err == nil {
		w.Stop()
		t.Fatal("watch accepted")
	}
	if st := apistatus.FromError(err).ErrStatus; st.Code != 422 {
		t.Errorf("watch: %d %q, want 422 resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided", st.Code, st.Message)
	}
}

// Rule 2.3: a token whose JSON is not an object gets encoding/json's message, which names the Go
// type: the apiserver's is storage.continueToken (k8s.io/apiserver/pkg/storage), the cache's
// watchcache.continueToken.
func TestRegressionTokenTypeNameInMessage(t *testing.T) {
	c := regressionCache(t)
	_, err := c.List(context.Background(), watchcache.ListOptions{Continue: "MA", Limit: 1}) // base64url of "0"
	if err == nil {
		t.Fatal("accepted")
	}
	const want = "invalid continue token: continue key is not valid: json: cannot unmarshal number into Go value of type storage.continueToken"
	if got := apistatus.FromError(err).ErrStatus.Message; got != want {
		t.Errorf("message %q\nwant             %q", got, want)
	}
}

// An object whose metadata repeats resourceVersion is accepted; the cache rewrites the first
// occurrence to the event's RV (spliceRV finds the first with gjson) while every decoder —
// encoding/json, sigs.k8s.io/json, hence the apiserver and client-go — keeps the last: clients
// read a resourceVersion the cache does not hold the object at. Found by FuzzApplyEvent
// (testdata/fuzz/FuzzApplyEvent/known-duplicate-resourceVersion). Rejecting such objects, or rewriting
// every occurrence, would fix it.
func TestRegressionDuplicateResourceVersionKey(t *testing.T) {
	c := regressionCache(t)
	obj := []byte(`{"metadata":{"name":"x","namespace":"a","resourceVersion":"1","resourceVersion":"2"}}`)
	if err := c.Apply(watchcache.Event{Type: watchcache.Added, Object: obj, ResourceVersion: 11}); err != nil {
		return // rejecting it is a fix
	}
	got, _, err := c.Get(context.Background(), "a", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := metaOf(got); !ok || m.rv != "11" {
		t.Errorf("served %s, which decodes to resourceVersion %q, want 11", got, m.rv)
	}
}

// JSON strings with invalid UTF-8 are accepted and keyed by their raw bytes, while decoders
// (and so clients and the apiserver) read each invalid byte as U+FFFD: the object is listed
// under a name no client can select (metadata.name=\uFFFD finds nothing), and two such names
// that decode alike are two keys. Found by FuzzApplyEvent
// (testdata/fuzz/FuzzApplyEvent/known-invalid-utf8-name). Rejecting invalid UTF-8 would fix it.
func TestRegressionInvalidUTF8Name(t *testing.T) {
	c := regressionCache(t)
	obj := []byte("{\"metadata\":{\"name\":\"\xa0\",\"namespace\":\"a\"}}")
	if err := c.Apply(watchcache.Event{Type: watchcache.Added, Object: obj, ResourceVersion: 11}); err != nil {
		return // rejecting it is a fix
	}
	res, err := c.List(context.Background(), watchcache.ListOptions{Namespace: "a", FieldSelector: "metadata.name=\uFFFD"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 {
		t.Errorf("accepted a name with invalid UTF-8, which clients read as %q, but metadata.name=%q selects %d objects", "\uFFFD", "\uFFFD", len(res.Items))
	}
}

// Rule 5.7: a bookmark carries the RV the cache has processed, and the apiserver never sends one
// below the watch's start RV (cacheWatcher.process only forwards events above it). A watch from a
// future RV N (accepted without waiting, rule 5.1) gets bookmarks at N right away from the cache
// (watcher.bookmark sends max(head RV, lastRV = N)): it claims an RV the cache has not reached.
// Minor: a client resuming from it resumes where it started.
func TestRegressionBookmarkAboveCacheRV(t *testing.T) {
	c := regressionCache(t) // at RV 10, bookmarks every millisecond
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Watch(ctx, watchcache.WatchOptions{ResourceVersion: "200", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		for range w.Events() {
		}
	}()
	select {
	case ev := <-w.Events():
		if ev.Type == watchcache.Bookmark && ev.ResourceVersion > c.ResourceVersion() {
			t.Errorf("BOOKMARK at RV %d while the cache is at %d", ev.ResourceVersion, c.ResourceVersion())
		}
	case <-time.After(50 * time.Millisecond): // no bookmark until the cache reaches 200: right
	}
}

// Rules 4.6 and 5.12: a watch with a namespace and an exact metadata.name reads the single key
// /<namespace>/<name>, for its initial events and for the events since its RV alike. An object
// stored under another key whose metadata.name is that name (Event.Key) was left out of a
// watch-list's initial events and out of lists (makePlan narrows to the key), but a watch from an
// RV got its events: convert checked only the namespace prefix and the selector, which reads the
// object's own name. Found by TestDifferential (seed 133 of -seeds 300) once events had keys.
func TestRegressionWatchSingleKeyOfKeyedObject(t *testing.T) {
	c := regressionCache(t) // at RV 10, bookmarks every millisecond
	obj := func(rv int) []byte {
		return fmt.Appendf(nil, `{"metadata":{"name":"p3","namespace":"a","resourceVersion":"%d"}}`, rv)
	}
	watch := func(rv string) (*watchcache.Watcher, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		w, err := c.Watch(ctx, watchcache.WatchOptions{Namespace: "a", FieldSelector: "metadata.name=p3", ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		return w, func() {
			cancel()
			for range w.Events() {
			}
		}
	}
	// Replayed: the event at 11 is in the window of a watch from 10.
	if err := c.Apply(watchcache.Event{Type: watchcache.Added, Object: obj(11), ResourceVersion: 11, Key: "/a/other"}); err != nil {
		t.Fatal(err)
	}
	w, stop := watch("10")
	if ev := <-w.Events(); ev.Type != watchcache.Bookmark {
		t.Errorf("watch of key /a/p3 from RV 10: %s %s, want no event (the object is stored under /a/other)", ev.Type, ev.Object)
	}
	stop()
	// Live: the event at 12 reaches a watch already running.
	w, stop = watch("11")
	defer stop()
	if ev := <-w.Events(); ev.Type != watchcache.Bookmark {
		t.Fatalf("watch of key /a/p3 from RV 11: %s %s before any write, want a BOOKMARK", ev.Type, ev.Object)
	}
	if err := c.Apply(watchcache.Event{Type: watchcache.Modified, Object: obj(12), ResourceVersion: 12, Key: "/a/other"}); err != nil {
		t.Fatal(err)
	}
	for ev := range w.Events() {
		if ev.Type != watchcache.Bookmark {
			t.Fatalf("watch of key /a/p3 from RV 11: live %s %s, want no event (the object is stored under /a/other)", ev.Type, ev.Object)
		}
		if ev.ResourceVersion >= 12 {
			break
		}
	}
}
