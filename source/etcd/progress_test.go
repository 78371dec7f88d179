package etcd

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

// TestConsistentRead: a write, then a List with resourceVersion "" returns it (rule 1.8). When the
// last write belongs to another resource, the cache reaches etcd's revision through a requested
// progress notification within a few 100 ms rounds (rule 3.3) instead of timing out (etcd's own
// periodic notifications come every 10 minutes).
func TestConsistentRead(t *testing.T) {
	cli := startEtcd(t)
	src := New(cli, Options{Logger: testLogger(t)})
	pods := podsCache(src, 0)
	nodes := watchcache.New(watchcache.Options{
		Resource:               watchcache.Resource{Name: "nodes"},
		CurrentResourceVersion: src.CurrentResourceVersion,
	})
	if err := src.Add("pods", pods); err != nil {
		t.Fatal(err)
	}
	if err := src.Add("minions", nodes); err != nil {
		t.Fatal(err)
	}
	runSource(t, src, pods, nodes)
	gen := testdata.New(testdata.Config{Pods: 10, Nodes: 5})
	ctx := context.Background()

	for i := range 5 {
		rev := put(t, cli, gen, i, 0)
		res, err := pods.List(ctx, watchcache.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != i+1 || res.ResourceVersion < uint64(rev) {
			t.Fatalf("after write %d at %d: %d items at RV %d", i, rev, len(res.Items), res.ResourceVersion)
		}
	}

	resp, err := cli.Put(ctx, "/registry/minions/"+gen.NodeName(0), string(gen.Node(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	rev := uint64(resp.Header.Revision)
	before := src.Stats()
	start := time.Now()
	res, err := pods.List(ctx, watchcache.ListOptions{})
	if err != nil {
		t.Fatalf("consistent pods list after a node write: %v", err)
	}
	took := time.Since(start)
	if res.ResourceVersion < rev {
		t.Fatalf("pods list at RV %d, want ≥ %d", res.ResourceVersion, rev)
	}
	after := src.Stats()
	// Only a progress notification can have brought the pods cache to the node write's revision (the
	// request that produced it may have been sent for the previous read, just after the node write).
	if after.ProgressRequests == 0 || after.Bookmarks == before.Bookmarks {
		t.Fatalf("no progress requested or applied: before %+v, after %+v", before, after)
	}
	if took > 2*time.Second {
		t.Fatalf("consistent read took %v", took)
	}
	if _, _, err := nodes.Get(ctx, "", gen.NodeName(0), ""); err != nil {
		t.Fatalf("node: %v", err)
	}
	t.Logf("consistent pods read after a node write: %v, %d progress requests", took, after.ProgressRequests-before.ProgressRequests)
}

// TestConsistentReadSpeculates: a consistent read after a write to another resource (rule 1.8) waits
// until its cache reached that write's revision, which only a progress notification brings (rule
// 3.3), and costs one progress request, sent with the Get rather than one interval after the
// previous read's; concurrent reads share one. Watch responses reach the source late, so that a
// read answering before its cache reached the revision would be seen.
func TestConsistentReadSpeculates(t *testing.T) {
	cli := startEtcd(t)
	installDelayed(cli, 30*time.Millisecond)
	// An interval far above a read's duration: every request counted was sent for a read, none is a
	// retry. A requester that waits an interval between requests fails here with 504s.
	src := New(cli, Options{Logger: testLogger(t), ProgressInterval: 5 * time.Second, ProgressTimeout: 10 * time.Second})
	pods, gen := podsAndNodes(t, cli, src, 10, 5)
	ctx := context.Background()
	writeNode := func(i int) uint64 {
		t.Helper()
		resp, err := cli.Put(ctx, "/registry/minions/"+gen.NodeName(i%5), string(gen.Node(i%5, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return uint64(resp.Header.Revision)
	}

	for i := range 5 {
		rev := writeNode(i)
		before := src.Stats().ProgressRequests
		start := time.Now()
		res, err := pods.List(ctx, watchcache.ListOptions{})
		took := time.Since(start)
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if res.ResourceVersion < rev {
			t.Fatalf("read %d answered at RV %d, before the node written at %d", i, res.ResourceVersion, rev)
		}
		if n := src.Stats().ProgressRequests - before; n > 1 {
			t.Fatalf("read %d: %d progress requests, want 1", i, n)
		}
		if took > time.Second {
			t.Fatalf("read %d took %v", i, took)
		}
		t.Logf("read %d after a node write: %v", i, took)
	}

	rev := writeNode(5)
	before := src.Stats().ProgressRequests
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			res, err := pods.List(ctx, watchcache.ListOptions{})
			switch {
			case err != nil:
				t.Errorf("concurrent read %d: %v", i, err)
			case res.ResourceVersion < rev:
				t.Errorf("concurrent read %d answered at RV %d, before the node written at %d", i, res.ResourceVersion, rev)
			}
		})
	}
	wg.Wait()
	// One request serves every read that started before its answer arrived; a second one only if a
	// read started after that.
	if n := src.Stats().ProgressRequests - before; n > 2 {
		t.Fatalf("20 concurrent reads: %d progress requests, want 1 or 2", n)
	}
}

// TestWaitingFor: a list at a resourceVersion the cache has not reached, written to another
// resource (rule 1.9), waits (rule 3.3) only until the progress notification that WaitingFor, as
// watchcache.Options.OnWait, requests at once, not for an interval.
func TestWaitingFor(t *testing.T) {
	cli := startEtcd(t)
	src := New(cli, Options{Logger: testLogger(t), ProgressInterval: 5 * time.Second, ProgressTimeout: 10 * time.Second})
	pods := watchcache.New(watchcache.Options{
		Resource: watchcache.Resource{Name: "pods", Namespaced: true},
		OnWait:   src.WaitingFor,
	})
	if err := src.Add("pods", pods); err != nil {
		t.Fatal(err)
	}
	runSource(t, src, pods)
	waitWatching(t, cli, src, 1)
	ctx := context.Background()
	for i := range 3 {
		resp, err := cli.Put(ctx, "/registry/minions/node-0", fmt.Sprintf(`{"metadata":{"name":"node-0","labels":{"v":"%d"}}}`, i))
		if err != nil {
			t.Fatal(err)
		}
		rev := uint64(resp.Header.Revision)
		before := src.Stats().ProgressRequests
		start := time.Now()
		res, err := pods.List(ctx, watchcache.ListOptions{ResourceVersion: strconv.FormatUint(rev, 10)})
		took := time.Since(start)
		if err != nil {
			t.Fatalf("list at %d: %v", rev, err)
		}
		if res.ResourceVersion < rev {
			t.Fatalf("list at %d answered at %d", rev, res.ResourceVersion)
		}
		if n := src.Stats().ProgressRequests - before; n != 1 || took > time.Second {
			t.Fatalf("list at %d: %d progress requests, %v; want 1, well under the 5 s interval", rev, n, took)
		}
	}
}

// BenchmarkConsistentRead measures a consistent read's own cost against an embedded etcd on
// loopback: CurrentResourceVersion (the linearizable Get) and the wait until the pods cache reached
// its revision, through a List with resourceVersion "" and limit 1 of a 100-pod cache. Before each
// read (outside the timer):
//   - quiet: nothing; the cache already holds etcd's revision, the read costs the Get;
//   - same: a pod is written; the read may wait for its watch event;
//   - other: a node is written; the pods cache reaches that revision only through a progress
//     notification (rule 3.3), so the read costs the Get plus a progress round trip.
//
// progress/op is the number of progress requests sent per read.
func BenchmarkConsistentRead(b *testing.B) {
	for _, before := range []string{"quiet", "same", "other"} {
		b.Run(before, func(b *testing.B) {
			cli := startEtcd(b)
			src := New(cli, Options{Logger: slog.New(slog.DiscardHandler)})
			pods, gen := podsAndNodes(b, cli, src, 100, 10)
			ctx := context.Background()
			read := func() {
				if _, err := pods.List(ctx, watchcache.ListOptions{Limit: 1}); err != nil {
					b.Fatal(err)
				}
			}
			read()
			first := src.Stats().ProgressRequests
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				switch before {
				case "same":
					b.StopTimer()
					put(b, cli, gen, i%100, i+1)
					b.StartTimer()
				case "other":
					b.StopTimer()
					if _, err := cli.Put(ctx, "/registry/minions/"+gen.NodeName(i%10), string(gen.Node(i%10, 0))); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				read()
			}
			b.ReportMetric(float64(src.Stats().ProgressRequests-first)/float64(b.N), "progress/op")
		})
	}
}

// podsAndNodes feeds a pods cache and a nodes cache from src (both with src's consistent-read
// callback), writes n generated pods, runs src and waits until both feeds watch. It returns the
// pods cache and the generator of the pods and of nodes (nodes of them).
func podsAndNodes(t testing.TB, cli *clientv3.Client, src *Source, n, nodes int) (*watchcache.Cache, *testdata.Generator) {
	t.Helper()
	pods := podsCache(src, 0)
	nodeCache := watchcache.New(watchcache.Options{
		Resource:               watchcache.Resource{Name: "nodes"},
		CurrentResourceVersion: src.CurrentResourceVersion,
	})
	if err := src.Add("pods", pods); err != nil {
		t.Fatal(err)
	}
	if err := src.Add("minions", nodeCache); err != nil {
		t.Fatal(err)
	}
	gen := testdata.New(testdata.Config{Pods: n, Nodes: nodes})
	for i := range n {
		put(t, cli, gen, i, 0)
	}
	runSource(t, src, pods, nodeCache)
	waitWatching(t, cli, src, 2)
	return pods, gen
}
