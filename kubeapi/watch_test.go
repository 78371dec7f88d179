package kubeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/watchcache/watchcache/watchcache"
)

// TestWatchListStream pins a watch-list on the wire (rules 5.1, 5.8): 200 with chunked JSON, one
// ADDED line per object in key order with the cache's bytes, then — only with
// allowWatchBookmarks — the BOOKMARK that ends the initial events, an empty object of the kind
// with the resourceVersion and the k8s.io/initial-events-end annotation. timeoutSeconds ends the
// stream.
func TestWatchListStream(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, clusterOptions{})
	want, err := cl.caches["namespaces"].List(context.Background(), watchcache.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bookmarks := range []bool{true, false} {
		t.Run(fmt.Sprintf("allowWatchBookmarks=%t", bookmarks), func(t *testing.T) {
			t.Parallel()
			path := "/api/v1/namespaces?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1"
			if bookmarks {
				path += "&allowWatchBookmarks=true"
			}
			start := time.Now()
			w := cl.watch(t, path)
			if w.resp.StatusCode != http.StatusOK || w.resp.Header.Get("Content-Type") != "application/json" ||
				len(w.resp.TransferEncoding) != 1 || w.resp.TransferEncoding[0] != "chunked" {
				t.Fatalf("status %d, headers %v, transfer encoding %v", w.resp.StatusCode, w.resp.Header, w.resp.TransferEncoding)
			}
			evs := w.rest(t)
			if d := time.Since(start); d < 900*time.Millisecond || d > 5*time.Second {
				t.Errorf("stream ended after %v, want timeoutSeconds=1", d)
			}
			n := len(want.Items)
			if bookmarks {
				n++
			}
			if len(evs) != n {
				t.Fatalf("%d events, want %d", len(evs), n)
			}
			for i, it := range want.Items {
				if evs[i].Type != "ADDED" || !bytes.Equal(evs[i].Object, it) {
					t.Fatalf("event %d: %s %s", i, evs[i].Type, evs[i].Object)
				}
			}
			if bookmarks {
				b := evs[n-1]
				// An empty Namespace as the apiserver encodes one (its spec and status are structs).
				wantObj := fmt.Sprintf(`{"kind":"Namespace","apiVersion":"v1","metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{},"status":{}}`, cl.rv)
				if b.Type != "BOOKMARK" || string(b.Object) != wantObj {
					t.Fatalf("last event %s %s, want BOOKMARK %s", b.Type, b.Object, wantObj)
				}
			}
		})
	}
}

// TestWatchLive pins live events on the wire: each line is {"type":...,"object":<the object>},
// with selection transitions (rule 5.5) — a watch on one node sees pods leave it as DELETED.
func TestWatchLive(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	pods := cl.caches["pods"]
	from := strconv.FormatUint(cl.rv, 10)
	all := cl.watch(t, "/api/v1/pods?watch=true&resourceVersion="+from)
	node := cl.watch(t, "/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3Dnode-1&resourceVersion="+from)
	// The reference: the same watches on the cache itself.
	ref := func(fs string) *watchcache.Watcher {
		w, err := pods.Watch(t.Context(), watchcache.WatchOptions{ResourceVersion: from, FieldSelector: fs})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		return w
	}
	refAll, refNode := ref(""), ref("spec.nodeName=node-1")
	const steps = 60
	cl.step(t, steps)

	for i := range steps {
		got, ok := all.next(t)
		want := <-refAll.Events()
		if !ok || got.Type != string(want.Type) || !bytes.Equal(got.Object, want.Object) {
			t.Fatalf("event %d: %s, want %s", i, got.Type, want.Type)
		}
	}
	// The node watch gets what the cache's node watch gets; drain the reference until quiet.
	var want []watchcache.WatchEvent
	for done := false; !done; {
		select {
		case ev := <-refNode.Events():
			want = append(want, ev)
		case <-time.After(200 * time.Millisecond):
			done = true
		}
	}
	if len(want) == 0 {
		t.Fatal("no pod event on node-1; choose another node")
	}
	for i, w := range want {
		got, ok := node.next(t)
		if !ok || got.Type != string(w.Type) || !bytes.Equal(got.Object, w.Object) {
			t.Fatalf("node event %d: %s, want %s", i, got.Type, w.Type)
		}
	}
}

// TestWatchErrors pins the two ways a watch fails: option and readiness errors are a plain Status
// answer; errors found after the watch was accepted — a too-old RV (rule 5.3) — are a 200 with one
// ERROR event carrying the Status, after which the stream ends (rule 5.1).
func TestWatchErrors(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, clusterOptions{cache: watchcache.Options{WindowEvents: 5}})
	cl.step(t, 20) // evicts events: the window now starts 5 events back

	t.Run("too old RV is an ERROR event (rule 5.3)", func(t *testing.T) {
		w := cl.watch(t, "/api/v1/pods?watch=1&resourceVersion=1")
		if w.resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", w.resp.StatusCode)
		}
		evs := w.rest(t)
		if len(evs) != 1 || evs[0].Type != "ERROR" {
			t.Fatalf("events %v", evs)
		}
		var st struct {
			Kind, APIVersion, Status, Message, Reason string
			Code                                      int
		}
		if err := json.Unmarshal(evs[0].Object, &st); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("too old resource version: 1 (%d)", cl.rv-5)
		if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != "Failure" || st.Reason != "Expired" || st.Code != 410 || st.Message != want {
			t.Fatalf("status %+v, want message %q", st, want)
		}
	})

	for _, tt := range []struct {
		name, path string
		code       int
		reason     string
	}{
		{"resourceVersionMatch without sendInitialEvents (rule 0.6)", "/api/v1/pods?watch=1&resourceVersion=5&resourceVersionMatch=NotOlderThan", 422, "Invalid"},
		{"sendInitialEvents without NotOlderThan (rule 0.6)", "/api/v1/pods?watch=1&sendInitialEvents=true", 422, "Invalid"},
		{"bad selector", "/api/v1/pods?watch=1&fieldSelector=spec.foo%3Dx", 400, "BadRequest"},
		{"bad RV (rule 0.8)", "/api/v1/pods?watch=1&resourceVersion=x", 400, "BadRequest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := cl.get(t, tt.path)
			if r.code != tt.code || r.status(t)["reason"] != tt.reason {
				t.Fatalf("code %d: %s", r.code, r.body)
			}
		})
	}

	t.Run("future RV waits for events, ends at timeoutSeconds (rule 5.1)", func(t *testing.T) {
		t.Parallel()
		w := cl.watch(t, "/api/v1/pods?watch=1&resourceVersion=999999999&timeoutSeconds=1")
		if evs := w.rest(t); w.resp.StatusCode != http.StatusOK || len(evs) != 0 {
			t.Fatalf("status %d, events %v", w.resp.StatusCode, evs)
		}
	})
}

// TestWatchPaths pins the other ways to ask for a watch: on a named object (with rule 4.5's name
// selector implied), the deprecated /watch/ paths, and watch=1 on a cluster-scoped resource.
func TestWatchPaths(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	for _, tt := range []struct {
		path  string
		names []string
	}{
		{"/api/v1/namespaces/ns-2/pods/pod-000002?watch=1&resourceVersion=0", []string{"ns-2/pod-000002"}},
		{"/api/v1/namespaces/ns-2/pods/pod-000002?watch=1&fieldSelector=metadata.name%3Dpod-000002", []string{"ns-2/pod-000002"}},
		{"/api/v1/watch/namespaces/ns-2/pods/pod-000002", []string{"ns-2/pod-000002"}},
		{"/api/v1/watch/nodes/node-3", []string{"node-3"}},
		{"/api/v1/watch/namespaces?resourceVersion=0", []string{"ns-0", "ns-1", "ns-2", "ns-3"}},
		{"/api/v1/namespaces?watch=1", []string{"ns-0", "ns-1", "ns-2", "ns-3"}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			w := cl.watch(t, tt.path)
			for i, name := range tt.names {
				ev, ok := w.next(t)
				if !ok || ev.Type != "ADDED" || metaName(t, ev.Object) != name {
					t.Fatalf("event %d: %v %s %s, want ADDED %s", i, ok, ev.Type, ev.Object, name)
				}
			}
		})
	}
}

// TestWatchEndsWithClient checks that a watch stops in the cache when its client goes away, and
// when the cache stops.
func TestWatchEndsWithClient(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	pods := cl.caches["pods"]
	w := cl.watch(t, "/api/v1/pods?watch=1&resourceVersion="+strconv.FormatUint(cl.rv, 10))
	waitFor(t, func() bool { return pods.Watchers() == 1 })
	w.resp.Body.Close()
	waitFor(t, func() bool { return pods.Watchers() == 0 })

	w = cl.watch(t, "/api/v1/pods?watch=1&resourceVersion="+strconv.FormatUint(cl.rv, 10))
	waitFor(t, func() bool { return pods.Watchers() == 1 })
	pods.Stop()
	if evs := w.rest(t); len(evs) != 0 {
		t.Fatalf("events after Stop: %v", evs)
	}
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
