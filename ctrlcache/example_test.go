package ctrlcache_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/watchcache/watchcache/ctrlcache"
)

// nodeReconciler counts the pods of each node, listing them by spec.nodeName in pages of 10
// through the manager's client, which reads from the cache.
type nodeReconciler struct {
	client.Client
	mu    sync.Mutex
	pods  map[string]int
	pages map[string]int
}

func (r *nodeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	n, pages, cont := 0, 0, ""
	for {
		var l corev1.PodList
		// controller-runtime's own cache refuses Continue, and a field selector without an index.
		if err := r.List(ctx, &l, client.MatchingFields{"spec.nodeName": req.Name}, client.Limit(10), client.Continue(cont)); err != nil {
			return ctrl.Result{}, err
		}
		n, pages = n+len(l.Items), pages+1
		if cont = l.Continue; cont == "" {
			break
		}
	}
	r.mu.Lock()
	r.pods[req.Name], r.pages[req.Name] = n, pages
	r.mu.Unlock()
	return ctrl.Result{}, nil
}

// A controller-runtime manager adopts the cache with one option. Its reconciler lists a node's
// pods by spec.nodeName with Limit and Continue, served by the watch cache's field selector
// (no IndexField needed: spec.nodeName is a field the apiserver supports for pods).
func Example_manager() {
	e := &exampleTB{}
	defer e.done()
	cl := newCluster(e, 120) // a kubeapi server over 120 pods on 10 nodes

	mgr, err := manager.New(cl.cfg, manager.Options{
		NewCache:   ctrlcache.New,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		panic(err)
	}
	r := &nodeReconciler{Client: mgr.GetClient(), pods: map[string]int{}, pages: map[string]int{}}
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.Node{}).Complete(r); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		r.mu.Lock()
		n := len(r.pods)
		r.mu.Unlock()
		if n == 10 {
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		panic(err)
	}
	var nodes []string
	total := 0
	for node := range r.pods {
		nodes = append(nodes, node)
		total += r.pods[node]
	}
	sort.Strings(nodes)
	fmt.Println("nodes reconciled:", len(nodes), "pods on them:", total) // the other 2 are not scheduled
	fmt.Printf("%s: %d pods in %d pages\n", nodes[0], r.pods[nodes[0]], r.pages[nodes[0]])
	// Output:
	// nodes reconciled: 10 pods on them: 118
	// node-0: 11 pods in 2 pages
}
