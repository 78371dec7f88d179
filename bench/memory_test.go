package bench

import (
	"runtime"
	"testing"

	"github.com/watchcache/watchcache/bench/peers"
	gen "github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

// settle runs a full collection and returns the live heap after it, then the CPU time of one more
// full collection of that heap: what holding the objects costs the collector per cycle (its mark
// phase scans every pointer).
func settle() (heap uint64, gcCPU float64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	start := cpuNow()
	runtime.GC()
	return m.HeapAlloc, float64(cpuNow() - start)
}

// BenchmarkMemory measures the live heap per object after loading N pods (B/object), by difference
// of the heap after GC before and after, in a process that holds nothing else (run.sh runs it
// alone). The pods are generated inside the measurement, so what a peer keeps of the raw JSON is
// counted and what it drops is not. raw-B/object is the JSON itself, for scale.
//
// gc-cpu-ns is the CPU time one full garbage collection spends on what the peer holds (the
// difference with the heap before loading): the per-cycle price of keeping the objects.
//
//	ours            watchcache.Cache from Replace, with the spec.nodeName index
//	client-go       Indexer of *corev1.Pod decoded one by one (namespace and spec.nodeName indexes)
//	ours-10k-snaps  ours after 10,000 churn changes with all 10,000 snapshots retained (the
//	                default window; no age bound); B/object is per live object, snap-B is the
//	                heap added per retained snapshot
func BenchmarkMemory(b *testing.B) {
	forSizes(b, func(s sized) {
		// The pods are generated here, not taken from the world (whose dataset would then be
		// alive before the measurement and not counted).
		n := s.n
		g := gen.New(gen.Config{Pods: n, Nodes: peers.Nodes, Namespaces: peers.Namespaces, Seed: peers.Seed})
		var rawBytes int
		for i := range n {
			rawBytes += len(g.Pod(i, uint64(i+2)))
		}
		rawPer := float64(rawBytes) / float64(n)
		ours := func(opts watchcache.Options) (*watchcache.Cache, error) {
			raw := make([][]byte, n)
			for i := range raw {
				raw[i] = g.Pod(i, uint64(i+2))
			}
			return peers.NewOurs(raw, uint64(n+2), opts)
		}
		s.bare("ours", func(b *testing.B) {
			var per, gc float64
			for b.Loop() {
				base, gc0 := settle()
				c, err := ours(watchcache.Options{})
				if err != nil {
					b.Fatal(err)
				}
				after, gc1 := settle()
				per, gc = float64(after-base)/float64(n), gc1-gc0
				runtime.KeepAlive(c)
			}
			b.ReportMetric(per, "B/object")
			b.ReportMetric(rawPer, "raw-B/object")
			b.ReportMetric(gc, "gc-cpu-ns")
		})
		s.bare("client-go", func(b *testing.B) {
			var per, gc float64
			for b.Loop() {
				base, gc0 := settle()
				idx := peers.NewClientGoIndexer()
				for i := range n {
					p, err := peers.DecodePod(g.Pod(i, uint64(i+2)))
					if err != nil {
						b.Fatal(err)
					}
					if err := idx.Add(p); err != nil {
						b.Fatal(err)
					}
				}
				after, gc1 := settle()
				per, gc = float64(after-base)/float64(n), gc1-gc0
				runtime.KeepAlive(idx)
			}
			b.ReportMetric(per, "B/object")
			b.ReportMetric(rawPer, "raw-B/object")
			b.ReportMetric(gc, "gc-cpu-ns")
		})
		s.bare("ours-10k-snaps", func(b *testing.B) {
			const snaps = watchcache.DefaultWindowEvents
			var per, loadPer, perSnap float64
			for b.Loop() {
				churn := g.NewChurn(churnSeed)
				changes := make([]gen.Change, snaps)
				for i := range changes {
					changes[i] = churn.Next(uint64(n + 3 + i))
				}
				base, _ := settle()
				c, err := ours(watchcache.Options{WindowAge: -1})
				if err != nil {
					b.Fatal(err)
				}
				loaded, _ := settle()
				for i := range changes {
					t := watchcache.Modified
					switch changes[i].Type {
					case gen.Added:
						t = watchcache.Added
					case gen.Deleted:
						t = watchcache.Deleted
					}
					if err := c.Apply(watchcache.Event{Type: t, Object: changes[i].Object}); err != nil {
						b.Fatal(err)
					}
					changes[i] = gen.Change{} // the cache keeps what it keeps; the test drops its copy
				}
				after, _ := settle()
				loadPer = float64(loaded-base) / float64(n)
				per = float64(after-base) / float64(c.Len())
				perSnap = float64(after-loaded) / snaps
				runtime.KeepAlive(c)
			}
			b.ReportMetric(per, "B/object")
			b.ReportMetric(loadPer, "load-B/object")
			b.ReportMetric(perSnap, "snap-B")
		})
	})
}
