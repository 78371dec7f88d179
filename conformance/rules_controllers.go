package conformance

import (
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kptr "k8s.io/utils/ptr"
)

// The controllers' rules: what kube-controller-manager's garbage collector (W6.2–W6.8) and
// namespace controller (W6.9) do after a write, each citing the case of
// reference/observed-gc.md that recorded it from a kube-apiserver 1.37.2 with
// kube-controller-manager 1.37.2. The controllers are asynchronous, so each rule waits (up to
// the run's ControllerPatience) for the state the record ended in.

// jobDeleteWarning is the apiserver's warning for a Job delete that names no propagation policy.
const jobDeleteWarning = "child pods are preserved by default when jobs are deleted; " +
	"set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"

// owner returns an ownerReferences entry naming a ConfigMap.
func cmOwner(cm *corev1.ConfigMap, block bool) metav1.OwnerReference {
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID}
	if block {
		ref.BlockOwnerDeletion = kptr.To(true)
	}
	return ref
}

// createOwned creates a ConfigMap with owner references and finalizers.
func (w *writeEnv) createOwned(name string, finalizers []string, refs ...metav1.OwnerReference) *corev1.ConfigMap {
	w.t.Helper()
	cm := w.cm(name, nil)
	cm.OwnerReferences, cm.Finalizers = refs, finalizers
	out, err := w.cs.CoreV1().ConfigMaps(w.ns).Create(w.ctx, cm, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("create configmap %s: %v", name, err)
	}
	if len(finalizers) > 0 {
		w.t.Cleanup(func() { w.dropFinalizers(name) })
	}
	return out
}

// dropFinalizers removes a ConfigMap's finalizers (a merge patch, as the record's step does).
func (w *writeEnv) dropFinalizers(name string) {
	_, err := w.cs.CoreV1().ConfigMaps(w.ns).Patch(w.ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		w.t.Errorf("remove finalizers of %s: %v", name, err)
	}
}

func (w *writeEnv) deleteCM(name string, policy metav1.DeletionPropagation) {
	w.t.Helper()
	if err := w.cs.CoreV1().ConfigMaps(w.ns).Delete(w.ctx, name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		w.t.Fatalf("delete configmap %s %s: %v", name, policy, err)
	}
}

// eventually waits until cond holds, failing the rule with what after the run's patience.
func (w *writeEnv) eventually(what string, cond func() bool) {
	w.t.Helper()
	deadline := time.Now().Add(w.patience)
	for !cond() {
		if time.Now().After(deadline) || w.ctx.Err() != nil {
			w.t.Fatalf("%s: not after %v", what, w.patience)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cmGone waits until a ConfigMap of the rule's namespace is gone.
func (w *writeEnv) cmGone(name string) {
	w.t.Helper()
	w.eventually("configmap "+name+" collected", func() bool {
		_, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

// getCM reads a ConfigMap that must be there.
func (w *writeEnv) getCM(name string) *corev1.ConfigMap {
	w.t.Helper()
	cm, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatalf("get configmap %s: %v", name, err)
	}
	return cm
}

func controllerRules() []writeRule {
	return []writeRule{
		{"W6.2/Background deletes the owner at once and its dependents after it, in every resource", func(w *writeEnv) {
			// observed-gc.md: background.
			owner := w.createCM("owner")
			w.createOwned("dep", nil, cmOwner(owner, false))
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod", OwnerReferences: []metav1.OwnerReference{cmOwner(owner, false)}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
			if _, err := w.cs.CoreV1().Pods(w.ns).Create(w.ctx, pod, metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("create pod: %v", err)
			}
			w.deleteCM("owner", metav1.DeletePropagationBackground)
			_, err := w.cs.CoreV1().ConfigMaps(w.ns).Get(w.ctx, "owner", metav1.GetOptions{})
			w.wantStatus(err, 404, metav1.StatusReasonNotFound, `configmaps "owner" not found`)
			w.cmGone("dep")
			w.eventually("pod collected", func() bool {
				_, err := w.cs.CoreV1().Pods(w.ns).Get(w.ctx, "pod", metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			})
		}},
		{"W6.3/Foreground marks the owner, deletes its dependents and waits for those with blockOwnerDeletion", func(w *writeEnv) {
			// observed-gc.md: foreground.
			owner := w.createCM("owner")
			w.createOwned("held", []string{"example.com/keep"}, cmOwner(owner, true))
			w.createOwned("dep", nil, cmOwner(owner, true))
			w.deleteCM("owner", metav1.DeletePropagationForeground)
			w.cmGone("dep")
			w.eventually("the held dependent terminating", func() bool { return w.getCM("held").DeletionTimestamp != nil })
			got := w.getCM("owner")
			if got.DeletionTimestamp == nil || !slices.Equal(got.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
				w.t.Errorf("owner deletionTimestamp %v finalizers %q, want set and [foregroundDeletion] while a blocking dependent remains", got.DeletionTimestamp, got.Finalizers)
			}
			w.dropFinalizers("held")
			w.cmGone("held")
			w.cmGone("owner")
		}},
		{"W6.4/Foreground does not wait for dependents without blockOwnerDeletion", func(w *writeEnv) {
			// observed-gc.md: foreground-nonblocking.
			owner := w.createCM("owner")
			w.createOwned("held", []string{"example.com/keep"}, cmOwner(owner, false))
			w.deleteCM("owner", metav1.DeletePropagationForeground)
			w.cmGone("owner")
			w.eventually("the dependent terminating", func() bool { return w.getCM("held").DeletionTimestamp != nil })
			if got := w.getCM("held"); !slices.Equal(got.Finalizers, []string{"example.com/keep"}) {
				w.t.Errorf("dependent finalizers %q, want only its own", got.Finalizers)
			}
		}},
		{"W6.5/Orphan removes the owner's references from its dependents, then the owner", func(w *writeEnv) {
			// observed-gc.md: orphan.
			owner := w.createCM("owner")
			dep := w.createOwned("dep", nil, cmOwner(owner, true))
			w.createOwned("two", nil, cmOwner(owner, false), cmOwner(dep, false))
			w.deleteCM("owner", metav1.DeletePropagationOrphan)
			w.cmGone("owner")
			w.eventually("dependents orphaned", func() bool {
				return len(w.getCM("dep").OwnerReferences) == 0 && len(w.getCM("two").OwnerReferences) == 1
			})
			if refs := w.getCM("two").OwnerReferences; refs[0].UID != dep.UID {
				w.t.Errorf("the dependent of two owners kept %v, want the other owner's reference", refs)
			}
		}},
		{"W6.6/jobs and replicationcontrollers orphan by default, with a warning for jobs; deployments do not", func(w *writeEnv) {
			// observed-gc.md: default-policies.
			tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
			job, err := w.cs.BatchV1().Jobs(w.ns).Create(w.ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job"}, Spec: batchv1.JobSpec{Template: tmpl}}, metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create job: %v", err)
			}
			jobRef := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: "job", UID: job.UID, BlockOwnerDeletion: kptr.To(true)}
			w.createOwned("job-dep", nil, jobRef)
			w.warnings.take()
			if err := w.cs.BatchV1().Jobs(w.ns).Delete(w.ctx, "job", metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete job: %v", err)
			}
			if got := w.warnings.take(); !slices.Equal(got, []string{jobDeleteWarning}) {
				w.t.Errorf("warnings %q, want %q", got, jobDeleteWarning)
			}
			labels := map[string]string{"app": "x"}
			rc, err := w.cs.CoreV1().ReplicationControllers(w.ns).Create(w.ctx, &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "rc"},
				Spec: corev1.ReplicationControllerSpec{Replicas: kptr.To(int32(0)), Selector: labels, Template: &corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}, metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create replicationcontroller: %v", err)
			}
			w.createOwned("rc-dep", nil, metav1.OwnerReference{APIVersion: "v1", Kind: "ReplicationController", Name: "rc", UID: rc.UID})
			if err := w.cs.CoreV1().ReplicationControllers(w.ns).Delete(w.ctx, "rc", metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete replicationcontroller: %v", err)
			}
			d, err := w.cs.AppsV1().Deployments(w.ns).Create(w.ctx, w.deployment("deploy", 0), metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create deployment: %v", err)
			}
			w.createOwned("deploy-dep", nil, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "deploy", UID: d.UID})
			if err := w.cs.AppsV1().Deployments(w.ns).Delete(w.ctx, "deploy", metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete deployment: %v", err)
			}
			if got := w.warnings.take(); len(got) > 0 {
				w.t.Errorf("warnings %q for replicationcontroller and deployment deletes, want none", got)
			}
			w.cmGone("deploy-dep")
			w.eventually("job and replicationcontroller gone, their dependents orphaned", func() bool {
				_, jerr := w.cs.BatchV1().Jobs(w.ns).Get(w.ctx, "job", metav1.GetOptions{})
				_, rerr := w.cs.CoreV1().ReplicationControllers(w.ns).Get(w.ctx, "rc", metav1.GetOptions{})
				return apierrors.IsNotFound(jerr) && apierrors.IsNotFound(rerr) &&
					len(w.getCM("job-dep").OwnerReferences) == 0 && len(w.getCM("rc-dep").OwnerReferences) == 0
			})
		}},
		{"W6.7/a cluster-scoped owner's namespaced and cluster-scoped dependents are collected", func(w *writeEnv) {
			// observed-gc.md: cluster-scoped-owner.
			crs := w.cs.RbacV1().ClusterRoles()
			ownerName, depName := "wc-owner-"+w.ns, "wc-dep-"+w.ns
			owner, err := crs.Create(w.ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ownerName}}, metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create clusterrole: %v", err)
			}
			w.t.Cleanup(func() {
				_ = crs.Delete(w.ctx, ownerName, metav1.DeleteOptions{})
				_ = crs.Delete(w.ctx, depName, metav1.DeleteOptions{})
			})
			ref := metav1.OwnerReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: ownerName, UID: owner.UID}
			w.createOwned("dep", nil, ref)
			if _, err := crs.Create(w.ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: depName, OwnerReferences: []metav1.OwnerReference{ref}}}, metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("create dependent clusterrole: %v", err)
			}
			if err := crs.Delete(w.ctx, ownerName, metav1.DeleteOptions{PropagationPolicy: kptr.To(metav1.DeletePropagationBackground)}); err != nil {
				w.t.Fatalf("delete clusterrole: %v", err)
			}
			w.cmGone("dep")
			w.eventually("cluster-scoped dependent collected", func() bool {
				_, err := crs.Get(w.ctx, depName, metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			})
		}},
		{"W6.8/dependents whose owners are all absent are collected; references to absent owners are removed", func(w *writeEnv) {
			// observed-gc.md: absent-owner. An owner is absent when missing or there with another uid.
			owner := w.createCM("owner")
			ghost := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "00000000-0000-0000-0000-000000000001"}
			stale := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "00000000-0000-0000-0000-000000000002"}
			w.createOwned("ghost-dep", nil, ghost)
			w.createOwned("stale-dep", nil, stale)
			w.createOwned("mixed-dep", nil, cmOwner(owner, false), ghost)
			w.cmGone("ghost-dep")
			w.cmGone("stale-dep")
			w.eventually("the reference to the absent owner removed", func() bool { return len(w.getCM("mixed-dep").OwnerReferences) == 1 })
			if refs := w.getCM("mixed-dep").OwnerReferences; refs[0].UID != owner.UID {
				w.t.Errorf("mixed dependent kept %v, want the present owner's reference", refs)
			}
		}},
		{"W6.9/a terminating namespace reports its remaining content and finalizers in its conditions", func(w *writeEnv) {
			// observed-gc.md: namespace-termination, "conditions while a finalizer remains".
			w.createOwned("keep", []string{"example.com/keep"})
			w.createCM("plain")
			if err := w.cs.CoreV1().Namespaces().Delete(w.ctx, w.ns, metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete namespace: %v", err)
			}
			w.cmGone("plain")
			var ns *corev1.Namespace
			w.eventually("NamespaceFinalizersRemaining True", func() bool {
				var err error
				ns, err = w.cs.CoreV1().Namespaces().Get(w.ctx, w.ns, metav1.GetOptions{})
				if err != nil {
					return false
				}
				for _, c := range ns.Status.Conditions {
					if c.Type == corev1.NamespaceFinalizersRemaining && c.Status == corev1.ConditionTrue {
						return true
					}
				}
				return false
			})
			want := []corev1.NamespaceCondition{
				{Type: corev1.NamespaceDeletionDiscoveryFailure, Status: corev1.ConditionFalse, Reason: "ResourcesDiscovered", Message: "All resources successfully discovered"},
				{Type: corev1.NamespaceDeletionGVParsingFailure, Status: corev1.ConditionFalse, Reason: "ParsedGroupVersions", Message: "All legacy kube types successfully parsed"},
				{Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionFalse, Reason: "ContentDeleted", Message: "All content successfully deleted, may be waiting on finalization"},
				{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain", Message: "Some resources are remaining: configmaps. has 1 resource instances"},
				{Type: corev1.NamespaceFinalizersRemaining, Status: corev1.ConditionTrue, Reason: "SomeFinalizersRemain", Message: "Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances"},
			}
			got := make([]corev1.NamespaceCondition, len(ns.Status.Conditions))
			for i, c := range ns.Status.Conditions {
				if c.LastTransitionTime.IsZero() {
					w.t.Errorf("condition %s has no lastTransitionTime", c.Type)
				}
				c.LastTransitionTime = metav1.Time{}
				got[i] = c
			}
			if !slices.Equal(got, want) {
				w.t.Errorf("conditions\n%v\nwant\n%v", got, want)
			}
			if ns.Status.Phase != corev1.NamespaceTerminating || !slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{corev1.FinalizerKubernetes}) {
				w.t.Errorf("phase %q spec.finalizers %q, want Terminating and [kubernetes]", ns.Status.Phase, ns.Spec.Finalizers)
			}
			w.dropFinalizers("keep")
			w.eventually(fmt.Sprintf("namespace %s gone", w.ns), func() bool {
				_, err := w.cs.CoreV1().Namespaces().Get(w.ctx, w.ns, metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			})
		}},
		{"W6.10/Foreground goes down a chain: an owner waits for its dependent's own dependents", func(w *writeEnv) {
			// observed-gc.md: foreground-chain.
			owner := w.createCM("owner")
			child := w.createOwned("child", nil, cmOwner(owner, true))
			w.createOwned("grandchild", []string{"example.com/keep"}, cmOwner(child, true))
			w.deleteCM("owner", metav1.DeletePropagationForeground)
			w.eventually("the grandchild terminating", func() bool { return w.getCM("grandchild").DeletionTimestamp != nil })
			w.eventually("the child deleting its dependents", func() bool { return w.getCM("child").DeletionTimestamp != nil })
			for _, name := range []string{"owner", "child"} {
				got := w.getCM(name)
				if !slices.Equal(got.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
					w.t.Errorf("%s finalizers %q, want [foregroundDeletion] while the grandchild remains", name, got.Finalizers)
				}
			}
			if refs := w.getCM("child").OwnerReferences; len(refs) != 1 || refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
				w.t.Errorf("child's ownerReferences %v, want its owner's, still blocking", refs)
			}
			w.dropFinalizers("grandchild")
			w.cmGone("grandchild")
			w.cmGone("child")
			w.cmGone("owner")
		}},
	}
}
