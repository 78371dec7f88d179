package fake

import (
	"net"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The apiserver's validation of the contents of pods' in-tree volume sources (pkg/apis/core/
// validation's validate<Source>VolumeSource), recorded in reference/observed-validation-podspec.md,
// ps-intree. Their plugins are gone from the kubelet, their validation is not.

// pdPartitionError is the apiserver's message for a disk partition out of range.
var pdPartitionError = validation.InclusiveRangeError(1, 255)

// The apiserver's formats of iSCSI qualified names.
var (
	iscsiIQN = regexp.MustCompile(`iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$`)
	iscsiEUI = regexp.MustCompile(`^eui.[[:alnum:]]{16}$`)
	iscsiNAA = regexp.MustCompile(`^naa.[[:alnum:]]{32}$`)
)

// required is a Required cause at path when v is empty.
func required(v string, path *field.Path) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	return nil
}

func validateGitRepoSource(s *corev1.GitRepoVolumeSource, p *field.Path) field.ErrorList {
	errs := required(s.Repository, p.Child("repository"))
	return append(errs, validateLocalDescendingPath(s.Directory, p.Child("directory"))...)
}

func validateDiskSource(name, nameField string, partition int32, p *field.Path) field.ErrorList {
	errs := required(name, p.Child(nameField))
	if partition < 0 || partition > 255 {
		errs = append(errs, field.Invalid(p.Child("partition"), partition, pdPartitionError))
	}
	return errs
}

// iscsiNameErrors are the causes of an iSCSI qualified name that is not one: its prefix (iqn,
// eui or naa) and then that format's.
func iscsiNameErrors(n string, path *field.Path) field.ErrorList {
	switch {
	case !strings.HasPrefix(n, "iqn") && !strings.HasPrefix(n, "eui") && !strings.HasPrefix(n, "naa"):
		return field.ErrorList{field.Invalid(path, n, "must be valid format starting with iqn, eui, or naa")}
	case strings.HasPrefix(n, "iqn") && !iscsiIQN.MatchString(n),
		strings.HasPrefix(n, "eui") && !iscsiEUI.MatchString(n),
		strings.HasPrefix(n, "naa") && !iscsiNAA.MatchString(n):
		return field.ErrorList{field.Invalid(path, n, "must be valid format")}
	}
	return nil
}

func validateISCSISource(s *corev1.ISCSIVolumeSource, p *field.Path) field.ErrorList {
	errs := required(s.TargetPortal, p.Child("targetPortal"))
	if s.IQN == "" {
		errs = append(errs, field.Required(p.Child("iqn"), ""))
	} else {
		errs = append(errs, iscsiNameErrors(s.IQN, p.Child("iqn"))...)
	}
	if s.Lun < 0 || s.Lun > 255 {
		errs = append(errs, field.Invalid(p.Child("lun"), s.Lun, validation.InclusiveRangeError(0, 255)))
	}
	if (s.DiscoveryCHAPAuth || s.SessionCHAPAuth) && s.SecretRef == nil {
		errs = append(errs, field.Required(p.Child("secretRef"), ""))
	}
	if s.InitiatorName != nil {
		errs = append(errs, iscsiNameErrors(*s.InitiatorName, p.Child("initiatorname"))...)
	}
	return errs
}

func validateFCSource(s *corev1.FCVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.TargetWWNs) == 0 && len(s.WWIDs) == 0 {
		errs = append(errs, field.Required(p.Child("targetWWNs"), "must specify either targetWWNs or wwids, but not both"))
	}
	if len(s.TargetWWNs) != 0 && len(s.WWIDs) != 0 {
		errs = append(errs, field.Invalid(p.Child("targetWWNs"), s.TargetWWNs, "targetWWNs and wwids can not be specified simultaneously"))
	}
	if len(s.TargetWWNs) != 0 {
		switch {
		case s.Lun == nil:
			errs = append(errs, field.Required(p.Child("lun"), "lun is required if targetWWNs is specified"))
		case *s.Lun < 0 || *s.Lun > 255:
			errs = append(errs, field.Invalid(p.Child("lun"), s.Lun, validation.InclusiveRangeError(0, 255)))
		}
	}
	return errs
}

func validateQuobyteSource(s *corev1.QuobyteVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	const registryMsg = "must be a host:port pair or multiple pairs separated by commas"
	switch {
	case s.Registry == "":
		errs = append(errs, field.Required(p.Child("registry"), registryMsg))
	case len(s.Tenant) >= 65:
		errs = append(errs, field.Required(p.Child("tenant"), "must be a UUID and may not exceed a length of 64 characters"))
	default:
		for _, pair := range strings.Split(s.Registry, ",") {
			if _, _, err := net.SplitHostPort(pair); err != nil {
				errs = append(errs, field.Invalid(p.Child("registry"), s.Registry, registryMsg))
			}
		}
	}
	return append(errs, required(s.Volume, p.Child("volume"))...)
}

func validateFlockerSource(s *corev1.FlockerVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.DatasetName == "" && s.DatasetUUID == "" {
		errs = append(errs, field.Required(p, "one of datasetName and datasetUUID is required"))
	}
	if s.DatasetName != "" && s.DatasetUUID != "" {
		errs = append(errs, field.Invalid(p, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
	}
	if strings.Contains(s.DatasetName, "/") {
		errs = append(errs, field.Invalid(p.Child("datasetName"), s.DatasetName, "must not contain '/'"))
	}
	return errs
}

func validateCinderSource(s *corev1.CinderVolumeSource, p *field.Path) field.ErrorList {
	errs := required(s.VolumeID, p.Child("volumeID"))
	if s.SecretRef != nil {
		errs = append(errs, required(s.SecretRef.Name, p.Child("secretRef", "name"))...)
	}
	return errs
}

// validateFlexSource: a driver, and no option in the kubernetes.io or k8s.io namespaces (options
// in key order; the apiserver walks the map in Go's random order).
func validateFlexSource(s *corev1.FlexVolumeSource, p *field.Path) field.ErrorList {
	errs := required(s.Driver, p.Child("driver"))
	keys := make([]string, 0, len(s.Options))
	for k := range s.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ns, _, _ := strings.Cut(k, "/")
		if n := "." + strings.ToLower(ns); strings.HasSuffix(n, ".kubernetes.io") || strings.HasSuffix(n, ".k8s.io") {
			errs = append(errs, field.Invalid(p.Child("options").Key(k), k, "kubernetes.io and k8s.io namespaces are reserved"))
		}
	}
	return errs
}

func validateAzureDiskSource(s *corev1.AzureDiskVolumeSource, p *field.Path) field.ErrorList {
	modes := sets.New(corev1.AzureDataDiskCachingNone, corev1.AzureDataDiskCachingReadOnly, corev1.AzureDataDiskCachingReadWrite)
	kinds := sets.New(corev1.AzureSharedBlobDisk, corev1.AzureDedicatedBlobDisk, corev1.AzureManagedDisk)
	errs := required(s.DiskName, p.Child("diskName"))
	errs = append(errs, required(s.DataDiskURI, p.Child("diskURI"))...)
	if s.CachingMode != nil && !modes.Has(*s.CachingMode) {
		errs = append(errs, field.NotSupported(p.Child("cachingMode"), *s.CachingMode, sets.List(modes)))
	}
	if s.Kind != nil && !kinds.Has(*s.Kind) {
		errs = append(errs, field.NotSupported(p.Child("kind"), *s.Kind, sets.List(kinds)))
	}
	if s.Kind != nil && *s.Kind == corev1.AzureManagedDisk && !strings.HasPrefix(s.DataDiskURI, "/subscriptions/") {
		errs = append(errs, field.NotSupported(p.Child("diskURI"), s.DataDiskURI,
			[]string{"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"}))
	}
	if s.Kind != nil && *s.Kind != corev1.AzureManagedDisk && !strings.HasPrefix(s.DataDiskURI, "https://") {
		errs = append(errs, field.NotSupported(p.Child("diskURI"), s.DataDiskURI,
			[]string{"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"}))
	}
	return errs
}

func validateStorageOSSource(s *corev1.StorageOSVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.VolumeName == "" {
		errs = append(errs, field.Required(p.Child("volumeName"), ""))
	} else {
		errs = append(errs, validateDNSLabel(s.VolumeName, p.Child("volumeName"))...)
	}
	if s.VolumeNamespace != "" {
		errs = append(errs, validateDNSLabel(s.VolumeNamespace, p.Child("volumeNamespace"))...)
	}
	if s.SecretRef != nil {
		errs = append(errs, required(s.SecretRef.Name, p.Child("secretRef", "name"))...)
	}
	return errs
}
