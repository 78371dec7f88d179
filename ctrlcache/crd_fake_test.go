package ctrlcache_test

import (
	"context"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/watchcache/watchcache/fake"
)

// gadgetCRD is a namespaced CRD with a status subresource, a defaulted and bounded spec field, a
// selectable field and a list-map.
func gadgetCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.ctrl.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "ctrl.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Kind: "Gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources:     &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				SelectableFields: []apiextensionsv1.SelectableField{{JSONPath: ".spec.tier"}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"tier":     str,
							"replicas": {Type: "integer", Minimum: ptr.To(0.0), Maximum: ptr.To(5.0), Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
							"ports": {Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"},
								Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
									Type: "object", Required: []string{"name"},
									Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str, "port": {Type: "integer"}}}}},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"ready": {Type: "boolean"}}},
					},
				}},
			}},
		},
	}
}

// TestControllerRuntimeClientOnFakeCRD runs controller-runtime's unstructured client against the
// fake with a CRD given as an object, as an envtest suite would: create (defaults), a field
// selector on the selectable field, server-side apply by two managers, the status subresource, the
// schema's 422, delete.
func TestControllerRuntimeClientOnFakeCRD(t *testing.T) {
	ctx := context.Background()
	env := &fake.Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{gadgetCRD()}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Stop()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.CloseIdleConnections()
	c, err := client.New(cfg, client.Options{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "ctrl.example.com", Version: "v1", Kind: "Gadget"}
	newGadget := func(name, tier string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"tier": tier}}}
		u.SetGroupVersionKind(gvk)
		u.SetName(name)
		u.SetNamespace("default")
		return u
	}
	g := newGadget("g1", "gold")
	if err := c.Create(ctx, g); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(g.Object, "spec", "replicas"); r != 1 {
		t.Errorf("spec.replicas %d after create, want the schema's default 1", r)
	}
	if err := c.Create(ctx, newGadget("g2", "silver")); err != nil {
		t.Fatal(err)
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind("GadgetList"))
	if err := c.List(ctx, list, client.InNamespace("default"), client.MatchingFields{"spec.tier": "silver"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].GetName() != "g2" {
		t.Fatalf("spec.tier=silver: %d items, want g2", len(list.Items))
	}
	for _, a := range []struct{ manager, port string }{{"a", "http"}, {"b", "https"}} {
		ap := newGadget("g1", "gold")
		_ = unstructured.SetNestedSlice(ap.Object, []any{map[string]any{"name": a.port, "port": int64(80)}}, "spec", "ports")
		if err := c.Patch(ctx, ap, client.Apply, client.FieldOwner(a.manager)); err != nil { //nolint:staticcheck // client.Apply with an unstructured object is the supported path for custom resources
			t.Fatal(err)
		}
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "g1"}, g); err != nil {
		t.Fatal(err)
	}
	if ports, _, _ := unstructured.NestedSlice(g.Object, "spec", "ports"); len(ports) != 2 {
		t.Fatalf("ports %v: want both managers' entries (list-map by name)", ports)
	}
	if gen := g.GetGeneration(); gen != 3 {
		t.Errorf("generation %d after two applies that changed the spec, want 3", gen)
	}
	_ = unstructured.SetNestedField(g.Object, true, "status", "ready")
	if err := c.Status().Update(ctx, g); err != nil {
		t.Fatal(err)
	}
	if gen := g.GetGeneration(); gen != 3 {
		t.Errorf("generation %d after a status update, want 3 (unchanged)", gen)
	}
	if ready, _, _ := unstructured.NestedBool(g.Object, "status", "ready"); !ready {
		t.Errorf("status.ready not stored by the status subresource")
	}
	_ = unstructured.SetNestedField(g.Object, int64(9), "spec", "replicas")
	if err := c.Update(ctx, g); !apierrors.IsInvalid(err) {
		t.Fatalf("replicas 9 > maximum 5: %v, want 422 Invalid", err)
	}
	if err := c.Delete(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "g1"}, g); !apierrors.IsNotFound(err) {
		t.Fatalf("after delete: %v, want NotFound", err)
	}
}
