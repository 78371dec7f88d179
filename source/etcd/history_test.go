package etcd

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/watchcache"
)

// TestHistoryServesOldRevisions (rule 1.3): with Source.History, a cache whose window holds only the
// newest events answers an Exact list and a continue token at an older revision as etcd's Range at
// that revision (same keys, same item RVs, walked in pages); once etcd compacts the revision, the
// cache gives the 410 of rule 1.18 / 2.9.
func TestHistoryServesOldRevisions(t *testing.T) {
	cli := startEtcd(t)
	h := newFeed(t, cli, Options{PageSize: 7})
	// The cache reads history through this first source (7 keys per Range: several etcd pages per
	// cache page) and is fed by a second one.
	h.cache = watchcache.New(watchcache.Options{
		Resource:               watchcache.Resource{Name: "pods", Namespaced: true},
		CurrentResourceVersion: h.src.CurrentResourceVersion,
		WindowEvents:           2,
		History:                h.src.History("pods"),
	})
	h.src = New(cli, Options{Logger: testLogger(t)})
	if err := h.src.Add("pods", h.cache); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	version := map[int]int{}
	old := churn(t, h, rng, version, 120)
	runSource(t, h.src, h.cache)
	ctx := context.Background()
	first, err := h.cache.List(ctx, watchcache.ListOptions{Limit: 10}) // a token at the current revision
	if err != nil {
		t.Fatal(err)
	}
	latest := churn(t, h, rng, version, 40)
	assertMirrors(t, cli, "/registry/pods/", h.cache) // the cache moved past both revisions

	walk := func(o watchcache.ListOptions) ([][]byte, error) {
		var items [][]byte
		for {
			res, err := h.cache.List(ctx, o)
			if err != nil {
				return nil, err
			}
			items = append(items, res.Items...)
			if res.Continue == "" {
				return items, nil
			}
			o = watchcache.ListOptions{Limit: o.Limit, Continue: res.Continue}
		}
	}
	check := func(name string, rev uint64, items [][]byte) {
		t.Helper()
		resp, err := cli.Get(ctx, "/registry/pods/", clientv3.WithPrefix(), clientv3.WithRev(int64(rev)))
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != len(resp.Kvs) {
			t.Fatalf("%s: %d items, etcd at %d has %d", name, len(items), rev, len(resp.Kvs))
		}
		for i, kv := range resp.Kvs {
			got := parseStored(t, "", items[i], "")
			want := parseStored(t, string(kv.Key[len("/registry/pods/"):]), kv.Value, strconv.FormatInt(kv.ModRevision, 10))
			if got.key != want.key || got.rv != want.rv {
				t.Fatalf("%s item %d: %s@%s, etcd %s@%s", name, i, got.key, got.rv, want.key, want.rv)
			}
		}
	}
	oldRV := strconv.FormatInt(old, 10)
	items, err := walk(watchcache.ListOptions{ResourceVersion: oldRV, ResourceVersionMatch: watchcache.MatchExact, Limit: 9})
	if err != nil {
		t.Fatalf("Exact list at %d, older than the window: %v", old, err)
	}
	check("exact", uint64(old), items)
	rest, err := walk(watchcache.ListOptions{Limit: 10, Continue: first.Continue})
	if err != nil {
		t.Fatalf("continue at %d: %v", first.ResourceVersion, err)
	}
	check("continue", first.ResourceVersion, append(first.Items, rest...))

	// Compaction: the same reads now get 410, as from a cache without History.
	if _, err := cli.Compact(ctx, latest); err != nil {
		t.Fatal(err)
	}
	var exp *watchcache.ExpiredError
	if _, err := h.cache.List(ctx, watchcache.ListOptions{ResourceVersion: oldRV, ResourceVersionMatch: watchcache.MatchExact}); !errors.As(err, &exp) {
		t.Fatalf("Exact list at a compacted revision: %v, want 410", err)
	}
	if _, err := h.cache.List(ctx, watchcache.ListOptions{Limit: 10, Continue: first.Continue}); !errors.As(err, &exp) || exp.Continue == "" {
		t.Fatalf("continue at a compacted revision: %v, want 410 with a token", err)
	}
}
