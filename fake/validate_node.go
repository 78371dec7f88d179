package fake

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// The apiserver's validation of nodes (ValidateNode, and ValidateNodeUpdate for updates of the
// node and of its status), as recorded in reference/observed-validation-kinds.md: taints (under
// the apiserver's path metadata.taints), pod CIDRs, status quantities; on update pod CIDRs and a
// provider ID that never change once set, unique addresses. Not reproduced: the taints and
// preferAvoidPods annotations, swap status, declared features, config sources.

// validateNode is the apiserver's ValidateNode without ObjectMeta's rules.
func validateNode(n *corev1.Node) field.ErrorList {
	errs := validateNodeTaints(n.Spec.Taints, field.NewPath("metadata", "taints"))
	errs = append(errs, validateNodeResources(&n.Status)...)
	if cidrs := n.Spec.PodCIDRs; len(cidrs) > 0 {
		p := field.NewPath("spec", "podCIDRs")
		for i, c := range cidrs {
			errs = append(errs, validation.IsValidCIDRForLegacyField(p.Index(i), c, true, nil)...)
		}
		if len(cidrs) > 1 {
			dualStack, err := netutils.IsDualStackCIDRStrings(cidrs)
			if err != nil {
				errs = append(errs, field.InternalError(p, fmt.Errorf("invalid PodCIDRs. failed to check with dual stack with error:%v", err)))
			}
			if !dualStack || len(cidrs) > 2 {
				errs = append(errs, field.Invalid(p, cidrs, "may specify no more than one CIDR for each IP family"))
			}
		}
	}
	return errs
}

// validateNodeTaints is the apiserver's validateNodeTaints: keys, values, effects, unique by key
// and effect.
func validateNodeTaints(taints []corev1.Taint, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.TaintEffect]sets.Set[string]{}
	for i, t := range taints {
		p := fldPath.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		if t.Effect == "" {
			errs = append(errs, field.Required(p.Child("effect"), ""))
		} else {
			errs = append(errs, validateTaintEffect(t.Effect, p.Child("effect"))...)
		}
		if seen[t.Effect].Has(t.Key) {
			dup := field.Duplicate(p, goNames{t})
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = sets.New[string]()
		}
		seen[t.Effect].Insert(t.Key)
	}
	return errs
}

// validateNodeResources is the apiserver's ValidateNodeResources: the capacity's and the
// allocatable resources' quantities. The apiserver walks the maps in Go's random order; the fake
// sorts them.
func validateNodeResources(s *corev1.NodeStatus) field.ErrorList {
	var errs field.ErrorList
	for _, l := range []struct {
		list corev1.ResourceList
		name string
	}{{s.Capacity, "capacity"}, {s.Allocatable, "allocatable"}} {
		for _, k := range sortedResourceNames(l.list) {
			errs = append(errs, validateResourceQuantityValue(k, l.list[k], field.NewPath("status", l.name, string(k)))...)
		}
	}
	return errs
}

// validateResourceQuantityValue is the apiserver's ValidateResourceQuantityValue: not negative, and
// whole for the resources counted in objects.
func validateResourceQuantityValue(name corev1.ResourceName, q resource.Quantity, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.Sign() < 0 {
		errs = append(errs, field.Invalid(p, q.String(), apimachineryvalidation.IsNegativeErrorMsg))
	}
	if slices.Contains(integerResources, name) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(p, q.String(), "must be an integer"))
	}
	return errs
}

// validateNodeUpdate is what the apiserver's ValidateNodeUpdate adds to ValidateNode, for an
// update of the node (status false) or of its status (status true, without ValidateNode).
func validateNodeUpdate(n, old *corev1.Node, status bool) field.ErrorList {
	var errs field.ErrorList
	if status {
		errs = append(errs, validateNodeResources(&n.Status)...)
	}
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range n.Status.Addresses {
		if seen[a] {
			errs = append(errs, field.Duplicate(field.NewPath("status", "addresses").Index(i), goNames{a}))
		}
		seen[a] = true
	}
	if len(old.Spec.PodCIDRs) > 0 && !slices.Equal(old.Spec.PodCIDRs, n.Spec.PodCIDRs) {
		const msg = "node updates may not change podCIDR except from \"\" to valid"
		p := field.NewPath("spec", "podCIDRs")
		if len(old.Spec.PodCIDRs) != len(n.Spec.PodCIDRs) {
			errs = append(errs, field.Forbidden(p, msg))
		} else {
			for i, c := range old.Spec.PodCIDRs {
				if c != n.Spec.PodCIDRs[i] {
					errs = append(errs, field.Forbidden(p, msg))
				}
			}
		}
	}
	switch p := field.NewPath("spec", "providerID"); {
	case old.Spec.ProviderID != "" && n.Spec.ProviderID != "" && old.Spec.ProviderID != n.Spec.ProviderID:
		errs = append(errs, field.Invalid(p, nil, "field cannot be modified once set"))
	case old.Spec.ProviderID != "" && n.Spec.ProviderID == "":
		errs = append(errs, field.Invalid(p, nil, "field cannot be cleared once set"))
	}
	if !status {
		errs = append(errs, validateNodeTaints(n.Spec.Taints, field.NewPath("metadata", "taints"))...)
	}
	if n.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}
