package fake

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Pods' ephemeralcontainers subresource (kubectl debug) as kube-apiserver 1.37.2 serves it
// (k8s.io/kubernetes pkg/registry/core/pod's EphemeralContainersStrategy and
// ValidatePodEphemeralContainersUpdate), recorded in reference/observed-podsub.md, case
// ephemeralcontainers: a GET answers the pod, an update or patch changes nothing but
// spec.ephemeralContainers, to which it may only add, and the main resource may not change them.

// isPodSubresource reports whether t is the named subresource of the built-in pods.
func isPodSubresource(t target, name string) bool {
	return t.subresource == name && t.res.custom == nil && t.res.gvr.GroupResource() == podsGR
}

// storedPodFor is what the ephemeralcontainers and resize strategies start from: the stored pod
// with the request's resourceVersion and managedFields (which the field manager computed from
// the request as sent, everything it changed included).
func storedPodFor(pod, old *corev1.Pod) *corev1.Pod {
	out := old.DeepCopy()
	out.ResourceVersion = pod.ResourceVersion
	out.ManagedFields = pod.ManagedFields
	return out
}

// validatePodSubresource is the start of the ephemeralcontainers and resize validations: the
// whole pod spec, and a refusal (alone) of a static pod's, in the subresource's words.
func validatePodSubresource(pod, old *corev1.Pod, static string) (field.ErrorList, bool) {
	spec := field.NewPath("spec")
	errs := validatePodSpec(&pod.Spec, pod.Name, spec)
	errs = append(errs, validatePodOnly(&pod.Spec, spec)...)
	if _, ok := old.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), static)}, false
	}
	return errs, true
}

// prepareEphemeralContainersUpdate is the strategy's PrepareForUpdate: the stored pod with the
// request's ephemeral containers.
func prepareEphemeralContainersUpdate(pod, old *corev1.Pod) *corev1.Pod {
	out := storedPodFor(pod, old)
	out.Spec.EphemeralContainers = pod.Spec.EphemeralContainers
	return out
}

// validateEphemeralContainersUpdate is the apiserver's ValidatePodEphemeralContainersUpdate
// without ObjectMeta: the pod spec, its ephemeral containers among it, and no stored ephemeral
// container removed or changed (the message carries the apiserver's diff of the two).
func validateEphemeralContainersUpdate(pod, old *corev1.Pod) field.ErrorList {
	errs, ok := validatePodSubresource(pod, old, "static pods do not support ephemeral containers")
	if !ok {
		return errs
	}
	path := field.NewPath("spec", "ephemeralContainers")
	byName := map[string]*corev1.EphemeralContainer{}
	for i := range pod.Spec.EphemeralContainers {
		byName[pod.Spec.EphemeralContainers[i].Name] = &pod.Spec.EphemeralContainers[i]
	}
	for _, o := range old.Spec.EphemeralContainers {
		n, ok := byName[o.Name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", o.Name)))
		case !equality.Semantic.DeepEqual(o, *n):
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be changed\n%v", o.Name,
				diff.Diff(internalEphemeralContainer{o}, internalEphemeralContainer{*n}))))
		}
	}
	return errs
}

// internalEphemeralContainer prints an ephemeral container as the apiserver's diff does: the
// internal type's JSON, Go field names with the common fields inline.
type internalEphemeralContainer struct{ c corev1.EphemeralContainer }

// MarshalJSON is what diff.Diff prints.
func (e internalEphemeralContainer) MarshalJSON() ([]byte, error) {
	b, err := goNames{e.c.EphemeralContainerCommon}.MarshalJSON()
	if err != nil {
		return nil, err
	}
	target, err := json.Marshal(e.c.TargetContainerName)
	if err != nil {
		return nil, err
	}
	return append(append(b[:len(b)-1], `,"TargetContainerName":`...), append(target, '}')...), nil
}

// allowedEphemeralContainerFields are the container fields an ephemeral container may set, by
// their Go names; the others (ports, resources, probes, lifecycle, restart and resize policies)
// are what a pod's own services rely on.
var allowedEphemeralContainerFields = sets.New("Name", "Image", "Command", "Args", "WorkingDir", "EnvFrom", "Env",
	"VolumeMounts", "VolumeDevices", "TerminationMessagePath", "TerminationMessagePolicy", "ImagePullPolicy",
	"SecurityContext", "Stdin", "StdinOnce", "TTY")

// validateEphemeralContainers is the apiserver's validateEphemeralContainers: each a valid
// container, named uniquely among all the pod's containers, targeting a regular or init
// container, without the fields an ephemeral container may not have or a sub-path.
func validateEphemeralContainers(spec *corev1.PodSpec, cc containerContext, fldPath *field.Path) field.ErrorList {
	if len(spec.EphemeralContainers) == 0 {
		return nil
	}
	var errs field.ErrorList
	other := sets.New[string]()
	for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for _, c := range cs {
			other.Insert(c.Name)
		}
	}
	all := other.Clone()
	for i := range spec.EphemeralContainers {
		ec := &spec.EphemeralContainers[i]
		path := fldPath.Index(i)
		c := (*corev1.Container)(&ec.EphemeralContainerCommon)
		errs = append(errs, validateContainer(c, cc, path)...)
		if all.Has(ec.Name) {
			errs = append(errs, field.Duplicate(path.Child("name"), ec.Name))
		} else {
			all.Insert(ec.Name)
		}
		if ec.TargetContainerName != "" && !other.Has(ec.TargetContainerName) {
			errs = append(errs, field.NotFound(path.Child("targetContainerName"), ec.TargetContainerName))
		}
		v := reflect.ValueOf(ec.EphemeralContainerCommon)
		for j := range v.NumField() {
			f := v.Type().Field(j)
			if !allowedEphemeralContainerFields.Has(f.Name) && !v.Field(j).IsZero() {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				errs = append(errs, field.Forbidden(path.Child(name), "cannot be set for an Ephemeral Container"))
			}
		}
		for j, m := range ec.VolumeMounts {
			if m.SubPath != "" {
				errs = append(errs, field.Forbidden(path.Child("volumeMounts").Index(j).Child("subPath"), "cannot be set for an Ephemeral Container"))
			}
			if m.SubPathExpr != "" {
				errs = append(errs, field.Forbidden(path.Child("volumeMounts").Index(j).Child("subPathExpr"), "cannot be set for an Ephemeral Container"))
			}
		}
	}
	return errs
}
