package ctrlcache_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// client-go's and controller-runtime's process-wide goroutines.
		goleak.IgnoreTopFunction("k8s.io/klog/v2.(*flushDaemon).run.func1"),
		goleak.IgnoreAnyFunction("k8s.io/client-go/util/workqueue.(*Typed[...]).updateUnfinishedWorkLoop"),
		goleak.IgnoreAnyFunction("k8s.io/client-go/util/workqueue.(*delayingType[...]).waitingLoop"),
		// controller-runtime's metadata informer leaves its filtered watch's goroutine blocked on a
		// send after the informer stops (apimachinery watch.Filter has no stop of its own).
		goleak.IgnoreTopFunction("k8s.io/apimachinery/pkg/watch.(*filteredWatch).loop"),
	)
}

// tb is what the fixture needs of a testing.TB, so that examples can build one too.
type tb interface {
	Helper()
	Fatal(args ...any)
	Cleanup(func())
}

// exampleTB is a tb for examples: failures panic, cleanups run on done.
type exampleTB struct{ cleanups []func() }

func (e *exampleTB) Helper()           {}
func (e *exampleTB) Fatal(args ...any) { panic(fmt.Sprint(args...)) }
func (e *exampleTB) Cleanup(f func())  { e.cleanups = append(e.cleanups, f) }
func (e *exampleTB) done() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}

// cluster is a real HTTP server (kubeapi) over a pods cache and a namespaces cache that the test
// feeds, changed by a deterministic churn.
type cluster struct {
	pods  *watchcache.Cache
	churn *testdata.Churn
	gen   *testdata.Generator
	rv    uint64
	cfg   *rest.Config
}

func newCluster(t tb, pods int) *cluster {
	t.Helper()
	return newClusterOf(t, testdata.Config{Pods: pods, Namespaces: 4, Nodes: 10, Seed: 11})
}

func newClusterOf(t tb, cfg testdata.Config) *cluster {
	t.Helper()
	gen := testdata.New(cfg)
	pods := cfg.Pods
	c := &cluster{gen: gen, churn: gen.NewChurn(3), rv: uint64(pods) + 1000}
	c.pods = watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	objs := make([][]byte, pods)
	for i := range objs {
		objs[i] = gen.Pod(i, uint64(1+i))
	}
	if err := c.pods.Replace(objs, c.rv); err != nil {
		t.Fatal(err)
	}
	nss := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "namespaces"}})
	var nsObjs [][]byte
	for i := range cfg.Namespaces {
		nsObjs = append(nsObjs, gen.Namespace(i, uint64(1+i)))
	}
	if err := nss.Replace(nsObjs, c.rv); err != nil {
		t.Fatal(err)
	}
	nodes := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "nodes"}})
	var nodeObjs [][]byte
	for j := range gen.Config().Nodes {
		nodeObjs = append(nodeObjs, gen.Node(j, uint64(1+j)))
	}
	if err := nodes.Replace(nodeObjs, c.rv); err != nil {
		t.Fatal(err)
	}
	api := kubeapi.NewServer(kubeapi.Options{})
	for name, wc := range map[string]*watchcache.Cache{"pods": c.pods, "namespaces": nss, "nodes": nodes} {
		info, _ := kubeapi.CoreResource(name)
		if err := api.Register(info, wc); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(api)
	transport := &http.Transport{}
	c.cfg = &rest.Config{Host: srv.URL, QPS: -1, Transport: transport}
	t.Cleanup(func() {
		c.pods.Stop()
		nss.Stop()
		nodes.Stop()
		srv.CloseClientConnections()
		srv.Close()
		transport.CloseIdleConnections()
	})
	return c
}

// step makes n changes to the pods, with RV gaps as etcd's revisions have.
func (c *cluster) step(t tb, n int) {
	t.Helper()
	for range n {
		c.rv += 1 + c.rv%3
		ch := c.churn.Next(c.rv)
		typ := []watchcache.EventType{watchcache.Added, watchcache.Modified, watchcache.Deleted}[ch.Type]
		if err := c.pods.Apply(watchcache.Event{Type: typ, Object: ch.Object, ResourceVersion: c.rv}); err != nil {
			t.Fatal(err)
		}
	}
}

// run starts a cache until the test ends and waits for it to sync.
func run(t testing.TB, start func(context.Context) error, sync func(context.Context) bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
	if !sync(ctx) {
		t.Fatal("cache did not sync")
	}
}
