package fake

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The spec validation of kube-apiserver 1.37.2 for leases (coordination.k8s.io), pod disruption
// budgets (policy), horizontal pod autoscalers (autoscaling/v2), persistent volume claims,
// priority classes (scheduling.k8s.io) and storage classes (storage.k8s.io).

// Leases.

// validateLeaseSpec is the apiserver's ValidateLeaseSpec. Its rules for spec.strategy and
// spec.preferredHolder never apply: with the CoordinatedLeaderElection feature off, as in
// kube-apiserver 1.37.2 by default, the strategy drops both fields first (prepareLease).
func validateLeaseSpec(spec *coordinationv1.LeaseSpec, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if d := spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(path.Child("leaseDurationSeconds"), d, "must be greater than 0"))
	}
	if n := spec.LeaseTransitions; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(path.Child("leaseTransitions"), n, "must be greater than or equal to 0"))
	}
	return errs
}

// Pod disruption budgets.

// internalPDBSpec has the fields of the apiserver's internal PodDisruptionBudgetSpec, in their
// order and without JSON tags: the both-set cause quotes the spec, JSON-encoded.
type internalPDBSpec struct {
	MinAvailable               *intstr.IntOrString
	Selector                   *metav1.LabelSelector
	MaxUnavailable             *intstr.IntOrString
	UnhealthyPodEvictionPolicy *policyv1.UnhealthyPodEvictionPolicyType
}

// unhealthyPodEvictionPolicies are the supported values of spec.unhealthyPodEvictionPolicy.
var unhealthyPodEvictionPolicies = []string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}

// validatePDBSpec is the apiserver's ValidatePodDisruptionBudgetSpec.
func validatePDBSpec(spec *policyv1.PodDisruptionBudgetSpec, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		v := internalPDBSpec{MinAvailable: spec.MinAvailable, Selector: spec.Selector, MaxUnavailable: spec.MaxUnavailable, UnhealthyPodEvictionPolicy: spec.UnhealthyPodEvictionPolicy}
		errs = append(errs, field.Invalid(path, v, "minAvailable and maxUnavailable cannot be both set"))
	}
	for _, f := range []struct {
		v    *intstr.IntOrString
		name string
	}{{spec.MinAvailable, "minAvailable"}, {spec.MaxUnavailable, "maxUnavailable"}} {
		if f.v != nil {
			errs = append(errs, positiveIntOrPercent(*f.v, path.Child(f.name))...)
			errs = append(errs, notMoreThan100Percent(*f.v, path.Child(f.name))...)
		}
	}
	errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, path.Child("selector"))...)
	if p := spec.UnhealthyPodEvictionPolicy; p != nil && !contains(unhealthyPodEvictionPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(path.Child("unhealthyPodEvictionPolicy"), *p, unhealthyPodEvictionPolicies))
	}
	return errs
}

// positiveIntOrPercent is the apiserver's ValidatePositiveIntOrPercent: a percentage, or an
// integer that is not negative.
func positiveIntOrPercent(v intstr.IntOrString, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if v.Type == intstr.String {
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(path, v, msg))
		}
		return errs
	}
	return apimachineryvalidation.ValidateNonnegativeField(int64(v.IntValue()), path)
}

// Horizontal pod autoscalers.

// validateHPASpec is the apiserver's validateHorizontalPodAutoscalerSpec (old nil on create): the
// replica bounds, the scale target, the metrics (validate_hpa.go) and the behavior.
// kube-apiserver 1.37.2 scales to zero (HPAScaleToZero), and its declarative validation, whose
// errors follow all others, has taken over the bounds of minReplicas and maxReplicas (beta); the
// declarative rules do not revalidate a field an update leaves alone.
func validateHPASpec(spec, old *autoscalingv2.HorizontalPodAutoscalerSpec, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if m := spec.MinReplicas; m != nil && spec.MaxReplicas < *m {
		errs = append(errs, field.Invalid(path.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	ref, refPath := spec.ScaleTargetRef, path.Child("scaleTargetRef")
	for _, f := range []struct{ name, v string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.v == "" {
			errs = append(errs, field.Required(refPath.Child(f.name), ""))
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.v) {
			errs = append(errs, field.Invalid(refPath.Child(f.name), f.v, msg))
		}
	}
	// An update that keeps the target's kind and apiVersion does not revalidate the apiVersion;
	// only the core group's ReplicationController may leave the group out.
	if old == nil || old.ScaleTargetRef.APIVersion != ref.APIVersion || old.ScaleTargetRef.Kind != ref.Kind {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil {
			errs = append(errs, field.Invalid(refPath.Child("apiVersion"), ref.APIVersion, err.Error()))
		} else if gv.Group == "" && ref.Kind != "ReplicationController" {
			errs = append(errs, field.Invalid(refPath.Child("apiVersion"), ref.APIVersion, "apiVersion must specify API group"))
		}
	}
	oldInvalidObject := false
	if old != nil {
		oldInvalidObject = slices.ContainsFunc(old.Metrics, func(m autoscalingv2.MetricSpec) bool {
			if m.Type != autoscalingv2.ObjectMetricSourceType || m.Object == nil {
				return false
			}
			_, err := schema.ParseGroupVersion(m.Object.DescribedObject.APIVersion)
			return err != nil
		})
	}
	errs = append(errs, validateMetrics(spec.Metrics, spec.MinReplicas, oldInvalidObject, path.Child("metrics"))...)
	errs = append(errs, validateBehavior(spec.Behavior, path.Child("behavior"))...)
	// The declarative rules.
	if m := spec.MinReplicas; m != nil && *m < 0 && (old == nil || old.MinReplicas == nil || *old.MinReplicas != *m) {
		errs = append(errs, field.Invalid(path.Child("minReplicas"), *m, "must be greater than or equal to 0"))
	}
	if old == nil || old.MaxReplicas != spec.MaxReplicas {
		switch {
		case spec.MaxReplicas == 0:
			errs = append(errs, field.Required(path.Child("maxReplicas"), ""))
		case spec.MaxReplicas < 1:
			errs = append(errs, field.Invalid(path.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to 1"))
		}
	}
	return errs
}

// Persistent volume claims.

// pvcAccessModes are the supported access modes.
var pvcAccessModes = []string{string(corev1.ReadOnlyMany), string(corev1.ReadWriteMany), string(corev1.ReadWriteOnce), string(corev1.ReadWriteOncePod)}

// validateAccessModes is the apiserver's check of a volume's or a claim's access modes: each
// supported, ReadWriteOncePod alone.
func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	oncePod, other := false, false
	for _, m := range modes {
		switch {
		case !contains(pvcAccessModes, string(m)):
			errs = append(errs, field.NotSupported(fldPath, m, pvcAccessModes))
		case m == corev1.ReadWriteOncePod:
			oncePod = true
		default:
			other = true
		}
	}
	if oncePod && other {
		errs = append(errs, field.Forbidden(fldPath, "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}

// validatePVCSpec is the apiserver's ValidatePersistentVolumeClaimSpec for access modes, the
// storage request, the class name and the volume mode.
func validatePVCSpec(spec *corev1.PersistentVolumeClaimSpec, path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if len(spec.AccessModes) == 0 {
		errs = append(errs, field.Required(path.Child("accessModes"), "at least 1 access mode is required"))
	}
	if spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, path.Child("selector"))...)
	}
	errs = append(errs, validateAccessModes(spec.AccessModes, path.Child("accessModes"))...)
	storagePath := path.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := spec.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, field.Required(storagePath, ""))
	} else if q.Cmp(resource.Quantity{}) <= 0 {
		errs = append(errs, field.Invalid(storagePath, q.String(), "must be greater than zero"))
	}
	if c := spec.StorageClassName; c != nil && *c != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(path.Child("storageClassName"), *c, msg))
		}
	}
	if m := spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, field.NotSupported(path.Child("volumeMode"), *m, []string{string(corev1.PersistentVolumeBlock), string(corev1.PersistentVolumeFilesystem)}))
	}
	return append(errs, validateClaimDataSources(spec, path)...)
}

// validateClaimDataSources is the apiserver's validation of a claim spec's dataSource and
// dataSourceRef: names, kinds, API groups (a kind of the core group is PersistentVolumeClaim), the
// reference's namespace, and the two alike unless the reference is namespaced.
func validateClaimDataSources(spec *corev1.PersistentVolumeClaimSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	ref := func(group *string, kind, name string, p *field.Path) {
		if name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if kind == "" {
			errs = append(errs, field.Required(p.Child("kind"), ""))
		}
		g := ptr.Deref(group, "")
		if g == "" && kind != "PersistentVolumeClaim" {
			errs = append(errs, field.Invalid(p, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
		}
		if g != "" {
			for _, msg := range validation.IsDNS1123Subdomain(g) {
				errs = append(errs, field.Invalid(p.Child("apiGroup"), g, msg))
			}
		}
	}
	d, r := spec.DataSource, spec.DataSourceRef
	if d != nil {
		ref(d.APIGroup, d.Kind, d.Name, path.Child("dataSource"))
	}
	if r != nil {
		ref(r.APIGroup, r.Kind, r.Name, path.Child("dataSourceRef"))
		if ns := ptr.Deref(r.Namespace, ""); ns != "" {
			for _, msg := range validation.IsDNS1123Label(ns) {
				errs = append(errs, field.Invalid(path.Child("dataSourceRef", "namespace"), ns, msg))
			}
		}
	}
	// The apiserver's value is a field path, which prints as {}.
	switch {
	case r != nil && ptr.Deref(r.Namespace, "") != "":
		if d != nil {
			errs = append(errs, field.Invalid(path, struct{}{}, "may not be specified when dataSourceRef.namespace is specified"))
		}
	case d != nil && r != nil:
		if !equality.Semantic.DeepEqual(d.APIGroup, r.APIGroup) || d.Kind != r.Kind || d.Name != r.Name {
			errs = append(errs, field.Invalid(path, struct{}{}, "must match dataSourceRef"))
		}
	}
	return errs
}

// internalPVCSpec has the fields of the apiserver's internal PersistentVolumeClaimSpec, in their
// order and without JSON tags: the immutable-spec cause carries a diff of two, JSON-encoded.
type internalPVCSpec struct {
	AccessModes      []corev1.PersistentVolumeAccessMode
	Selector         *metav1.LabelSelector
	Resources        struct{ Limits, Requests corev1.ResourceList }
	VolumeName       string
	StorageClassName *string
	VolumeMode       *corev1.PersistentVolumeMode
	DataSource       *struct {
		APIGroup   *string
		Kind, Name string
	}
	DataSourceRef *struct {
		APIGroup   *string
		Kind, Name string
		Namespace  *string
	}
	VolumeAttributesClassName *string
}

// internalPVCSpecOf converts a v1 claim spec to the internal field names.
func internalPVCSpecOf(s *corev1.PersistentVolumeClaimSpec) internalPVCSpec {
	out := internalPVCSpec{
		AccessModes: s.AccessModes, Selector: s.Selector, VolumeName: s.VolumeName, StorageClassName: s.StorageClassName,
		VolumeMode: s.VolumeMode, VolumeAttributesClassName: s.VolumeAttributesClassName,
	}
	out.Resources.Limits, out.Resources.Requests = s.Resources.Limits, s.Resources.Requests
	if d := s.DataSource; d != nil {
		out.DataSource = &struct {
			APIGroup   *string
			Kind, Name string
		}{d.APIGroup, d.Kind, d.Name}
	}
	if d := s.DataSourceRef; d != nil {
		out.DataSourceRef = &struct {
			APIGroup   *string
			Kind, Name string
			Namespace  *string
		}{d.APIGroup, d.Kind, d.Name, d.Namespace}
	}
	return out
}

// validatePVCUpdate is the apiserver's rule that a claim's spec is immutable but for a first
// volumeName and, once bound, the storage request, and so is its beta storage class annotation.
func validatePVCUpdate(pvc, old *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := field.ErrorList{}
	// The beta storage class annotation is immutable, but for moving it into an unset
	// storageClassName.
	const ann = corev1.BetaStorageClassAnnotation
	oldClass, oldHas := old.Annotations[ann]
	newClass, newHas := pvc.Annotations[ann]
	upgrade := oldHas && old.Spec.StorageClassName == nil && pvc.Spec.StorageClassName != nil &&
		*pvc.Spec.StorageClassName == oldClass && (!newHas || newClass == oldClass)
	if !upgrade && newClass != oldClass {
		errs = append(errs, field.Invalid(field.NewPath("metadata").Child("annotations", ann), newClass, "field is immutable"))
	}
	spec, oldSpec := pvc.Spec.DeepCopy(), old.Spec.DeepCopy()
	if oldSpec.VolumeName == "" {
		oldSpec.VolumeName = spec.VolumeName
	}
	if oldSpec.StorageClassName == nil && spec.StorageClassName != nil {
		oldSpec.StorageClassName = spec.StorageClassName
	}
	if pvc.Status.Phase == corev1.ClaimBound {
		if spec.Resources.Requests != nil {
			spec.Resources.Requests[corev1.ResourceStorage] = old.Spec.Resources.Requests[corev1.ResourceStorage]
		}
		spec.VolumeAttributesClassName = oldSpec.VolumeAttributesClassName
	}
	if !equality.Semantic.DeepEqual(spec, oldSpec) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), fmt.Sprintf(
			"spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n%v",
			diff.Diff(internalPVCSpecOf(oldSpec), internalPVCSpecOf(spec)))))
	}
	newSize, oldSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage], old.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) < 0 {
		if statusSize := old.Status.Capacity[corev1.ResourceStorage]; newSize.Cmp(statusSize) <= 0 {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "resources", "requests", "storage"), "field can not be less than status.capacity"))
		}
	}
	return errs
}

// Priority classes.

// systemPriorityClasses are the priority classes the apiserver creates, the only ones whose names
// may start with "system-": their values, whether each is the global default, and their
// descriptions.
var systemPriorityClasses = []struct {
	name          string
	value         int32
	globalDefault bool
	description   string
}{
	{"system-node-critical", 2000001000, false, "Used for system critical pods that must not be moved from their current node."},
	{"system-cluster-critical", 2000000000, false, "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
}

// highestUserPriority is the highest value of a priority class that is not a system one.
const highestUserPriority = 1000000000

// validatePriorityClass is the apiserver's ValidatePriorityClass without ObjectMeta's rules (old
// nil), or its ValidatePriorityClassUpdate: the value and preemption policy never change.
func validatePriorityClass(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	errs := field.ErrorList{}
	if old != nil {
		if pc.Value != old.Value {
			errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
		}
		return append(errs, apimachineryvalidation.ValidateImmutableField(pc.PreemptionPolicy, old.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	if strings.HasPrefix(pc.Name, "system-") {
		reason := fmt.Sprintf("%v is not a known system priority class", pc.Name)
		for _, s := range systemPriorityClasses {
			switch {
			case s.name != pc.Name:
				continue
			case s.value != pc.Value:
				reason = fmt.Sprintf("value of %v PriorityClass must be %v", s.name, s.value)
			case s.globalDefault != pc.GlobalDefault:
				reason = fmt.Sprintf("globalDefault of %v PriorityClass must be %v", s.name, s.globalDefault)
			default:
				reason = ""
			}
		}
		if reason != "" {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with 'system-' prefix are reserved for system use only. error: "+reason))
		}
	} else if pc.Value > highestUserPriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %v", highestUserPriority)))
	}
	if p := pc.PreemptionPolicy; p != nil {
		switch *p {
		case corev1.PreemptLowerPriority, corev1.PreemptNever:
		case "":
			errs = append(errs, field.Required(field.NewPath("preemptionPolicy"), ""))
		default:
			errs = append(errs, field.NotSupported(field.NewPath("preemptionPolicy"), p, []string{string(corev1.PreemptLowerPriority), string(corev1.PreemptNever)}))
		}
	}
	return errs
}

// Storage classes.

var (
	reclaimPolicies    = []string{string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRetain)}
	volumeBindingModes = []string{string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer)}
)

// The limits of a storage class's parameters: how many, and their keys' and values' total size.
const maxClassParameters, maxClassParametersSize = 512, 256 * 1024

// validateStorageClass is the apiserver's ValidateStorageClass without ObjectMeta (old nil) and
// its ValidateStorageClassUpdate. Its declarative validation (beta, enforced) has taken over the
// required provisioner and the immutable provisioner, parameters, reclaim policy and binding mode:
// their causes follow all others, and an update does not revalidate a field it leaves alone.
func validateStorageClass(sc, old *storagev1.StorageClass) field.ErrorList {
	errs := field.ErrorList{}
	if old == nil {
		if sc.Provisioner != "" {
			errs = append(errs, qualifiedName(strings.ToLower(sc.Provisioner), field.NewPath("provisioner"))...)
		}
		errs = append(errs, validateClassParameters(sc.Parameters)...)
		if p := sc.ReclaimPolicy; p != nil && *p != "" && !contains(reclaimPolicies, string(*p)) {
			errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), p, reclaimPolicies))
		}
		switch m := sc.VolumeBindingMode; {
		case m == nil:
			errs = append(errs, field.Required(field.NewPath("volumeBindingMode"), ""))
		case !contains(volumeBindingModes, string(*m)):
			errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), m, volumeBindingModes))
		}
		if sc.Provisioner == "" {
			errs = append(errs, field.Required(field.NewPath("provisioner"), ""))
		}
		return errs
	}
	immutable := func(name string, changed bool) {
		if changed {
			errs = append(errs, field.Invalid(field.NewPath(name), nil, "field is immutable"))
		}
	}
	if sc.Provisioner == "" && old.Provisioner != "" {
		errs = append(errs, field.Required(field.NewPath("provisioner"), ""))
	} else {
		immutable("provisioner", sc.Provisioner != old.Provisioner)
	}
	immutable("parameters", !equality.Semantic.DeepEqual(sc.Parameters, old.Parameters))
	immutable("reclaimPolicy", !equality.Semantic.DeepEqual(sc.ReclaimPolicy, old.ReclaimPolicy))
	immutable("volumeBindingMode", !equality.Semantic.DeepEqual(sc.VolumeBindingMode, old.VolumeBindingMode))
	return errs
}

// validateVolumeAttributesClass is the apiserver's ValidateVolumeAttributesClass without
// ObjectMeta (old nil) and its ValidateVolumeAttributesClassUpdate: a driver name, parameters
// (at least one), neither changed by an update.
func validateVolumeAttributesClass(vac, old *storagev1.VolumeAttributesClass) field.ErrorList {
	errs := field.ErrorList{}
	if old != nil {
		if vac.DriverName != old.DriverName {
			errs = append(errs, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden."))
		}
		if !reflect.DeepEqual(vac.Parameters, old.Parameters) {
			errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
		}
	}
	if vac.DriverName == "" {
		errs = append(errs, field.Required(field.NewPath("driverName"), ""))
	} else {
		errs = append(errs, qualifiedName(strings.ToLower(vac.DriverName), field.NewPath("driverName"))...)
	}
	errs = append(errs, validateClassParameters(vac.Parameters)...)
	if len(vac.Parameters) == 0 {
		errs = append(errs, field.Required(field.NewPath("parameters"), "must contain at least one key/value pair"))
	}
	return errs
}

// validateClassParameters is the apiserver's validateParameters for a storage class, which may
// have none.
func validateClassParameters(params map[string]string) field.ErrorList {
	p := field.NewPath("parameters")
	if len(params) > maxClassParameters {
		return field.ErrorList{field.TooLong(p, "", maxClassParameters)}
	}
	errs := field.ErrorList{}
	size := 0
	for _, k := range sortedKeys(params) {
		if k == "" {
			errs = append(errs, field.Invalid(p, k, "field can not be empty."))
		}
		size += len(k) + len(params[k])
	}
	if size > maxClassParametersSize {
		errs = append(errs, field.TooLong(p, "", maxClassParametersSize))
	}
	return errs
}
