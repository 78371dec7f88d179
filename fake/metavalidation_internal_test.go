package fake

import (
	"reflect"
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// metaCases are object metadata valid and invalid in each field ObjectMeta's validation checks.
func metaCases() map[string]metav1.ObjectMeta {
	long := strings.Repeat("a", 300)
	now := metav1.NewTime(time.Unix(1700000000, 0))
	return map[string]metav1.ObjectMeta{
		"valid":              {Name: "c", Namespace: "default", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"x/y": "z"}},
		"no name":            {Namespace: "default"},
		"generateName":       {GenerateName: "c-", Namespace: "default"},
		"bad generateName":   {GenerateName: "C_", Name: "c", Namespace: "default"},
		"bad name":           {Name: "C_" + long, Namespace: "default"},
		"no namespace":       {Name: "c"},
		"bad namespace":      {Name: "c", Namespace: "Default"},
		"negative gen":       {Name: "c", Namespace: "default", Generation: -1},
		"bad labels":         {Name: "c", Namespace: "default", Labels: map[string]string{"a b": long}},
		"bad annotations":    {Name: "c", Namespace: "default", Annotations: map[string]string{"a b": "c", "big": strings.Repeat("v", 300000)}},
		"bad owners":         {Name: "c", Namespace: "default", OwnerReferences: []metav1.OwnerReference{{Name: "o"}, {APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u", Controller: ptr.To(true)}, {APIVersion: "v1", Kind: "Pod", Name: "q", UID: "v", Controller: ptr.To(true)}}},
		"bad finalizers":     {Name: "c", Namespace: "default", Finalizers: []string{"a b", metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents}},
		"bad managedFields":  {Name: "c", Namespace: "default", ManagedFields: []metav1.ManagedFieldsEntry{{}, {Operation: "Patch", FieldsType: "FieldsV2", Manager: long, Subresource: long}}},
		"good managedFields": {Name: "c", Namespace: "default", ManagedFields: []metav1.ManagedFieldsEntry{{Operation: "Update", FieldsType: "FieldsV1", Manager: "m"}}},
		"same instant":       {Name: "c", Namespace: "default", UID: "u", ResourceVersion: "3", Generation: 2, CreationTimestamp: metav1.NewTime(time.Unix(1600000000, 0).UTC()), DeletionTimestamp: &metav1.Time{Time: time.Unix(1600000000, 0).In(time.FixedZone("x", 3600))}, DeletionGracePeriodSeconds: ptr.To[int64](0)},
		"changed":            {Name: "d", Namespace: "other", UID: "u2", ResourceVersion: "", Generation: 1, CreationTimestamp: now, DeletionTimestamp: &now, DeletionGracePeriodSeconds: ptr.To[int64](3), Finalizers: []string{"new.example.com/f"}},
	}
}

// TestValidateMetaAsApimachinery checks validateMeta and validateMetaUpdate against the
// apimachinery functions they repeat with shared paths, on metadata valid and invalid in each
// field: the same errors, in the same order, nil when valid.
func TestValidateMetaAsApimachinery(t *testing.T) {
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cases := metaCases()
	now := metav1.NewTime(time.Unix(1600000000, 0))
	old := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", UID: "u", ResourceVersion: "3", Generation: 2, CreationTimestamp: now, DeletionTimestamp: &now, Finalizers: []string{"a.example.com/f"}}}
	for _, res := range []string{"/v1/configmaps", "/v1/namespaces", "certificates.k8s.io/v1/clustertrustbundles"} {
		r := s.res[res]
		if r == nil {
			t.Fatalf("no resource %s", res)
		}
		for name, m := range cases {
			var obj metav1Object = &corev1.ConfigMap{ObjectMeta: m}
			names := nameValidator(r.resourceType)
			if strings.Contains(res, "clustertrustbundles") {
				b := &certificatesv1.ClusterTrustBundle{ObjectMeta: m, Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/s"}}
				obj, names = b, trustBundleName(b.Spec.SignerName)
			}
			want := apimachineryvalidation.ValidateObjectMetaAccessor(obj, r.namespaced, names, field.NewPath("metadata"))
			if got := validateMeta(r.resourceType, obj); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: create errors\n%v\nwant\n%v", res, name, got, want)
			}
			want = apimachineryvalidation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
			if got := validateMetaUpdate(obj, old); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: update errors\n%v\nwant\n%v", res, name, got, want)
			}
			if name == "valid" && res == "/v1/configmaps" && validateMeta(r.resourceType, obj) != nil {
				t.Errorf("%s: valid metadata has create errors", res)
			}
		}
	}
}

// TestValidateMetaPaths checks that the validation of valid metadata builds no path and boxes no
// unchanged field: a create's and an update's of a ConfigMap allocate only what the validation of
// its labels does.
func TestValidateMetaPaths(t *testing.T) {
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.res["/v1/configmaps"]
	m := metav1.ObjectMeta{Name: "c", Namespace: "default", UID: "u", ResourceVersion: "3", Labels: map[string]string{"a": "b"}}
	cm, old := &corev1.ConfigMap{ObjectMeta: m}, &corev1.ConfigMap{ObjectMeta: m}
	base := testing.AllocsPerRun(100, func() { _ = metav1validation.ValidateLabels(m.Labels, metaPaths.labels) })
	if n := testing.AllocsPerRun(100, func() {
		if errs := validateMeta(r.resourceType, cm); errs != nil {
			t.Fatal(errs)
		}
	}); n != base {
		t.Errorf("validating valid metadata allocates %v times, its labels %v", n, base)
	}
	if n := testing.AllocsPerRun(100, func() {
		if errs := validateMetaUpdate(cm, old); errs != nil {
			t.Fatal(errs)
		}
	}); n != base {
		t.Errorf("validating valid metadata's update allocates %v times, its labels %v", n, base)
	}
}
