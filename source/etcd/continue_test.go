package etcd

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/watchcache"
)

// TestContinueTokenAcrossCaches: two caches fed from the same etcd share the RV and key space, so a
// continue token issued by one is honoured by the other (rules 2.1–2.3, 2.8): page 2 from cache B
// equals page 2 from cache A, even after both moved on, and walking the rest of the list on B gives
// exactly etcd's Range at the token's revision.
func TestContinueTokenAcrossCaches(t *testing.T) {
	cli := startEtcd(t)
	a := newFeed(t, cli, Options{})
	b := newFeed(t, cli, Options{})
	rng := rand.New(rand.NewPCG(9, 10))
	version := map[int]int{}
	churn(t, a, rng, version, 150)
	runSource(t, a.src, a.cache)
	runSource(t, b.src, b.cache)
	ctx := context.Background()

	page1, err := a.cache.List(ctx, watchcache.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if page1.Continue == "" {
		t.Fatal("no continue token")
	}
	churn(t, a, rng, version, 50) // both caches move on; the token's snapshot is in the past
	assertMirrors(t, cli, "/registry/pods/", a.cache)
	assertMirrors(t, cli, "/registry/pods/", b.cache)

	pageA, err := a.cache.List(ctx, watchcache.ListOptions{Limit: 10, Continue: page1.Continue})
	if err != nil {
		t.Fatal(err)
	}
	pageB, err := b.cache.List(ctx, watchcache.ListOptions{Limit: 10, Continue: page1.Continue})
	if err != nil {
		t.Fatalf("cache B refused A's token: %v", err)
	}
	if pageA.ResourceVersion != page1.ResourceVersion || pageB.ResourceVersion != page1.ResourceVersion {
		t.Fatalf("page 2 RVs: A %d, B %d, want the token's %d", pageA.ResourceVersion, pageB.ResourceVersion, page1.ResourceVersion)
	}
	if !slices.EqualFunc(pageA.Items, pageB.Items, slices.Equal) || pageA.Continue != pageB.Continue {
		t.Fatal("page 2 differs between the caches")
	}

	// The whole list walked on B from A's first page equals etcd at the token's revision.
	items := slices.Clone(page1.Items)
	for tok := page1.Continue; tok != ""; {
		p, err := b.cache.List(ctx, watchcache.ListOptions{Limit: 10, Continue: tok})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, p.Items...)
		tok = p.Continue
	}
	resp, err := cli.Get(ctx, "/registry/pods/", clientv3.WithPrefix(), clientv3.WithRev(int64(page1.ResourceVersion)))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != len(resp.Kvs) {
		t.Fatalf("paged list has %d items, etcd at %d has %d", len(items), page1.ResourceVersion, len(resp.Kvs))
	}
	for i, kv := range resp.Kvs {
		got := parseStored(t, "", items[i], "")
		want := parseStored(t, string(kv.Key[len("/registry/pods/"):]), kv.Value, strconv.FormatInt(kv.ModRevision, 10))
		if got.key != want.key || got.rv != want.rv {
			t.Fatalf("item %d: %s@%s, etcd %s@%s", i, got.key, got.rv, want.key, want.rv)
		}
	}
}
