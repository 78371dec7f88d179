package fake

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/sets"
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
// tolerations only added, scheduling gates only removed, and nothing else in the spec may change
// but, while the pod is gated, additions to its node selector and required node affinity.
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
			errs = append(errs, field.Forbidden(specPath.Child("tolerations"), "existing toleration can not be modified except its tolerationSeconds"))
			break
		}
	}
	errs = append(errs, validateOnlyDeletedSchedulingGates(pod.Spec.SchedulingGates, old.Spec.SchedulingGates, specPath.Child("schedulingGates"))...)
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
	if len(old.Spec.SchedulingGates) > 0 {
		errs = append(errs, validateGatedSchedulingChanges(&munged, &old.Spec, specPath)...)
	}
	if !equality.Semantic.DeepEqual(munged, old.Spec) {
		errs = append(errs, field.Forbidden(specPath, fmt.Sprintf("pod updates may not change fields other than %s\n%v",
			strings.Join(updatablePodSpecFields, ","), diff.Diff(old.Spec, munged))))
	}
	return errs
}

// validateOnlyDeletedSchedulingGates is the apiserver's rule that an update may remove scheduling
// gates but not add them. (With several new gates the apiserver's order is Go's map order; the
// fake's is the gates'.)
func validateOnlyDeletedSchedulingGates(gates, old []corev1.PodSchedulingGate, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	existing := sets.New[string]()
	for _, g := range old {
		existing.Insert(g.Name)
	}
	for i, g := range gates {
		if !existing.Has(g.Name) {
			errs = append(errs, field.Forbidden(fldPath.Index(i).Child("name"), fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", g.Name)))
		}
	}
	return errs
}

// validateGatedSchedulingChanges is what the apiserver allows a gated pod's update beyond the
// other pods': node selector entries added, and required node affinity expressions added to
// existing terms (or terms set where there were none). It checks munged, the new spec with the
// other allowed changes undone, and then undoes these, so that what remains must equal old.
func validateGatedSchedulingChanges(munged, old *corev1.PodSpec, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !equality.Semantic.DeepEqual(munged.NodeSelector, old.NodeSelector) {
		for k, v := range old.NodeSelector {
			if nv, ok := munged.NodeSelector[k]; !ok || nv != v {
				errs = append(errs, field.Invalid(specPath.Child("nodeSelector"), munged.NodeSelector, "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
				break
			}
		}
		munged.NodeSelector = old.NodeSelector
	}
	var oldNA, newNA *corev1.NodeAffinity
	if old.Affinity != nil {
		oldNA = old.Affinity.NodeAffinity
	}
	if munged.Affinity != nil {
		newNA = munged.Affinity.NodeAffinity
	}
	if equality.Semantic.DeepEqual(oldNA, newNA) {
		return errs
	}
	errs = append(errs, validateNodeAffinityAdditions(newNA, oldNA, specPath.Child("affinity", "nodeAffinity"))...)
	switch {
	case munged.Affinity == nil && oldNA == nil:
	case munged.Affinity == nil:
		munged.Affinity = &corev1.Affinity{NodeAffinity: oldNA}
	case old.Affinity == nil && munged.Affinity.PodAntiAffinity == nil && munged.Affinity.PodAffinity == nil:
		munged.Affinity = nil
	default:
		a := *munged.Affinity
		a.NodeAffinity = oldNA
		munged.Affinity = &a
	}
	return errs
}

// validateNodeAffinityAdditions is the apiserver's validateNodeAffinityMutation: with required
// terms set before, the same number of terms, each keeping its expressions and fields as a prefix.
func validateNodeAffinityAdditions(na, old *corev1.NodeAffinity, fldPath *field.Path) field.ErrorList {
	if old == nil || old.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	oldTerms := old.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	var terms []corev1.NodeSelectorTerm
	if na != nil && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms = na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	termsPath := fldPath.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	if len(oldTerms) > 0 && len(oldTerms) != len(terms) {
		return field.ErrorList{field.Invalid(termsPath, goNames{terms}, "no additions/deletions to non-empty NodeSelectorTerms list are allowed")}
	}
	var errs field.ErrorList
	for i, o := range oldTerms {
		if !termHasOnlyAdditions(terms[i], o) {
			errs = append(errs, field.Invalid(termsPath.Index(i), goNames{terms[i]}, "only additions are allowed (no mutations or deletions)"))
		}
	}
	return errs
}

// termHasOnlyAdditions reports whether a node selector term keeps the old one's expressions and
// fields, in order, before any new ones (an empty old term allows none).
func termHasOnlyAdditions(t, old corev1.NodeSelectorTerm) bool {
	if len(old.MatchExpressions) == 0 && len(old.MatchFields) == 0 && (len(t.MatchExpressions) > 0 || len(t.MatchFields) > 0) {
		return false
	}
	for _, l := range []struct {
		new, old []corev1.NodeSelectorRequirement
	}{{t.MatchExpressions, old.MatchExpressions}, {t.MatchFields, old.MatchFields}} {
		if n := len(l.old); n > 0 && (len(l.new) < n || !equality.Semantic.DeepEqual(l.new[:n], l.old)) {
			return false
		}
	}
	return true
}
