package fake_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"

	"github.com/watchcache/watchcache/fake"
)

// stubValidator records what the fake hands a CustomResourceValidator and rejects a widget whose
// spec.size is "bad" and a CRD whose group starts with "rejected".
type stubValidator struct {
	mu       sync.Mutex
	versions []string
	writes   []string
	crds     []string
}

func (s *stubValidator) ValidateCRD(_ context.Context, crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.crds = append(s.crds, crd.Name+" old="+boolString(old != nil))
	if strings.HasPrefix(crd.Spec.Group, "rejected") {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "group"), crd.Spec.Group, "rejected by the plug-in")}
	}
	return nil
}

func (s *stubValidator) ForVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) fake.VersionValidator {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions = append(s.versions, crd.Name+"/"+version)
	return stubVersion{s}
}

type stubVersion struct{ s *stubValidator }

func (v stubVersion) Validate(_ context.Context, w fake.CustomResourceWrite) field.ErrorList {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	size, _, _ := unstructured.NestedString(w.Object.Object, "spec", "size")
	v.s.writes = append(v.s.writes, string(w.Operation)+" "+w.Subresource+" old="+boolString(w.Old != nil)+" size="+size)
	if size == "bad" {
		return field.ErrorList{
			field.Invalid(field.NewPath("spec", "size"), size, "second"),
			field.Forbidden(field.NewPath("spec", "color"), "first"),
		}
	}
	return nil
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestCustomResourceValidator: the plug-in sees every write of a custom resource (create,
// update, patch, apply, the status and scale subresources) with the old object on updates, in
// place of the fake's schema validation, and its errors are the 422's causes in its order; it
// validates CRD creates and updates too.
func TestCustomResourceValidator(t *testing.T) {
	ctx := context.Background()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(strings.ReplaceAll(widgetCRD, "{g}", "env.example.com")), &crd); err != nil {
		t.Fatal(err)
	}
	stub := &stubValidator{}
	srv := fake.NewTest(t, fake.Options{CRDs: []*apiextensionsv1.CustomResourceDefinition{&crd}, CustomResourceValidator: stub})
	dc := dynamic.NewForConfigOrDie(srv.Config())
	ws := dc.Resource(widgets).Namespace("default")

	// An enum violation the fake's own validation rejects passes: the plug-in validates instead.
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"},
		"spec": map[string]any{"color": "purple", "size": "a"},
	}}
	got, err := ws.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	_ = unstructured.SetNestedField(got.Object, "b", "spec", "size")
	if got, err = ws.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
	_ = unstructured.SetNestedField(got.Object, int64(2), "status", "replicas")
	if _, err = ws.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("status: %v", err)
	}
	if _, err = ws.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"size":"c"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch: %v", err)
	}
	if _, err = ws.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{}, "scale"); err != nil {
		t.Fatalf("scale: %v", err)
	}
	apply := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w2"},
		"spec": map[string]any{"color": "red", "size": "d"},
	}}
	if _, err = ws.Apply(ctx, "w2", apply, metav1.ApplyOptions{FieldManager: "m"}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	_, err = ws.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"size":"bad"}}`), metav1.PatchOptions{})
	var st apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !asStatus(err, &st) {
		t.Fatalf("patch to a rejected state: %v, want 422", err)
	}
	causes := st.Status().Details.Causes
	if len(causes) != 2 || causes[0].Field != "spec.size" || causes[1].Field != "spec.color" {
		t.Errorf("causes %+v: want the plug-in's, spec.size then spec.color", causes)
	}
	want := []string{
		"CREATE  old=false size=a",
		"UPDATE  old=true size=b",
		"UPDATE status old=true size=b",
		"UPDATE  old=true size=c",
		"UPDATE  old=true size=c", // the scale subresource writes the main resource
		"CREATE  old=false size=d",
		"UPDATE  old=true size=bad",
	}
	if strings.Join(stub.writes, "\n") != strings.Join(want, "\n") {
		t.Errorf("writes the plug-in saw:\n%s\nwant:\n%s", strings.Join(stub.writes, "\n"), strings.Join(want, "\n"))
	}
	if len(stub.versions) == 0 || stub.versions[0] != "widgets.env.example.com/v1" {
		t.Errorf("versions compiled %v, want widgets.env.example.com/v1 first", stub.versions)
	}

	bad := crd.DeepCopy()
	bad.Name, bad.Spec.Group = "widgets.rejected.example.com", "rejected.example.com"
	u, _ := toUnstructured(bad)
	_, err = dc.Resource(crds).Create(ctx, u, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "rejected by the plug-in") {
		t.Errorf("CRD create: %v, want the plug-in's 422", err)
	}
	cur, err := dc.Resource(crds).Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedStringSlice(cur.Object, []string{"wd", "wdg"}, "spec", "names", "shortNames")
	if _, err := dc.Resource(crds).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("CRD update: %v", err)
	}
	wantCRDs := "widgets.env.example.com old=false,widgets.rejected.example.com old=false,widgets.env.example.com old=true"
	if got := strings.Join(stub.crds, ","); got != wantCRDs {
		t.Errorf("CRD writes the plug-in saw %s, want %s", got, wantCRDs)
	}
}

func asStatus(err error, st *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	*st = s
	return ok
}

func toUnstructured(v any) (*unstructured.Unstructured, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	return u, u.UnmarshalJSON(b)
}
