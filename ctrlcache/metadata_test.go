package ctrlcache_test

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/watchcache/watchcache/ctrlcache"
)

// metaReconciler counts reconciles and reads each pod as metadata only.
type metaReconciler struct {
	client.Client
	mu     sync.Mutex
	total  int
	byKey  map[string]int
	errors []error
}

func (r *metaReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	err := r.Get(ctx, req.NamespacedName, m)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil && client.IgnoreNotFound(err) != nil {
		r.errors = append(r.errors, err)
	}
	if err == nil && (m.Name != req.Name || m.ResourceVersion == "") {
		r.errors = append(r.errors, context.DeadlineExceeded)
	}
	r.total++
	r.byKey[req.String()]++
	return ctrl.Result{}, nil
}

func (r *metaReconciler) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// TestOnlyMetadataController: a builder.OnlyMetadata controller over this cache syncs (one
// reconcile per pod) and then follows churn with exactly one reconcile per change. The cache
// decodes metadata from the full objects it stores, so the server needs no PartialObjectMetadata
// support.
func TestOnlyMetadataController(t *testing.T) {
	cl := newCluster(t, 60)
	mgr, err := manager.New(cl.cfg, manager.Options{
		NewCache:   ctrlcache.New,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &metaReconciler{Client: mgr.GetClient(), byKey: map[string]int{}}
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.Pod{}, builder.OnlyMetadata).Complete(r); err != nil {
		t.Fatal(err)
	}
	run(t, mgr.Start, func(ctx context.Context) bool { return mgr.GetCache().WaitForCacheSync(ctx) })
	waitCount := func(want int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for r.count() < want {
			if time.Now().After(deadline) {
				t.Fatalf("%d reconciles, want %d", r.count(), want)
			}
			time.Sleep(2 * time.Millisecond)
		}
		time.Sleep(30 * time.Millisecond) // a second reconcile for the change would come now
		if got := r.count(); got != want {
			t.Fatalf("%d reconciles, want exactly %d", got, want)
		}
	}
	waitCount(60)
	if len(r.byKey) != 60 {
		t.Fatalf("initial reconciles for %d pods, want 60", len(r.byKey))
	}
	for i := range 15 {
		cl.step(t, 1)
		waitCount(61 + i)
	}
	if len(r.errors) > 0 {
		t.Fatalf("reconciler errors: %v", r.errors)
	}
}
