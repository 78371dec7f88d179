package etcd

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
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

// TestSkipsUndecodable: values the source cannot decode (the apiserver's protobuf) are left out and
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
	// An object the cache rejects (no namespace for a namespaced resource) does not fail the list.
	if _, err := cli.Put(ctx, "/registry/pods/ns-0/bad0", `{"metadata":{"name":"bad0"}}`); err != nil {
		t.Fatal(err)
	}
	runSource(t, h.src, h.cache)
	if h.cache.Len() != 1 || h.src.Stats().Skipped != 2 {
		t.Fatalf("after list: %d objects, stats %+v; want 1 object, 2 skipped", h.cache.Len(), h.src.Stats())
	}
	if _, err := cli.Delete(ctx, "/registry/pods/ns-0/bad0"); err != nil { // never cached: only the clock moves
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
	del(t, cli, h.gen, 1)                                                                             // delete of a never-cached object: only the clock moves
	if _, err := cli.Put(ctx, "/registry/pods/ns-0/bad", `{"metadata":{"name":"bad"}}`); err != nil { // no namespace: rejected by the cache
		t.Fatal(err)
	}
	rev = assertMirrorsExcept(t, cli, h.cache, "ns-0/bad")
	if h.cache.ResourceVersion() < rev {
		t.Fatalf("cache RV %d below etcd %d", h.cache.ResourceVersion(), rev)
	}
	// Skipped: two protobuf values; bad0 listed, then its delete (the cache rejects the event's
	// object before it looks the key up); bad written.
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
// would be stale (found by the apiserver's storage suite, storagetest/RESULTS.md bug 1).
func TestRejectedUpdateRemovesStaleObject(t *testing.T) {
	cli := startEtcd(t)
	h := newFeed(t, cli, Options{})
	put(t, cli, h.gen, 0, 0)
	put(t, cli, h.gen, 1, 0)
	runSource(t, h.src, h.cache)
	assertMirrors(t, cli, "/registry/pods/", h.cache)
	// The new value has no namespace: a namespaced cache cannot hold it.
	if _, err := cli.Put(context.Background(), podKey(h.gen, 0), `{"metadata":{"name":"`+h.gen.PodName(0)+`"}}`); err != nil {
		t.Fatal(err)
	}
	assertMirrorsExcept(t, cli, h.cache, h.gen.PodNamespace(0)+"/"+h.gen.PodName(0))
	if h.cache.Len() != 1 {
		t.Fatalf("%d objects, want 1: the rejected update's previous value is still served", h.cache.Len())
	}
}
