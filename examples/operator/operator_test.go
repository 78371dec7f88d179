package operator_test

import (
	"context"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/watchcache/watchcache/examples/operator"
	"github.com/watchcache/watchcache/fake"
)

// TestWidgetLifecycle runs the operator's manager against the fake, as an envtest suite runs it
// against a real control plane (only the constructor differs: fake.Environment for
// envtest.Environment): a Widget gets a Deployment it owns and a status; an injected conflict on
// the first status write is retried; the Deployment's ready replicas reach the widget's status;
// deleting the widget makes the garbage collector delete the Deployment, which envtest, having no
// controller manager, never does.
//
// With OPERATOR_ENVTEST=1 (and KUBEBUILDER_ASSETS naming kube-apiserver and etcd) the same test
// runs against envtest's real control plane instead, without what envtest cannot do (the injected
// conflict, the garbage collection), so that the two suites' wall times compare (BENCHMARKS.md).
func TestWidgetLifecycle(t *testing.T) {
	var env environment
	var fenv *fake.Environment
	if os.Getenv("OPERATOR_ENVTEST") != "" {
		env = &envtest.Environment{CRDDirectoryPaths: []string{"config/crd"}, ErrorIfCRDPathMissing: true}
	} else {
		fenv = &fake.Environment{CRDDirectoryPaths: []string{"config/crd"}, ErrorIfCRDPathMissing: true}
		env = fenv
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	var conflict *fake.Injection
	if fenv != nil {
		conflict = fenv.Server.Inject(fake.Rule{Verbs: []string{"update"}, Resource: "widgets.example.com", Subresource: "status", Times: 1, Fault: fake.Conflict})
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := operator.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&operator.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	w := &operator.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "w1", Namespace: "default"},
		Spec:       operator.WidgetSpec{Image: "nginx:1.29"},
	}
	if err := c.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	if w.Spec.Replicas == nil || *w.Spec.Replicas != 1 {
		t.Fatalf("spec.replicas %v: the CRD's default (1) was not applied", w.Spec.Replicas)
	}

	key := types.NamespacedName{Namespace: "default", Name: "w1"}
	var d appsv1.Deployment
	eventually(t, "the widget's Deployment", func() bool { return c.Get(ctx, key, &d) == nil })
	if ref := metav1.GetControllerOf(&d); ref == nil || ref.Kind != "Widget" || ref.Name != "w1" || ref.UID != w.UID || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Fatalf("Deployment's controller reference: %+v, want the widget (uid %s) blocking its deletion", ref, w.UID)
	}
	eventually(t, "the widget's status", func() bool {
		return c.Get(ctx, key, w) == nil && w.Status.Deployment == "w1" && w.Status.ObservedGeneration == w.Generation
	})
	if conflict != nil && conflict.Faults() != 1 {
		t.Fatalf("the injected conflict answered %d status writes, want 1 (then retried)", conflict.Faults())
	}

	// No deployment controller runs here: the test plays it, writing the Deployment's status.
	d.Status.Replicas, d.Status.ReadyReplicas = 1, 1
	if err := c.Status().Update(ctx, &d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ready replicas in the widget's status", func() bool {
		return c.Get(ctx, key, w) == nil && w.Status.ReadyReplicas == 1
	})

	if err := c.Delete(ctx, w); err != nil {
		t.Fatal(err)
	}
	if fenv == nil {
		return // envtest runs no garbage collector: the Deployment stays
	}
	eventually(t, "the Deployment collected with its owner", func() bool {
		return apierrors.IsNotFound(c.Get(ctx, key, &appsv1.Deployment{}))
	})
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		// Each check is one GET (well under a millisecond on the fake), so a short interval costs
		// little and keeps the wait close to the reconciler's own time.
		time.Sleep(time.Millisecond)
	}
}
