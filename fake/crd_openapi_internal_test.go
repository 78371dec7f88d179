package fake

import (
	"encoding/json"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestCRDModelLeavesSchema: publishing a version's OpenAPI leaves the structural schema that
// pruning, defaulting and server-side apply use as it was (apiextensions' Unfold rewrites the
// schema it is given), while the published v3 schema has int-or-string unfolded.
func TestCRDModelLeavesSchema(t *testing.T) {
	var v apiextensionsv1.CustomResourceValidation
	if err := json.Unmarshal([]byte(`{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"n":{"x-kubernetes-int-or-string":true}}}}}}`), &v); err != nil {
		t.Fatal(err)
	}
	vs, err := compileSchema(&v)
	if err != nil {
		t.Fatal(err)
	}
	before := vs.structural.DeepCopy()
	m := crdModel(&apiextensionsv1.CustomResourceDefinition{}, apiextensionsv1.CustomResourceDefinitionVersion{}, vs)
	if !reflect.DeepEqual(before, vs.structural) {
		t.Error("the version's structural schema changed")
	}
	if n := m.V3.Properties["spec"].Properties["n"]; len(n.AnyOf) != 2 {
		t.Errorf("published int-or-string %+v: want its anyOf of integer and string", n)
	}
}
