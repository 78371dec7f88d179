package fake

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The apiserver's validation of volume attachments, CSI drivers and runtime classes
// (pkg/apis/storage/validation, pkg/apis/node/validation), as recorded in
// reference/observed-validation-kinds.md. Where kube-apiserver 1.37.2 enforces declarative
// validation (a volume attachment's attacher and immutable spec, a runtime class's handler), those
// causes come last, as it lists them.

// validateVolumeAttachment is the apiserver's ValidateVolumeAttachment (old nil) or
// ValidateVolumeAttachmentUpdate without ObjectMeta's rules.
func validateVolumeAttachment(va, old *storagev1.VolumeAttachment) field.ErrorList {
	spec := field.NewPath("spec")
	src, sp := va.Spec.Source, spec.Child("source")
	var errs field.ErrorList
	const exactlyOne = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
	switch {
	case src.InlineVolumeSpec == nil && src.PersistentVolumeName == nil:
		errs = append(errs, field.Required(sp, exactlyOne))
	case src.InlineVolumeSpec != nil && src.PersistentVolumeName != nil:
		errs = append(errs, field.Forbidden(sp, exactlyOne))
	case src.PersistentVolumeName != nil:
		if *src.PersistentVolumeName == "" {
			errs = append(errs, field.Required(sp.Child("persistentVolumeName"), "must specify non empty persistentVolumeName"))
		}
	default:
		errs = append(errs, validatePVSpec(src.InlineVolumeSpec, true, sp.Child("inlineVolumeSpec"))...)
	}
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(va.Spec.NodeName, false) {
		errs = append(errs, field.Invalid(spec.Child("nodeName"), va.Spec.NodeName, msg))
	}
	if n := src.PersistentVolumeName; n != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*n, false) {
			errs = append(errs, field.Invalid(sp.Child("persistentVolumeName"), *n, msg))
		}
	}
	// Declarative: the attacher (required, at most 63 characters, a DNS subdomain of any case).
	ap := spec.Child("attacher")
	switch a := va.Spec.Attacher; {
	case a == "":
		errs = append(errs, field.Required(ap, ""))
	default:
		if len(a) > 63 {
			errs = append(errs, field.TooLong(ap, "", 63))
		}
		errs = append(errs, validate.LongNameCaseless(context.Background(), operation.Operation{Type: operation.Create}, ap, &a, nil)...)
	}
	if old != nil && !equality.Semantic.DeepEqual(va.Spec, old.Spec) {
		// The declarative rule prints no value.
		errs = append(errs, field.Invalid(spec, nil, apimachineryvalidation.FieldImmutableErrorMsg))
	}
	return errs
}

// csiDriverTokenWarning is the CSI driver strategy's warning for token requests without
// serviceAccountTokenInSecrets.
const csiDriverTokenWarning = "spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to true to prevent possible logging of tokens in volume attributes"

// validateCSIDriver is the apiserver's validateCSIDriverSpec (with SELinuxMountReadWriteOncePod
// and VolumeLimitScaling on) and, on update, ValidateCSIDriverUpdate's immutable fields.
func validateCSIDriver(d, old *storagev1.CSIDriver) field.ErrorList {
	s, p := &d.Spec, field.NewPath("spec")
	var errs field.ErrorList
	for _, r := range []struct {
		set  bool
		name string
	}{{s.AttachRequired != nil, "attachedRequired"}, {s.PodInfoOnMount != nil, "podInfoOnMount"}, {s.StorageCapacity != nil, "storageCapacity"}} {
		if !r.set {
			errs = append(errs, field.Required(p.Child(r.name), ""))
		}
	}
	if f := s.FSGroupPolicy; f != nil {
		errs = append(errs, validateOptionalEnum(*f, p.Child("fsGroupPolicy"),
			[]storagev1.FSGroupPolicy{storagev1.FileFSGroupPolicy, storagev1.NoneFSGroupPolicy, storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy})...)
	}
	audiences := sets.New[string]()
	for i, t := range s.TokenRequests {
		tp := p.Child("tokenRequests").Index(i)
		if audiences.Has(t.Audience) {
			errs = append(errs, field.Duplicate(tp.Child("audience"), t.Audience))
			continue
		}
		audiences.Insert(t.Audience)
		switch e := t.ExpirationSeconds; {
		case e == nil:
		case *e < 10*60:
			errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *e, "may not specify a duration less than 10 minutes"))
		case *e > 1<<32:
			errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *e, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	modes := []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral}
	for _, m := range s.VolumeLifecycleModes {
		if !slices.Contains(modes, m) {
			errs = append(errs, field.NotSupported(p.Child("volumeLifecycleModes"), m, modes))
		}
	}
	if s.SELinuxMount == nil {
		errs = append(errs, field.Required(p.Child("seLinuxMount"), ""))
	}
	if n := s.NodeAllocatableUpdatePeriodSeconds; n != nil && *n < 10 {
		errs = append(errs, field.Invalid(p.Child("nodeAllocatableUpdatePeriodSeconds"), *n, "must be greater than or equal to 10 seconds"))
	}
	if s.ServiceAccountTokenInSecrets != nil && len(s.TokenRequests) == 0 {
		errs = append(errs, field.Invalid(p.Child("serviceAccountTokenInSecrets"), *s.ServiceAccountTokenInSecrets, "serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
	}
	if s.PreventPodSchedulingIfMissing == nil {
		errs = append(errs, field.Required(p.Child("preventPodSchedulingIfMissing"), ""))
	}
	if old != nil {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.AttachRequired, old.Spec.AttachRequired, p.Child("attachedRequired"))...)
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes, p.Child("volumeLifecycleModes"))...)
	}
	return errs
}

// validateRuntimeClass is the apiserver's ValidateRuntimeClass (old nil) or
// ValidateRuntimeClassUpdate without ObjectMeta's rules: overhead as a container's limits, the
// scheduling node selector and unique tolerations, then the handler (declarative: a DNS label,
// never changed).
func validateRuntimeClass(rc, old *nodev1.RuntimeClass) field.ErrorList {
	hp := field.NewPath("handler")
	if old != nil {
		if rc.Handler != old.Handler {
			// The declarative rule prints no value.
			return field.ErrorList{field.Invalid(hp, nil, apimachineryvalidation.FieldImmutableErrorMsg)}
		}
		return nil
	}
	var errs field.ErrorList
	if o := rc.Overhead; o != nil {
		errs = append(errs, validateResources(&corev1.ResourceRequirements{Limits: o.PodFixed}, field.NewPath("overhead"))...)
	}
	if s := rc.Scheduling; s != nil {
		sp := field.NewPath("scheduling")
		errs = append(errs, metav1validation.ValidateLabels(s.NodeSelector, sp.Child("nodeSelector"))...)
		errs = append(errs, validateTolerations(s.Tolerations, sp.Child("tolerations"))...)
		seen := map[corev1.Toleration]bool{}
		for i, t := range s.Tolerations {
			key := corev1.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect}
			if seen[key] {
				errs = append(errs, field.Duplicate(sp.Child("tolerations").Index(i), goNames{t}))
			}
			seen[key] = true
		}
	}
	if rc.Handler == "" {
		return append(errs, field.Required(hp, ""))
	}
	return append(errs, validateDNSLabel(rc.Handler, hp)...)
}

// validateCSINode is the apiserver's ValidateCSINode without ObjectMeta, on create and update: each
// driver's name (a CSI driver name, once), node ID (required, at most 256 characters), allocatable
// count and topology keys. An update's change of a stored driver is not refused here: the
// apiserver's refusal prints its internal type.
func validateCSINode(n *storagev1.CSINode) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := field.NewPath("spec", "drivers").Index(i)
		errs = append(errs, validateCSIDriverName(d.Name, p.Child("name"))...)
		switch {
		case d.NodeID == "":
			errs = append(errs, field.Required(p.Child("nodeID"), d.NodeID))
		case len(d.NodeID) > 256:
			errs = append(errs, field.Invalid(p.Child("nodeID"), d.NodeID, "must be 256 characters or less"))
		}
		if a := d.Allocatable; a != nil && a.Count != nil {
			errs = append(errs, validateNonNegative(*a.Count, p.Child("allocatable", "count"))...)
		}
		if names[d.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), d.Name))
		}
		names[d.Name] = true
		keys := map[string]bool{}
		for _, k := range d.TopologyKeys {
			if k == "" {
				errs = append(errs, field.Required(p, k))
			}
			if keys[k] {
				errs = append(errs, field.Duplicate(p, k))
			}
			keys[k] = true
			errs = append(errs, qualifiedName(k, p)...)
		}
	}
	return errs
}

// validateCSIStorageCapacity is the apiserver's ValidateCSIStorageCapacity without ObjectMeta
// and, on update (old set), ValidateCSIStorageCapacityUpdate after it: a node topology selector,
// a storage class name, a non-negative capacity; neither the topology nor the class changed.
func validateCSIStorageCapacity(c, old *storagev1.CSIStorageCapacity) field.ErrorList {
	// Invalid label values pass if the stored selector does not validate, as the strategy allows.
	var opts metav1validation.LabelSelectorValidationOptions
	if old != nil {
		opts.AllowInvalidLabelValueInSelector = len(metav1validation.ValidateLabelSelector(old.NodeTopology, opts, nil)) > 0
	}
	errs := metav1validation.ValidateLabelSelector(c.NodeTopology, opts, field.NewPath("nodeTopology"))
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(c.StorageClassName, false) {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
	}
	if q := c.Capacity; q != nil {
		errs = append(errs, validateQuantity(*q, field.NewPath("capacity"))...)
	}
	if old != nil {
		if !equality.Semantic.DeepEqual(c.NodeTopology, old.NodeTopology) {
			errs = append(errs, field.Invalid(field.NewPath("nodeTopology"), c.NodeTopology, "field is immutable"))
		}
		if c.StorageClassName != old.StorageClassName {
			errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, "field is immutable"))
		}
	}
	return errs
}
