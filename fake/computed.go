package fake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// The writes the apiserver computes rather than stores: a pod's binding to a node (the
// scheduler's, POST pods/{name}/binding or the bindings collection) and its eviction (POST
// pods/{name}/eviction, which honours PodDisruptionBudgets). Each is recorded from kube-apiserver
// 1.37.2 in reference/observed-computed.md and replayed by TestObservedComputed.

var (
	podsGR       = schema.GroupResource{Resource: "pods"}
	namespacesGR = schema.GroupResource{Resource: "namespaces"}
	pdbGR        = schema.GroupResource{Group: policyv1.GroupName, Resource: "poddisruptionbudgets"}

	// bindingType and evictionType decode the bodies of the two writes, with the apiserver's 400s.
	bindingType  = &resourceType{gvk: corev1.SchemeGroupVersion.WithKind("Binding"), goType: reflect.TypeOf(corev1.Binding{})}
	evictionType = &resourceType{gvk: policyv1.SchemeGroupVersion.WithKind("Eviction"), goType: reflect.TypeOf(policyv1.Eviction{})}
)

// unreasonedError is the apiserver's answer to an error that is not an API status (a REST
// storage's plain error): a 500 with the error's text, without a reason or details.
func unreasonedError(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
}

// successStatus is the answer of a binding or an eviction that took effect (or would have, for a
// dry run).
var successStatus = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`)

// bindingsPath reports whether path names the bindings resource (named, true), and whether it
// is a namespace's bindings collection (/api/v1/namespaces/{ns}/bindings) and its namespace.
// Its other paths (all namespaces' bindings, a binding by name, a watch path) have no route in
// the apiserver (404, reference/observed-computed.md, binding); the fake's read path, which lists
// bindings in discovery, must not serve them from the empty cache behind the listing.
func bindingsPath(path string) (namespace string, collection, named bool) {
	var buf [maxPathSegments]string
	segs := splitPath(path, &buf)
	if len(segs) < 3 || segs[0] != "api" || segs[1] != "v1" {
		return "", false, false
	}
	if len(segs) == 5 && segs[2] == "namespaces" && segs[4] == "bindings" {
		return segs[3], true, true
	}
	segs = segs[2:]
	if segs[0] == "watch" {
		segs = segs[1:]
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		segs = segs[2:]
	}
	return "", false, len(segs) > 0 && segs[0] == "bindings"
}

// registerBindings lists the bindings collection in discovery when pods are served, as the
// apiserver lists it (reference/observed-discovery.md): namespaced, kind Binding, verb create.
func (s *Server) registerBindings() error {
	if s.servedGR(podsGR) == nil {
		return nil
	}
	return s.registerCreateOnly(kubeapi.ResourceInfo{Version: "v1", Resource: "bindings", SingularName: "binding",
		Kind: "Binding", Namespaced: true, Verbs: []string{"create"}})
}

// servePodWrite serves the pods/binding and pods/eviction subresources and the bindings
// collection: POST only, as their discovery says.
func (s *Server) servePodWrite(w http.ResponseWriter, r *http.Request, namespace, name, subresource string) {
	typ := bindingType
	if subresource == "eviction" {
		typ = evictionType
	}
	opts, body, ok := computedRequest(w, r, typ)
	if !ok {
		return
	}
	body, err := s.admitComputed(r, w, target{res: s.servedGR(podsGR), namespace: namespace, name: name, subresource: subresource}, typ, body, opts)
	if err != nil {
		writeError(w, err)
		return
	}
	if subresource == "eviction" {
		err = s.evict(r.Context(), namespace, name, body, opts)
	} else {
		err = s.bind(r.Context(), namespace, name, body, opts)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeBody(w, http.StatusCreated, successStatus)
}

// computedRequest reads a write to a computed subresource: POST only, its create options and
// its body, of type t. ok is false when it has answered the request with an error.
func computedRequest(w http.ResponseWriter, r *http.Request, t *resourceType) (opts metav1.CreateOptions, body []byte, ok bool) {
	if r.Method != http.MethodPost {
		writeError(w, methodNotAllowed())
		return opts, nil, false
	}
	if err := scheme.ParameterCodec.DecodeParameters(r.URL.Query(), optionsVersion, &opts); err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return opts, nil, false
	}
	body, err := readJSONBody(r, t)
	if err != nil {
		writeError(w, err)
		return opts, nil, false
	}
	return opts, body, true
}

// lockPod takes a pod's lock and reads it; the caller calls unlock (also on an error).
func (s *Server) lockPod(ctx context.Context, namespace, name string) (pods *served, pod *corev1.Pod, cur []byte, unlock func(), err error) {
	pods = s.servedGR(podsGR)
	unlock = s.lockObject(pods, namespace, name)
	if cur, err = current(ctx, pods, namespace, name); err != nil {
		return pods, nil, nil, unlock, err
	}
	if cur == nil {
		return pods, nil, nil, unlock, apierrors.NewNotFound(podsGR, name)
	}
	obj, err := decodeStored(pods.resourceType, cur)
	if err != nil {
		return pods, nil, nil, unlock, err
	}
	return pods, obj.(*corev1.Pod), cur, unlock, nil
}

// bind assigns a pod to the node a Binding names: spec.nodeName, the Binding's annotations and the
// PodScheduled condition, in one write that the field manager does not record (the apiserver's
// BindingREST writes to storage directly). name is the pod's name from the path, or "" for the
// bindings collection, which takes it from the Binding.
func (s *Server) bind(ctx context.Context, namespace, name string, body []byte, opts metav1.CreateOptions) error {
	d, err := decodeBody(bindingType, body)
	if err != nil {
		return err
	}
	b := d.obj.(*corev1.Binding)
	if name == "" {
		name = b.Name
	} else if b.Name != name {
		return apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	var errs field.ErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	if len(errs) > 0 {
		return unreasonedError(errs.ToAggregate())
	}
	pods, pod, cur, unlock, err := s.lockPod(ctx, namespace, name)
	defer unlock()
	if err != nil {
		return err
	}
	bindingGR := schema.GroupResource{Resource: "pods/binding"}
	switch {
	case pod.DeletionTimestamp != nil:
		return unreasonedError(fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name))
	case b.UID != "" && pod.UID != b.UID:
		return apierrors.NewConflict(bindingGR, name, fmt.Errorf("pod %v does not match uid %v", pod.Name, b.UID))
	case b.ResourceVersion != "" && pod.ResourceVersion != b.ResourceVersion:
		return apierrors.NewConflict(bindingGR, name, fmt.Errorf("pod %v resource version does not match %v", pod.Name, b.ResourceVersion))
	case pod.Spec.NodeName != "":
		return apierrors.NewConflict(bindingGR, name, fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName))
	case len(pod.Spec.SchedulingGates) != 0:
		return apierrors.NewConflict(bindingGR, name, fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name))
	}
	pod.Spec.NodeName = b.Target.Name
	for k, v := range b.Annotations {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[k] = v
	}
	s.setPodCondition(pod, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
	if dryRun(opts.DryRun) {
		return nil
	}
	_, err = s.commit(pods, watchcache.Modified, pod, cur)
	return err
}

// setPodCondition sets a condition of a pod's status as the apiserver's UpdatePodCondition does:
// the transition time is now, unless the condition had the same status before.
func (s *Server) setPodCondition(pod *corev1.Pod, c corev1.PodCondition) {
	c.LastTransitionTime = metav1.NewTime(s.opts.Now().Truncate(1e9))
	for i := range pod.Status.Conditions {
		if old := pod.Status.Conditions[i]; old.Type == c.Type {
			if old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			pod.Status.Conditions[i] = c
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, c)
}

// decodeEviction decodes an Eviction of policy/v1 or policy/v1beta1 (the same fields), as the
// apiserver accepts either on the subresource.
func decodeEviction(body []byte) (*policyv1.Eviction, error) {
	var tm metav1.TypeMeta
	if json.Unmarshal(body, &tm) == nil && tm.APIVersion == "policy/v1beta1" && tm.Kind == "Eviction" {
		var e policyv1.Eviction
		if err := json.Unmarshal(body, &e); err != nil {
			return nil, decodeError(evictionType, body, nil, err)
		}
		e.APIVersion = policyv1.SchemeGroupVersion.String()
		return &e, nil
	}
	d, err := decodeBody(evictionType, body)
	if err != nil {
		return nil, err
	}
	return d.obj.(*policyv1.Eviction), nil
}

// evict is the apiserver's eviction of a pod: a pod that no disruption budget protects (pending,
// finished or already deleting, or matched by none) is deleted with the Eviction's delete options;
// else the one budget that matches it must allow a disruption, which the eviction spends (in the
// budget's status, as kube-apiserver's status write) before the delete. Either delete first marks
// the pod with the DisruptionTarget condition.
func (s *Server) evict(ctx context.Context, namespace, name string, body []byte, opts metav1.CreateOptions) error {
	e, err := decodeEviction(body)
	if err != nil {
		return err
	}
	if e.Name != name {
		return apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if e.DeleteOptions != nil && e.DeleteOptions.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *e.DeleteOptions.IgnoreStoreReadErrorWithClusterBreakingPotential {
		return apierrors.NewInvalid(evictionType.gvk.GroupKind(), name, field.ErrorList{field.Invalid(
			field.NewPath("deleteOptions").Child("ignoreStoreReadErrorWithClusterBreakingPotential"), true, "can not be set for pod eviction, try after removing the option")})
	}
	del, err := evictionDeleteOptions(e, opts)
	if err != nil {
		return err
	}
	pods, pod, cur, unlock, err := s.lockPod(ctx, namespace, name)
	defer unlock()
	if err != nil {
		return err
	}
	phase := pod.Status.Phase
	if phase == corev1.PodSucceeded || phase == corev1.PodFailed || phase == corev1.PodPending || pod.DeletionTimestamp != nil {
		return s.markAndDeletePod(ctx, pods, pod, cur, del)
	}
	pdbs, err := s.budgetsOf(ctx, pod)
	if err != nil {
		return err
	}
	switch {
	case len(pdbs) > 1:
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}}
	case len(pdbs) == 1:
		pdb := pdbs[0]
		unhealthyAllowed := !podReady(pod) && ((pdb.Spec.UnhealthyPodEvictionPolicy != nil && *pdb.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow) ||
			(pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0))
		if !unhealthyAllowed {
			if err := s.spendDisruption(ctx, pdb, pod.Name, dryRun(del.DryRun)); err != nil {
				return err
			}
		}
	}
	return s.markAndDeletePod(ctx, pods, pod, cur, del)
}

// evictionDeleteOptions are the delete options of an eviction: the Eviction's, with the request's
// dryRun when the Eviction has none (the apiserver's propagateDryRun).
func evictionDeleteOptions(e *policyv1.Eviction, opts metav1.CreateOptions) (*metav1.DeleteOptions, error) {
	if e.DeleteOptions == nil {
		return &metav1.DeleteOptions{DryRun: opts.DryRun}, nil
	}
	del := e.DeleteOptions.DeepCopy()
	switch {
	case len(del.DryRun) == 0:
		del.DryRun = opts.DryRun
	case len(opts.DryRun) != 0 && !slices.Equal(opts.DryRun, del.DryRun):
		return nil, unreasonedError(fmt.Errorf("Non-matching dry-run options in request and content: %v and %v", opts.DryRun, del.DryRun)) //nolint:staticcheck // the apiserver's message
	}
	return del, nil
}

// podReady reports whether a pod's Ready condition is True.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// budgetsOf returns the PodDisruptionBudgets of the pod's namespace whose selector matches it (a
// budget whose selector does not parse matches nothing).
func (s *Server) budgetsOf(ctx context.Context, pod *corev1.Pod) ([]*policyv1.PodDisruptionBudget, error) {
	r := s.servedGR(pdbGR)
	if r == nil {
		return nil, nil
	}
	page, err := r.cache.List(ctx, watchcache.ListOptions{Namespace: pod.Namespace, ResourceVersion: "0"})
	if err != nil {
		return nil, internalError("list poddisruptionbudgets: %v", err)
	}
	var out []*policyv1.PodDisruptionBudget
	for _, it := range page.Items {
		obj, err := decodeStored(r.resourceType, it)
		if err != nil {
			return nil, err
		}
		pdb := obj.(*policyv1.PodDisruptionBudget)
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	return out, nil
}

// maxDisruptedPods is the apiserver's bound on a budget's evictions its controller has not yet
// confirmed.
const maxDisruptedPods = 2000

// spendDisruption checks that a budget allows one more disruption and, unless dry, records it in
// the budget's status as the apiserver does: one fewer disruption allowed, the pod among the
// disrupted ones, the DisruptionAllowed condition when none is left.
func (s *Server) spendDisruption(ctx context.Context, pdb *policyv1.PodDisruptionBudget, podName string, dry bool) error {
	tooMany := func(retryAfter int, msg string) error {
		err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", retryAfter)
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: msg})
		return err
	}
	forbidden := func(reason, msg string) error {
		err := apierrors.NewForbidden(schema.GroupResource{Group: policyv1.GroupName, Resource: "poddisruptionbudget"}, pdb.Name, errors.New(reason))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: msg})
		return err
	}
	st := &pdb.Status
	switch {
	case st.ObservedGeneration < pdb.Generation:
		return tooMany(10, fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name))
	case st.DisruptionsAllowed < 0:
		return forbidden("pdb disruptions allowed is negative",
			fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: pdb disruptions allowed is negative", pdb.Name))
	case len(st.DisruptedPods) > maxDisruptedPods:
		return forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller",
			fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: too many pending evictions not confirmed by PDB controller", pdb.Name))
	case st.DisruptionsAllowed == 0:
		c := apimeta.FindStatusCondition(st.Conditions, policyv1.DisruptionAllowedCondition)
		var msg string
		switch {
		case c != nil && c.Status == metav1.ConditionFalse && c.Message != "" && c.Reason == policyv1.SyncFailedReason:
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, c.Message)
		case st.CurrentHealthy <= st.DesiredHealthy:
			msg = fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, st.DesiredHealthy, st.CurrentHealthy)
		case c != nil && c.Status == metav1.ConditionFalse && c.Message != "":
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, c.Reason, c.Message)
		default:
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
		}
		return tooMany(0, msg)
	}
	if dry {
		return nil
	}
	r := s.servedGR(pdbGR)
	defer s.lockObject(r, pdb.Namespace, pdb.Name)()
	cur, err := current(ctx, r, pdb.Namespace, pdb.Name)
	if err != nil {
		return err
	}
	if cur == nil {
		return apierrors.NewNotFound(pdbGR, pdb.Name)
	}
	old, err := decodeStored(r.resourceType, cur)
	if err != nil {
		return err
	}
	if old.(*policyv1.PodDisruptionBudget).ResourceVersion != pdb.ResourceVersion {
		// Changed since it was read: the apiserver retries with the new one; the eviction's
		// client does the same on this 429.
		return tooMany(10, fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name))
	}
	st.DisruptionsAllowed--
	if st.DisruptionsAllowed == 0 {
		apimeta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: policyv1.DisruptionAllowedCondition,
			Reason: policyv1.InsufficientPodsReason, Status: metav1.ConditionFalse, ObservedGeneration: st.ObservedGeneration})
		for i := range st.Conditions {
			if st.Conditions[i].Type == policyv1.DisruptionAllowedCondition && st.Conditions[i].LastTransitionTime.IsZero() {
				st.Conditions[i].LastTransitionTime = metav1.NewTime(s.opts.Now().Truncate(1e9))
			}
		}
	}
	if st.DisruptedPods == nil {
		st.DisruptedPods = map[string]metav1.Time{}
	}
	st.DisruptedPods[podName] = metav1.NewTime(s.opts.Now().Truncate(1e9))
	t := target{res: r, namespace: pdb.Namespace, name: pdb.Name, subresource: "status"}
	_, err = s.updateHeld(t, pdb, old, cur, false, crdManager, false)
	return err
}

// markAndDeletePod sets the pod's DisruptionTarget condition (unless the delete is a dry run) and
// deletes it with del, the caller holding the pod's lock. A precondition of del is checked
// against the pod before the condition is written, and a resourceVersion precondition then names
// the version with the condition, as the apiserver's eviction does.
func (s *Server) markAndDeletePod(ctx context.Context, pods *served, pod *corev1.Pod, cur []byte, del *metav1.DeleteOptions) error {
	if !dryRun(del.DryRun) {
		if p := del.Preconditions; p != nil {
			podKind := schema.GroupResource{Resource: "Pod"}
			if p.UID != nil && *p.UID != "" && *p.UID != pod.UID {
				return apierrors.NewConflict(podKind, pod.Name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, pod.UID))
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != "" && *p.ResourceVersion != pod.ResourceVersion {
				return apierrors.NewConflict(podKind, pod.Name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, pod.ResourceVersion))
			}
		}
		s.setPodCondition(pod, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
		b, err := s.commit(pods, watchcache.Modified, pod, cur)
		if err != nil {
			return err
		}
		if del.Preconditions != nil && del.Preconditions.ResourceVersion != nil {
			del = del.DeepCopy()
			rv := rvOf(b)
			del.Preconditions.ResourceVersion = &rv
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.deleteLocked(ctx, pods, pod.Namespace, pod.Name, del, false)
	return err
}

// rvOf is the metadata.resourceVersion of a stored object's JSON.
func rvOf(b []byte) string {
	var m struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(b, &m)
	return m.Metadata.ResourceVersion
}
