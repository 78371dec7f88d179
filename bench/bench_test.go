package bench

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/watchcache/watchcache/bench/peers"
	gen "github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

// Benchmarks are named Benchmark<Workload>/n=<pods>/peer=<peer>. Peers:
//
//	ours           watchcache.Cache, spec.nodeName field index, RV="" (consistent; the cache is its own source)
//	ours-rv0       the same at RV="0"
//	ours-labelidx  ours with a label index on app as well
//	client-go      tools/cache Indexer of *corev1.Pod (namespace and spec.nodeName indexes)
//	etcd           the apiserver's etcd3 store GetList over an embedded etcd (RV="", a quorum read)
//	cacher         the apiserver's watch cache through its delegator at RV="" (consistent read)
//	cacher-rv0     the same at RV="0" (which ignores limit: the whole match set)
//
// run.sh runs each (size, peer family) in a process of its own, so that one peer's heap does not
// slow another's garbage collection.

// sized is one benchmark size. Its peers are sub-benchmarks named "n=<size>/peer=<name>" directly
// under the workload: one level, not two, because every (sub-)benchmark run starts with a forced
// full GC, which costs ≈1.5 s of CPU with 100k typed pods in the heap.
type sized struct {
	b *testing.B
	n int
}

// forSizes calls f once per benchmark size.
func forSizes(b *testing.B, f func(s sized)) {
	for _, n := range sizes(b) {
		f(sized{b, n})
	}
}

// world returns the size's world, generated on first use.
func (s sized) world() *world { return getWorld(s.n, peers.Nodes, peers.Namespaces) }

// peer runs f as the sub-benchmark of one peer, with the size's world.
func (s sized) peer(name string, f func(b *testing.B, w *world)) {
	s.bare(name, func(b *testing.B) { f(b, s.world()) })
}

// bare is peer without the world (whose dataset it does not generate).
func (s sized) bare(name string, f func(b *testing.B)) {
	s.b.Run("n="+peers.SizeName(s.n)+"/peer="+name, func(b *testing.B) {
		b.ReportAllocs()
		f(b)
	})
}

// rotation remembers, per sub-benchmark, where its rotation over the queries stopped, so that
// successive runs (-count) continue it: a peer that makes one query per run (the etcd path) then
// samples a different node in each run instead of node-0 every time.
var (
	rotationMu sync.Mutex
	rotation   = map[string]int{}
)

func rotationStart(b *testing.B) int {
	rotationMu.Lock()
	defer rotationMu.Unlock()
	return rotation[b.Name()]
}

func rotationSave(b *testing.B, i int) {
	rotationMu.Lock()
	defer rotationMu.Unlock()
	rotation[b.Name()] = i
}

// reportItems reports the average number of items a list returned: a sanity check that the peers
// answer the same question (the correctness tests check the items themselves).
func reportItems(b *testing.B, items int) {
	b.ReportMetric(float64(items)/float64(b.N), "items/op")
}

// ---- ingest ----------------------------------------------------------------------------------

// BenchmarkIngest: from raw JSON to queryable, including indexing. ns/event is the cost per object.
func BenchmarkIngest(b *testing.B) {
	forSizes(b, func(s sized) {
		perEvent := func(b *testing.B, w *world, cpu time.Duration) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*w.n), "ns/event")
			b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N*w.n), "cpu-ns/event")
		}
		// Replace (a re-list) of all N objects into a new cache with the spec.nodeName index.
		s.peer("ours-replace", func(b *testing.B, w *world) {
			cpu := cpuNow()
			for b.Loop() {
				if _, err := peers.NewOurs(w.d.Raw, w.d.ListRV(), watchcache.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			perEvent(b, w, cpu)
		})
		// N ADDED events applied one by one (the default window; Apply publishes a snapshot every 128 events).
		s.peer("ours-apply", func(b *testing.B, w *world) {
			cpu := cpuNow()
			for b.Loop() {
				c, err := peers.NewOurs(nil, 1, watchcache.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for _, raw := range w.d.Raw {
					if err := c.Apply(watchcache.Event{Type: watchcache.Added, Object: raw}); err != nil {
						b.Fatal(err)
					}
				}
			}
			perEvent(b, w, cpu)
		})
		// Decode (k8s JSON serializer) + Indexer.Add, one goroutine, as an informer does.
		s.peer("client-go", func(b *testing.B, w *world) {
			cpu := cpuNow()
			for b.Loop() {
				if err := peers.ClientGoIngest(peers.NewClientGoIndexer(), w.d.Raw); err != nil {
					b.Fatal(err)
				}
			}
			perEvent(b, w, cpu)
		})
		// NewCacherFromConfig + Wait: the cacher lists the N pods from etcd and builds its store.
		s.peer("cacher-build", func(b *testing.B, w *world) {
			st := w.Store(b)
			ctx := context.Background()
			var cpu, stopCPU time.Duration = cpuNow(), 0
			for b.Loop() {
				c, err := peers.NewCacher(ctx, st)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				t := cpuNow()
				c.Stop()
				stopCPU += cpuNow() - t
				b.StartTimer()
			}
			perEvent(b, w, cpu+stopCPU)
		})
	})
}

// ---- reads -------------------------------------------------------------------------------------

// listPeers benchmarks the queries qs (rotated through) on every peer named in which.
func listPeers(s sized, qs []peers.Query, which ...string) {
	ctx := context.Background()
	want := map[string]bool{}
	for _, p := range which {
		want[p] = true
	}
	ours := func(name string, c func(*world, testing.TB) *watchcache.Cache, rv string) {
		if !want[name] {
			return
		}
		s.peer(name, func(b *testing.B, w *world) {
			cache, items, i := c(w, b), 0, rotationStart(b)
			cpu := cpuNow()
			for b.Loop() {
				r, err := peers.OursList(ctx, cache, qs[i%len(qs)], rv)
				if err != nil {
					b.Fatal(err)
				}
				items += len(r.Items)
				i++
			}
			rotationSave(b, i)
			reportCPU(b, cpu)
			reportItems(b, items)
		})
	}
	ours("ours", (*world).Ours, "")
	ours("ours-rv0", (*world).Ours, "0")
	ours("ours-labelidx", (*world).OursLabel, "")
	if want["client-go"] {
		s.peer("client-go", func(b *testing.B, w *world) {
			idx := w.ClientGo(b)
			cqs := make([]*peers.ClientGoQuery, len(qs))
			for i, q := range qs {
				cq, err := peers.CompileClientGo(q)
				if err != nil {
					b.Fatal(err)
				}
				cqs[i] = cq
			}
			items, i := 0, rotationStart(b)
			cpu := cpuNow()
			for b.Loop() {
				pods, err := peers.ClientGoList(idx, cqs[i%len(cqs)])
				if err != nil {
					b.Fatal(err)
				}
				items += len(pods)
				i++
			}
			rotationSave(b, i)
			reportCPU(b, cpu)
			reportItems(b, items)
		})
	}
	cacher := func(name, rv string) {
		if !want[name] {
			return
		}
		s.peer(name, func(b *testing.B, w *world) {
			c := w.Cacher(b)
			before, items, i := c.Delegated(), 0, rotationStart(b)
			cpu := cpuNow()
			for b.Loop() {
				l, err := c.List(ctx, qs[i%len(qs)], rv)
				if err != nil {
					b.Fatal(err)
				}
				items += len(l.Items)
				i++
			}
			rotationSave(b, i)
			reportCPU(b, cpu)
			reportItems(b, items)
			// Lists the delegator sent to etcd instead of the cache: 0 unless something is off.
			b.ReportMetric(float64(c.Delegated()-before)/float64(b.N), "to-etcd/op")
		})
	}
	cacher("cacher", "")
	cacher("cacher-rv0", "0")
	if want["etcd"] {
		s.peer("etcd", func(b *testing.B, w *world) {
			st := w.Store(b)
			items, i := 0, rotationStart(b)
			cpu := cpuNow()
			for b.Loop() {
				l, err := peers.StoreList(ctx, st, qs[i%len(qs)], "")
				if err != nil {
					b.Fatal(err)
				}
				items += len(l.Items)
				i++
			}
			rotationSave(b, i)
			reportCPU(b, cpu)
			reportItems(b, items)
		})
	}
}

func nodeQueries(f func(string) peers.Query) []peers.Query {
	var qs []peers.Query
	for _, n := range queryNodes(peers.Nodes) {
		qs = append(qs, f(n))
	}
	return qs
}

// BenchmarkIndexedPage: fieldSelector=spec.nodeName=<node>, limit 500 (≈ N/5000 matches), rotating
// over 64 nodes. client-go: ByIndex (no order, no paging).
func BenchmarkIndexedPage(b *testing.B) {
	forSizes(b, func(s sized) {
		listPeers(s, nodeQueries(qNode), "ours", "ours-rv0", "client-go", "cacher", "cacher-rv0", "etcd")
	})
}

// BenchmarkIndexedLabelPage: spec.nodeName=<node>,status.phase=Running and app=frontend (the most
// common app, ≈22%), limit 500. client-go: ByIndex + phase + labels.Selector.Matches. The etcd
// path decodes every pod whatever the selector, as in BenchmarkIndexedPage; it runs here only below
// 100k pods, where it is cheap (at 100k it would add a minute to run.sh and say nothing new).
func BenchmarkIndexedLabelPage(b *testing.B) {
	forSizes(b, func(s sized) {
		which := []string{"ours", "ours-rv0", "client-go", "cacher", "cacher-rv0"}
		if s.n < 100_000 {
			which = append(which, "etcd")
		}
		listPeers(s, nodeQueries(qNodeLabel), which...)
	})
}

// BenchmarkHeadPage: the first page of 500 of all pods, no selector, consistent read.
func BenchmarkHeadPage(b *testing.B) {
	forSizes(b, func(s sized) {
		listPeers(s, []peers.Query{{Limit: 500}}, "ours", "cacher", "etcd")
	})
}

// BenchmarkLabelPage: the first page of 500 of app=web (≈1%, unindexed label). client-go: List +
// Matches until 500 matches (in map order). cacher at RV="" (at RV=0 it ignores the limit).
func BenchmarkLabelPage(b *testing.B) {
	forSizes(b, func(s sized) {
		listPeers(s, []peers.Query{{LabelSelector: selective1pct, Limit: 500}}, "ours", "ours-labelidx", "client-go", "cacher")
	})
}

// BenchmarkLabelList: every pod with app=web (≈1%, unindexed label), no limit.
func BenchmarkLabelList(b *testing.B) {
	forSizes(b, func(s sized) {
		listPeers(s, []peers.Query{{LabelSelector: selective1pct}}, "ours", "ours-labelidx", "client-go", "cacher-rv0")
	})
}

// BenchmarkFullList: every pod, no selector, no limit.
func BenchmarkFullList(b *testing.B) {
	forSizes(b, func(s sized) {
		listPeers(s, []peers.Query{{}}, "ours", "client-go", "cacher-rv0")
	})
}

// ---- continue after churn ----------------------------------------------------------------------

// continueChurn is how many changes separate the first page from the continue page.
const continueChurn = 10_000

// BenchmarkContinuePage: a page of 500 in the middle of an all-pods list (the token after page
// N/1000), read after 10,000 changes since the list began: served from the snapshot of the
// list's RV.
func BenchmarkContinuePage(b *testing.B) {
	forSizes(b, func(s sized) {
		ctx := context.Background()
		pages := max(1, s.n/1000)
		s.peer("ours", func(b *testing.B, w *world) {
			tok := w.oursTok.get(b, func() (string, error) {
				defer since("ours: continue token and churn", time.Now())
				return prepareOursContinue(b, w, 500, pages, continueChurn, nil), nil
			})
			c, items := w.Mutable(b).c, 0
			cpu := cpuNow()
			for b.Loop() {
				r, err := peers.OursList(ctx, c, peers.Query{Limit: 500, Continue: tok}, "")
				if err != nil {
					b.Fatal(err)
				}
				items += len(r.Items)
			}
			reportCPU(b, cpu)
			reportItems(b, items)
		})
		s.peer("cacher", func(b *testing.B, w *world) {
			tok := w.cacherTok.get(b, func() (string, error) {
				defer since("cacher: continue token and churn", time.Now())
				return prepareCacherContinue(b, w, 500, pages, continueChurn), nil
			})
			c := w.Cacher(b)
			before, items := c.Delegated(), 0
			cpu := cpuNow()
			for b.Loop() {
				l, err := c.List(ctx, peers.Query{Limit: 500, Continue: tok}, "")
				if err != nil {
					b.Fatal(err)
				}
				items += len(l.Items)
			}
			reportCPU(b, cpu)
			reportItems(b, items)
			b.ReportMetric(float64(c.Delegated()-before)/float64(b.N), "to-etcd/op")
		})
	})
}

// ---- watch dispatch ------------------------------------------------------------------------------

// watchers is the number of node-filtered watchers (one per node, as kubelets).
const watchers = peers.Nodes

// BenchmarkWatchDispatch: one churn change applied and delivered to the node-filtered watchers it
// concerns (its old and new node), with 5,000 watchers drained concurrently; ns/op is per change,
// until every delivery has been received.
//
//	ours-nowatch  Apply alone, no watchers (the baseline of the next one)
//	ours-5000w    Apply + dispatch through the spec.nodeName index to 5,000 watchers
//	etcd-put      etcd Put/Delete alone from 4 writers (the cacher consumes the etcd watch)
//	cacher-5000w  etcd write → etcd watch → decode → cacher → trigger dispatch to 5,000 watchers,
//	              pipelined (4 writers): bounded below by etcd-put
func BenchmarkWatchDispatch(b *testing.B) {
	forSizes(b, func(s sized) {
		ctx := context.Background()
		apply := func(b *testing.B, w *world, pool *watchPool) {
			m := w.Mutable(b)
			chs := make([]genChange, b.N)
			var expect int64
			for i := range chs {
				chs[i].ch, chs[i].n = m.next()
				expect += int64(chs[i].n)
			}
			var target int64
			if pool != nil {
				target = pool.received.Load() + expect
			}
			b.ResetTimer()
			cpu := cpuNow()
			for i := range chs {
				if err := m.applyOurs(chs[i].ch); err != nil {
					b.Fatal(err)
				}
			}
			if pool != nil {
				if err := pool.wait(target, time.Minute); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			reportCPU(b, cpu)
			b.ReportMetric(float64(expect)/float64(b.N), "deliveries/op")
		}
		s.peer("ours-nowatch", func(b *testing.B, w *world) { apply(b, w, nil) })
		s.peer("ours-5000w", func(b *testing.B, w *world) {
			pool := w.oursPool.get(b, func() (*watchPool, error) {
				defer since("ours: 5000 watchers", time.Now())
				return oursWatchers(ctx, w.Mutable(b).c, watchers)
			})
			apply(b, w, pool)
		})
		write := func(b *testing.B, w *world, pool *watchPool) {
			em := w.EtcdChurn(b)
			chs := make([]genChange, b.N)
			var expect int64
			for i := range chs {
				chs[i].ch, chs[i].n = em.next()
				expect += int64(chs[i].n)
			}
			var target int64
			if pool != nil {
				target = pool.received.Load() + expect
			}
			cw := w.Etcd(b).NewChangeWriter(ctx, 4)
			b.ResetTimer()
			cpu := cpuNow()
			for i := range chs {
				writeEtcd(cw, chs[i].ch)
			}
			if err := cw.Close(); err != nil {
				b.Fatal(err)
			}
			if pool != nil {
				if err := pool.wait(target, time.Minute); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			reportCPU(b, cpu)
			if c := w.cacher.v; c != nil {
				if _, err := c.List(ctx, peers.Query{Limit: 1}, ""); err != nil { // catch up before the next run
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(expect)/float64(b.N), "deliveries/op")
		}
		s.peer("etcd-put", func(b *testing.B, w *world) { write(b, w, nil) })
		s.peer("cacher-5000w", func(b *testing.B, w *world) {
			c := w.Cacher(b)
			pool := w.cacherPool.get(b, func() (*watchPool, error) {
				defer since("cacher: 5000 watchers", time.Now())
				rev, err := w.Etcd(b).Revision(ctx)
				if err != nil {
					return nil, err
				}
				return cacherWatchers(ctx, c, strconv.FormatInt(rev, 10), watchers)
			})
			write(b, w, pool)
		})
	})
}

type genChange struct {
	ch gen.Change
	n  int
}
