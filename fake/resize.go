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
	resourcehelper "k8s.io/component-helpers/resource"
)

// Pods' resize subresource (in-place resize) as kube-apiserver 1.37.2 serves it (k8s.io/kubernetes
// pkg/registry/core/pod's ResizeStrategy, ValidatePodResize, and the admission of a scheduled
// pod's resize against its node's allocatable resources), recorded in reference/observed-podsub.md,
// cases resize and resize-sidecar: an update or patch changes nothing but the resources of the
// containers and init containers (sidecars or not: InPlacePodVerticalScalingInitContainers is GA),
// only their cpu and memory, without removing any or changing the pod's QoS class.

// prepareResizeUpdate is the strategy's PrepareForUpdate: the stored pod with, for each container
// and init container at its stored index under its stored name, the request's resources and
// resize policy. Containers added, removed, renamed or reordered are kept as sent, for the
// validation to refuse; so are both lists when either changes its length.
func prepareResizeUpdate(pod, old *corev1.Pod) *corev1.Pod {
	out := storedPodFor(pod, old)
	if len(pod.Spec.Containers) != len(old.Spec.Containers) || len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		out.Spec.Containers, out.Spec.InitContainers = pod.Spec.Containers, pod.Spec.InitContainers
		return out
	}
	out.Spec.Containers = resizedContainers(pod.Spec.Containers, out.Spec.Containers)
	out.Spec.InitContainers = resizedContainers(pod.Spec.InitContainers, out.Spec.InitContainers)
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

// validateResize is the apiserver's ValidatePodResize without ObjectMeta, in its order: the pod
// spec; the same QoS class; the same containers and init containers in the same order; no
// request or limit removed (init containers first); then nothing changed but cpu and memory, per
// container ("only cpu and memory resources are mutable") and per init container (in the init
// containers' words, and no RestartContainer resize policy on a modified init container that is
// not a sidecar); and last, when nothing else was wrong, the whole spec.
func validateResize(pod, old *corev1.Pod) field.ErrorList {
	errs, ok := validatePodSubresource(pod, old, "static pods cannot be resized")
	if !ok {
		return errs
	}
	spec := field.NewPath("spec")
	if podQOS(&old.Spec) != podQOS(&pod.Spec) {
		errs = append(errs, field.Invalid(spec, pod.Status.QOSClass, "Pod QOS Class may not change as a result of resizing"))
	}
	if order := resizeOrderErrors(pod, old, spec); len(order) > 0 {
		return append(errs, order...)
	}
	inits, containers := spec.Child("initContainers"), spec.Child("containers")
	for i := range old.Spec.InitContainers {
		errs = append(errs, removedResources(&pod.Spec.InitContainers[i].Resources, &old.Spec.InitContainers[i].Resources, inits.Index(i).Child("resources"))...)
	}
	for i := range old.Spec.Containers {
		errs = append(errs, removedResources(&pod.Spec.Containers[i].Resources, &old.Spec.Containers[i].Resources, containers.Index(i).Child("resources"))...)
	}
	munged := pod.Spec.DeepCopy()
	for i := range munged.Containers {
		keepOldCPUMemory(&munged.Containers[i], &old.Spec.Containers[i])
		if !equality.Semantic.DeepEqual(munged.Containers[i], old.Spec.Containers[i]) {
			errs = append(errs, field.Forbidden(spec, "only cpu and memory resources are mutable"))
		}
	}
	for i := range munged.InitContainers {
		c, was := &munged.InitContainers[i], &old.Spec.InitContainers[i]
		modified := !equality.Semantic.DeepEqual(*c, *was)
		keepOldCPUMemory(c, was)
		if !equality.Semantic.DeepEqual(*c, *was) {
			errs = append(errs, field.Forbidden(inits.Index(i), "only cpu and memory resources for init or sidecar containers are mutable"))
		}
		if modified && !isSidecar(c) {
			for _, p := range c.ResizePolicy {
				if p.RestartPolicy == corev1.RestartContainer {
					errs = append(errs, field.Forbidden(inits.Index(i), "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"))
				}
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if !equality.Semantic.DeepEqual(*munged, old.Spec) {
		errs = append(errs, field.Forbidden(spec, "only cpu and memory resources are mutable"))
	}
	return errs
}

// resizeOrderErrors refuses containers or init containers added, removed, renamed or reordered.
func resizeOrderErrors(pod, old *corev1.Pod, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, l := range []struct {
		name     string
		cs, olds []corev1.Container
	}{{"containers", pod.Spec.Containers, old.Spec.Containers}, {"initContainers", pod.Spec.InitContainers, old.Spec.InitContainers}} {
		path := spec.Child(l.name)
		if len(l.cs) != len(l.olds) {
			errs = append(errs, field.Forbidden(path, l.name+" may not be added or removed on resize"))
			continue
		}
		for i, c := range l.olds {
			if l.cs[i].Name != c.Name {
				errs = append(errs, field.Forbidden(path.Index(i).Child("name"), l.name+" may not be renamed or reordered on resize"))
			}
		}
	}
	return errs
}

// removedResources refuses a resize that removes a request or a limit of a container.
func removedResources(r, old *corev1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if removed(r.Requests, old.Requests) {
		errs = append(errs, field.Forbidden(path.Child("requests"), "resource requests cannot be removed"))
	}
	if removed(r.Limits, old.Limits) {
		errs = append(errs, field.Forbidden(path.Child("limits"), "resource limits cannot be removed"))
	}
	return errs
}

// removed reports whether l lacks a resource of old.
func removed(l, old corev1.ResourceList) bool {
	for name := range old {
		if _, ok := l[name]; !ok {
			return true
		}
	}
	return false
}

// isSidecar reports whether an init container is a sidecar: it restarts Always.
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// keepOldCPUMemory gives c old's cpu and memory requests and limits (and none where old has
// none), so that what still differs from old is a change to something else.
func keepOldCPUMemory(c, old *corev1.Container) {
	c.Resources.Limits = keepCPUMemory(c.Resources.Limits, old.Resources.Limits)
	c.Resources.Requests = keepCPUMemory(c.Resources.Requests, old.Resources.Requests)
}

// keepCPUMemory is l with old's cpu and memory in place of its own: nil when both are.
func keepCPUMemory(l, old corev1.ResourceList) corev1.ResourceList {
	if l == nil && old == nil {
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

// admitResize is the PodResize admission plugin: it refuses the resize of a scheduled pod whose
// generation changes on a node that is not a Linux one (403 UnsupportedPlatform), or whose cpu or
// memory requests (the pod's, as the scheduler counts them: component-helpers' PodRequests,
// sidecars and init containers included) exceed its node's allocatable resources (403
// NodeCapacity), or whose node does not exist (403). An unscheduled pod's resize is not checked.
func (s *Server) admitResize(ctx context.Context, t target, obj, old runtime.Object) error {
	pod, ok := obj.(*corev1.Pod)
	if !ok || !isPodSubresource(t, "resize") || pod.Spec.NodeName == "" {
		return nil
	}
	if o, ok := old.(*corev1.Pod); ok && o.Generation == pod.Generation {
		return nil // nothing in the spec changed
	}
	o, err := s.getTyped(ctx, schema.GroupResource{Resource: "nodes"}, "", pod.Spec.NodeName)
	if apierrors.IsNotFound(err) {
		return apierrors.NewForbidden(podsGR, pod.Name, fmt.Errorf("node %q not found", pod.Spec.NodeName))
	}
	if err != nil {
		return err
	}
	node := o.(*corev1.Node)
	if os, ok := node.Labels[corev1.LabelOSStable]; ok && os != "linux" {
		return resizeRefused(pod, fmt.Errorf("pod resize is only supported on linux nodes, node %q is %q", node.Name, os), unsupportedPlatformCause)
	}
	requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	var short []string
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		requested, have := requests[name], node.Status.Allocatable[name]
		if requested.Cmp(have) > 0 {
			short = append(short, fmt.Sprintf("%s, requested: %d, allocatable: %d", name, quantityValue(name, requested), quantityValue(name, have)))
		}
	}
	if len(short) == 0 {
		return nil
	}
	return resizeRefused(pod, fmt.Errorf("node didn't have enough allocatable resources: %s", strings.Join(short, "; ")), nodeCapacityCause)
}

// unsupportedPlatformCause is the reason of the cause a resize on a node that is not a Linux one
// is refused with.
const unsupportedPlatformCause metav1.CauseType = "UnsupportedPlatform"

// resizeRefused is the PodResize plugin's 403 for pod, with a cause of the reason.
func resizeRefused(pod *corev1.Pod, err error, reason metav1.CauseType) error {
	e := apierrors.NewForbidden(podsGR, pod.Name, err)
	e.ErrStatus.Details.Causes = append(e.ErrStatus.Details.Causes, metav1.StatusCause{Type: reason})
	return e
}

// quantityValue is a quantity as the node capacity check prints it: cpu in millicores, the
// others in units.
func quantityValue(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}
