package fake_test

import (
	"context"
	"testing"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	kptr "k8s.io/utils/ptr"

	"github.com/watchcache/watchcache/fake"
)

// TestPriorityOnEveryCreatePath: a pod made by a server-side apply of a missing object goes
// through the Priority admission as a POST's does: it gets its class's value, and naming a class
// that does not exist is the plugin's 403.
func TestPriorityOnEveryCreatePath(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := func(name, class string) *corev1ac.PodApplyConfiguration {
		return corev1ac.Pod(name, "default").WithSpec(corev1ac.PodSpec().WithPriorityClassName(class).
			WithContainers(corev1ac.Container().WithName("c").WithImage("busybox")))
	}
	p, err := cs.CoreV1().Pods("default").Apply(ctx, pod("applied", "high"), metav1.ApplyOptions{FieldManager: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.Priority == nil || *p.Spec.Priority != 1000 {
		t.Fatalf("applied pod's priority %v, want the class's 1000", kptr.Deref(p.Spec.Priority, -1))
	}
	_, err = cs.CoreV1().Pods("default").Apply(ctx, pod("missing", "nope"), metav1.ApplyOptions{FieldManager: "test"})
	if want := `pods "missing" is forbidden: no PriorityClass with name nope was found`; err == nil || err.Error() != want {
		t.Fatalf("apply naming a missing class: %v, want %q", err, want)
	}
}
