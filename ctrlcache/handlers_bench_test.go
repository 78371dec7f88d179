package ctrlcache_test

import (
	"context"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

// handlerNodes is the number of node-filtered handlers of BenchmarkHandlers (BENCH_HANDLERS sets it): one per node of a
// 5,000-node cluster, as a node-local agent (or a controller sharding by node) registers them.
var handlerNodes = benchHandlerNodes()

// BenchmarkHandlers measures one pod change on the server until the handler of the pod's node has
// seen it, with 5,000 informer handlers registered, each a FilteringResourceEventHandler that
// accepts the pods of one node: the path from the server's watch event through the informer to the
// one handler that wants it. Both peers run every filter of every handler for each event (neither
// can see into an opaque filter function); cpu-ms/event is the process's CPU per change, which is
// the fair basis on a shared machine.
func BenchmarkHandlers(b *testing.B) {
	cl := newClusterOf(b, testdata.Config{Pods: 2 * handlerNodes, Namespaces: 10, Nodes: handlerNodes, Seed: 11})
	for _, p := range peers[:2] {
		b.Run(p.name, func(b *testing.B) {
			c := p.build(b, cl, false)
			ctx := context.Background()
			inf, err := c.GetInformer(ctx, &corev1.Pod{})
			if err != nil {
				b.Fatal(err)
			}
			var armed atomic.Bool
			seen := make(chan uint64, 1<<16)
			signal := func(obj any) {
				if !armed.Load() {
					return
				}
				if pod, ok := obj.(*corev1.Pod); ok {
					rv, _ := strconv.ParseUint(pod.ResourceVersion, 10, 64)
					seen <- rv
				}
			}
			for j := range handlerNodes {
				node := cl.gen.NodeName(j)
				onNode := func(obj any) bool {
					if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
						obj = d.Obj
					}
					pod, ok := obj.(*corev1.Pod)
					return ok && pod.Spec.NodeName == node
				}
				h := toolscache.FilteringResourceEventHandler{FilterFunc: onNode, Handler: toolscache.ResourceEventHandlerFuncs{
					AddFunc:    signal,
					UpdateFunc: func(_, obj any) { signal(obj) },
					DeleteFunc: signal,
				}}
				if _, err := inf.AddEventHandler(h); err != nil {
					b.Fatal(err)
				}
			}
			stop := startSynced(b, c)
			defer stop()
			armed.Store(true)

			events := 0
			cpu0 := cpuTime()
			for b.Loop() {
				// Changes to pods without a node reach no handler: apply them untimed by the wait.
				for {
					cl.rv += 1 + cl.rv%3
					ch := cl.churn.Next(cl.rv)
					typ := []watchcache.EventType{watchcache.Added, watchcache.Modified, watchcache.Deleted}[ch.Type]
					if err := cl.pods.Apply(watchcache.Event{Type: typ, Object: ch.Object, ResourceVersion: cl.rv}); err != nil {
						b.Fatal(err)
					}
					events++
					if gjson.GetBytes(ch.Object, "spec.nodeName").String() != "" {
						break
					}
				}
				want := cl.rv
				timeout := time.After(time.Minute)
				for done := false; !done; {
					select {
					case rv := <-seen:
						done = rv >= want
					case <-timeout:
						b.Fatalf("no handler saw the change at resourceVersion %d", want)
					}
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(events), "cpu-ms/event")
		})
	}
}

// benchHandlerNodes is handlerNodes: 5,000, or BENCH_HANDLERS.
func benchHandlerNodes() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_HANDLERS")); err == nil && n > 0 {
		return n
	}
	return 5000
}
