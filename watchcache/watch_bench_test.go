package watchcache

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/internal/testdata"
)

// watchBench is a 100k-pod cache on 5,000 nodes with the spec.nodeName index and n kubelet-style
// watchers, each selecting one node, drained concurrently.
type watchBench struct {
	c      *Cache
	gen    *testdata.Generator
	churn  *testdata.Churn
	rv     uint64
	cancel context.CancelFunc
	wg     sync.WaitGroup
	got    []int64
	latMu  sync.Mutex
}

func newWatchBench(b *testing.B, watchers int) *watchBench {
	f := loadBench(b) // reuse the generated objects
	wb := &watchBench{gen: f.gen, churn: f.gen.NewChurn(7), rv: benchPods + 1}
	wb.c = New(Options{Resource: Resource{Name: "pods", Namespaced: true}, WindowEvents: 1000, WatchBuffer: 1000})
	if err := wb.c.Replace(f.objs, wb.rv); err != nil {
		b.Fatal(err)
	}
	if err := wb.c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wb.cancel = cancel
	for i := range watchers {
		w, err := wb.c.Watch(ctx, WatchOptions{ResourceVersion: fmt.Sprint(wb.rv), FieldSelector: fmt.Sprintf("spec.nodeName=node-%d", i%benchNodes)})
		if err != nil {
			b.Fatal(err)
		}
		wb.wg.Go(func() {
			for range w.Events() {
			}
		})
	}
	for wb.c.Watchers() < watchers {
		time.Sleep(time.Millisecond)
	}
	return wb
}

func (wb *watchBench) stop() {
	wb.cancel()
	wb.wg.Wait()
	wb.c.Stop()
}

// BenchmarkApplyWatchers: apply + dispatch per event with 0, 1, 100 and 5,000 node-filtered
// watchers (target: 5,000 cost ≤ 2× one watcher).
func BenchmarkApplyWatchers(b *testing.B) {
	for _, n := range []int{0, 1, 100, 5000} {
		b.Run(fmt.Sprint("watchers=", n), func(b *testing.B) {
			wb := newWatchBench(b, n)
			defer wb.stop()
			var pending []Event
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if len(pending) == 0 {
					b.StopTimer()
					for range 2048 {
						wb.rv++
						pending = append(pending, churnEvent(wb.churn.Next(wb.rv), wb.rv))
					}
					b.StartTimer()
				}
				if err := wb.c.Apply(pending[0]); err != nil {
					b.Fatal(err)
				}
				pending = pending[1:]
			}
			b.StopTimer()
			if got := wb.c.Watchers(); got != n {
				b.Fatalf("%d of %d watchers left: some fell behind", got, n)
			}
		})
	}
}

// BenchmarkWatchLatency: time from Apply to delivery on a watcher of the changed pod's node.
func BenchmarkWatchLatency(b *testing.B) {
	f := loadBench(b)
	c := New(Options{Resource: Resource{Name: "pods", Namespaced: true}, WindowEvents: 100})
	rv := uint64(benchPods + 1)
	if err := c.Replace(f.objs[:1000], rv); err != nil {
		b.Fatal(err)
	}
	defer c.Stop()
	_ = c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := c.Watch(ctx, WatchOptions{ResourceVersion: fmt.Sprint(rv), FieldSelector: "spec.nodeName=node-x"})
	if err != nil {
		b.Fatal(err)
	}
	objs := [][]byte{pod("a", "p", "node-x", "v=1", 0), pod("a", "p", "node-x", "v=2", 0)}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		rv++
		if err := c.Apply(Event{Type: Modified, Object: objs[i%2], ResourceVersion: rv}); err != nil {
			b.Fatal(err)
		}
		<-w.Events()
	}
}

// BenchmarkWatcherMemory reports the heap held per idle node-filtered watcher. Each iteration
// starts and ends 5,000 watchers: run it with -benchtime 1x.
func BenchmarkWatcherMemory(b *testing.B) {
	c := New(Options{Resource: Resource{Name: "pods", Namespaced: true}})
	if err := c.Replace(nil, 1); err != nil {
		b.Fatal(err)
	}
	defer c.Stop()
	_ = c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"})
	const n = 5000
	for b.Loop() {
		before := heapInUse()
		ctx, cancel := context.WithCancel(context.Background())
		for i := range n {
			if _, err := c.Watch(ctx, WatchOptions{ResourceVersion: "1", FieldSelector: fmt.Sprintf("spec.nodeName=node-%d", i)}); err != nil {
				b.Fatal(err)
			}
		}
		for c.Watchers() < n {
			time.Sleep(time.Millisecond)
		}
		after := heapInUse()
		b.ReportMetric(float64(after-before)/n, "B/watcher")
		cancel()
		for c.Watchers() > 0 {
			time.Sleep(time.Millisecond)
		}
		runtime.GC()
	}
}
