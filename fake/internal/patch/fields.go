package patch

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// resetFields are the fields whose changes the resource's strategy throws away, so that no
// manager is recorded as owning them: the apiserver's strategies reset status on the main
// resource and spec on the status subresource; some also reset metadata on the status
// subresource. The table holds the exceptions the 1.37 strategies declare (GetResetFields); a
// kind without a status field resets nothing on the main resource.
func resetFields(gvk schema.GroupVersionKind, subresource string, hasStatus bool) map[fieldpath.APIVersion]fieldpath.Filter {
	var paths []fieldpath.Path
	switch {
	case gvk.GroupKind() == csrKind:
		paths = csrResetFields[subresource]
	case subresource == "" || subresource == "finalize": // a namespace's finalize writes all but status, as its main resource
		if !hasStatus {
			return nil
		}
		paths = []fieldpath.Path{fieldpath.MakePathOrDie("status")}
	case subresource == "status":
		paths = []fieldpath.Path{fieldpath.MakePathOrDie("spec")}
		if extra, ok := statusResetMetadata[gvk.GroupKind()]; ok {
			paths = append(paths, extra...)
		}
	default:
		return nil
	}
	return fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(gvk.GroupVersion().String()): fieldpath.NewSet(paths...),
	})
}

// csrKind is CertificateSigningRequest, whose strategies reset more than the others: no write
// changes its spec (the create's is the requester's), the main resource none of its status, the
// status subresource not its conditions, the approval subresource not its certificate.
var csrKind = schema.GroupKind{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}

// csrResetFields are the CSR strategies' reset fields by subresource.
var csrResetFields = map[string][]fieldpath.Path{
	"":         {fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("status")},
	"status":   {fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("status", "conditions")},
	"approval": {fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("status", "certificate")},
}

// statusResetMetadata lists, per kind, the metadata a status write cannot change (beyond spec).
var statusResetMetadata = func() map[schema.GroupKind][]fieldpath.Path {
	all := []fieldpath.Path{fieldpath.MakePathOrDie("metadata")}
	m := map[schema.GroupKind][]fieldpath.Path{
		{Group: "apps", Kind: "Deployment"}: {fieldpath.MakePathOrDie("metadata", "labels")},
		{Group: "", Kind: "Pod"}: {
			fieldpath.MakePathOrDie("metadata", "deletionTimestamp"),
			fieldpath.MakePathOrDie("metadata", "ownerReferences"),
		},
	}
	for _, gk := range []schema.GroupKind{
		{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"},
		{Group: "internal.apiserver.k8s.io", Kind: "StorageVersion"},
		{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"},
		{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"},
		{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"},
		{Group: "networking.k8s.io", Kind: "ServiceCIDR"},
		{Group: "resource.k8s.io", Kind: "DeviceTaintRule"},
		{Group: "resource.k8s.io", Kind: "ResourceClaim"},
		{Group: "storage.k8s.io", Kind: "VolumeAttachment"},
		{Group: "storagemigration.k8s.io", Kind: "StorageVersionMigration"},
	} {
		m[gk] = all
	}
	return m
}()

// hasStatus reports whether the kind's Go type has a top-level status field.
func hasStatus(scheme *runtime.Scheme, gvk schema.GroupVersionKind) bool {
	t, ok := scheme.AllKnownTypes()[gvk]
	if !ok {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	_, ok = t.FieldByName("Status")
	return ok
}
