package kubeapi

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/watchcache/watchcache/watchcache"
)

// TestOperationIDAndTags pins k8s.io/apiserver's GetOperationIDAndTags for the operation names
// apiextensions gives a CRD's routes (the shortest verb prefix: deletecollection is delete +
// collection).
func TestOperationIDAndTags(t *testing.T) {
	for _, tc := range []struct{ op, path, id, tag string }{
		{"listNamespacedWidget", "/apis/env.example.com/v1/namespaces/{namespace}/widgets", "listEnvExampleComV1NamespacedWidget", "envExampleCom_v1"},
		{"deletecollectionWidget", "/apis/env.example.com/v1/widgets", "deleteEnvExampleComV1CollectionWidget", "envExampleCom_v1"},
		{"readGadgetScale", "/apis/x.k8s.io/v2beta1/gadgets/{name}/scale", "readXV2beta1GadgetScale", "x_v2beta1"},
		{"listWidgetForAllNamespaces", "/apis/a-b.example.com/v1/widgets", "listABExampleComV1WidgetForAllNamespaces", "aBExampleCom_v1"},
	} {
		id, tags := operationIDAndTags(tc.op, tc.path)
		if id != tc.id || len(tags) != 1 || tags[0] != tc.tag {
			t.Errorf("%s %s: %s %v, want %s [%s]", tc.op, tc.path, id, tags, tc.id, tc.tag)
		}
	}
}

// TestCustomModelFollowsRegistrations: a resource with a Model is in /openapi/v3 and /openapi/v2
// while registered, cluster-scoped resources have no namespaced paths, a nil V2 is a bare object,
// and unregistering takes it all away. (The documents' bytes are compared with the apiserver's by
// fake's TestCRDOpenAPIAsRecorded.)
func TestCustomModelFollowsRegistrations(t *testing.T) {
	s := NewServer(Options{})
	info := ResourceInfo{Group: "g.example.com", Version: "v1", Resource: "gadgets", Kind: "Gadget", Unstructured: true,
		Model: &Model{V3: &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"},
			Properties: map[string]spec.Schema{"spec": {SchemaProps: spec.SchemaProps{Type: []string{"object"}}}}}}}}
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Group: info.Group, Name: info.Resource}})
	t.Cleanup(c.Stop)
	if err := s.Register(info, c); err != nil {
		t.Fatal(err)
	}
	doc := s.openAPI()
	v3 := doc.v3["apis/g.example.com/v1"]
	if v3 == nil {
		t.Fatal("no v3 document for apis/g.example.com/v1")
	}
	paths := gjson.GetBytes(v3.json, "paths").Map()
	for _, p := range []string{"/apis/g.example.com/v1/gadgets", "/apis/g.example.com/v1/gadgets/{name}"} {
		if _, ok := paths[p]; !ok {
			t.Errorf("v3: no path %s", p)
		}
	}
	for p := range paths {
		if strings.Contains(p, "namespaces") || strings.HasSuffix(p, "/status") {
			t.Errorf("v3: path %s of a cluster-scoped resource without subresources", p)
		}
	}
	if got := gjson.GetBytes(v3.json, `paths.\/apis\/g\.example\.com\/v1\/gadgets.get.operationId`).Str; got != "listGExampleComV1Gadget" {
		t.Errorf("v3: list operationId %q", got)
	}
	if !strings.Contains(string(doc.idx), `"apis/g.example.com/v1":{"serverRelativeURL":"/openapi/v3/apis/g.example.com/v1?hash=`+v3.etag+`"}`) {
		t.Errorf("index %s", doc.idx)
	}
	if got := gjson.GetBytes(doc.v2.json, `definitions.com\.example\.g\.v1\.Gadget`).Raw; got != `{"type":"object","x-kubernetes-group-version-kind":[{"group":"g.example.com","kind":"Gadget","version":"v1"}]}` {
		t.Errorf("v2 definition with a nil V2: %s", got)
	}
	if !gjson.GetBytes(doc.v2.json, `paths.\/apis\/g\.example\.com\/v1\/gadgets\/\{name\}`).Exists() {
		t.Error("v2: no object path")
	}
	if err := s.Unregister(info.Group, info.Version, info.Resource); err != nil {
		t.Fatal(err)
	}
	doc = s.openAPI()
	if doc.v3["apis/g.example.com/v1"] != nil {
		t.Error("v3 document after Unregister")
	}
	if strings.Contains(string(doc.idx), "g.example.com") {
		t.Errorf("index after Unregister: %s", doc.idx)
	}
	if i := strings.Index(string(doc.v2.json), "/apis/g.example.com/"); i >= 0 || strings.Contains(string(doc.v2.json), "com.example.g.v1") {
		t.Errorf("v2 after Unregister: …%s…", doc.v2.json[max(0, i-300):i+100])
	}
}
