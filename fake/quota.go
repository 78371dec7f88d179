package fake

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	resourcehelper "k8s.io/component-helpers/resource"
	volumehelper "k8s.io/component-helpers/storage/volume"

	"github.com/watchcache/watchcache/watchcache"
)

// The ResourceQuota admission plugin (reference/observed-admission.md, quota*), the last of the
// validating plugins: a write in a namespace with quotas is charged to each quota whose
// status.hard names a resource the write uses and whose scopes match the object, and refused if
// that would take status.used above status.hard. What it charges is written to the quotas'
// status (manager "kube-apiserver") before the object is stored, so that the quota's event comes
// first in the resourceVersion sequence, and stays charged if the object's own write then fails
// (a name that exists). Nothing is released: a delete, or a service that stops being a load
// balancer, leaves status.used as it is until a quota controller recounts, and the fake runs none
// (a test sets status through the status subresource, as the recorded cases do). A dry run is
// checked and not charged.
//
// Quotas are read from the cache and charged under s.quotaMu, so that two writes never both
// take the last unit of one quota; a quota whose status changed between the read and the charge
// (a client's status write) is read again.

var resourceQuotasGR = schema.GroupResource{Resource: "resourcequotas"}

// quotaManager is the field manager of the status writes quota admission makes: the apiserver's
// loopback client's.
const quotaManager = "kube-apiserver"

// quotaChargeAttempts bounds the re-reads of quotas whose status a client wrote while a charge
// was being computed; each conflict means another writer made progress.
const quotaChargeAttempts = 5

// quotaIgnored are the resources quota admission never counts: events (never quota-ed) and the
// computed ones the fake stores nothing of.
var quotaIgnored = map[schema.GroupResource]bool{
	{Resource: "events"}:                         true,
	{Group: "events.k8s.io", Resource: "events"}: true,
	{Resource: "bindings"}:                       true,
}

// quotaLegacyCounts are the object counts quotas name without "count/", kept for the resources
// that were counted before count/<resource> existed.
var quotaLegacyCounts = map[schema.GroupResource]corev1.ResourceName{
	{Resource: "configmaps"}:             corev1.ResourceConfigMaps,
	{Resource: "secrets"}:                corev1.ResourceSecrets,
	{Resource: "resourcequotas"}:         corev1.ResourceQuotas,
	{Resource: "replicationcontrollers"}: corev1.ResourceReplicationControllers,
}

// quotaKind is what quota admission knows of one resource, after the apiserver's evaluators: the
// quota resources it can be charged for, what an object uses of them, which scopes an object
// matches, what a quota requires of an object, and whether an update is charged.
type quotaKind struct {
	matches     func(corev1.ResourceName) bool
	usage       func(runtime.Object) corev1.ResourceList
	scope       func(corev1.ScopedResourceSelectorRequirement, runtime.Object) bool
	constraints func(required []corev1.ResourceName, obj runtime.Object) error
	// update says whether an update of old into obj (of a subresource, or "") is charged (nil:
	// updates never are).
	update func(obj, old runtime.Object, subresource string) bool
}

// quotaKindOf is the evaluator of a resource: pods, services and claims have their own; any other
// resource is counted (count/<resource>[.<group>], and its legacy name).
func (s *Server) quotaKindOf(gr schema.GroupResource) quotaKind {
	count := objectCountName(gr)
	switch gr {
	case schema.GroupResource{Resource: "pods"}:
		return quotaKind{
			matches: func(n corev1.ResourceName) bool {
				return podQuotaResources[n] || strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix) ||
					strings.HasPrefix(string(n), corev1.ResourceRequestsHugePagesPrefix) || isExtendedQuotaRequest(n)
			},
			usage:       func(o runtime.Object) corev1.ResourceList { return s.podUsage(o.(*corev1.Pod)) },
			scope:       podMatchesScope,
			constraints: podQuotaConstraints,
			// A pod update is charged when it changes the pod's terminating scope, and a resize
			// always (reference/observed-admission.md, resize).
			update: func(o, old runtime.Object, sub string) bool {
				return sub == "resize" || sub == "" && podTerminating(o.(*corev1.Pod)) != podTerminating(old.(*corev1.Pod))
			},
		}
	case schema.GroupResource{Resource: "services"}:
		return quotaKind{
			matches: func(n corev1.ResourceName) bool {
				return n == count || n == corev1.ResourceServices || n == corev1.ResourceServicesNodePorts || n == corev1.ResourceServicesLoadBalancers
			},
			usage:  func(o runtime.Object) corev1.ResourceList { return serviceUsage(o.(*corev1.Service)) },
			update: func(_, _ runtime.Object, sub string) bool { return sub == "" },
		}
	case schema.GroupResource{Resource: "persistentvolumeclaims"}:
		return quotaKind{
			matches: func(n corev1.ResourceName) bool {
				for _, r := range []corev1.ResourceName{count, corev1.ResourcePersistentVolumeClaims, corev1.ResourceRequestsStorage} {
					if n == r || (r != count && strings.HasSuffix(string(n), storageClassSuffix+string(r))) {
						return true
					}
				}
				return false
			},
			usage: func(o runtime.Object) corev1.ResourceList { return claimUsage(o.(*corev1.PersistentVolumeClaim)) },
			scope: claimMatchesScope,
			// Every status write of a claim is evaluated too: the plugin's test of a changed
			// allocated size compares two pointers, which always differ.
			update: func(_, _ runtime.Object, sub string) bool { return sub == "" || sub == "status" },
		}
	}
	names := []corev1.ResourceName{count}
	if alias, ok := quotaLegacyCounts[gr]; ok {
		names = append(names, alias)
	}
	return quotaKind{
		matches: func(n corev1.ResourceName) bool { return n == names[0] || (len(names) > 1 && n == names[1]) },
		usage: func(runtime.Object) corev1.ResourceList {
			out := corev1.ResourceList{}
			for _, n := range names {
				out[n] = *resource.NewQuantity(1, resource.DecimalSI)
			}
			return out
		},
	}
}

// objectCountName is a resource's object count in a quota: count/<resource>[.<group>].
func objectCountName(gr schema.GroupResource) corev1.ResourceName {
	if gr.Group == "" {
		return corev1.ResourceName("count/" + gr.Resource)
	}
	return corev1.ResourceName("count/" + gr.Resource + "." + gr.Group)
}

// storageClassSuffix joins a storage class to the claim resource a quota limits for it
// (gold.storageclass.storage.k8s.io/requests.storage).
const storageClassSuffix = ".storageclass.storage.k8s.io/"

// admitQuota charges a create (old nil) or an update of obj to the quotas of its namespace, or
// refuses it; a dry run is checked only.
func (s *Server) admitQuota(ctx context.Context, r *served, obj, old runtime.Object, subresource string, dry bool) error {
	gr := r.gvr.GroupResource()
	if !r.namespaced || quotaIgnored[gr] || (old == nil && subresource != "") {
		return nil
	}
	qr := s.servedGR(resourceQuotasGR)
	if qr == nil || qr.cache.Len() == 0 {
		return nil // the common case, a server without quotas: no lock, no list, no kind to build
	}
	kind := s.quotaKindOf(gr)
	if old != nil && (kind.update == nil || !kind.update(obj, old, subresource)) {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return internalError("%s: %v", r.gvk.Kind, err)
	}
	s.quotaMu.Lock()
	defer s.quotaMu.Unlock()
	done := map[string]bool{} // the quotas charged by an earlier attempt
	for attempt := 0; ; attempt++ {
		quotas, stored, err := s.namespaceQuotas(ctx, qr, m.GetNamespace(), done)
		if err != nil {
			return err
		}
		charged, err := checkQuotas(kind, quotas, obj, old, subresource)
		if err != nil {
			return apierrors.NewForbidden(gr, m.GetName(), err)
		}
		if dry {
			return nil
		}
		err = s.storeQuotaUsage(qr, quotas, charged, stored, done)
		if !apierrors.IsConflict(err) || attempt+1 >= quotaChargeAttempts {
			return err
		}
	}
}

// namespaceQuotas reads a namespace's quotas, in name order, with their stored bytes (for the
// charge's compare), but those named in skip: a retry checks again only the quotas it has not
// charged, as the plugin's does.
func (s *Server) namespaceQuotas(ctx context.Context, qr *served, namespace string, skip map[string]bool) ([]*corev1.ResourceQuota, [][]byte, error) {
	page, err := qr.cache.List(ctx, watchcache.ListOptions{Namespace: namespace, ResourceVersion: "0"})
	if err != nil {
		return nil, nil, internalError("list resourcequotas: %v", err)
	}
	var quotas []*corev1.ResourceQuota
	var stored [][]byte
	for _, it := range page.Items {
		name, _ := objectName(it)
		if skip[name] {
			continue
		}
		b, err := current(ctx, qr, namespace, name)
		if err != nil || b == nil {
			continue // deleted since the list
		}
		q, err := decodeStored(qr.resourceType, b)
		if err != nil {
			return nil, nil, err
		}
		quotas = append(quotas, q.(*corev1.ResourceQuota))
		stored = append(stored, b)
	}
	return quotas, stored, nil
}

// storeQuotaUsage writes the new status.used of the quotas charged (by index), each as an update
// of its status subresource by the apiserver, and adds the name of each it wrote to done.
func (s *Server) storeQuotaUsage(qr *served, quotas []*corev1.ResourceQuota, charged map[int]corev1.ResourceList, stored [][]byte, done map[string]bool) error {
	for i, q := range quotas {
		used, ok := charged[i]
		if !ok {
			continue
		}
		nq := q.DeepCopy()
		nq.Status.Used = used
		if err := s.track(qr, nq, q, "status", quotaManager); err != nil {
			return err
		}
		if _, err := s.commitEncoded(qr, watchcache.Modified, nq, nil, stored[i]); err != nil {
			return err
		}
		done[q.Name] = true
	}
	return nil
}

// checkQuotas is the plugin's decision over a namespace's quotas: the quotas that match obj
// (their status.hard names a resource of its kind, their scopes match it) must have what they
// require of it and a known usage of those resources, and obj's usage (on update, what it adds to
// old's) must fit each one's hard limits, but for a status write, which is charged whatever it
// takes (a claim's allocated size is the storage's, not the user's to ask). It returns the new
// status.used of each quota to charge, by index, or the error the 403 carries.
func checkQuotas(kind quotaKind, quotas []*corev1.ResourceQuota, obj, old runtime.Object, subresource string) (map[int]corev1.ResourceList, error) {
	var matched []int
	for i, q := range quotas {
		restricted := quotaMatchingResources(kind, q)
		if len(restricted) == 0 || !quotaScopesMatch(kind, q, obj) {
			continue
		}
		if kind.constraints != nil {
			if err := kind.constraints(restricted, obj); err != nil {
				return nil, fmt.Errorf("failed quota: %s: %v", q.Name, err)
			}
		}
		for _, n := range restricted {
			if _, ok := q.Status.Used[n]; !ok {
				return nil, fmt.Errorf("status unknown for quota: %s, resources: %s", q.Name, prettyResourceNames(restricted))
			}
		}
		matched = append(matched, i)
	}
	if len(matched) == 0 {
		return nil, nil
	}
	usage := kind.usage(obj)
	var negative []corev1.ResourceName
	for n, v := range usage {
		if v.Sign() < 0 {
			negative = append(negative, n)
		}
	}
	if len(negative) > 0 {
		return nil, fmt.Errorf("quota usage is negative for resource(s): %s", prettyResourceNames(negative))
	}
	delta := map[int]corev1.ResourceList{}
	for _, i := range matched {
		delta[i] = usage
	}
	if old != nil {
		prev := kind.usage(old)
		grown := subtractNonNegative(usage, prev)
		for _, i := range matched {
			// A quota that did not cover the old object is charged the whole of the new one.
			if len(quotaMatchingResources(kind, quotas[i])) > 0 && quotaScopesMatch(kind, quotas[i], old) {
				delta[i] = grown
			}
		}
	}
	out := map[int]corev1.ResourceList{}
	for _, i := range matched {
		q := quotas[i]
		requested := maskResources(removeZeros(delta[i]), q.Status.Hard)
		if len(requested) == 0 {
			continue
		}
		used := addResources(q.Status.Used, requested)
		var exceeded []corev1.ResourceName
		for n := range requested {
			if u := used[n]; u.Cmp(q.Status.Hard[n]) > 0 {
				exceeded = append(exceeded, n)
			}
		}
		if len(exceeded) > 0 && subresource != "status" {
			return nil, fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s", q.Name,
				prettyResources(requested, exceeded), prettyResources(q.Status.Used, exceeded), prettyResources(q.Status.Hard, exceeded))
		}
		out[i] = used
	}
	return out, nil
}

// quotaMatchingResources are the resources of a quota's status.hard the kind is charged for.
func quotaMatchingResources(kind quotaKind, q *corev1.ResourceQuota) []corev1.ResourceName {
	var out []corev1.ResourceName
	for n := range q.Status.Hard {
		if kind.matches(n) {
			out = append(out, n)
		}
	}
	return out
}

// quotaScopesMatch reports whether obj matches every scope of a quota (its scopes and its scope
// selector's expressions); a kind without scopes matches no scope.
func quotaScopesMatch(kind quotaKind, q *corev1.ResourceQuota, obj runtime.Object) bool {
	for _, sc := range q.Spec.Scopes {
		if kind.scope == nil || !kind.scope(corev1.ScopedResourceSelectorRequirement{ScopeName: sc, Operator: corev1.ScopeSelectorOpExists}, obj) {
			return false
		}
	}
	if q.Spec.ScopeSelector != nil {
		for _, sel := range q.Spec.ScopeSelector.MatchExpressions {
			if kind.scope == nil || !kind.scope(sel, obj) {
				return false
			}
		}
	}
	return true
}

// podQuotaResources are the quota resources a pod is charged for by name.
var podQuotaResources = map[corev1.ResourceName]bool{
	"count/pods": true, corev1.ResourcePods: true,
	corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourceEphemeralStorage: true,
	corev1.ResourceRequestsCPU: true, corev1.ResourceRequestsMemory: true, corev1.ResourceRequestsEphemeralStorage: true,
	corev1.ResourceLimitsCPU: true, corev1.ResourceLimitsMemory: true, corev1.ResourceLimitsEphemeralStorage: true,
}

// isExtendedQuotaRequest reports a quota of an extended resource's requests
// (requests.example.com/gpu): the name after "requests." is not a native resource (one without a
// domain, or in kubernetes.io).
func isExtendedQuotaRequest(n corev1.ResourceName) bool {
	rest, ok := strings.CutPrefix(string(n), corev1.DefaultResourceRequestsPrefix)
	return ok && strings.Contains(rest, "/") && !strings.Contains(rest, corev1.ResourceDefaultNamespacePrefix)
}

// podUsage is what a pod uses of quota: one pod, and its requests and limits as the scheduler sums
// them (with overhead); a terminal pod, or one past its deletion grace period, only its count.
func (s *Server) podUsage(pod *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{"count/pods": *resource.NewQuantity(1, resource.DecimalSI)}
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return out
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil &&
		s.opts.Now().After(pod.DeletionTimestamp.Add(time.Duration(*pod.DeletionGracePeriodSeconds)*time.Second)) {
		return out
	}
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: true}
	return addResources(out, podResourcesUsage(resourcehelper.PodRequests(pod, opts), resourcehelper.PodLimits(pod, opts)))
}

// podResourcesUsage names requests and limits as quotas do: cpu is also requests.cpu, a limit is
// limits.cpu, hugepages are counted by request.
func podResourcesUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(1, resource.DecimalSI)}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q, ok := requests[r]; ok {
			out[r] = q
			out[corev1.ResourceName(corev1.DefaultResourceRequestsPrefix+string(r))] = q
		}
		if q, ok := limits[r]; ok {
			out[corev1.ResourceName("limits."+string(r))] = q
		}
	}
	for r, q := range requests {
		if strings.HasPrefix(string(r), corev1.ResourceHugePagesPrefix) {
			out[r] = q
			out[corev1.ResourceName(corev1.DefaultResourceRequestsPrefix+string(r))] = q
		}
	}
	return out
}

// podQuotaValidated are the resources a quota requires every container to state when it limits
// them.
var podQuotaValidated = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory,
}

// podQuotaConstraints refuses a pod one of whose containers does not state a resource the quota
// limits ("must specify limits.cpu for: c; requests.cpu for: c"). A pod with pod-level resources
// is not required anything.
func podQuotaConstraints(required []corev1.ResourceName, obj runtime.Object) error {
	pod := obj.(*corev1.Pod)
	if resourcehelper.IsPodLevelResourcesSet(pod) {
		return nil
	}
	req := map[corev1.ResourceName]bool{}
	for _, n := range required {
		req[n] = true
	}
	missing := map[corev1.ResourceName][]string{}
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			has := podResourcesUsage(c.Resources.Requests, c.Resources.Limits)
			for _, n := range podQuotaValidated {
				if _, ok := has[n]; req[n] && !ok && !containsString(missing[n], c.Name) {
					missing[n] = append(missing[n], c.Name)
				}
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, 0, len(missing))
	for n := range missing {
		names = append(names, string(n))
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		cs := missing[corev1.ResourceName(n)]
		sort.Strings(cs)
		parts = append(parts, n+" for: "+strings.Join(cs, ","))
	}
	return fmt.Errorf("must specify %s", strings.Join(parts, "; "))
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// podTerminating: a pod with an active deadline is in the Terminating scope.
func podTerminating(pod *corev1.Pod) bool {
	return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
}

// podMatchesScope reports whether a pod is in a quota scope.
func podMatchesScope(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) bool {
	pod := obj.(*corev1.Pod)
	switch sel.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return podTerminating(pod)
	case corev1.ResourceQuotaScopeNotTerminating:
		return !podTerminating(pod)
	case corev1.ResourceQuotaScopeBestEffort:
		return podQOS(&pod.Spec) == corev1.PodQOSBestEffort
	case corev1.ResourceQuotaScopeNotBestEffort:
		return podQOS(&pod.Spec) != corev1.PodQOSBestEffort
	case corev1.ResourceQuotaScopePriorityClass:
		if sel.Operator == corev1.ScopeSelectorOpExists {
			return pod.Spec.PriorityClassName != ""
		}
		var set labels.Set
		if pod.Spec.PriorityClassName != "" {
			set = labels.Set{string(corev1.ResourceQuotaScopePriorityClass): pod.Spec.PriorityClassName}
		}
		sl, ok := scopeSelector(sel)
		return ok && sl.Matches(set)
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return crossNamespaceAffinity(pod)
	}
	return false
}

// scopeSelector is a scope selector expression as a label selector over the scope's name.
func scopeSelector(sel corev1.ScopedResourceSelectorRequirement) (labels.Selector, bool) {
	ops := map[corev1.ScopeSelectorOperator]selection.Operator{
		corev1.ScopeSelectorOpIn: selection.In, corev1.ScopeSelectorOpNotIn: selection.NotIn,
		corev1.ScopeSelectorOpExists: selection.Exists, corev1.ScopeSelectorOpDoesNotExist: selection.DoesNotExist,
	}
	op, ok := ops[sel.Operator]
	if !ok {
		return nil, false
	}
	req, err := labels.NewRequirement(string(sel.ScopeName), op, sel.Values)
	if err != nil {
		return nil, false
	}
	return labels.NewSelector().Add(*req), true
}

// crossNamespaceAffinity: a pod (anti-)affinity term that names namespaces or selects them.
func crossNamespaceAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	var terms []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}

// claimMatchesScope reports whether a claim is in a quota scope: only VolumeAttributesClass
// applies, matched against the classes the claim names (spec, current, and a modification's
// target).
func claimMatchesScope(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) bool {
	if sel.ScopeName != corev1.ResourceQuotaScopeVolumeAttributesClass {
		return false
	}
	pvc := obj.(*corev1.PersistentVolumeClaim)
	var names []string
	for _, n := range []*string{pvc.Spec.VolumeAttributesClassName, pvc.Status.CurrentVolumeAttributesClassName} {
		if n != nil && *n != "" {
			names = append(names, *n)
		}
	}
	if m := pvc.Status.ModifyVolumeStatus; m != nil && m.TargetVolumeAttributesClassName != "" {
		names = append(names, m.TargetVolumeAttributesClassName)
	}
	if sel.Operator == corev1.ScopeSelectorOpExists {
		return len(names) > 0
	}
	sl, ok := scopeSelector(sel)
	if !ok {
		return false
	}
	if len(names) == 0 {
		return sl.Matches(labels.Set{})
	}
	for _, n := range names {
		if sl.Matches(labels.Set{string(corev1.ResourceQuotaScopeVolumeAttributesClass): n}) {
			return true
		}
	}
	return false
}

// serviceUsage is what a service uses of quota: one service; its ports as node ports for a
// NodePort service and a LoadBalancer one (only those given a node port when it allocates none);
// one load balancer.
func serviceUsage(svc *corev1.Service) corev1.ResourceList {
	one := *resource.NewQuantity(1, resource.DecimalSI)
	out := corev1.ResourceList{
		"count/services":                     one,
		corev1.ResourceServices:              one,
		corev1.ResourceServicesLoadBalancers: {Format: resource.DecimalSI},
		corev1.ResourceServicesNodePorts:     {Format: resource.DecimalSI},
	}
	ports := int64(len(svc.Spec.Ports))
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		out[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
	case corev1.ServiceTypeLoadBalancer:
		if a := svc.Spec.AllocateLoadBalancerNodePorts; a != nil && !*a {
			ports = 0
			for _, p := range svc.Spec.Ports {
				if p.NodePort != 0 {
					ports++
				}
			}
		}
		out[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
		out[corev1.ResourceServicesLoadBalancers] = one
	}
	return out
}

// claimUsage is what a claim uses of quota: one claim and its storage request (in whole bytes),
// each also under its storage class's name; a larger allocated size counts instead of the request.
func claimUsage(pvc *corev1.PersistentVolumeClaim) corev1.ResourceList {
	one := *resource.NewQuantity(1, resource.DecimalSI)
	out := corev1.ResourceList{corev1.ResourcePersistentVolumeClaims: one, "count/persistentvolumeclaims": one}
	class := volumehelper.GetPersistentVolumeClaimClass(pvc)
	if class != "" {
		out[corev1.ResourceName(class+storageClassSuffix+string(corev1.ResourcePersistentVolumeClaims))] = one
	}
	req, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return out
	}
	storage := req.DeepCopy()
	storage.RoundUp(0)
	if alloc, ok := pvc.Status.AllocatedResources[corev1.ResourceStorage]; ok && alloc.Cmp(storage) > 0 {
		storage = alloc.DeepCopy()
		storage.RoundUp(0)
	}
	out[corev1.ResourceRequestsStorage] = storage
	if class != "" {
		out[corev1.ResourceName(class+storageClassSuffix+string(corev1.ResourceRequestsStorage))] = storage
	}
	return out
}

// addResources is a + b, by name.
func addResources(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range a {
		out[k] = v.DeepCopy()
	}
	for k, v := range b {
		if cur, ok := out[k]; ok {
			cur.Add(v)
			out[k] = cur
		} else {
			out[k] = v.DeepCopy()
		}
	}
	return out
}

// subtractNonNegative is a - b by name, never below zero, with b's names absent from a as zero.
func subtractNonNegative(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range a {
		d := v.DeepCopy()
		if o, ok := b[k]; ok {
			d.Sub(o)
		}
		if d.Sign() <= 0 {
			d = resource.MustParse("0")
		}
		out[k] = d
	}
	for k := range b {
		if _, ok := out[k]; !ok {
			out[k] = resource.MustParse("0")
		}
	}
	return out
}

// removeZeros drops the names of zero quantities.
func removeZeros(l corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range l {
		if !v.IsZero() {
			out[k] = v
		}
	}
	return out
}

// maskResources keeps the names of l that keys has.
func maskResources(l, keys corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range l {
		if _, ok := keys[k]; ok {
			out[k] = v
		}
	}
	return out
}

// prettyResources prints the named quantities of l as the plugin does: name=value, by name,
// joined by commas.
func prettyResources(l corev1.ResourceList, names []corev1.ResourceName) string {
	sorted := append([]corev1.ResourceName(nil), names...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	parts := make([]string, 0, len(sorted))
	for _, n := range sorted {
		v, ok := l[n]
		if !ok {
			continue
		}
		parts = append(parts, string(n)+"="+v.String())
	}
	return strings.Join(parts, ",")
}

// prettyResourceNames prints resource names by name, joined by commas.
func prettyResourceNames(names []corev1.ResourceName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}
