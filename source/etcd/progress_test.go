package etcd

import (
	"context"
	"log/slog"
	"testing"
	"time"

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
			pods := podsCache(src, 0)
			nodes := watchcache.New(watchcache.Options{
				Resource:               watchcache.Resource{Name: "nodes"},
				CurrentResourceVersion: src.CurrentResourceVersion,
			})
			if err := src.Add("pods", pods); err != nil {
				b.Fatal(err)
			}
			if err := src.Add("minions", nodes); err != nil {
				b.Fatal(err)
			}
			gen := testdata.New(testdata.Config{Pods: 100, Nodes: 10})
			for i := range 100 {
				put(b, cli, gen, i, 0)
			}
			runSource(b, src, pods, nodes)
			waitWatching(b, cli, src, 2)
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
