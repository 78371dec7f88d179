package etcd

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/watchcache"
)

// TestConvergesToRange: a cache listed in small pages and then fed by the watch holds exactly what
// a Range of the prefix returns, after random creates, updates and deletes (rules 3.1, 6.1).
func TestConvergesToRange(t *testing.T) {
	cli := startEtcd(t)
	h := newFeed(t, cli, Options{PageSize: 7})
	rng := rand.New(rand.NewPCG(1, 2))
	version := map[int]int{}
	for i := range 40 { // listed, across several pages
		put(t, cli, h.gen, i, 0)
		version[i] = 0
	}
	// A key of another resource next to the prefix must not leak in.
	if _, err := cli.Put(context.Background(), "/registry/podsecuritypolicies/x", `{"metadata":{"name":"x"}}`); err != nil {
		t.Fatal(err)
	}
	runSource(t, h.src, h.cache)
	if got := h.cache.Len(); got != 40 {
		t.Fatalf("after list: %d objects, want 40", got)
	}
	assertMirrors(t, cli, "/registry/pods/", h.cache)

	for range 400 {
		i := rng.IntN(120)
		v, live := version[i]
		switch {
		case live && rng.IntN(5) == 0:
			del(t, cli, h.gen, i)
			delete(version, i)
		case live:
			put(t, cli, h.gen, i, v+1)
			version[i] = v + 1
		default:
			put(t, cli, h.gen, i, 0)
			version[i] = 0
		}
	}
	assertMirrors(t, cli, "/registry/pods/", h.cache)
	st := h.src.Stats()
	if st.Lists != 1 || st.Events != 400 || st.Skipped != 0 || st.Reconnects != 0 || st.Compactions != 0 {
		t.Fatalf("stats %+v: want 1 list, 400 events, nothing else", st)
	}
}

// TestSkipsUndecodable: values the source cannot decode (malformed protobuf) are left out and
// counted; an object whose new value is undecodable leaves the cache, and comes back when it is JSON
// again.
func TestSkipsUndecodable(t *testing.T) {
	cli := startEtcd(t)
	h := newFeed(t, cli, Options{})
	ctx := context.Background()
	proto := "k8s\x00\n\x02v1\x12\x03Pod"
	if _, err := cli.Put(ctx, podKey(h.gen, 0), proto); err != nil {
		t.Fatal(err)
	}
	put(t, cli, h.gen, 1, 0)
	// An object the cache rejects (a key of three segments for a namespaced resource) does not fail
	// the list.
	if _, err := cli.Put(ctx, "/registry/pods/ns-0/bad0/x", `{"metadata":{"name":"bad0","namespace":"ns-0"}}`); err != nil {
		t.Fatal(err)
	}
	runSource(t, h.src, h.cache)
	if h.cache.Len() != 1 || h.src.Stats().Skipped != 2 {
		t.Fatalf("after list: %d objects, stats %+v; want 1 object, 2 skipped", h.cache.Len(), h.src.Stats())
	}
	if _, err := cli.Delete(ctx, "/registry/pods/ns-0/bad0/x"); err != nil { // never cached: only the clock moves
		t.Fatal(err)
	}

	put(t, cli, h.gen, 0, 1) // protobuf → JSON: appears
	assertMirrors(t, cli, "/registry/pods/", h.cache)
	if _, err := cli.Put(ctx, podKey(h.gen, 1), proto); err != nil { // JSON → protobuf: disappears
		t.Fatal(err)
	}
	rev := assertMirrors(t, cli, "/registry/pods/", h.cache)
	if h.cache.Len() != 1 {
		t.Fatalf("%d objects at %d, want 1", h.cache.Len(), rev)
	}
	del(t, cli, h.gen, 1) // delete of a never-cached object: only the clock moves
	// Labels that are not strings: rejected by the cache.
	if _, err := cli.Put(ctx, "/registry/pods/ns-0/bad", `{"metadata":{"name":"bad","namespace":"ns-0","labels":{"a":1}}}`); err != nil {
		t.Fatal(err)
	}
	rev = assertMirrorsExcept(t, cli, h.cache, "ns-0/bad")
	if h.cache.ResourceVersion() < rev {
		t.Fatalf("cache RV %d below etcd %d", h.cache.ResourceVersion(), rev)
	}
	// Skipped: two protobuf values; bad0 listed, then its delete (the cache rejects the event's
	// key before it looks it up); bad written.
	if st := h.src.Stats(); st.Skipped != 5 || st.Lists != 1 {
		t.Fatalf("stats %+v: want 1 list, 5 skipped", st)
	}
}

// assertMirrorsExcept checks that a consistent list of the cache reaches etcd's revision and lacks
// the given keys, which etcd holds.
func assertMirrorsExcept(t *testing.T, cli *clientv3.Client, c *watchcache.Cache, keys ...string) uint64 {
	t.Helper()
	rev, err := cli.Get(context.Background(), "/registry/pods/"+keys[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.List(context.Background(), watchcache.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResourceVersion < uint64(rev.Header.Revision) {
		t.Fatalf("consistent list at %d, etcd at %d", res.ResourceVersion, rev.Header.Revision)
	}
	for _, raw := range res.Items {
		if s := parseStored(t, "", raw, ""); slices.Contains(keys, s.key) {
			t.Fatalf("%s should have been rejected", s.key)
		}
	}
	return uint64(rev.Header.Revision)
}

func TestAddAndRunErrors(t *testing.T) {
	src := New(nil, Options{})
	c := podsCache(src, 0)
	for _, p := range []string{"", "/pods", "pods/", "a//b", "../x", "."} {
		if err := src.Add(p, c); !errors.Is(err, ErrInvalidPrefix) {
			t.Errorf("Add(%q) = %v, want ErrInvalidPrefix", p, err)
		}
	}
	if err := src.Run(context.Background()); !errors.Is(err, ErrNoResources) {
		t.Errorf("Run without resources = %v", err)
	}
	if err := src.Add("services/specs", c); err != nil {
		t.Fatal(err)
	}
	if err := src.Add("services/specs", c); !errors.Is(err, ErrInvalidPrefix) {
		t.Errorf("second Add = %v, want ErrInvalidPrefix", err)
	}
	if got := src.feeds[0].prefix; got != "/registry/services/specs/" {
		t.Errorf("prefix %q", got)
	}
	src = New(nil, Options{PathPrefix: "/custom/"})
	if err := src.Add("minions", c); err != nil || src.feeds[0].prefix != "/custom/minions/" {
		t.Errorf("custom prefix: %v %q", err, src.feeds[0].prefix)
	}
}

// A cached object whose new value the cache rejects leaves the cache: serving its previous value
// would be stale (the apiserver's storage suite checks it too: storagetest/RESULTS.md, bug 1).
func TestRejectedUpdateRemovesStaleObject(t *testing.T) {
	cli := startEtcd(t)
	h := newFeed(t, cli, Options{})
	put(t, cli, h.gen, 0, 0)
	put(t, cli, h.gen, 1, 0)
	runSource(t, h.src, h.cache)
	assertMirrors(t, cli, "/registry/pods/", h.cache)
	// The new value's labels are not strings: the cache cannot hold it.
	bad := `{"metadata":{"name":"` + h.gen.PodName(0) + `","namespace":"` + h.gen.PodNamespace(0) + `","labels":{"a":1}}}`
	if _, err := cli.Put(context.Background(), podKey(h.gen, 0), bad); err != nil {
		t.Fatal(err)
	}
	assertMirrorsExcept(t, cli, h.cache, h.gen.PodNamespace(0)+"/"+h.gen.PodName(0))
	if h.cache.Len() != 1 {
		t.Fatalf("%d objects, want 1: the rejected update's previous value is still served", h.cache.Len())
	}
}

// TestEtcdKeyDecides: the cache holds each object under its etcd key, whatever the object's
// metadata says, as the apiserver's etcd3 store serves it. An object written without
// metadata.namespace under a namespaced key (the write of the apiserver's
// RunTestListInconsistentContinuation), or naming another namespace, is held under its key when
// listed and when watched, replaced and deleted there, listed in the key's namespace, and keyed the
// same way by an Exact list older than the window (Source.History).
func TestEtcdKeyDecides(t *testing.T) {
	cli := startEtcd(t)
	ctx := context.Background()
	src := New(cli, Options{Logger: testLogger(t)})
	c := watchcache.New(watchcache.Options{
		Resource:               watchcache.Resource{Name: "pods", Namespaced: true},
		CurrentResourceVersion: src.CurrentResourceVersion,
		WindowEvents:           2,
		History:                src.History("pods"),
	})
	if err := src.Add("pods", c); err != nil {
		t.Fatal(err)
	}
	write := func(key, value string) uint64 {
		t.Helper()
		resp, err := cli.Put(ctx, "/registry/pods"+key, value)
		if err != nil {
			t.Fatal(err)
		}
		return uint64(resp.Header.Revision)
	}
	write("/second/listed", `{"metadata":{"name":"listed"}}`)
	write("/first/bar", `{"metadata":{"name":"bar","namespace":"first"}}`)
	runSource(t, src, c)

	rewritten := write("/second/foo", `{"metadata":{"name":"foo","labels":{"state":"new"}}}`)
	write("/a/x", `{"metadata":{"name":"x","namespace":"b"}}`)
	type state struct {
		rv   string              // "" for a consistent read
		inNS map[string][]string // namespace → "name state" of the objects listed in it
		get  map[string]string   // "/ns/name" → "name state" of a Get, "" for NotFound
	}
	check := func(name string, want state) {
		t.Helper()
		match := ""
		if want.rv != "" {
			match = watchcache.MatchExact
		}
		for ns, w := range want.inNS {
			res, err := c.List(ctx, watchcache.ListOptions{Namespace: ns, ResourceVersion: want.rv, ResourceVersionMatch: match})
			if err != nil {
				t.Fatalf("%s: list %s: %v", name, ns, err)
			}
			var got []string
			for _, raw := range res.Items {
				got = append(got, nameState(t, raw))
			}
			if !slices.Equal(got, w) {
				t.Errorf("%s: list %s = %q, want %q", name, ns, got, w)
			}
		}
		for key, w := range want.get {
			_, rest, _ := strings.Cut(key, "/")
			ns, n, _ := strings.Cut(rest, "/")
			raw, _, err := c.Get(ctx, ns, n, "")
			switch {
			case w == "" && !errors.Is(err, watchcache.ErrNotFound):
				t.Errorf("%s: Get %s = %s, %v; want NotFound", name, key, raw, err)
			case w != "" && (err != nil || nameState(t, raw) != w):
				t.Errorf("%s: Get %s = %s, %v; want %s", name, key, raw, err, w)
			}
		}
	}
	check("listed and watched", state{
		inNS: map[string][]string{"second": {"foo new", "listed"}, "first": {"bar"}, "a": {"x"}, "b": nil},
		get:  map[string]string{"/second/foo": "foo new", "/second/listed": "listed", "/a/x": "x", "/b/x": ""},
	})

	write("/second/foo", `{"metadata":{"name":"foo","labels":{"state":"newer"}}}`)
	if _, err := cli.Delete(ctx, "/registry/pods/a/x"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Delete(ctx, "/registry/pods/second/listed"); err != nil {
		t.Fatal(err)
	}
	check("replaced and deleted", state{
		inNS: map[string][]string{"second": {"foo newer"}, "a": nil},
		get:  map[string]string{"/second/foo": "foo newer", "/second/listed": "", "/a/x": ""},
	})
	if st := src.Stats(); st.Skipped != 0 {
		t.Errorf("stats %+v: nothing should be skipped", st)
	}
	// Older than the window of 2 events: read from etcd through the History, keyed by etcd's keys.
	check("exact, from history", state{
		rv:   strconv.FormatUint(rewritten, 10),
		inNS: map[string][]string{"second": {"foo new", "listed"}, "first": {"bar"}},
	})
}

// nameState is an object's metadata.name and its label "state", if any: "foo new".
func nameState(t *testing.T, raw []byte) string {
	t.Helper()
	var obj struct {
		Metadata struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return strings.TrimSpace(obj.Metadata.Name + " " + obj.Metadata.Labels["state"])
}

// TestAcceptableAgreesWithCache: the objects the source keeps when the cache rejected a re-list
// (acceptable) are exactly those the cache accepts, so that the second ReplaceKeyed succeeds.
func TestAcceptableAgreesWithCache(t *testing.T) {
	obj := `{"metadata":{"name":"x"}}`
	tests := []struct {
		name       string
		namespaced bool
		o          watchcache.Object
	}{
		{"namespaced key", true, watchcache.Object{Key: "/ns/x", Raw: []byte(obj)}},
		{"empty namespace", true, watchcache.Object{Key: "//x", Raw: []byte(obj)}},
		{"metadata names another key", true, watchcache.Object{Key: "/ns/y", Raw: []byte(`{"metadata":{"name":"x","namespace":"other"}}`)}},
		{"cluster-scoped key", false, watchcache.Object{Key: "/x", Raw: []byte(obj)}},
		{"cluster-scoped object with a namespace", false, watchcache.Object{Key: "/x", Raw: []byte(`{"metadata":{"name":"x","namespace":"ns"}}`)}},
		{"one segment, namespaced", true, watchcache.Object{Key: "/x", Raw: []byte(obj)}},
		{"two segments, cluster-scoped", false, watchcache.Object{Key: "/ns/x", Raw: []byte(obj)}},
		{"three segments", true, watchcache.Object{Key: "/ns/x/y", Raw: []byte(obj)}},
		{"dot-dot name", true, watchcache.Object{Key: "/ns/..", Raw: []byte(obj)}},
		{"percent", false, watchcache.Object{Key: "/a%2Fb", Raw: []byte(obj)}},
		{"key not UTF-8", true, watchcache.Object{Key: "/ns/\xff", Raw: []byte(obj)}},
		{"object not UTF-8", true, watchcache.Object{Key: "/ns/x", Raw: []byte("{\"metadata\":{\"name\":\"x\xff\"}}")}},
		{"no name", true, watchcache.Object{Key: "/ns/x", Raw: []byte(`{"metadata":{}}`)}},
		{"labels not strings", true, watchcache.Object{Key: "/ns/x", Raw: []byte(`{"metadata":{"name":"x","labels":{"a":1}}}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "things", Namespaced: tt.namespaced}})
			cacheErr := c.ReplaceKeyed([]watchcache.Object{tt.o}, 1)
			var why error
			kept := acceptable(c, []watchcache.Object{tt.o}, func(_ watchcache.Object, err error) { why = err })
			if (cacheErr == nil) != (len(kept) == 1) {
				t.Fatalf("cache: %v; acceptable kept %d (%v)", cacheErr, len(kept), why)
			}
		})
	}
}
