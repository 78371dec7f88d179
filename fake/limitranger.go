package fake

import (
	"context"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The LimitRanger admission plugin's defaulting: a pod created in a namespace with LimitRanges of
// type Container gets their default limits and default requests for the resources its containers
// name none of, and an annotation saying what was set (reference/observed-defaults.md, defaults /
// pod under a limit range). It runs before the pod strategy, so the QoS class counts what it sets.
// Its bounds, checked after validation as a validating plugin, are limitbounds.go's.

var limitRangesGR = schema.GroupResource{Resource: "limitranges"}

// limitRangerAnnotation is the annotation that records what the plugin set.
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// admitLimitRanges applies the namespace's LimitRanges to a pod being created.
func (s *Server) admitLimitRanges(ctx context.Context, obj runtime.Object) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	for _, lr := range s.limitRanges(ctx, pod.Namespace) {
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

// limitRanges are the LimitRanges of a namespace, in name order.
func (s *Server) limitRanges(ctx context.Context, namespace string) []*corev1.LimitRange {
	objs := s.listTyped(ctx, limitRangesGR, namespace)
	out := make([]*corev1.LimitRange, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*corev1.LimitRange))
	}
	return out
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
