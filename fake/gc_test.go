package fake_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kptr "k8s.io/utils/ptr"

	"github.com/watchcache/watchcache/fake"
)

// waitFor polls cond for up to 5s (the fake's controllers take milliseconds).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 5s", what)
		}
	}
}

// TestGarbageCollectorSeed checks that Options.Objects are seen by the garbage collector as if
// created: a seeded dependent of an absent owner is collected, one of a seeded owner stays, and
// deleting that owner collects it.
func TestGarbageCollectorSeed(t *testing.T) {
	owner := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default", UID: "11111111-0000-0000-0000-000000000001"}}
	dep := func(name string, ownerUID types.UID) runtime.Object {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: ownerUID}}}}
	}
	srv := fake.NewTest(t, fake.Options{Objects: []runtime.Object{owner, dep("kept", owner.UID), dep("orphan", "11111111-0000-0000-0000-000000000002")}})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	gone := func(name string) func() bool {
		return func() bool {
			_, err := cs.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}
	}
	waitFor(t, "the dependent of an absent owner collected", gone("orphan"))
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{}); err != nil {
		t.Fatalf("the dependent of a present owner: %v", err)
	}
	if err := cs.CoreV1().ConfigMaps("default").Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the dependent collected after its owner", gone("kept"))
}

// TestDeletePolicies checks the per-resource defaults and exceptions of propagation policies that
// the conformance suite does not: events take none (the apiserver's Unsupported), and a
// deletecollection of jobs that names none warns as a delete does.
func TestDeletePolicies(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{NoGarbageCollector: true})
	warnings := &warningsSeen{}
	cfg := srv.Config()
	cfg.WarningHandler = warnings
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		t.Run("event "+string(policy), func(t *testing.T) {
			ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "ev-" + strings.ToLower(string(policy))}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "default"}}
			if _, err := cs.CoreV1().Events("default").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := cs.CoreV1().Events("default").Delete(ctx, ev.Name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
				t.Fatal(err)
			}
			// Without a garbage collector a finalizer would keep it: it has none.
			if _, err := cs.CoreV1().Events("default").Get(ctx, ev.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("event after a %s delete: %v, want 404", policy, err)
			}
		})
	}
	t.Run("deletecollection of jobs", func(t *testing.T) {
		tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		if _, err := cs.BatchV1().Jobs("default").Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Spec: batchv1.JobSpec{Template: tmpl}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		warnings.take()
		if err := cs.BatchV1().Jobs("default").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := warnings.take(); len(got) != 1 || got[0] != "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning" {
			t.Errorf("warnings %q", got)
		}
		j, err := cs.BatchV1().Jobs("default").Get(ctx, "j", metav1.GetOptions{})
		if err != nil || !slices.Equal(j.Finalizers, []string{metav1.FinalizerOrphanDependents}) {
			t.Errorf("job after the delete: %v, %v; want it kept by the orphan finalizer (no garbage collector)", j, err)
		}
		if err := cs.BatchV1().Jobs("default").DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: kptr.To(metav1.DeletePropagationBackground)}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := warnings.take(); len(got) != 0 {
			t.Errorf("warnings %q with a policy, want none", got)
		}
	})
}

type warningsSeen struct{ msgs []string }

func (w *warningsSeen) HandleWarningHeader(_ int, _ string, text string) {
	w.msgs = append(w.msgs, text)
}
func (w *warningsSeen) take() []string { m := w.msgs; w.msgs = nil; return m }

var _ rest.WarningHandler = (*warningsSeen)(nil)

// TestNamespaceSeededTerminating checks that a namespace seeded with a deletionTimestamp is
// finalized as one deleted through the API: its content goes, then it does.
func TestNamespaceSeededTerminating(t *testing.T) {
	now := metav1.Now()
	srv := fake.NewTest(t, fake.Options{Objects: []runtime.Object{
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "old", DeletionTimestamp: &now}},
		&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "old"}},
	}})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	waitFor(t, "namespace old finalized", func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "old", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if _, err := cs.CoreV1().ConfigMaps("old").Get(ctx, "c", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("its configmap: %v, want 404", err)
	}
}

// TestGarbageCollectorCycle checks that a Foreground delete of an owner in a cycle of blocking
// owner references ends: kcm's cycle rule (a dependent whose own dependent is deleting in the
// foreground stops blocking) lets both go.
func TestGarbageCollectorCycle(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")
	a, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := func(cm *corev1.ConfigMap) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID, BlockOwnerDeletion: kptr.To(true)}}
	}
	b, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b", OwnerReferences: ref(a)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.OwnerReferences = ref(b)
	if _, err := cms.Update(ctx, a, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{PropagationPolicy: kptr.To(metav1.DeletePropagationForeground)}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		waitFor(t, name+" gone", func() bool {
			_, err := cms.Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
	}
}
