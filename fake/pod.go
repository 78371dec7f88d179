package fake

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// updatablePodSpecFields are the pod spec fields an update may change, as the apiserver's
// ValidatePodUpdate lists them in its message.
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// validatePodSpecUpdate is the spec part of the apiserver's ValidatePodUpdate: containers may not
// be added or removed, images must be set, activeDeadlineSeconds may only be set or lowered,
// tolerations only added, scheduling gates only removed, and nothing else in the spec may change.
// The Forbidden error carries a unified diff of the specs as the apiserver's does, but of the
// v1 JSON (the apiserver diffs its internal types, whose JSON has Go field names).
func validatePodSpecUpdate(pod, old *corev1.Pod) field.ErrorList {
	var errs field.ErrorList
	specPath := field.NewPath("spec")
	for _, c := range []struct {
		new, old []corev1.Container
		path     *field.Path
	}{
		{pod.Spec.Containers, old.Spec.Containers, specPath.Child("containers")},
		{pod.Spec.InitContainers, old.Spec.InitContainers, specPath.Child("initContainers")},
	} {
		if len(c.new) != len(c.old) {
			return append(errs, field.Forbidden(c.path, "pod updates may not add or remove containers"))
		}
		for i, ctr := range c.new {
			if ctr.Image == "" {
				errs = append(errs, field.Required(c.path.Index(i).Child("image"), ""))
			}
			if strings.TrimSpace(ctr.Image) != ctr.Image {
				errs = append(errs, field.Invalid(c.path.Index(i).Child("image"), ctr.Image, "must not have leading or trailing whitespace"))
			}
		}
	}
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil {
		if *d < 0 || *d > math.MaxInt32 {
			return append(errs, field.Invalid(specPath.Child("activeDeadlineSeconds"), *d, fmt.Sprintf("must be between %d and %d, inclusive", 0, math.MaxInt32)))
		}
		if o := old.Spec.ActiveDeadlineSeconds; o != nil && *o < *d {
			return append(errs, field.Invalid(specPath.Child("activeDeadlineSeconds"), *d, "must be less than or equal to previous value"))
		}
	} else if old.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(specPath.Child("activeDeadlineSeconds"), pod.Spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}
	for _, o := range old.Spec.Tolerations {
		found := false
		for _, n := range pod.Spec.Tolerations {
			c := *o.DeepCopy()
			c.TolerationSeconds = n.TolerationSeconds
			if reflect.DeepEqual(c, n) {
				found = true
				break
			}
		}
		if !found {
			return append(errs, field.Forbidden(specPath.Child("tolerations"), "existing toleration can not be modified except its tolerationSeconds"))
		}
	}
	if equality.Semantic.DeepEqual(pod.Spec, old.Spec) {
		return errs
	}
	munged := *pod.Spec.DeepCopy()
	for i := range munged.Containers {
		munged.Containers[i].Image = old.Spec.Containers[i].Image
	}
	for i := range munged.InitContainers {
		munged.InitContainers[i].Image = old.Spec.InitContainers[i].Image
	}
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	munged.SchedulingGates = old.Spec.SchedulingGates
	munged.Tolerations = old.Spec.Tolerations
	if g := old.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 && munged.TerminationGracePeriodSeconds != nil && *munged.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = g
	}
	if !equality.Semantic.DeepEqual(munged, old.Spec) {
		errs = append(errs, field.Forbidden(specPath, fmt.Sprintf("pod updates may not change fields other than %s\n%v",
			strings.Join(updatablePodSpecFields, ","), diff.Diff(old.Spec, munged))))
	}
	return errs
}
