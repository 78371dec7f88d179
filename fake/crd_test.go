package fake_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/watchcache"
)

var (
	widgets = schema.GroupVersionResource{Group: "env.example.com", Version: "v1", Resource: "widgets"}
	crds    = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// widgetYAML is the recorded cases' CRD (crd_cases_test.go) in group env.example.com, as a file
// of a kubebuilder project's config/crd/bases.
func widgetYAML(t testing.TB) []byte {
	t.Helper()
	b, err := yaml.JSONToYAML([]byte(strings.ReplaceAll(widgetCRD, "{g}", "env.example.com")))
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte("# a comment, then a document of another kind\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\n"), b...)
}

func startEnvironment(t *testing.T) (*fake.Environment, *dynamic.DynamicClient) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "env.example.com_widgets.yaml"), widgetYAML(t), 0o644); err != nil {
		t.Fatal(err)
	}
	env := &fake.Environment{CRDDirectoryPaths: []string{dir}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	return env, dynamic.NewForConfigOrDie(cfg)
}

// TestEnvironmentCRD: a CRD from a file is Established and its resource usable as soon as Start
// returns, and writes to the CRD and to custom resources keep managedFields.
func TestEnvironmentCRD(t *testing.T) {
	ctx := context.Background()
	env, dc := startEnvironment(t)
	crd, err := dc.Resource(crds).Get(ctx, "widgets.env.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	if len(conds) != 2 || !strings.Contains(toJSON(t, conds), `"type":"Established"`) {
		t.Fatalf("conditions %s, want NamesAccepted and Established", toJSON(t, conds))
	}
	if len(crd.GetManagedFields()) != 2 {
		t.Errorf("CRD managedFields %s: want the creator's and kube-apiserver's status entry", toJSON(t, crd.GetManagedFields()))
	}
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1"},
		"spec":     map[string]any{"color": "red", "maxUnavailable": "50%", "ports": []any{map[string]any{"name": "http", "port": int64(80)}}},
	}}
	got, err := dc.Resource(widgets).Namespace("default").Apply(ctx, "w1", w, metav1.ApplyOptions{FieldManager: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.GetManagedFields()) != 1 || !strings.Contains(toJSON(t, got.GetManagedFields()), `f:maxUnavailable`) {
		t.Fatalf("an int-or-string field holding a string lost managedFields: %s", toJSON(t, got.GetManagedFields()))
	}
	// A second manager's list-map entry merges by the key (the CRD's x-kubernetes-list-map-keys).
	patch := `{"apiVersion":"env.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"ports":[{"name":"https","port":443}]}}`
	got, err = dc.Resource(widgets).Namespace("default").Patch(ctx, "w1", types.ApplyPatchType, []byte(patch), metav1.PatchOptions{FieldManager: "b"})
	if err != nil {
		t.Fatal(err)
	}
	ports, _, _ := unstructured.NestedSlice(got.Object, "spec", "ports")
	if len(ports) != 2 {
		t.Fatalf("ports %s: want both managers' entries", toJSON(t, ports))
	}
	// Schema defaults on create; the selectable field selects.
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 1 {
		t.Errorf("spec.replicas %d, want the default 1", r)
	}
	if res := env.Server.Resources(); !slices.Contains(res, widgets) {
		t.Errorf("Resources() lacks %v", widgets)
	}
	if idx := env.Server.Cache(widgets).Indexes(); !slices.Contains(idx, watchcache.FieldIndex("spec.color")) {
		t.Errorf("indexes %v: want the selectable field spec.color's", idx)
	}
	list, err := dc.Resource(widgets).Namespace("default").List(ctx, metav1.ListOptions{FieldSelector: "spec.color=blue"})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("spec.color=blue: %v items, %v", len(list.Items), err)
	}
	list, err = dc.Resource(widgets).Namespace("default").List(ctx, metav1.ListOptions{FieldSelector: "spec.color=red"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("spec.color=red: %v items, %v", len(list.Items), err)
	}
}

// TestCRDDeleteEndsWatches: deleting a CRD deletes its objects, ends their watches and stops
// serving the resource; a CRD created again serves it again, empty.
func TestCRDDeleteEndsWatches(t *testing.T) {
	ctx := context.Background()
	_, dc := startEnvironment(t)
	ns := dc.Resource(widgets).Namespace("default")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"color": "red"}}}
	if _, err := ns.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wi, err := ns.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer wi.Stop()
	<-wi.ResultChan() // the ADDED of w1
	crd, err := dc.Resource(crds).Get(ctx, "widgets.env.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dc.Resource(crds).Delete(ctx, crd.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(5 * time.Second)
	for done := false; !done; {
		select {
		case _, ok := <-wi.ResultChan():
			done = !ok
		case <-timeout:
			t.Fatal("the watch did not end")
		}
	}
	if _, err := ns.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("list after the CRD's deletion: %v, want NotFound", err)
	}
	if _, err := dc.Resource(crds).Get(ctx, crd.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("CRD after its deletion: %v, want NotFound", err)
	}
	crd.SetResourceVersion("")
	crd.SetUID("")
	crd.SetManagedFields(nil)
	if _, err := dc.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := ns.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("after re-creating the CRD: %d items, %v; want none", len(list.Items), err)
	}
}

// TestCRDUpdateVersions: a CRD update that stops serving a version stops serving it (its
// watches end) and keeps the others, with their objects.
func TestCRDUpdateVersions(t *testing.T) {
	ctx := context.Background()
	_, dc := startEnvironment(t)
	beta := schema.GroupVersionResource{Group: widgets.Group, Version: "v1beta1", Resource: widgets.Resource}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"color": "red"}}}
	if _, err := dc.Resource(widgets).Namespace("default").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := dc.Resource(beta).Namespace("default").Get(ctx, "w1", metav1.GetOptions{})
	if err != nil || got.GetAPIVersion() != "env.example.com/v1beta1" {
		t.Fatalf("w1 as v1beta1: %v, %v", got, err)
	}
	wi, err := dc.Resource(beta).Namespace("default").Watch(ctx, metav1.ListOptions{ResourceVersion: got.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer wi.Stop()
	crd, err := dc.Resource(crds).Get(ctx, "widgets.env.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	versions[1].(map[string]any)["served"] = false
	_ = unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")
	if _, err := dc.Resource(crds).Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-wi.ResultChan():
		if ok {
			t.Fatal("the v1beta1 watch got an event; want it ended")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the v1beta1 watch did not end")
	}
	if _, err := dc.Resource(beta).Namespace("default").Get(ctx, "w1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("v1beta1 after it stopped being served: %v, want NotFound", err)
	}
	if _, err := dc.Resource(widgets).Namespace("default").Get(ctx, "w1", metav1.GetOptions{}); err != nil {
		t.Fatalf("v1 after the update: %v", err)
	}
}

// TestScalePatch: kubectl scale's merge patch of the scale subresource, and a JSON patch, write
// the CRD's replicas path.
func TestScalePatch(t *testing.T) {
	ctx := context.Background()
	_, dc := startEnvironment(t)
	ns := dc.Resource(widgets).Namespace("default")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"color": "red"}}}
	if _, err := ns.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pt    types.PatchType
		patch string
		want  int64
	}{
		{types.MergePatchType, `{"spec":{"replicas":3}}`, 3},
		{types.JSONPatchType, `[{"op":"replace","path":"/spec/replicas","value":4}]`, 4},
	} {
		sc, err := ns.Patch(ctx, "w1", tc.pt, []byte(tc.patch), metav1.PatchOptions{}, "scale")
		if err != nil {
			t.Fatal(err)
		}
		if n, _, _ := unstructured.NestedInt64(sc.Object, "spec", "replicas"); n != tc.want || sc.GetKind() != "Scale" {
			t.Fatalf("%s: %s %d, want Scale %d", tc.pt, sc.GetKind(), n, tc.want)
		}
		got, err := ns.Get(ctx, "w1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); n != tc.want {
			t.Fatalf("%s: spec.replicas %d, want %d", tc.pt, n, tc.want)
		}
	}
	if _, err := ns.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"replicas":-1}}`), metav1.PatchOptions{}, "scale"); !apierrors.IsInvalid(err) {
		t.Fatalf("replicas -1: %v, want 422", err)
	}
}

// TestCloseEndsCustomWatches: Close ends the watches of custom resources at once, as those of
// built-in resources, and deletecollection deletes custom resources.
func TestCloseEndsCustomWatches(t *testing.T) {
	ctx := context.Background()
	env, dc := startEnvironment(t)
	ns := dc.Resource(widgets).Namespace("default")
	for _, name := range []string{"w1", "w2"} {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": name}, "spec": map[string]any{"color": "red"}}}
		if _, err := ns.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ns.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := env.Server.Cache(widgets).Len(); n != 0 {
		t.Fatalf("%d widgets after deletecollection, want 0", n)
	}
	wi, err := ns.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer wi.Stop()
	start := time.Now()
	_ = env.Stop()
	for range wi.ResultChan() {
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Stop took %v with a custom resource's watch open", d)
	}
}

// TestMergePatchUnknownFieldManaged: a merge patch with a field the schema does not know is
// pruned before its managedFields are recorded, so the fields it does change are owned by its
// manager (the field manager would otherwise fail on the unknown field and keep the old entries).
func TestMergePatchUnknownFieldManaged(t *testing.T) {
	ctx := context.Background()
	_, dc := startEnvironment(t)
	ns := dc.Resource(widgets).Namespace("default")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"color": "red"}}}
	if _, err := ns.Create(ctx, obj, metav1.CreateOptions{FieldManager: "creator"}); err != nil {
		t.Fatal(err)
	}
	got, err := ns.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"size":"big","bogus":1}}`), metav1.PatchOptions{FieldManager: "patcher"})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "bogus"); found {
		t.Error("spec.bogus was stored; want it pruned")
	}
	owned := false
	for _, e := range got.GetManagedFields() {
		if e.Manager == "patcher" && e.FieldsV1 != nil && strings.Contains(string(e.FieldsV1.Raw), `"f:size"`) {
			owned = true
		}
	}
	if !owned {
		t.Fatalf("managedFields %s: want spec.size owned by patcher", toJSON(t, got.GetManagedFields()))
	}
	if _, err := ns.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"bogus":1}}`), metav1.PatchOptions{FieldValidation: "Strict"}); !apierrors.IsBadRequest(err) {
		t.Fatalf("Strict merge patch with an unknown field: %v, want 400", err)
	}
}

// TestNamespaceDeletesCustomResources: the namespace controller deletes custom resources too.
func TestNamespaceDeletesCustomResources(t *testing.T) {
	ctx := context.Background()
	env, dc := startEnvironment(t)
	nsr := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "doomed"}}}
	if _, err := dc.Resource(nsr).Create(ctx, nsObj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"color": "red"}}}
	if _, err := dc.Resource(widgets).Namespace("doomed").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := dc.Resource(nsr).Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for env.Server.Cache(widgets).Len() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the namespace's custom resource was not deleted")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCRDPaths: envtest's path rules.
func TestCRDPaths(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for _, tc := range []struct {
		name    string
		env     fake.Environment
		wantErr bool
	}{
		{"missing path skipped", fake.Environment{CRDDirectoryPaths: []string{missing}}, false},
		{"missing path an error", fake.Environment{CRDDirectoryPaths: []string{missing}, ErrorIfCRDPathMissing: true}, true},
		{"invalid CRD", fake.Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{{ObjectMeta: metav1.ObjectMeta{Name: "x.example.com"}}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.env.Start()
			defer tc.env.Stop()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Start: %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := yaml.YAMLToJSON(b)
	return string(j)
}
