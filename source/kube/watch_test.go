package kube

import (
	"errors"
	"testing"

	"github.com/watchcache/watchcache/watchcache"
)

// TestHandle pins how single watch events are applied, in order, to a cache listed at RV 10.
func TestHandle(t *testing.T) {
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	if err := c.Replace(nil, 10); err != nil {
		t.Fatal(err)
	}
	s := testFeed(t, nil, "pods", c, Options{})
	s.rv = 10
	pod := func(rv string) string {
		return `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"` + rv + `"}}`
	}
	steps := []struct {
		event   string
		err     error // sentinel to match, or nil
		expired bool
		rv      uint64 // cache RV afterwards
		len     int
	}{
		{event: `{"type":"ADDED","object":` + pod("11") + `}`, rv: 11, len: 1},
		{event: `{"type":"ADDED","object":` + pod("11") + `}`, rv: 11, len: 1}, // repeated: ignored
		{event: `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"15"}}}`, rv: 15, len: 1},
		{event: `{"type":"MODIFIED","object":` + pod("16") + `}`, rv: 16, len: 1},
		{event: `{"type":"DELETED","object":` + pod("20") + `}`, rv: 20, len: 0},
		{event: `{"type":"DELETED","object":` + pod("21") + `}`, rv: 21, len: 0},                              // unknown key: skipped, RV reached
		{event: `{"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"22"}}}`, rv: 22, len: 0}, // no namespace: skipped
		{event: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}`, expired: true, rv: 22},
		{event: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom","reason":"InternalError","code":500}}`, rv: 22},
		{event: `{"type":"PATCHED","object":` + pod("30") + `}`, err: ErrMalformedResponse, rv: 22},
		{event: `{"type":"ADDED"}`, err: ErrMalformedResponse, rv: 22},
		{event: `{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"n"}}}`, err: ErrMalformedResponse, rv: 22},
	}
	for i, st := range steps {
		err := s.handle([]byte(st.event))
		switch {
		case st.expired:
			if !isExpired(err) {
				t.Fatalf("step %d: err = %v, want a 410", i, err)
			}
		case st.err != nil:
			if !errors.Is(err, st.err) {
				t.Fatalf("step %d: err = %v, want %v", i, err, st.err)
			}
		case i == 8:
			if err == nil || isExpired(err) {
				t.Fatalf("step %d: err = %v, want a non-410 error", i, err)
			}
		case err != nil:
			t.Fatalf("step %d: %v", i, err)
		}
		if c.ResourceVersion() != st.rv || c.Len() != st.len {
			t.Fatalf("step %d: cache at %d with %d objects, want %d with %d", i, c.ResourceVersion(), c.Len(), st.rv, st.len)
		}
	}
	if got := s.stats; got.events.Load() != 3 || got.bookmarks.Load() != 1 || got.skipped.Load() != 2 {
		t.Fatalf("stats: %d events, %d bookmarks, %d skipped", got.events.Load(), got.bookmarks.Load(), got.skipped.Load())
	}
}
