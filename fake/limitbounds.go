package fake

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	resourcehelper "k8s.io/component-helpers/resource"
)

// The LimitRanger admission plugin's bounds (reference/observed-admission.md, lrcontainer, lrpod,
// lrpvc): after validation, a new pod's containers (type Container) and their sum (type Pod), and
// a new or updated claim's storage request (type PersistentVolumeClaim), must lie within each
// LimitRange's min, max and maxLimitRequestRatio, or the write is refused with a 403 that lists
// what is outside, one LimitRange at a time. Pod updates are not checked (containers' resources
// do not change on update), nor subresources, nor an object being deleted.

// checkLimitRanges refuses obj (a pod being created or resized, a claim being created or
// updated) if it lies outside one of its namespace's LimitRanges. old is nil on create. Of the
// subresources only pods' resize is checked (reference/observed-admission.md, resize).
func (s *Server) checkLimitRanges(ctx context.Context, r *served, obj, old runtime.Object, subresource string) error {
	_, isPod := obj.(*corev1.Pod)
	resize := isPod && subresource == "resize"
	if subresource != "" && !resize {
		return nil
	}
	var check func(*corev1.LimitRange) error
	switch o := obj.(type) {
	case *corev1.Pod:
		if old != nil && !resize {
			return nil
		}
		check = func(lr *corev1.LimitRange) error { return podBounds(lr, o) }
	case *corev1.PersistentVolumeClaim:
		if old != nil && old.(*corev1.PersistentVolumeClaim).DeletionTimestamp != nil {
			return nil
		}
		check = func(lr *corev1.LimitRange) error { return claimBounds(lr, o) }
	default:
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return internalError("%s: %v", r.gvk.Kind, err)
	}
	for _, lr := range s.limitRanges(ctx, m.GetNamespace()) {
		if err := check(lr); err != nil {
			return apierrors.NewForbidden(r.gvr.GroupResource(), m.GetName(), err)
		}
	}
	return nil
}

// podBounds checks a pod's containers and init containers against the limits of type Container,
// and the pod's requests and limits (as the scheduler sums them, without overhead) against those
// of type Pod. All violations are returned together, in the plugin's order.
func podBounds(lr *corev1.LimitRange, pod *corev1.Pod) error {
	var errs []error
	for _, l := range lr.Spec.Limits {
		switch l.Type {
		case corev1.LimitTypeContainer:
			for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for i := range cs {
					errs = append(errs, limitBounds(l, cs[i].Resources.Requests, cs[i].Resources.Limits)...)
				}
			}
		case corev1.LimitTypePod:
			opts := resourcehelper.PodResourcesOptions{ExcludeOverhead: true}
			errs = append(errs, limitBounds(l, resourcehelper.PodRequests(pod, opts), resourcehelper.PodLimits(pod, opts))...)
		}
	}
	return utilerrors.NewAggregate(errs)
}

// claimBounds checks a claim's storage request against the limits of type PersistentVolumeClaim:
// its limits are not the user's to set, so min and max apply to the request only.
func claimBounds(lr *corev1.LimitRange, pvc *corev1.PersistentVolumeClaim) error {
	var errs []error
	for _, l := range lr.Spec.Limits {
		if l.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		requests := pvc.Spec.Resources.Requests
		for _, k := range sortedNames(l.Min) {
			errs = appendErr(errs, minBound(string(l.Type), k, l.Min[k], requests, nil))
		}
		for _, k := range sortedNames(l.Max) {
			errs = appendErr(errs, maxRequestBound(string(l.Type), k, l.Max[k], requests))
		}
	}
	return utilerrors.NewAggregate(errs)
}

// limitBounds checks one set of requests and limits against a limit's min, then max, then ratio.
// The plugin walks each map in Go's random order; the names are sorted here, so that a request
// outside two bounds of one kind is answered the same way every time.
func limitBounds(l corev1.LimitRangeItem, requests, limits corev1.ResourceList) []error {
	var errs []error
	t := string(l.Type)
	for _, k := range sortedNames(l.Min) {
		errs = appendErr(errs, minBound(t, k, l.Min[k], requests, limits))
	}
	for _, k := range sortedNames(l.Max) {
		errs = appendErr(errs, maxBound(t, k, l.Max[k], requests, limits))
	}
	for _, k := range sortedNames(l.MaxLimitRequestRatio) {
		errs = appendErr(errs, ratioBound(t, k, l.MaxLimitRequestRatio[k], requests, limits))
	}
	return errs
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// comparableValues returns a request, a limit and a bound in a common unit: milli-units when none of
// them overflows it, whole units otherwise (the plugin's precision).
func comparableValues(request, limit, bound resource.Quantity) (int64, int64, int64) {
	rq, lm, b := request.Value(), limit.Value(), bound.Value()
	if rq <= resource.MaxMilliValue && lm <= resource.MaxMilliValue && b <= resource.MaxMilliValue {
		return request.MilliValue(), limit.MilliValue(), bound.MilliValue()
	}
	return rq, lm, b
}

// minBound: a request is required and must be at least the bound; so must a limit, if any.
func minBound(t string, name corev1.ResourceName, bound resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	rv, lv, bv := comparableValues(req, lim, bound)
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, t, bound.String())
	case rv < bv:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, t, bound.String(), req.String())
	case hasLim && lv < bv:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, t, bound.String(), lim.String())
	}
	return nil
}

// maxBound: a limit is required and must be at most the bound; so must a request, if any.
func maxBound(t string, name corev1.ResourceName, bound resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	rv, lv, bv := comparableValues(req, lim, bound)
	switch {
	case !hasLim:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, t, bound.String())
	case lv > bv:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, t, bound.String(), lim.String())
	case hasReq && rv > bv:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, t, bound.String(), req.String())
	}
	return nil
}

// maxRequestBound is maxBound for a kind without limits (claims): the request must be there and
// at most the bound.
func maxRequestBound(t string, name corev1.ResourceName, bound resource.Quantity, requests corev1.ResourceList) error {
	req, hasReq := requests[name]
	rv, _, bv := comparableValues(req, resource.Quantity{}, bound)
	switch {
	case !hasReq:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, t, bound.String())
	case rv > bv:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, t, bound.String(), req.String())
	}
	return nil
}

// ratioBound: both a request and a limit are required, not zero, and the limit may be at most
// bound times the request. The ratio is printed as the plugin prints it (%f).
func ratioBound(t string, name corev1.ResourceName, bound resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	rv, lv, _ := comparableValues(req, lim, bound)
	if !hasReq || rv == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, t, bound.String())
	}
	if !hasLim || lv == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, t, bound.String())
	}
	ratio := float64(lv) / float64(rv)
	observed, allowed := ratio, float64(bound.Value())
	if bound.Value() <= resource.MaxMilliValue {
		observed, allowed = ratio*1000, float64(bound.MilliValue())
	}
	if observed > allowed {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, t, bound.String(), ratio)
	}
	return nil
}
