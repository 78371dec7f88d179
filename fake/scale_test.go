package fake_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"
	"k8s.io/utils/ptr"

	"github.com/watchcache/watchcache/fake"
)

// TestScaleClient scales through client-go's scale client, as kubectl scale does: it finds the
// Scale's group and version in discovery (deployments/scale is autoscaling/v1 Scale), reads the
// Scale, updates it with its resourceVersion (a stale one is a 409), and the deployment's
// spec.replicas and generation follow.
func TestScaleClient(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cfg := srv.Config()
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	labels := map[string]string{"app": "web"}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	dc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	scales, err := scale.NewForConfig(cfg, mapper, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(dc))
	if err != nil {
		t.Fatal(err)
	}
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	sc, err := scales.Scales("default").Get(ctx, gr, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Spec.Replicas != 2 || sc.Status.Selector != "app=web" {
		t.Fatalf("scale %+v %+v, want 2 replicas and selector app=web", sc.Spec, sc.Status)
	}
	stale := sc.DeepCopy()
	sc.Spec.Replicas = 5
	if _, err := scales.Scales("default").Update(ctx, gr, sc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale.Spec.Replicas = 7
	if _, err := scales.Scales("default").Update(ctx, gr, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update at a stale resourceVersion: %v, want a conflict", err)
	}
	d, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 5 || d.Generation != 2 {
		t.Errorf("deployment at %d replicas, generation %d; want 5 and 2", *d.Spec.Replicas, d.Generation)
	}
	if _, err := scales.Scales("default").Update(ctx, gr, &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: -1},
	}, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("negative replicas: %v, want 422", err)
	}
}
