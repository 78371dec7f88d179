package fake

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The resource quota validation of kube-apiserver 1.37.2 (pkg/apis/core/validation and the
// resource name tables of pkg/apis/core/helper). The apiserver walks spec.hard, a map, in Go's
// random order; the fake walks it sorted.

// quotaResources are the resource names a quota may limit without a domain (besides the
// hugepages-* and requests.hugepages-* ones).
var quotaResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsStorage, corev1.ResourceRequestsEphemeralStorage,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
	corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
	corev1.ResourceSecrets, corev1.ResourcePersistentVolumeClaims, corev1.ResourceConfigMaps,
	corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
}

// quotaStandardResources are the resource names without a domain the apiserver knows (besides the
// hugepages ones), in its table's order.
var quotaStandardResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
	corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
	corev1.ResourceSecrets, corev1.ResourceConfigMaps, corev1.ResourcePersistentVolumeClaims,
	corev1.ResourceStorage, corev1.ResourceRequestsStorage, corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
}

// integerResources are the resources counted in whole objects.
var integerResources = []corev1.ResourceName{
	corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
	corev1.ResourceSecrets, corev1.ResourceConfigMaps, corev1.ResourcePersistentVolumeClaims,
	corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
}

// quotaScopes are the scopes a quota may have.
var quotaScopes = []corev1.ResourceQuotaScope{
	corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeBestEffort,
	corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeVolumeAttributesClass,
}

// hugePages reports a hugepages-* or requests.hugepages-* resource.
func hugePages(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) || strings.HasPrefix(string(name), corev1.ResourceRequestsHugePagesPrefix)
}

// scopeFitsResource is the apiserver's IsResourceQuotaScopeValidForResource.
func scopeFitsResource(scope corev1.ResourceQuotaScope, name corev1.ResourceName) bool {
	podCount := name == corev1.ResourcePods
	podCompute := slices.Contains([]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceLimitsCPU,
		corev1.ResourceLimitsMemory, corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory}, name)
	switch scope {
	case corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeNotBestEffort,
		corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return podCount || podCompute
	case corev1.ResourceQuotaScopeBestEffort:
		return podCount
	case corev1.ResourceQuotaScopeVolumeAttributesClass:
		return name == corev1.ResourcePersistentVolumeClaims || name == corev1.ResourceRequestsStorage
	}
	return true
}

// validateResourceQuota is the apiserver's ValidateResourceQuotaSpec (old nil on create), with
// ValidateResourceQuotaUpdate's scopes that never change.
func validateResourceQuota(rq, old *corev1.ResourceQuota) field.ErrorList {
	errs := field.ErrorList{}
	spec, path := &rq.Spec, field.NewPath("spec")
	names := make([]string, 0, len(spec.Hard))
	for k := range spec.Hard {
		names = append(names, string(k))
	}
	slices.Sort(names)
	for _, n := range names {
		k, p := corev1.ResourceName(n), path.Child("hard").Key(n)
		errs = append(errs, quotaResourceName(k, p)...)
		errs = append(errs, validateResourceQuantityValue(k, spec.Hard[k], p)...)
	}
	hard := make([]corev1.ResourceName, 0, len(names))
	for _, n := range names {
		hard = append(hard, corev1.ResourceName(n))
	}
	if len(spec.Scopes) > 0 {
		p := path.Child("scopes")
		for _, scope := range spec.Scopes {
			if !slices.Contains(quotaScopes, scope) {
				errs = append(errs, field.Invalid(p, spec.Scopes, "unsupported scope"))
			}
			for _, k := range hard {
				if quotaResource(k) && !scopeFitsResource(scope, k) {
					errs = append(errs, field.Invalid(p, spec.Scopes, "unsupported scope applied to resource"))
				}
			}
		}
		errs = append(errs, conflictingScopes(spec.Scopes, spec.Scopes, p)...)
	}
	if sel := spec.ScopeSelector; sel != nil {
		errs = append(errs, validateScopeSelector(sel, spec.Scopes, hard, path.Child("scopeSelector", "matchExpressions"))...)
	}
	if old != nil && !sameScopes(spec.Scopes, old.Spec.Scopes) {
		errs = append(errs, field.Invalid(path.Child("scopes"), spec.Scopes, "field is immutable"))
	}
	return errs
}

// quotaResource is the apiserver's IsStandardQuotaResourceName.
func quotaResource(name corev1.ResourceName) bool {
	return slices.Contains(quotaResources, name) || hugePages(name)
}

// quotaResourceName is the apiserver's ValidateResourceQuotaResourceName: a qualified name, and
// without a domain, a resource the apiserver knows and a quota may limit.
func quotaResourceName(name corev1.ResourceName, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	for _, msg := range validation.IsQualifiedName(string(name)) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	if len(errs) == 0 && !strings.Contains(string(name), "/") && !slices.Contains(quotaStandardResources, name) && !hugePages(name) {
		errs = append(errs, field.Invalid(path, name, "must be a standard resource type or fully qualified"))
	}
	if !strings.Contains(string(name), "/") && !quotaResource(name) {
		errs = append(errs, field.Invalid(path, name, "must be a standard resource for quota"))
	}
	return errs
}

// internalScopeSelector is a scope selector as the apiserver prints it in a cause's value: its
// internal type, whose fields have no JSON tags, so their Go names.
func internalScopeSelector(sel *corev1.ScopeSelector) any {
	type requirement struct {
		ScopeName corev1.ResourceQuotaScope
		Operator  corev1.ScopeSelectorOperator
		Values    []string
	}
	var out struct{ MatchExpressions []requirement }
	for _, r := range sel.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, requirement{r.ScopeName, r.Operator, r.Values})
	}
	return out
}

// validateScopeSelector is the apiserver's validateScopedResourceSelectorRequirement.
func validateScopeSelector(sel *corev1.ScopeSelector, scopes []corev1.ResourceQuotaScope, hard []corev1.ResourceName, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	var seen []corev1.ResourceQuotaScope
	for _, req := range sel.MatchExpressions {
		if !slices.Contains(quotaScopes, req.ScopeName) {
			errs = append(errs, field.Invalid(path.Child("scopeName"), req.ScopeName, "unsupported scope"))
		}
		for _, k := range hard {
			if quotaResource(k) && !scopeFitsResource(req.ScopeName, k) {
				errs = append(errs, field.Invalid(path, internalScopeSelector(sel), "unsupported scope applied to resource"))
			}
		}
		switch req.ScopeName {
		case corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopeTerminating,
			corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
			if req.Operator != corev1.ScopeSelectorOpExists {
				errs = append(errs, field.Invalid(path.Child("operator"), req.Operator,
					"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		switch req.Operator {
		case corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn:
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(path.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist:
			if len(req.Values) != 0 {
				errs = append(errs, field.Invalid(path.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			errs = append(errs, field.Invalid(path.Child("operator"), req.Operator, "not a valid selector operator"))
		}
		seen = append(seen, req.ScopeName)
	}
	return append(errs, conflictingScopes(seen, scopes, path)...)
}

// conflictingScopes is the apiserver's rule that scopes (of spec.scopes or of the scope
// selector) hold neither both BestEffort and NotBestEffort nor both Terminating and
// NotTerminating; the cause quotes spec.scopes.
func conflictingScopes(scopes, quoted []corev1.ResourceQuotaScope, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	for _, pair := range [][2]corev1.ResourceQuotaScope{
		{corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort},
		{corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating},
	} {
		if slices.Contains(scopes, pair[0]) && slices.Contains(scopes, pair[1]) {
			errs = append(errs, field.Invalid(path, quoted, "conflicting scopes"))
		}
	}
	return errs
}

// sameScopes reports whether two scope lists hold the same scopes, in any order.
func sameScopes(a, b []corev1.ResourceQuotaScope) bool {
	as, bs := slices.Clone(a), slices.Clone(b)
	slices.Sort(as)
	slices.Sort(bs)
	return slices.Equal(slices.Compact(as), slices.Compact(bs))
}
