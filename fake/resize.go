package fake

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Pods' resize subresource (in-place resize) as kube-apiserver 1.37.2 serves it (k8s.io/kubernetes
// pkg/registry/core/pod's ResizeStrategy, ValidatePodResize, and the admission of a scheduled
// pod's resize against its node's allocatable resources), recorded in reference/observed-podsub.md,
// case resize: an update or patch changes nothing but the containers' resources, only their cpu
// and memory, without removing any or changing the pod's QoS class.

// prepareResizeUpdate is the strategy's PrepareForUpdate: the stored pod with, for each container
// at its stored index under its stored name, the request's resources and resize policy.
// Containers added, removed, renamed or reordered are kept as sent, for the validation to refuse.
func prepareResizeUpdate(pod, old *corev1.Pod) *corev1.Pod {
	out := storedPodFor(pod, old)
	out.Spec.Containers = resizedContainers(pod.Spec.Containers, out.Spec.Containers)
	return out
}

// resizedContainers is old with the resources and resize policies of cs, or cs when the two
// do not name the same containers in the same order.
func resizedContainers(cs, old []corev1.Container) []corev1.Container {
	if len(cs) != len(old) {
		return cs
	}
	for i := range cs {
		if cs[i].Name != old[i].Name {
			return cs
		}
	}
	for i := range cs {
		old[i].Resources = cs[i].Resources
		old[i].ResizePolicy = cs[i].ResizePolicy
	}
	return old
}

// validateResize is the apiserver's ValidatePodResize without ObjectMeta: the pod spec; the same
// QoS class; the same containers in the same order; no request or limit removed; and nothing
// changed but cpu and memory (the resize policies included).
func validateResize(pod, old *corev1.Pod) field.ErrorList {
	errs, ok := validatePodSubresource(pod, old, "static pods cannot be resized")
	if !ok {
		return errs
	}
	spec := field.NewPath("spec")
	if podQOS(&old.Spec) != podQOS(&pod.Spec) {
		errs = append(errs, field.Invalid(spec, pod.Status.QOSClass, "Pod QOS Class may not change as a result of resizing"))
	}
	containers := spec.Child("containers")
	if len(pod.Spec.Containers) != len(old.Spec.Containers) {
		return append(errs, field.Forbidden(containers, "containers may not be added or removed on resize"))
	}
	reordered := false
	for i, c := range old.Spec.Containers {
		if pod.Spec.Containers[i].Name != c.Name {
			reordered = true
			errs = append(errs, field.Forbidden(containers.Index(i).Child("name"), "containers may not be renamed or reordered on resize"))
		}
	}
	if reordered {
		return errs
	}
	munged := pod.Spec.DeepCopy()
	for i, c := range old.Spec.Containers {
		r, path := pod.Spec.Containers[i].Resources, containers.Index(i).Child("resources")
		for name := range c.Resources.Requests {
			if _, ok := r.Requests[name]; !ok {
				errs = append(errs, field.Forbidden(path.Child("requests"), "resource requests cannot be removed"))
			}
		}
		for name := range c.Resources.Limits {
			if _, ok := r.Limits[name]; !ok {
				errs = append(errs, field.Forbidden(path.Child("limits"), "resource limits cannot be removed"))
			}
		}
		munged.Containers[i].Resources = corev1.ResourceRequirements{
			Limits:   keepCPUMemory(r.Limits, c.Resources.Limits),
			Requests: keepCPUMemory(r.Requests, c.Resources.Requests),
		}
	}
	if !equality.Semantic.DeepEqual(*munged, old.Spec) {
		errs = append(errs, field.Forbidden(spec, "only cpu and memory resources are mutable"))
	}
	return errs
}

// keepCPUMemory is a resource list with old's cpu and memory in place of l's, so that what
// remains different is a change to another resource.
func keepCPUMemory(l, old corev1.ResourceList) corev1.ResourceList {
	if old == nil {
		return nil
	}
	out := corev1.ResourceList{}
	for name, q := range l {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
			out[name] = q
		}
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := old[name]; ok {
			out[name] = q
		}
	}
	return out
}

// nodeCapacityCause is the reason of the cause a resize beyond its node's resources is refused
// with.
const nodeCapacityCause metav1.CauseType = "NodeCapacity"

// admitResize refuses the resize of a scheduled pod whose cpu or memory requests exceed its
// node's allocatable resources, or whose node does not exist (403). An unscheduled pod's resize
// is not checked.
func (s *Server) admitResize(ctx context.Context, t target, obj runtime.Object) error {
	pod, ok := obj.(*corev1.Pod)
	if !ok || !isPodSubresource(t, "resize") || pod.Spec.NodeName == "" {
		return nil
	}
	o, err := s.getTyped(ctx, schema.GroupResource{Resource: "nodes"}, "", pod.Spec.NodeName)
	if apierrors.IsNotFound(err) {
		return apierrors.NewForbidden(podsGR, pod.Name, fmt.Errorf("node %q not found", pod.Spec.NodeName))
	}
	if err != nil {
		return err
	}
	allocatable := o.(*corev1.Node).Status.Allocatable
	var short []string
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		var requested int64
		for _, c := range pod.Spec.Containers {
			requested += quantityValue(name, c.Resources.Requests[name])
		}
		if have := quantityValue(name, allocatable[name]); requested > have {
			short = append(short, fmt.Sprintf("%s, requested: %d, allocatable: %d", name, requested, have))
		}
	}
	if len(short) == 0 {
		return nil
	}
	e := apierrors.NewForbidden(podsGR, pod.Name, fmt.Errorf("node didn't have enough allocatable resources: %s", strings.Join(short, "; ")))
	e.ErrStatus.Details.Causes = append(e.ErrStatus.Details.Causes, metav1.StatusCause{Type: nodeCapacityCause})
	return e
}

// quantityValue is a quantity as the node capacity check compares it: cpu in millicores, the
// others in units.
func quantityValue(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}
