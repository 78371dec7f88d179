package fake

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/watchcache/watchcache/watchcache"
)

// The LimitRanger admission plugin's defaulting: a pod created in a namespace with LimitRanges of
// type Container gets their default limits and default requests for the resources its containers
// name none of, and an annotation saying what was set (reference/observed-defaults.md, defaults /
// pod under a limit range). It runs before the pod strategy, so the QoS class counts what it sets.
// Its validation (checkLimitRanges: a 403 for a new pod or claim outside the bounds) runs after the
// kind's validation, as validating admission does (reference/observed-validation-kinds.md,
// kind-limitranger); updates are not checked.

var limitRangesGR = schema.GroupResource{Resource: "limitranges"}

// limitRangerAnnotation is the annotation that records what the plugin set.
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// admitLimitRanges applies the namespace's LimitRanges to a pod being created.
func (s *Server) admitLimitRanges(ctx context.Context, obj runtime.Object) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	for _, lr := range s.limitRangesOf(ctx, pod.Namespace) {
		defaults := containerDefaults(lr)
		var set []string
		for i := range pod.Spec.Containers {
			set = mergeContainerDefaults(&pod.Spec.Containers[i], defaults, "container", set)
		}
		for i := range pod.Spec.InitContainers {
			set = mergeContainerDefaults(&pod.Spec.InitContainers[i], defaults, "init container", set)
		}
		if len(set) > 0 {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[limitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(set, "; ")
		}
	}
}

// containerDefaults are a LimitRange's default requests and limits of containers.
func containerDefaults(lr *corev1.LimitRange) corev1.ResourceRequirements {
	out := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for _, l := range lr.Spec.Limits {
		if l.Type != corev1.LimitTypeContainer {
			continue
		}
		for k, v := range l.DefaultRequest {
			out.Requests[k] = v.DeepCopy()
		}
		for k, v := range l.Default {
			out.Limits[k] = v.DeepCopy()
		}
	}
	return out
}

// mergeContainerDefaults sets the defaults a container has no value of and appends to set what it
// set, in the plugin's words ("cpu, memory request for container c").
func mergeContainerDefaults(c *corev1.Container, defaults corev1.ResourceRequirements, kind string, set []string) []string {
	fill := func(to *corev1.ResourceList, from corev1.ResourceList) []string {
		if *to == nil {
			*to = corev1.ResourceList{}
		}
		var names []string
		for k, v := range from {
			if _, ok := (*to)[k]; !ok {
				(*to)[k] = v.DeepCopy()
				names = append(names, string(k))
			}
		}
		sort.Strings(names)
		return names
	}
	limits := fill(&c.Resources.Limits, defaults.Limits)
	requests := fill(&c.Resources.Requests, defaults.Requests)
	if len(requests) > 0 {
		set = append(set, strings.Join(requests, ", ")+" request for "+kind+" "+c.Name)
	}
	if len(limits) > 0 {
		set = append(set, strings.Join(limits, ", ")+" limit for "+kind+" "+c.Name)
	}
	return set
}

// limitRangesOf are the decoded LimitRanges of a namespace, in name order.
func (s *Server) limitRangesOf(ctx context.Context, namespace string) []*corev1.LimitRange {
	r := s.servedGR(limitRangesGR)
	if r == nil {
		return nil
	}
	page, err := r.cache.List(ctx, watchcache.ListOptions{Namespace: namespace, ResourceVersion: "0"})
	if err != nil {
		return nil
	}
	var out []*corev1.LimitRange
	for _, it := range page.Items {
		if lr, err := decodeStored(r.resourceType, it); err == nil {
			out = append(out, lr.(*corev1.LimitRange))
		}
	}
	return out
}

// checkLimitRanges is the LimitRanger plugin's validation of a new pod or claim against its
// namespace's LimitRanges: containers' and the pod's requests and limits within min and max and
// under the ratio, a claim's storage request within min and max. The first LimitRange it breaks
// gives the 403, its violations in the plugin's order (a limit's resources sorted, where the
// plugin walks a map). Pod-level resources count as component-helpers counts them.
func (s *Server) checkLimitRanges(ctx context.Context, r *served, obj runtime.Object, name string) error {
	var namespace string
	switch o := obj.(type) {
	case *corev1.Pod:
		namespace = o.Namespace
	case *corev1.PersistentVolumeClaim:
		namespace = o.Namespace
	default:
		return nil
	}
	for _, lr := range s.limitRangesOf(ctx, namespace) {
		var errs []error
		switch o := obj.(type) {
		case *corev1.Pod:
			errs = podLimitViolations(lr, o)
		case *corev1.PersistentVolumeClaim:
			errs = claimLimitViolations(lr, o)
		}
		if len(errs) > 0 {
			return apierrors.NewForbidden(r.gvr.GroupResource(), name, utilerrors.NewAggregate(errs))
		}
	}
	return nil
}

// podLimitViolations is the plugin's PodValidateLimitFunc.
func podLimitViolations(lr *corev1.LimitRange, pod *corev1.Pod) []error {
	var errs []error
	check := func(l *corev1.LimitRangeItem, requests, limits corev1.ResourceList) {
		kind := string(l.Type)
		for _, k := range sortedResourceNames(l.Min) {
			errs = appendErr(errs, minConstraint(kind, k, l.Min[k], requests, limits))
		}
		for _, k := range sortedResourceNames(l.Max) {
			errs = appendErr(errs, maxConstraint(kind, k, l.Max[k], requests, limits))
		}
		for _, k := range sortedResourceNames(l.MaxLimitRequestRatio) {
			errs = appendErr(errs, ratioConstraint(kind, k, l.MaxLimitRequestRatio[k], requests, limits))
		}
	}
	for i := range lr.Spec.Limits {
		l := &lr.Spec.Limits[i]
		switch l.Type {
		case corev1.LimitTypeContainer:
			for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for _, c := range cs {
					check(l, c.Resources.Requests, c.Resources.Limits)
				}
			}
		case corev1.LimitTypePod:
			opts := resourcehelper.PodResourcesOptions{ExcludeOverhead: true}
			check(l, resourcehelper.PodRequests(pod, opts), resourcehelper.PodLimits(pod, opts))
		}
	}
	return errs
}

// claimLimitViolations is the plugin's PersistentVolumeClaimValidateLimitFunc: the claim's
// storage request within a PersistentVolumeClaim limit's min and max.
func claimLimitViolations(lr *corev1.LimitRange, pvc *corev1.PersistentVolumeClaim) []error {
	var errs []error
	requests := pvc.Spec.Resources.Requests
	for _, l := range lr.Spec.Limits {
		if l.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		kind := string(l.Type)
		for _, k := range sortedResourceNames(l.Min) {
			errs = appendErr(errs, minConstraint(kind, k, l.Min[k], requests, nil))
		}
		for _, k := range sortedResourceNames(l.Max) {
			q := l.Max[k]
			req, ok := requests[k]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", k, kind, q.String()))
			case compareMilli(req, q) > 0:
				errs = append(errs, fmt.Errorf("maximum %s usage per %s is %s, but request is %s", k, kind, q.String(), req.String()))
			}
		}
	}
	return errs
}

// appendErr appends err when it is not nil.
func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

// compareMilli compares two quantities as the plugin does: in milli-units where that cannot
// overflow, else in units.
func compareMilli(a, b resource.Quantity) int {
	av, bv := a.Value(), b.Value()
	if av <= resource.MaxMilliValue && bv <= resource.MaxMilliValue {
		av, bv = a.MilliValue(), b.MilliValue()
	}
	return cmp.Compare(av, bv)
}

// minConstraint is the plugin's minConstraint: a request, and a request and limit not under min.
func minConstraint(kind string, name corev1.ResourceName, min resource.Quantity, requests, limits corev1.ResourceList) error {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	switch {
	case !reqOK:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, kind, min.String())
	case compareMilli(req, min) < 0:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, kind, min.String(), req.String())
	case limOK && compareMilli(lim, min) < 0:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, kind, min.String(), lim.String())
	}
	return nil
}

// maxConstraint is the plugin's maxConstraint: a limit, and a limit and request not over max.
func maxConstraint(kind string, name corev1.ResourceName, max resource.Quantity, requests, limits corev1.ResourceList) error {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	switch {
	case !limOK:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, kind, max.String())
	case compareMilli(lim, max) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, kind, max.String(), lim.String())
	case reqOK && compareMilli(req, max) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, kind, max.String(), req.String())
	}
	return nil
}

// ratioConstraint is the plugin's limitRequestRatioConstraint: a request and a limit whose ratio
// is at most the limit range's.
func ratioConstraint(kind string, name corev1.ResourceName, ratio resource.Quantity, requests, limits corev1.ResourceList) error {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	reqV, limV := req.Value(), lim.Value()
	if reqV <= resource.MaxMilliValue && limV <= resource.MaxMilliValue && ratio.Value() <= resource.MaxMilliValue {
		reqV, limV = req.MilliValue(), lim.MilliValue()
	}
	switch {
	case !reqOK || reqV == 0:
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, kind, ratio.String())
	case !limOK || limV == 0:
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, kind, ratio.String())
	}
	observed := float64(limV) / float64(reqV)
	shown, max := observed, float64(ratio.Value())
	if ratio.Value() <= resource.MaxMilliValue {
		observed, max = observed*1000, float64(ratio.MilliValue())
	}
	if observed > max {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, kind, ratio.String(), shown)
	}
	return nil
}
