package fake

import (
	"fmt"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The apiserver's validation of persistent volumes (ValidatePersistentVolume and its update) and
// limit ranges (ValidateLimitRange), as recorded in reference/observed-validation-kinds.md.
// Of the volume sources, the contents of hostPath, nfs, local and csi are validated; the others
// are counted (exactly one source) but not looked into.

// validatePersistentVolume is the apiserver's ValidatePersistentVolumeSpec (old nil) or
// ValidatePersistentVolumeUpdate: the spec, then an immutable source, volume mode and node
// affinity.
func validatePersistentVolume(pv, old *corev1.PersistentVolume) field.ErrorList {
	errs := validatePVSpec(&pv.Spec, false, field.NewPath("spec"))
	if old != nil {
		errs = append(errs, validatePersistentVolumeUpdate(pv, old)...)
	}
	return errs
}

// validatePVSpec is the apiserver's ValidatePersistentVolumeSpec, of a persistent volume or of an
// inline volume (a volume attachment's), which has a CSI source, no claim reference, capacity,
// node affinity or class, Retain as its policy and a file system as its mode.
func validatePVSpec(s *corev1.PersistentVolumeSpec, inline bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if inline {
		const msg = "may not be specified in the context of inline volumes"
		if s.ClaimRef != nil {
			errs = append(errs, field.Forbidden(fldPath.Child("claimRef"), msg))
		}
		if len(s.Capacity) != 0 {
			errs = append(errs, field.Forbidden(fldPath.Child("capacity"), msg))
		}
		if s.CSI == nil {
			errs = append(errs, field.Required(fldPath.Child("csi"), "has to be specified in the context of inline volumes"))
		}
	}
	if len(s.AccessModes) == 0 {
		errs = append(errs, field.Required(fldPath.Child("accessModes"), ""))
	}
	errs = append(errs, validateAccessModes(s.AccessModes, fldPath.Child("accessModes"))...)
	if !inline {
		errs = append(errs, validatePVCapacity(s.Capacity, fldPath.Child("capacity"))...)
	}
	switch rp := s.PersistentVolumeReclaimPolicy; {
	case rp == "":
	case inline && rp != corev1.PersistentVolumeReclaimRetain:
		errs = append(errs, field.Forbidden(fldPath.Child("persistentVolumeReclaimPolicy"), "may only be Retain in the context of inline volumes"))
	case !inline:
		errs = append(errs, validateOptionalEnum(rp, fldPath.Child("persistentVolumeReclaimPolicy"),
			[]corev1.PersistentVolumeReclaimPolicy{corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRecycle, corev1.PersistentVolumeReclaimRetain})...)
	}
	switch na := s.NodeAffinity; {
	case na == nil:
	case inline:
		errs = append(errs, field.Forbidden(fldPath.Child("nodeAffinity"), "may not be specified in the context of inline volumes"))
	default:
		if na.Required == nil {
			errs = append(errs, field.Required(fldPath.Child("nodeAffinity", "required"), "must specify required node constraints"))
		} else {
			errs = append(errs, validateNodeSelector(na.Required, fldPath.Child("nodeAffinity", "required"))...)
		}
	}
	errs = append(errs, validatePVSources(s, !inline && s.NodeAffinity != nil, fldPath)...)
	if s.HostPath != nil && path.Clean(s.HostPath.Path) == "/" && s.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
		errs = append(errs, field.Forbidden(fldPath.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	switch {
	case s.StorageClassName == "":
	case inline:
		errs = append(errs, field.Forbidden(fldPath.Child("storageClassName"), "may not be specified in the context of inline volumes"))
	default:
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.StorageClassName, false) {
			errs = append(errs, field.Invalid(fldPath.Child("storageClassName"), s.StorageClassName, msg))
		}
	}
	switch m := s.VolumeMode; {
	case m == nil:
	case inline && *m != corev1.PersistentVolumeFilesystem:
		errs = append(errs, field.Forbidden(fldPath.Child("volumeMode"), "may not specify volumeMode other than Filesystem in the context of inline volumes"))
	case !inline:
		errs = append(errs, validateOptionalEnum(*m, fldPath.Child("volumeMode"), []corev1.PersistentVolumeMode{corev1.PersistentVolumeBlock, corev1.PersistentVolumeFilesystem})...)
	}
	return errs
}

// validatePVCapacity is a persistent volume's capacity: storage only, positive.
func validatePVCapacity(c corev1.ResourceList, capPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(c) == 0 {
		errs = append(errs, field.Required(capPath, ""))
	}
	if _, ok := c[corev1.ResourceStorage]; !ok || len(c) > 1 {
		errs = append(errs, field.NotSupported(capPath, c, []corev1.ResourceName{corev1.ResourceStorage}))
	}
	for _, name := range sortedResourceNames(c) {
		q, p := c[name], capPath.Key(string(name))
		if q.Value() < 0 {
			errs = append(errs, field.Invalid(p, q.Value(), "must be a valid resource quantity"))
		}
		if q.Cmp(resource.Quantity{}) <= 0 {
			errs = append(errs, field.Invalid(p, q.String(), "must be greater than zero"))
		}
	}
	return errs
}

// validatePVSources is the apiserver's count of a persistent volume's sources (exactly one; a
// flexVolume is never reported as one too many, as in the apiserver) and the validation of the
// first one's contents; a local source needs node affinity (hasAffinity).
func validatePVSources(s *corev1.PersistentVolumeSpec, hasAffinity bool, fldPath *field.Path) field.ErrorList {
	v := &s.PersistentVolumeSource
	return validateOneSource([]volumeSource{
		{"hostPath", v.HostPath != nil, func(p *field.Path) field.ErrorList { return validateHostPathSource(v.HostPath, p) }},
		{"gcePersistentDisk", v.GCEPersistentDisk != nil, nil}, {"awsElasticBlockStore", v.AWSElasticBlockStore != nil, nil},
		{"glusterfs", v.Glusterfs != nil, nil}, {"flocker", v.Flocker != nil, nil},
		{"nfs", v.NFS != nil, func(p *field.Path) field.ErrorList { return validateNFSSource(v.NFS, p) }},
		{"rbd", v.RBD != nil, nil}, {"quobyte", v.Quobyte != nil, nil}, {"cephFS", v.CephFS != nil, nil}, {"iscsi", v.ISCSI != nil, nil},
		{"cinder", v.Cinder != nil, nil}, {"fc", v.FC != nil, nil}, {"flexVolume", v.FlexVolume != nil, nil},
		{"azureFile", v.AzureFile != nil, nil}, {"vsphereVolume", v.VsphereVolume != nil, nil},
		{"photonPersistentDisk", v.PhotonPersistentDisk != nil, nil}, {"portworxVolume", v.PortworxVolume != nil, nil},
		{"azureDisk", v.AzureDisk != nil, nil}, {"scaleIO", v.ScaleIO != nil, nil},
		{"local", v.Local != nil, func(p *field.Path) field.ErrorList {
			var errs field.ErrorList
			if v.Local.Path == "" {
				errs = append(errs, field.Required(p.Child("path"), ""))
			} else {
				errs = append(errs, validateNoBacksteps(v.Local.Path, p.Child("path"))...)
			}
			if !hasAffinity {
				errs = append(errs, field.Required(fldPath.Child("nodeAffinity"), "Local volume requires node affinity"))
			}
			return errs
		}},
		{"storageos", v.StorageOS != nil, nil},
		{"csi", v.CSI != nil, func(p *field.Path) field.ErrorList { return validateCSISource(v.CSI, p) }},
	}, "flexVolume", fldPath)
}

// validateCSISource is the apiserver's validateCSIPersistentVolumeSource: the driver's name, the
// volume handle, the secret references' names and namespaces.
func validateCSISource(csi *corev1.CSIPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	errs := validateCSIDriverName(csi.Driver, fldPath.Child("driver"))
	if csi.VolumeHandle == "" {
		errs = append(errs, field.Required(fldPath.Child("volumeHandle"), ""))
	}
	for _, ref := range []struct {
		r    *corev1.SecretReference
		name string
	}{{csi.ControllerPublishSecretRef, "controllerPublishSecretRef"}, {csi.ControllerExpandSecretRef, "controllerExpandSecretRef"},
		{csi.NodePublishSecretRef, "nodePublishSecretRef"}, {csi.NodeExpandSecretRef, "nodeExpandSecretRef"}} {
		if ref.r == nil {
			continue
		}
		p := fldPath.Child(ref.name)
		if ref.r.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(ref.r.Name, false) {
				errs = append(errs, field.Invalid(p.Child("name"), ref.r.Name, msg))
			}
		}
		if ref.r.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Label(ref.r.Namespace) {
				errs = append(errs, field.Invalid(p.Child("namespace"), ref.r.Namespace, msg))
			}
		}
	}
	return errs
}

// validatePersistentVolumeUpdate is what ValidatePersistentVolumeUpdate adds to the spec's
// validation: the source never changes (but a first controllerExpandSecretRef of a CSI source),
// nor does the volume mode, nor a set node affinity (MutablePVNodeAffinity is off; the beta to GA
// node label renames the apiserver allows are not reproduced). The paths are the apiserver's.
func validatePersistentVolumeUpdate(pv, old *corev1.PersistentVolume) field.ErrorList {
	var errs field.ErrorList
	src := pv.Spec.PersistentVolumeSource
	if old.Spec.CSI != nil && old.Spec.CSI.ControllerExpandSecretRef == nil && src.CSI != nil && src.CSI.ControllerExpandSecretRef != nil {
		csi := *src.CSI
		csi.ControllerExpandSecretRef = nil
		src.CSI = &csi
	}
	if !equality.Semantic.DeepEqual(src, old.Spec.PersistentVolumeSource) {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"), fmt.Sprintf("spec.persistentvolumesource is immutable after creation\n%v",
			diff.Diff(goNames{old.Spec.PersistentVolumeSource}, goNames{src}))))
	}
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(pv.Spec.VolumeMode, old.Spec.VolumeMode, field.NewPath("volumeMode"))...)
	if old.Spec.NodeAffinity != nil && !equality.Semantic.DeepEqual(pv.Spec.NodeAffinity, old.Spec.NodeAffinity) {
		errs = append(errs, field.Invalid(field.NewPath("nodeAffinity"), goNames{pv.Spec.NodeAffinity}, apimachineryvalidation.FieldImmutableErrorMsg+", except for updating from beta label to GA"))
	}
	return errs
}

// standardLimitTypes are the limit types without a domain a limit range may name.
var standardLimitTypes = []corev1.LimitType{corev1.LimitTypePod, corev1.LimitTypeContainer, corev1.LimitTypePersistentVolumeClaim}

// validateLimitRange is the apiserver's ValidateLimitRange without ObjectMeta's rules: types,
// resource names, no defaults for pods, a storage bound for claims, and min ≤ default request ≤
// default ≤ max, ratios of at least 1 and at most max/min, equal default and default request for
// resources that may not be overcommitted. Where a limit names several resources the apiserver's
// order is Go's map order; the fake's is sorted.
func validateLimitRange(lr *corev1.LimitRange) field.ErrorList {
	var errs field.ErrorList
	fldPath := field.NewPath("spec", "limits")
	types := sets.New[corev1.LimitType]()
	for i := range lr.Spec.Limits {
		l := &lr.Spec.Limits[i]
		p := fldPath.Index(i)
		errs = append(errs, validateLimitType(l.Type, p.Child("type"))...)
		if types.Has(l.Type) {
			errs = append(errs, field.Duplicate(p.Child("type"), l.Type))
		}
		types.Insert(l.Type)
		names := sets.New[corev1.ResourceName]()
		type namedList struct {
			l    corev1.ResourceList
			name string
		}
		lists := []namedList{{l.Max, "max"}, {l.Min, "min"}}
		if l.Type == corev1.LimitTypePod {
			if len(l.Default) > 0 {
				errs = append(errs, field.Forbidden(p.Child("default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(l.DefaultRequest) > 0 {
				errs = append(errs, field.Forbidden(p.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
		} else {
			lists = append(lists, namedList{l.Default, "default"}, namedList{l.DefaultRequest, "defaultRequest"})
		}
		for _, list := range lists {
			for _, k := range sortedResourceNames(list.l) {
				errs = append(errs, validateLimitResourceName(l.Type, k, p.Child(list.name).Key(string(k)))...)
				names.Insert(k)
			}
		}
		if l.Type == corev1.LimitTypePersistentVolumeClaim {
			_, minFound := l.Min[corev1.ResourceStorage]
			_, maxFound := l.Max[corev1.ResourceStorage]
			if !minFound && !maxFound {
				errs = append(errs, field.Required(p.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		for _, k := range sortedResourceNames(l.MaxLimitRequestRatio) {
			errs = append(errs, validateLimitResourceName(l.Type, k, p.Child("maxLimitRequestRatio").Key(string(k)))...)
			names.Insert(k)
		}
		for _, k := range sets.List(names) {
			errs = append(errs, validateLimitBounds(l, k, p)...)
		}
	}
	return errs
}

// validateLimitType is the apiserver's validateLimitRangeTypeName.
func validateLimitType(t corev1.LimitType, fldPath *field.Path) field.ErrorList {
	errs := validateQualifiedName(string(t), fldPath)
	if len(errs) == 0 && !strings.Contains(string(t), "/") && !slices.Contains(standardLimitTypes, t) {
		errs = append(errs, field.Invalid(fldPath, t, "must be a standard limit type or fully qualified"))
	}
	return errs
}

// validateLimitResourceName is the apiserver's validateLimitRangeResourceName: a container's
// resource names for pod and container limits, a standard or qualified name for the others.
func validateLimitResourceName(t corev1.LimitType, name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	if t == corev1.LimitTypePod || t == corev1.LimitTypeContainer {
		return validateContainerResourceName(name, fldPath)
	}
	return validateResourceName(name, fldPath)
}

// validateLimitBounds is the apiserver's comparison of one resource's min, max, default, default
// request and ratio in a limit; the values it prints are the apiserver's, some of them not the
// field's own.
func validateLimitBounds(l *corev1.LimitRangeItem, k corev1.ResourceName, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	minQ, minFound := l.Min[k]
	maxQ, maxFound := l.Max[k]
	def, defFound := corev1.ResourceList(nil), false
	req, reqFound := corev1.ResourceList(nil), false
	if l.Type != corev1.LimitTypePod {
		def, req = l.Default, l.DefaultRequest
		_, defFound = def[k]
		_, reqFound = req[k]
	}
	defQ, reqQ := def[k], req[k]
	ratio, ratioFound := l.MaxLimitRequestRatio[k]
	key := string(k)
	if minFound && maxFound && minQ.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(p.Child("min").Key(key), minQ.String(), fmt.Sprintf("min value %s is greater than max value %s", minQ.String(), maxQ.String())))
	}
	if reqFound && minFound && minQ.Cmp(reqQ) > 0 {
		errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(key), reqQ.String(), fmt.Sprintf("min value %s is greater than default request value %s", minQ.String(), reqQ.String())))
	}
	if reqFound && maxFound && reqQ.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(key), reqQ.String(), fmt.Sprintf("default request value %s is greater than max value %s", reqQ.String(), maxQ.String())))
	}
	if reqFound && defFound && reqQ.Cmp(defQ) > 0 {
		errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(key), reqQ.String(), fmt.Sprintf("default request value %s is greater than default limit value %s", reqQ.String(), defQ.String())))
	}
	if defFound && minFound && minQ.Cmp(defQ) > 0 {
		errs = append(errs, field.Invalid(p.Child("default").Key(key), minQ.String(), fmt.Sprintf("min value %s is greater than default value %s", minQ.String(), defQ.String())))
	}
	if defFound && maxFound && defQ.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(p.Child("default").Key(key), maxQ.String(), fmt.Sprintf("default value %s is greater than max value %s", defQ.String(), maxQ.String())))
	}
	if ratioFound && ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		errs = append(errs, field.Invalid(p.Child("maxLimitRequestRatio").Key(key), ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String())))
	}
	if ratioFound && minFound && maxFound {
		ratioValue, minValue, maxValue := float64(ratio.Value()), minQ.Value(), maxQ.Value()
		if ratio.Value() < resource.MaxMilliValue && minValue < resource.MaxMilliValue && maxValue < resource.MaxMilliValue {
			ratioValue, minValue, maxValue = float64(ratio.MilliValue())/1000, minQ.MilliValue(), maxQ.MilliValue()
		}
		if limit := float64(maxValue) / float64(minValue); ratioValue > limit {
			errs = append(errs, field.Invalid(p.Child("maxLimitRequestRatio").Key(key), ratio.String(), fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), limit)))
		}
	}
	if overcommitForbidden(k) && defFound && reqFound && defQ.Cmp(reqQ) != 0 {
		errs = append(errs, field.Invalid(p.Child("defaultRequest").Key(key), reqQ.String(), fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", defQ.String(), reqQ.String(), k)))
	}
	return errs
}
