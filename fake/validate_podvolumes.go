package fake

import (
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The apiserver's validation of a pod's volumes (ValidateVolumes, validateVolumeSource) and of the
// downward API and key references that volumes and environment variables share, as recorded in
// reference/observed-validation-podspec.md. The contents of the emptyDir, hostPath, secret, nfs,
// persistentVolumeClaim, downwardAPI, configMap, projected (secret, configMap, downwardAPI and
// serviceAccountToken sources), csi and ephemeral sources are validated; the other sources are
// counted, not looked into.

// fileModeMessage is the apiserver's message for a file mode out of range.
const fileModeMessage = "must be a number between 0 and 0777 (octal), both inclusive"

// validateVolumes is the apiserver's ValidateVolumes: each volume's source and name (required, a
// DNS label, unique). It returns the sources of the valid volumes by name, which volume mounts and
// devices may refer to.
// podName is the pod's name, which names the claims of its ephemeral volumes ("" for a template
// without a name).
func validateVolumes(vols []corev1.Volume, podName string, fldPath *field.Path) (map[string]*corev1.VolumeSource, field.ErrorList) {
	var errs field.ErrorList
	valid := make(map[string]*corev1.VolumeSource, len(vols))
	ephemeralClaims := sets.New[string]()
	if podName != "" {
		for _, v := range vols {
			if v.Ephemeral != nil {
				ephemeralClaims.Insert(podName + "-" + v.Name)
			}
		}
	}
	for i, v := range vols {
		p := fldPath.Index(i)
		namePath := p.Child("name")
		el := validateVolumeSources(&v.VolumeSource, p)
		if v.Name == "" {
			el = append(el, field.Required(namePath, ""))
		} else {
			el = append(el, validateDNSLabel(v.Name, namePath)...)
		}
		if _, ok := valid[v.Name]; ok {
			el = append(el, field.Duplicate(namePath, v.Name))
		}
		if len(el) == 0 {
			valid[v.Name] = &vols[i].VolumeSource
		}
		errs = append(errs, el...)
		if c := v.PersistentVolumeClaim; c != nil && ephemeralClaims.Has(c.ClaimName) {
			errs = append(errs, field.Invalid(p.Child("persistentVolumeClaim", "claimName"), c.ClaimName, "must not reference a PVC that gets created for an ephemeral volume"))
		}
	}
	return valid, errs
}

// volumeSource is one of a pod volume's or a persistent volume's sources, in the apiserver's order
// and by its name (downwarAPI and storageos are its spellings for pods), with the validation of
// its contents where the fake has it.
type volumeSource struct {
	name     string
	set      bool
	validate func(*field.Path) field.ErrorList
}

// validateVolumeSources is the apiserver's validateVolumeSource: exactly one source, the extra
// ones reported in its order, the first one's contents validated.
func validateVolumeSources(v *corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	return validateOneSource([]volumeSource{
		{"emptyDir", v.EmptyDir != nil, func(p *field.Path) field.ErrorList {
			if l := v.EmptyDir.SizeLimit; l != nil && l.Cmp(resource.Quantity{}) < 0 {
				return field.ErrorList{field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity")}
			}
			return nil
		}},
		{"hostPath", v.HostPath != nil, func(p *field.Path) field.ErrorList { return validateHostPathSource(v.HostPath, p) }},
		{"gitRepo", v.GitRepo != nil, func(p *field.Path) field.ErrorList { return validateGitRepoSource(v.GitRepo, p) }},
		{"gcePersistentDisk", v.GCEPersistentDisk != nil, func(*field.Path) field.ErrorList {
			// The apiserver's path is "persistentDisk", its name in the error for a second source aside.
			return validateDiskSource(v.GCEPersistentDisk.PDName, "pdName", v.GCEPersistentDisk.Partition, fldPath.Child("persistentDisk"))
		}},
		{"awsElasticBlockStore", v.AWSElasticBlockStore != nil, func(p *field.Path) field.ErrorList {
			return validateDiskSource(v.AWSElasticBlockStore.VolumeID, "volumeID", v.AWSElasticBlockStore.Partition, p)
		}},
		{"secret", v.Secret != nil, func(p *field.Path) field.ErrorList {
			return validateItemsSource(v.Secret.SecretName, "secretName", v.Secret.DefaultMode, v.Secret.Items, p)
		}},
		{"nfs", v.NFS != nil, func(p *field.Path) field.ErrorList { return validateNFSSource(v.NFS, p) }},
		{"iscsi", v.ISCSI != nil, func(p *field.Path) field.ErrorList { return validateISCSISource(v.ISCSI, p) }},
		{"glusterfs", v.Glusterfs != nil, func(p *field.Path) field.ErrorList {
			return append(required(v.Glusterfs.EndpointsName, p.Child("endpoints")), required(v.Glusterfs.Path, p.Child("path"))...)
		}},
		{"flocker", v.Flocker != nil, func(p *field.Path) field.ErrorList { return validateFlockerSource(v.Flocker, p) }},
		{"persistentVolumeClaim", v.PersistentVolumeClaim != nil, func(p *field.Path) field.ErrorList {
			if v.PersistentVolumeClaim.ClaimName == "" {
				return field.ErrorList{field.Required(p.Child("claimName"), "")}
			}
			return nil
		}},
		{"rbd", v.RBD != nil, func(p *field.Path) field.ErrorList {
			var errs field.ErrorList
			if len(v.RBD.CephMonitors) == 0 {
				errs = append(errs, field.Required(p.Child("monitors"), ""))
			}
			return append(errs, required(v.RBD.RBDImage, p.Child("image"))...)
		}},
		{"cinder", v.Cinder != nil, func(p *field.Path) field.ErrorList { return validateCinderSource(v.Cinder, p) }},
		{"cephFS", v.CephFS != nil, func(*field.Path) field.ErrorList {
			// The apiserver's path is "cephfs", its name in the error for a second source aside.
			if len(v.CephFS.Monitors) == 0 {
				return field.ErrorList{field.Required(fldPath.Child("cephfs", "monitors"), "")}
			}
			return nil
		}},
		{"quobyte", v.Quobyte != nil, func(p *field.Path) field.ErrorList { return validateQuobyteSource(v.Quobyte, p) }},
		{"downwarAPI", v.DownwardAPI != nil, func(*field.Path) field.ErrorList {
			// The apiserver's path is "downwardAPI", its name in the error for a second source aside.
			p := fldPath.Child("downwardAPI")
			errs := validateFileMode(v.DownwardAPI.DefaultMode, p.Child("defaultMode"))
			for _, f := range v.DownwardAPI.Items {
				errs = append(errs, validateDownwardAPIFile(&f, p)...)
			}
			return errs
		}},
		{"fc", v.FC != nil, func(p *field.Path) field.ErrorList { return validateFCSource(v.FC, p) }},
		{"flexVolume", v.FlexVolume != nil, func(p *field.Path) field.ErrorList { return validateFlexSource(v.FlexVolume, p) }},
		{"configMap", v.ConfigMap != nil, func(p *field.Path) field.ErrorList {
			return validateItemsSource(v.ConfigMap.Name, "name", v.ConfigMap.DefaultMode, v.ConfigMap.Items, p)
		}},
		{"azureFile", v.AzureFile != nil, func(p *field.Path) field.ErrorList {
			return append(required(v.AzureFile.SecretName, p.Child("secretName")), required(v.AzureFile.ShareName, p.Child("shareName"))...)
		}},
		{"vsphereVolume", v.VsphereVolume != nil, func(p *field.Path) field.ErrorList {
			return required(v.VsphereVolume.VolumePath, p.Child("volumePath"))
		}},
		{"photonPersistentDisk", v.PhotonPersistentDisk != nil, func(p *field.Path) field.ErrorList {
			return required(v.PhotonPersistentDisk.PdID, p.Child("pdID"))
		}},
		{"portworxVolume", v.PortworxVolume != nil, func(p *field.Path) field.ErrorList { return required(v.PortworxVolume.VolumeID, p.Child("volumeID")) }},
		{"azureDisk", v.AzureDisk != nil, func(p *field.Path) field.ErrorList { return validateAzureDiskSource(v.AzureDisk, p) }},
		{"storageos", v.StorageOS != nil, func(p *field.Path) field.ErrorList { return validateStorageOSSource(v.StorageOS, p) }},
		{"projected", v.Projected != nil, func(p *field.Path) field.ErrorList { return validateProjectedSource(v.Projected, p) }},
		{"scaleIO", v.ScaleIO != nil, func(p *field.Path) field.ErrorList {
			errs := required(v.ScaleIO.Gateway, p.Child("gateway"))
			errs = append(errs, required(v.ScaleIO.System, p.Child("system"))...)
			return append(errs, required(v.ScaleIO.VolumeName, p.Child("volumeName"))...)
		}},
		{"csi", v.CSI != nil, func(p *field.Path) field.ErrorList {
			errs := validateCSIDriverName(v.CSI.Driver, p.Child("driver"))
			if ref := v.CSI.NodePublishSecretRef; ref != nil {
				if ref.Name == "" {
					errs = append(errs, field.Required(p.Child("nodePublishSecretRef", "name"), ""))
				} else {
					// The apiserver's path is "name", not under nodePublishSecretRef.
					for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(ref.Name, false) {
						errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
					}
				}
			}
			return errs
		}},
		{"ephemeral", v.Ephemeral != nil, func(p *field.Path) field.ErrorList {
			t := v.Ephemeral.VolumeClaimTemplate
			if t == nil {
				return field.ErrorList{field.Required(p.Child("volumeClaimTemplate"), "")}
			}
			tp := p.Child("volumeClaimTemplate")
			errs := apimachineryvalidation.ValidateAnnotations(t.Annotations, tp.Child("metadata", "annotations"))
			errs = append(errs, metav1validation.ValidateLabels(t.Labels, tp.Child("metadata", "labels"))...)
			return append(errs, validatePVCSpec(&t.Spec, tp.Child("spec"))...)
		}},
		{"image", v.Image != nil, func(p *field.Path) field.ErrorList {
			var errs field.ErrorList
			if v.Image.Reference == "" {
				errs = append(errs, field.Required(p.Child("reference"), ""))
			}
			return append(errs, validatePullPolicy(v.Image.PullPolicy, p.Child("pullPolicy"))...)
		}},
	}, "", fldPath)
}

// validateOneSource is the apiserver's count of a volume's sources: exactly one, the extra ones
// reported in its order (but uncounted, which it never reports), the first one's contents
// validated.
func validateOneSource(sources []volumeSource, uncounted string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	for _, src := range sources {
		switch {
		case !src.set:
		case n > 0 && src.name != uncounted:
			errs = append(errs, field.Forbidden(fldPath.Child(src.name), "may not specify more than 1 volume type"))
		default:
			n++
			if src.validate != nil {
				errs = append(errs, src.validate(fldPath.Child(src.name))...)
			}
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(fldPath, "must specify a volume type"))
	}
	return errs
}

// validateHostPathSource is the apiserver's validateHostPathVolumeSource, for pods' and persistent
// volumes' hostPath.
func validateHostPathSource(hp *corev1.HostPathVolumeSource, p *field.Path) field.ErrorList {
	if hp.Path == "" {
		return field.ErrorList{field.Required(p.Child("path"), "")}
	}
	errs := validateNoBacksteps(hp.Path, p.Child("path"))
	if t := hp.Type; t != nil {
		errs = append(errs, validateOptionalEnum(*t, p.Child("type"), []corev1.HostPathType{corev1.HostPathUnset, corev1.HostPathBlockDev,
			corev1.HostPathCharDev, corev1.HostPathDirectory, corev1.HostPathDirectoryOrCreate, corev1.HostPathFile, corev1.HostPathFileOrCreate, corev1.HostPathSocket})...)
	}
	return errs
}

// validateNFSSource is the apiserver's validateNFSVolumeSource: a server and an absolute path.
func validateNFSSource(nfs *corev1.NFSVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if nfs.Server == "" {
		errs = append(errs, field.Required(p.Child("server"), ""))
	}
	if nfs.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	if !path.IsAbs(nfs.Path) {
		errs = append(errs, field.Invalid(p.Child("path"), nfs.Path, "must be an absolute path"))
	}
	return errs
}

// validateCSIDriverName is the apiserver's ValidateCSIDriverName.
func validateCSIDriverName(driver string, p *field.Path) field.ErrorList {
	if driver == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(driver) > 63 {
		errs = append(errs, field.TooLong(p, "", 63))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(driver)) {
		errs = append(errs, field.Invalid(p, driver, msg))
	}
	return errs
}

// validateItemsSource is the apiserver's validation of a secret or config map volume: the object's
// name (under the field name given), the default mode, the items.
func validateItemsSource(name, nameField string, mode *int32, items []corev1.KeyToPath, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child(nameField), ""))
	}
	errs = append(errs, validateFileMode(mode, p.Child("defaultMode"))...)
	for i := range items {
		errs = append(errs, validateKeyToPath(&items[i], p.Child("items").Index(i))...)
	}
	return errs
}

// validateFileMode is a file mode within 0 and 0777, when set.
func validateFileMode(mode *int32, p *field.Path) field.ErrorList {
	if mode != nil && (*mode > 0777 || *mode < 0) {
		return field.ErrorList{field.Invalid(p, *mode, fileModeMessage)}
	}
	return nil
}

// validateKeyToPath is the apiserver's validateKeyToPath: a key, a local path, a mode.
func validateKeyToPath(kp *corev1.KeyToPath, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if kp.Key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	}
	if kp.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	errs = append(errs, validateLocalNonReservedPath(kp.Path, p.Child("path"))...)
	return append(errs, validateFileMode(kp.Mode, p.Child("mode"))...)
}

// validateLocalNonReservedPath is the apiserver's ValidateLocalNonReservedPath: relative, without
// "..", not starting with "..".
func validateLocalNonReservedPath(target string, p *field.Path) field.ErrorList {
	errs := validateLocalDescendingPath(target, p)
	if strings.HasPrefix(target, "..") && !strings.HasPrefix(target, "../") {
		errs = append(errs, field.Invalid(p, target, "must not start with '..'"))
	}
	return errs
}

// The downward API's field paths a volume and an environment variable may name.
var (
	volumeFieldPaths = sets.New("metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid")
	envFieldPaths    = sets.New("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
		"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
	// downwardFieldLabels are the pod field paths the apiserver converts (ConvertDownwardAPIFieldLabel).
	downwardFieldLabels = sets.New("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
		"spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName", "status.phase", "status.hostIP",
		"status.hostIPs", "status.podIP", "status.podIPs")
	// resourceFieldPaths are the resources a resourceFieldRef may name, besides hugepages.
	resourceFieldPaths = sets.New("limits.cpu", "limits.memory", "limits.ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage")
)

// validateDownwardAPIFile is the apiserver's validateDownwardAPIVolumeFile.
func validateDownwardAPIFile(f *corev1.DownwardAPIVolumeFile, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if f.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	errs = append(errs, validateLocalNonReservedPath(f.Path, p.Child("path"))...)
	switch {
	case f.FieldRef != nil:
		errs = append(errs, validateFieldSelector(f.FieldRef, volumeFieldPaths, p.Child("fieldRef"))...)
		if f.ResourceFieldRef != nil {
			errs = append(errs, field.Invalid(p, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	case f.ResourceFieldRef != nil:
		errs = append(errs, validateResourceFieldSelector(f.ResourceFieldRef, true, p.Child("resourceFieldRef"))...)
	default:
		errs = append(errs, field.Required(p, "one of fieldRef and resourceFieldRef is required"))
	}
	return append(errs, validateFileMode(f.Mode, p.Child("mode"))...)
}

// splitSubscript splits a field path with a subscript ("metadata.labels['app']") into the path and
// the subscript (the apiserver's fieldpath.SplitMaybeSubscriptedPath).
func splitSubscript(fieldPath string) (string, string, bool) {
	s, ok := strings.CutSuffix(fieldPath, "']")
	if !ok {
		return fieldPath, "", false
	}
	parts := strings.SplitN(s, "['", 2)
	if len(parts) < 2 || parts[0] == "" {
		return fieldPath, "", false
	}
	return parts[0], parts[1], true
}

// validateFieldSelector is the apiserver's validateObjectFieldSelector: an API version (v1), a
// field path the apiserver converts and the context allows, a label or annotation subscript.
func validateFieldSelector(fs *corev1.ObjectFieldSelector, allowed sets.Set[string], p *field.Path) field.ErrorList {
	if fs.APIVersion == "" {
		return field.ErrorList{field.Required(p.Child("apiVersion"), "")}
	}
	if fs.FieldPath == "" {
		return field.ErrorList{field.Required(p.Child("fieldPath"), "")}
	}
	fieldPath := fs.FieldPath
	var convErr string
	pathPart, subscript, subscripted := splitSubscript(fieldPath)
	switch {
	case fs.APIVersion != "v1":
		convErr = "unsupported pod version: " + fs.APIVersion
	case subscripted && pathPart != "metadata.annotations" && pathPart != "metadata.labels":
		convErr = "field label does not support subscript: " + fieldPath
	case subscripted:
	case fieldPath == "spec.host":
		// Old v1 clients' name for spec.nodeName.
		fieldPath, pathPart = "spec.nodeName", "spec.nodeName"
	case !downwardFieldLabels.Has(fieldPath):
		convErr = "field label not supported: " + fieldPath
	}
	if convErr != "" {
		return field.ErrorList{field.Invalid(p.Child("fieldPath"), fs.FieldPath, "error converting fieldPath: "+convErr)}
	}
	switch {
	case subscripted && pathPart == "metadata.annotations":
		return validateQualifiedName(strings.ToLower(subscript), p)
	case subscripted:
		return validateQualifiedName(subscript, p)
	case !allowed.Has(pathPart):
		return field.ErrorList{field.NotSupported(p.Child("fieldPath"), pathPart, sets.List(allowed))}
	}
	return nil
}

// validateResourceFieldSelector is the apiserver's validateContainerResourceFieldSelector: a
// container name for a volume, a known resource, a divisor the resource allows.
func validateResourceFieldSelector(fs *corev1.ResourceFieldSelector, volume bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	hugepages := strings.HasPrefix(fs.Resource, "requests.hugepages-") || strings.HasPrefix(fs.Resource, "limits.hugepages-")
	switch {
	case volume && fs.ContainerName == "":
		errs = append(errs, field.Required(p.Child("containerName"), ""))
	case fs.Resource == "":
		errs = append(errs, field.Required(p.Child("resource"), ""))
	case !resourceFieldPaths.Has(fs.Resource) && !hugepages:
		errs = append(errs, field.NotSupported(p.Child("resource"), fs.Resource, sets.List(resourceFieldPaths)))
	}
	if fs.Divisor.IsZero() {
		return errs
	}
	const sizes = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"
	sizeDivisors := sets.New(strings.Split(sizes, ", ")...)
	d := fs.Divisor.String()
	var kind string
	switch fs.Resource {
	case "limits.cpu", "requests.cpu":
		if d != "1m" && d != "1" {
			errs = append(errs, field.Invalid(p.Child("divisor"), fs.Resource, "only divisor's values 1m and 1 are supported with the cpu resource"))
		}
	case "limits.memory", "requests.memory":
		kind = "memory"
	case "limits.ephemeral-storage", "requests.ephemeral-storage":
		kind = "local ephemeral storage"
	}
	if hugepages {
		kind = "hugepages"
	}
	if kind != "" && !sizeDivisors.Has(d) {
		errs = append(errs, field.Invalid(p.Child("divisor"), fs.Resource, fmt.Sprintf("only divisor's values %s are supported with the %s resource", sizes, kind)))
	}
	return errs
}

// validateProjectedSource is the apiserver's validateProjectedVolumeSource for its secret, config
// map, downward API and service account token sources: one each, their names and items, paths
// unique across sources, token expirations of 10 minutes to 2^32 seconds.
func validateProjectedSource(v *corev1.ProjectedVolumeSource, p *field.Path) field.ErrorList {
	errs := validateFileMode(v.DefaultMode, p.Child("defaultMode"))
	paths := sets.New[string]()
	// unique reports a second use of a path, with the value the apiserver prints.
	unique := func(path string, value string) {
		if paths.Has(path) {
			errs = append(errs, field.Invalid(p, value, "conflicting duplicate paths"))
		}
		paths.Insert(path)
	}
	for i, src := range v.Sources {
		sp := p.Child("sources").Index(i)
		n := 0
		items := func(name string, kind string, list []corev1.KeyToPath) {
			n++
			kp := sp.Child(kind)
			if name == "" {
				errs = append(errs, field.Required(kp.Child("name"), ""))
			}
			for j := range list {
				errs = append(errs, validateKeyToPath(&list[j], kp.Child("items").Index(j))...)
				if list[j].Path != "" {
					unique(list[j].Path, name)
				}
			}
		}
		if s := src.Secret; s != nil {
			items(s.Name, "secret", s.Items)
		}
		if c := src.ConfigMap; c != nil {
			items(c.Name, "configMap", c.Items)
		}
		if d := src.DownwardAPI; d != nil {
			n++
			for j := range d.Items {
				errs = append(errs, validateDownwardAPIFile(&d.Items[j], sp.Child("downwardAPI"))...)
				if d.Items[j].Path != "" {
					unique(d.Items[j].Path, d.Items[j].Path)
				}
			}
		}
		if t := src.ServiceAccountToken; t != nil {
			n++
			tp := sp.Child("serviceAccountToken")
			switch exp := t.ExpirationSeconds; {
			case exp == nil:
				errs = append(errs, field.Required(tp.Child("expirationSeconds"), ""))
			case *exp < 10*60:
				errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *exp, "may not specify a duration less than 10 minutes"))
			case *exp > 1<<32:
				errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *exp, "may not specify a duration larger than 2^32 seconds"))
			}
			// The apiserver's path of the token's path is the volume's.
			if t.Path == "" {
				errs = append(errs, field.Required(p.Child("path"), ""))
			} else {
				errs = append(errs, validateLocalNonReservedPath(t.Path, p.Child("path"))...)
			}
		}
		if src.ClusterTrustBundle != nil {
			n++
		}
		if src.PodCertificate != nil {
			n++
		}
		if n > 1 {
			errs = append(errs, field.Forbidden(sp, "may not specify more than 1 volume type per source"))
		}
	}
	return errs
}

// validateProjectedTokens is the apiserver's rule for pods (not templates) that a projected
// service account token needs a service account.
func validateProjectedTokens(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	if spec.ServiceAccountName != "" {
		return nil
	}
	var errs field.ErrorList
	for i, v := range spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for j, src := range v.Projected.Sources {
			if src.ServiceAccountToken != nil {
				errs = append(errs, field.Forbidden(fldPath.Child("volumes").Index(i).Child("projected", "sources").Index(j).Child("serviceAccountToken"),
					"must not be specified when serviceAccountName is not set"))
			}
		}
	}
	return errs
}
