package fake

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The apiserver's validation of a pod spec's scheduling directives: node affinity, pod affinity
// and anti-affinity, tolerations and topology spread constraints (validateAffinity,
// ValidateTolerations, validateTopologySpreadConstraints), as recorded in
// reference/observed-validation-podspec.md. The taint comparison operators (Lt, Gt) are refused,
// their feature being off in kube-apiserver 1.37.2.

// validateAffinity is the apiserver's validateAffinity.
func validateAffinity(a *corev1.Affinity, fldPath *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := fldPath.Child("nodeAffinity")
		if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			errs = append(errs, validateNodeSelector(req, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, validateWeight(t.Weight, tp.Child("weight"))...)
			// Preferred terms may name label values that are not valid: they can still match.
			errs = append(errs, validateNodeSelectorTerm(t.Preference, true, tp.Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fldPath.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fldPath.Child("podAntiAffinity"))...)
	}
	return errs
}

// validateWeight is a preferred term's weight: 1 to 100.
func validateWeight(w int32, fldPath *field.Path) field.ErrorList {
	if w <= 0 || w > 100 {
		return field.ErrorList{field.Invalid(fldPath, w, "must be in the range 1-100")}
	}
	return nil
}

// validateNodeSelector is the apiserver's ValidateNodeSelector of required node affinity: at
// least one term, each valid, label values included.
func validateNodeSelector(s *corev1.NodeSelector, fldPath *field.Path) field.ErrorList {
	termsPath := fldPath.Child("nodeSelectorTerms")
	if len(s.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(termsPath, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, t := range s.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(t, false, termsPath.Index(i))...)
	}
	return errs
}

// validateNodeSelectorTerm is the apiserver's ValidateNodeSelectorTerm: label expressions (their
// values unchecked when allowInvalidValues) and field expressions (metadata.name only).
func validateNodeSelectorTerm(t corev1.NodeSelectorTerm, allowInvalidValues bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, r := range t.MatchExpressions {
		p := fldPath.Child("matchExpressions").Index(j)
		switch r.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(r.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
			if len(r.Values) > 0 {
				errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
			if len(r.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
		}
		errs = append(errs, metav1validation.ValidateLabelName(r.Key, p.Child("key"))...)
		if !allowInvalidValues {
			for k, v := range r.Values {
				for _, msg := range validation.IsValidLabelValue(v) {
					errs = append(errs, field.Invalid(p.Child("values").Index(k), v, msg))
				}
			}
		}
	}
	for j, r := range t.MatchFields {
		p := fldPath.Child("matchFields").Index(j)
		switch r.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(r.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
		}
		if r.Key != metav1.ObjectNameField {
			errs = append(errs, field.Invalid(p.Child("key"), r.Key, "not a valid field selector key"))
			continue
		}
		for k, v := range r.Values {
			for _, msg := range validation.IsDNS1123Subdomain(v) {
				errs = append(errs, field.Invalid(p.Child("values").Index(k), v, msg))
			}
		}
	}
	return errs
}

// validatePodAffinityTerms is the apiserver's validation of a pod affinity's or anti-affinity's
// required and preferred terms.
func validatePodAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range required {
		errs = append(errs, validatePodAffinityTerm(t, fldPath.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i, t := range preferred {
		p := fldPath.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		errs = append(errs, validateWeight(t.Weight, p.Child("weight"))...)
		errs = append(errs, validatePodAffinityTerm(t.PodAffinityTerm, p.Child("podAffinityTerm"))...)
	}
	return errs
}

// validatePodAffinityTerm is the apiserver's validatePodAffinityTerm: selectors, namespaces, label
// keys, a topology key.
func validatePodAffinityTerm(t corev1.PodAffinityTerm, fldPath *field.Path) field.ErrorList {
	opts := metav1validation.LabelSelectorValidationOptions{}
	errs := metav1validation.ValidateLabelSelector(t.LabelSelector, opts, fldPath.Child("labelSelector"))
	errs = append(errs, metav1validation.ValidateLabelSelector(t.NamespaceSelector, opts, fldPath.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		for _, msg := range validation.IsDNS1123Label(ns) {
			// The apiserver's path is "namespace", for each of them.
			errs = append(errs, field.Invalid(fldPath.Child("namespace"), ns, msg))
		}
	}
	errs = append(errs, validateMatchLabelKeys(fldPath, t.MatchLabelKeys, t.MismatchLabelKeys, t.LabelSelector)...)
	if t.TopologyKey == "" {
		errs = append(errs, field.Required(fldPath.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, metav1validation.ValidateLabelName(t.TopologyKey, fldPath.Child("topologyKey"))...)
}

// validateMatchLabelKeys is the apiserver's ValidateMatchLabelKeysAndMismatchLabelKeys: label
// names, only with a label selector, none both in matchLabelKeys and in the selector's
// expressions and labels, none both matched and mismatched.
func validateMatchLabelKeys(fldPath *field.Path, match, mismatch []string, sel *metav1.LabelSelector) field.ErrorList {
	var errs field.ErrorList
	for _, keys := range []struct {
		list []string
		name string
	}{{match, "matchLabelKeys"}, {mismatch, "mismatchLabelKeys"}} {
		switch {
		case len(keys.list) == 0:
		case sel == nil:
			errs = append(errs, field.Forbidden(fldPath.Child(keys.name), "must not be specified when labelSelector is not set"))
		default:
			for i, k := range keys.list {
				errs = append(errs, metav1validation.ValidateLabelName(k, fldPath.Child(keys.name).Index(i))...)
			}
		}
	}
	if sel != nil {
		index := map[string]int{}
		for i, k := range match {
			index[k] = i
		}
		seen := sets.KeySet(sel.MatchLabels)
		for _, e := range sel.MatchExpressions {
			if i, ok := index[e.Key]; ok && seen.Has(e.Key) {
				// The apiserver's path is the term's, indexed by the key's position.
				errs = append(errs, field.Invalid(fldPath.Index(i), e.Key, "exists in both matchLabelKeys and labelSelector"))
			}
			seen.Insert(e.Key)
		}
	}
	mismatched := sets.New(mismatch...)
	for i, k := range match {
		if mismatched.Has(k) {
			errs = append(errs, field.Invalid(fldPath.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	return errs
}

// validateTolerations is the apiserver's ValidateTolerations.
func validateTolerations(ts []corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		p := fldPath.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt}))
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" {
			errs = append(errs, validateTaintEffect(t.Effect, p.Child("effect"))...)
		}
	}
	return errs
}

// taintEffects are the effects a taint or a toleration may name, in the apiserver's order.
var taintEffects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

// validateTaintEffect is the apiserver's validateTaintEffect of a set effect.
func validateTaintEffect(e corev1.TaintEffect, fldPath *field.Path) field.ErrorList {
	if !slices.Contains(taintEffects, e) {
		return field.ErrorList{field.NotSupported(fldPath, e, taintEffects)}
	}
	return nil
}

// validateTopologySpreadConstraints is the apiserver's validateTopologySpreadConstraints with
// MatchLabelKeysInPodTopologySpreadSelectorMerge on (matchLabelKeys are checked as pod
// affinity's).
func validateTopologySpreadConstraints(cs []corev1.TopologySpreadConstraint, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	actions := []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}
	policies := []corev1.NodeInclusionPolicy{corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore}
	for i, c := range cs {
		p := fldPath.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), int64(c.MaxSkew), "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
		}
		if !slices.Contains(actions, c.WhenUnsatisfiable) {
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, actions))
		}
		for _, rest := range cs[i+1:] {
			if c.TopologyKey == rest.TopologyKey && c.WhenUnsatisfiable == rest.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(p.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if m := c.MinDomains; m != nil {
			if *m <= 0 {
				errs = append(errs, field.Invalid(p.Child("minDomains"), int64(*m), "must be greater than zero"))
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				errs = append(errs, field.Invalid(p.Child("minDomains"), *m, fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		for _, np := range []struct {
			v    *corev1.NodeInclusionPolicy
			name string
		}{{c.NodeAffinityPolicy, "nodeAffinityPolicy"}, {c.NodeTaintsPolicy, "nodeTaintsPolicy"}} {
			if np.v != nil && !slices.Contains(policies, *np.v) {
				errs = append(errs, field.NotSupported(p.Child(np.name), *np.v, policies))
			}
		}
		errs = append(errs, validateMatchLabelKeys(p, c.MatchLabelKeys, nil, c.LabelSelector)...)
		errs = append(errs, metav1validation.ValidateLabelSelector(c.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, p.Child("labelSelector"))...)
	}
	return errs
}
