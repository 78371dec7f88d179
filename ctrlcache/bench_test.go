package ctrlcache_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/watchcache/watchcache/ctrlcache"
	"github.com/watchcache/watchcache/internal/testdata"
)

// benchCluster is the benchmarks' cluster: 100,000 pods (BENCH_PODS) in 100 namespaces on 100
// nodes, so a node has ≈1,000 pods.
func benchCluster(b *testing.B) *cluster {
	return newClusterOf(b, testdata.Config{Pods: benchPods(b), Namespaces: 100, Nodes: 100, Seed: 11})
}

func benchPods(b *testing.B) int {
	if s := os.Getenv("BENCH_PODS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 100_000
}

// peer is one cache under benchmark: how to build it and how to index pods by node for it.
type peer struct {
	name  string
	build func(b *testing.B, cl *cluster, strip bool) cache.Cache
	// index registers what the peer needs for the node List.
	index func(ctx context.Context, c cache.Cache) error
}

var peers = []peer{
	{"controller-runtime", func(b *testing.B, cl *cluster, strip bool) cache.Cache {
		opts := cache.Options{Scheme: scheme.Scheme}
		if strip {
			opts.DefaultTransform = cache.TransformStripManagedFields()
		}
		c, err := cache.New(cl.cfg, opts)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}, func(ctx context.Context, c cache.Cache) error {
		return c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", byNode)
	}},
	{"ctrlcache", func(b *testing.B, cl *cluster, strip bool) cache.Cache {
		c, err := ctrlcache.NewFunc(ctrlcache.Config{StripManagedFields: strip})(cl.cfg, cache.Options{Scheme: scheme.Scheme})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}, func(ctx context.Context, c cache.Cache) error {
		return c.(*ctrlcache.Cache).IndexJSONPath(ctx, &corev1.Pod{}, "spec.nodeName", "spec.nodeName")
	}},
	{"ctrlcache-IndexField", func(b *testing.B, cl *cluster, strip bool) cache.Cache {
		c, err := ctrlcache.New(cl.cfg, cache.Options{Scheme: scheme.Scheme})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}, func(ctx context.Context, c cache.Cache) error {
		return c.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", byNode)
	}},
}

// startSynced starts c with a pods informer and waits until it has synced.
func startSynced(b *testing.B, c cache.Cache) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	if _, err := c.GetInformer(ctx, &corev1.Pod{}); err != nil {
		b.Fatal(err)
	}
	if !c.WaitForCacheSync(ctx) {
		b.Fatal("not synced")
	}
	return func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}
}

// cpuTime is the process's user and system CPU time: on a shared machine it counts what the
// process did, not the time it waited for a core. It includes the in-process server's work, the
// same for every peer.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapMiB() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// BenchmarkSync measures the time from Start until the pods informer has synced, and the heap the
// synced cache holds (after GC, less the heap before it was built), for each peer, with
// managedFields kept and stripped. Each iteration builds a new cache of every object.
func BenchmarkSync(b *testing.B) {
	cl := benchCluster(b)
	for _, strip := range []bool{false, true} {
		for _, p := range peers[:2] {
			b.Run(fmt.Sprintf("%s/strip=%v", p.name, strip), func(b *testing.B) {
				var heap, cpu float64
				for b.Loop() {
					b.StopTimer()
					base := heapMiB()
					c := p.build(b, cl, strip)
					b.StartTimer()
					cpu0 := cpuTime()
					stop := startSynced(b, c)
					cpu += (cpuTime() - cpu0).Seconds()
					b.StopTimer()
					heap = heapMiB() - base
					stop()
					b.StartTimer()
				}
				b.ReportMetric(heap, "heap-MiB")
				b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
				b.ReportMetric(heap*(1<<20)/float64(cl.pods.Len()), "heap-B/pod")
			})
		}
	}
}

// BenchmarkReads measures a Get of one pod and a List of one node's pods (≈ pods/100) through each
// peer, with the index each one needs: controller-runtime's IndexField, this cache's JSON-path
// index (no decode), and this cache's IndexField (a Go function). cpu-ns/op is the process's CPU
// time per op, which a loaded machine inflates less than the wall time (a read runs on one
// goroutine; the feeds are idle meanwhile).
func BenchmarkReads(b *testing.B) {
	cl := benchCluster(b)
	n := cl.pods.Len()
	ctx := context.Background()
	for _, p := range peers {
		c := p.build(b, cl, false)
		if err := p.index(ctx, c); err != nil {
			b.Fatal(err)
		}
		stop := startSynced(b, c)
		b.Run("Get/"+p.name, func(b *testing.B) {
			var pod corev1.Pod
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				i = (i + 7919) % n
				key := client.ObjectKey{Namespace: cl.gen.PodNamespace(i), Name: cl.gen.PodName(i)}
				if err := c.Get(ctx, key, &pod); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
		b.Run("ListNode/"+p.name, func(b *testing.B) {
			var l corev1.PodList
			j := 0
			items := 0
			cpu0 := cpuTime()
			for b.Loop() {
				j = (j + 1) % cl.gen.Config().Nodes
				if err := c.List(ctx, &l, client.MatchingFields{"spec.nodeName": cl.gen.NodeName(j)}); err != nil {
					b.Fatal(err)
				}
				items += len(l.Items)
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(items)/float64(b.N), "pods/op")
		})
		stop()
	}
}
