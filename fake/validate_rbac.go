package fake

import (
	rbacv1 "k8s.io/api/rbac/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The RBAC validation of kube-apiserver 1.37.2 (pkg/apis/rbac/validation), for the rules of roles
// and cluster roles and the role references and subjects of bindings. Its declarative validation
// (beta, enforced) has taken over the required verbs, subject names and role name: their causes,
// without the handwritten details, follow all others, in the order of the v1 type's fields.

// validateRules is the apiserver's ValidatePolicyRule over a role's rules; namespaced roles may
// not name non-resource URLs.
func validateRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	errs := field.ErrorList{}
	for i, r := range rules {
		p := field.NewPath("rules").Index(i)
		if len(r.NonResourceURLs) > 0 {
			if namespaced {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return errs
}

// requiredVerbs is the declarative rule that every rule has verbs.
func requiredVerbs(rules []rbacv1.PolicyRule) field.ErrorList {
	errs := field.ErrorList{}
	for i, r := range rules {
		if len(r.Verbs) == 0 {
			errs = append(errs, field.Required(field.NewPath("rules").Index(i).Child("verbs"), ""))
		}
	}
	return errs
}

// validateClusterRole is the apiserver's ValidateClusterRole without ObjectMeta: the rules, and
// an aggregation rule's selectors.
func validateClusterRole(cr *rbacv1.ClusterRole) field.ErrorList {
	errs := validateRules(cr.Rules, false)
	if cr.AggregationRule != nil {
		p := field.NewPath("aggregationRule", "clusterRoleSelectors")
		if len(cr.AggregationRule.ClusterRoleSelectors) == 0 {
			errs = append(errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range cr.AggregationRule.ClusterRoleSelectors {
			sel := &cr.AggregationRule.ClusterRoleSelectors[i]
			errs = append(errs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p.Index(i))...)
			if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
				errs = append(errs, field.Invalid(p.Index(i), sel, "invalid label selector."))
			}
		}
	}
	return append(errs, requiredVerbs(cr.Rules)...)
}

// validateBinding is the apiserver's ValidateRoleBinding (namespaced) or
// ValidateClusterRoleBinding without ObjectMeta: the role reference and the subjects, and on update
// (old not nil) the role reference that never changes.
func validateBinding(ref rbacv1.RoleRef, subjects []rbacv1.Subject, old *rbacv1.RoleRef, namespaced bool) field.ErrorList {
	errs := field.ErrorList{}
	refPath := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(refPath.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	if !contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(refPath.Child("kind"), ref.Kind, kinds))
	}
	for _, msg := range path.IsValidPathSegmentName(ref.Name) {
		errs = append(errs, field.Invalid(refPath.Child("name"), ref.Name, msg))
	}
	for i, s := range subjects {
		errs = append(errs, validateSubject(s, namespaced, field.NewPath("subjects").Index(i))...)
	}
	if old != nil {
		errs = append(errs, validateRoleRefUpdate(ref, *old)...)
	}
	// The declarative rules.
	for i, s := range subjects {
		if s.Name == "" {
			errs = append(errs, field.Required(field.NewPath("subjects").Index(i).Child("name"), ""))
		}
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(refPath.Child("name"), ""))
	}
	return errs
}

// validateSubject is the apiserver's ValidateRoleBindingSubject but for the required name
// (validateBinding's declarative rule).
func validateSubject(s rbacv1.Subject, namespaced bool, p *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.Name, false) {
				errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.APIGroup != rbacv1.GroupName {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}

// internalRoleRef has the fields of the apiserver's internal RoleRef without JSON tags: the
// immutable-field cause quotes the new one, JSON-encoded.
type internalRoleRef struct {
	APIGroup, Kind, Name string
}

// validateRoleRefUpdate is the apiserver's rule that a binding's role reference never changes.
func validateRoleRefUpdate(ref, old rbacv1.RoleRef) field.ErrorList {
	return apimachineryvalidation.ValidateImmutableField(internalRoleRef(ref), internalRoleRef(old), field.NewPath("roleRef"))
}
