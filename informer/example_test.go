package informer_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/informer"
	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// A client-go controller reads pods through a typed lister over the informer, and counts the pods
// of each node from a client-go index, served by the watch cache.
func Example() {
	// A server to read from: kubeapi over a pods cache of 80 generated pods.
	gen := testdata.New(testdata.Config{Pods: 80, Namespaces: 2, Nodes: 4, Seed: 1})
	upstream := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	var pods [][]byte
	for i := range 80 {
		pods = append(pods, gen.Pod(i, uint64(i+1)))
	}
	if err := upstream.Replace(pods, 100); err != nil {
		panic(err)
	}
	defer upstream.Stop()
	api := kubeapi.NewServer(kubeapi.Options{})
	info, _ := kubeapi.CoreResource("pods")
	if err := api.Register(info, upstream); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(api)
	defer srv.Close()
	defer srv.CloseClientConnections()

	f := informer.NewFactory(&rest.Config{Host: srv.URL}, informer.FactoryOptions{StripManagedFields: true})
	inf, err := f.InformerFor(&corev1.Pod{})
	if err != nil {
		panic(err)
	}
	byNode := func(obj any) ([]string, error) { return []string{obj.(*corev1.Pod).Spec.NodeName}, nil }
	if err := inf.AddIndexers(cache.Indexers{"node": byNode}); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	defer f.Shutdown()
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		panic("not synced")
	}

	lister := corelisters.NewPodLister(inf.GetIndexer())
	all, _ := lister.List(labels.Everything())
	inNS, _ := lister.Pods(gen.PodNamespace(0)).List(labels.Everything())
	fmt.Println("pods:", len(all), "in", gen.PodNamespace(0)+":", len(inNS), "managedFields kept:", len(all[0].ManagedFields))
	nodes := inf.GetIndexer().ListIndexFuncValues("node")
	sort.Strings(nodes)
	for _, n := range nodes {
		onNode, _ := inf.GetIndexer().ByIndex("node", n)
		fmt.Printf("%q: %d\n", n, len(onNode))
	}
	// Output:
	// pods: 80 in ns-0: 40 managedFields kept: 0
	// "": 1
	// "node-0": 17
	// "node-1": 23
	// "node-2": 22
	// "node-3": 17
}
