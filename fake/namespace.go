package fake

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/watchcache/watchcache/watchcache"
)

// defaultNamespaces are the namespaces a kube-apiserver creates when it starts.
var defaultNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// deleteNamespaceLocked is the namespaces' own delete (the apiserver's namespace REST): the first
// delete sets deletionTimestamp and phase Terminating and answers with the namespace; it goes
// only once spec.finalizers is empty, which the namespace controller arranges after deleting the
// namespace's content. The caller holds s.mu.
func (s *Server) deleteNamespaceLocked(ctx context.Context, r *served, ns *corev1.Namespace, cur []byte, dry bool) ([]byte, error) {
	if ns.DeletionTimestamp == nil {
		now := metav1.NewTime(s.opts.Now().Truncate(time.Second))
		ns.DeletionTimestamp = &now
		ns.Status.Phase = corev1.NamespaceTerminating
		if dry {
			return encodeStored(r.resourceType, ns)
		}
		b, err := s.commitLocked(r, watchcache.Modified, ns)
		if err == nil && !s.opts.NoNamespaceController {
			s.finalizeNamespaceLater(ns.Name)
		}
		return b, err
	}
	if len(ns.Spec.Finalizers) > 0 || len(ns.Finalizers) > 0 || dry {
		return cur, nil
	}
	b, err := s.commitLocked(r, watchcache.Deleted, ns)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// namespaceRetry is how often the namespace controller looks again at a terminating namespace
// whose content is still there (objects waiting for their finalizers).
const namespaceRetry = 50 * time.Millisecond

// finalizeNamespaceLater runs the namespace controller's work for a terminating namespace on a
// goroutine of its own, as kube-controller-manager does after the apiserver marked it: delete
// everything in it (each object as a DELETE would, finalizers and grace periods honoured), and once
// nothing is left, remove its "kubernetes" finalizer, which deletes it. It gives up when the
// server closes.
func (s *Server) finalizeNamespaceLater(name string) {
	s.controllers.Add(1)
	go func() {
		defer s.controllers.Done()
		t := time.NewTicker(namespaceRetry)
		defer t.Stop()
		for !s.finalizeNamespace(name) {
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
}

// finalizeNamespace is one pass of kube-controller-manager's namespace deleter
// (k8s.io/kubernetes v1.37.2 pkg/controller/namespace/deletion): it deletes the content of a
// terminating namespace, pods first, each resource as a deletecollection with Background
// propagation would; records in the namespace's status conditions what remains; and, once
// nothing does, removes the "kubernetes" finalizer, which deletes the namespace. It reports
// whether the work is done (or there is none).
func (s *Server) finalizeNamespace(name string) bool {
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	nsr := s.byGR[schema.GroupResource{Resource: "namespaces"}]
	cur, err := current(ctx, nsr, "", name)
	if err != nil || cur == nil {
		return true
	}
	var ns corev1.Namespace
	if err := jsonUnmarshal(cur, &ns); err != nil || ns.DeletionTimestamp == nil {
		return true
	}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return true // finalized: what is left is for other finalizers
	}
	// kcm's first step: a namespace with a deletionTimestamp is Terminating (one seeded so need
	// not say so).
	phaseChanged := ns.Status.Phase != corev1.NamespaceTerminating
	ns.Status.Phase = corev1.NamespaceTerminating
	var remaining namespaceContent
	pods := s.byGR[schema.GroupResource{Resource: "pods"}]
	if pods != nil {
		s.deleteNamespacedLocked(ctx, pods, name, &remaining)
	}
	if remaining.total() == 0 {
		for _, r := range s.allResources() {
			if r != pods {
				s.deleteNamespacedLocked(ctx, r, name, &remaining)
			}
		}
	}
	// While pods remain, kcm updates the conditions before it counts the rest: they then
	// report no content remaining.
	var conds []corev1.NamespaceCondition
	if pods == nil || remaining.byResource[pods.gvr] == 0 {
		conds = remaining.conditions()
	}
	conds = append(conds, remaining.failures()...)
	if setNamespaceConditions(&ns.Status, conds, metav1.NewTime(s.opts.Now().Truncate(time.Second))) || phaseChanged {
		b, err := s.commitLocked(nsr, watchcache.Modified, &ns)
		if err != nil {
			return false
		}
		_ = jsonUnmarshal(b, &ns)
	}
	if remaining.total() > 0 {
		return false
	}
	// The finalize subresource: without its last spec finalizer and with no metadata finalizer,
	// the update deletes the namespace instead (ShouldDeleteNamespaceDuringUpdate), and the
	// DELETED event carries the namespace as last stored, "kubernetes" finalizer and all
	// (reference/observed-gc.md, namespace-empty).
	left := slices.DeleteFunc(slices.Clone(ns.Spec.Finalizers), func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	if len(left) == 0 && len(ns.Finalizers) == 0 {
		_, err = s.commitLocked(nsr, watchcache.Deleted, &ns)
		return err == nil
	}
	ns.Spec.Finalizers = left
	_, err = s.commitLocked(nsr, watchcache.Modified, &ns)
	return err == nil
}

// namespaceContent counts what a pass of the namespace deleter left in a namespace.
type namespaceContent struct {
	byResource  map[schema.GroupVersionResource]int
	byFinalizer map[string]int
	// unexpected are the resources whose objects remain with neither finalizers nor a grace
	// period to wait for.
	unexpected []schema.GroupVersionResource
	namespace  string
}

func (c *namespaceContent) total() int {
	n := 0
	for _, v := range c.byResource {
		n += v
	}
	return n
}

// deleteNamespacedLocked deletes every object of r in a namespace with Background propagation,
// as the deletecollection of kcm's deleter, and counts what remains. Resources that cannot be
// deleted or are cluster-scoped are skipped, as discovery filters them. The caller holds s.mu.
func (s *Server) deleteNamespacedLocked(ctx context.Context, r *served, namespace string, c *namespaceContent) {
	if !r.namespaced || !r.hasVerb("delete") {
		return
	}
	c.namespace = namespace
	list := func() [][]byte {
		page, err := r.cache.List(ctx, watchcache.ListOptions{Namespace: namespace, ResourceVersion: "0"})
		if err != nil {
			return nil
		}
		return page.Items
	}
	background := metav1.DeletePropagationBackground
	for _, it := range list() {
		name, ns := objectName(it)
		_, _ = s.deleteLocked(ctx, r, ns, name, &metav1.DeleteOptions{PropagationPolicy: &background}, true)
	}
	left := list()
	if len(left) == 0 {
		return
	}
	if c.byResource == nil {
		c.byResource, c.byFinalizer = map[schema.GroupVersionResource]int{}, map[string]int{}
	}
	c.byResource[r.gvr] += len(left)
	finalizers := 0
	for _, it := range left {
		var m struct {
			Metadata struct {
				Finalizers []string `json:"finalizers"`
			} `json:"metadata"`
		}
		_ = jsonUnmarshal(it, &m)
		for _, f := range m.Metadata.Finalizers {
			c.byFinalizer[f]++
			finalizers++
		}
	}
	// Pods wait for their grace period (kcm's estimate); anything else must have a finalizer.
	if finalizers == 0 && r.gvr != (schema.GroupVersionResource{Version: "v1", Resource: "pods"}) {
		c.unexpected = append(c.unexpected, r.gvr)
	}
}

// conditions are the NamespaceContentRemaining and NamespaceFinalizersRemaining conditions of
// what remains (kcm's ProcessContentTotals); none when nothing does.
func (c *namespaceContent) conditions() []corev1.NamespaceCondition {
	var out []corev1.NamespaceCondition
	if len(c.byResource) > 0 {
		var rs []string
		for gvr, n := range c.byResource {
			rs = append(rs, fmt.Sprintf("%s.%s has %d resource instances", gvr.Resource, gvr.Group, n))
		}
		sort.Strings(rs)
		out = append(out, corev1.NamespaceCondition{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue,
			Reason: "SomeResourcesRemain", Message: "Some resources are remaining: " + strings.Join(rs, ", ")})
	}
	if len(c.byFinalizer) > 0 {
		var fs []string
		for f, n := range c.byFinalizer {
			fs = append(fs, fmt.Sprintf("%s in %d resource instances", f, n))
		}
		sort.Strings(fs)
		out = append(out, corev1.NamespaceCondition{Type: corev1.NamespaceFinalizersRemaining, Status: corev1.ConditionTrue,
			Reason: "SomeFinalizersRemain", Message: "Some content in the namespace has finalizers remaining: " + strings.Join(fs, ", ")})
	}
	return out
}

// failures is the NamespaceDeletionContentFailure condition for objects that remain with nothing
// to wait for (kcm's makeDeleteContentCondition); none when there are none.
func (c *namespaceContent) failures() []corev1.NamespaceCondition {
	if len(c.unexpected) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(c.unexpected))
	for _, gvr := range c.unexpected {
		msgs = append(msgs, fmt.Sprintf("unexpected items still remain in namespace: %s for gvr: %v", c.namespace, gvr))
	}
	sort.Strings(msgs)
	return []corev1.NamespaceCondition{{Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionTrue,
		Reason:  "ContentDeletionFailed",
		Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(msgs), strings.Join(msgs, ", "))}}
}

// namespaceConditionTypes are the conditions the namespace deleter maintains, in its order, with
// the reason and message of each when it is False (kcm's okReasons and okMessages).
var namespaceConditionTypes = []struct {
	typ             corev1.NamespaceConditionType
	reason, message string
}{
	{corev1.NamespaceDeletionDiscoveryFailure, "ResourcesDiscovered", "All resources successfully discovered"},
	{corev1.NamespaceDeletionGVParsingFailure, "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{corev1.NamespaceDeletionContentFailure, "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{corev1.NamespaceContentRemaining, "ContentRemoved", "All content successfully removed"},
	{corev1.NamespaceFinalizersRemaining, "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// setNamespaceConditions sets each of the deleter's five conditions: True as in failing, else
// False with its ok reason; lastTransitionTime changes with the status only. It reports whether
// anything changed (kcm's updateConditions).
func setNamespaceConditions(st *corev1.NamespaceStatus, failing []corev1.NamespaceCondition, now metav1.Time) bool {
	changed := false
	for _, ct := range namespaceConditionTypes {
		want := corev1.NamespaceCondition{Type: ct.typ, Status: corev1.ConditionFalse, Reason: ct.reason, Message: ct.message}
		for _, f := range failing {
			if f.Type == ct.typ {
				want = f
			}
		}
		want.LastTransitionTime = now
		i := slices.IndexFunc(st.Conditions, func(c corev1.NamespaceCondition) bool { return c.Type == ct.typ })
		if i < 0 {
			st.Conditions = append(st.Conditions, want)
			changed = true
			continue
		}
		old := &st.Conditions[i]
		if old.Status == want.Status && old.Reason == want.Reason && old.Message == want.Message {
			continue
		}
		if old.Status != want.Status {
			old.LastTransitionTime = now
		}
		old.Status, old.Reason, old.Message = want.Status, want.Reason, want.Message
		changed = true
	}
	return changed
}

// namespaceFinalizing reports whether obj is a namespace whose spec still names finalizers: an
// update that leaves a deleted namespace without metadata finalizers deletes it only once those
// are gone too (the namespace store's ShouldDeleteNamespaceDuringUpdate).
func namespaceFinalizing(obj runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	return ok && len(ns.Spec.Finalizers) > 0
}

// standardFinalizers are the finalizer names that need no domain.
var standardFinalizers = map[string]bool{string(corev1.FinalizerKubernetes): true, metav1.FinalizerOrphanDependents: true, metav1.FinalizerDeleteDependents: true}

// validateNamespaceFinalizers checks a namespace's spec.finalizers as the apiserver's namespace
// validation does: each a qualified name, and one without a domain a standard one.
func validateNamespaceFinalizers(ns *corev1.Namespace) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "finalizers")
	for i, f := range ns.Spec.Finalizers {
		name := string(f)
		errs = append(errs, apimachineryvalidation.ValidateFinalizerName(name, p.Index(i))...)
		if !strings.Contains(name, "/") && !standardFinalizers[name] {
			errs = append(errs, field.Invalid(p.Index(i), name, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}
