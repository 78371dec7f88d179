package fake

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	openapiv2 "k8s.io/apiextensions-apiserver/pkg/controller/openapi/v2"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/watchcache/watchcache/kubeapi"
)

// crdModel is what /openapi/v3 and /openapi/v2 publish of a CRD version, as the apiextensions
// apiserver's builder derives it from the version's structural schema: unfolded (an
// int-or-string field as its anyOf), for v2 converted by apiextensions' own ToStructuralOpenAPIV2
// and without defaults (its v2 controller prunes them to merge with the built-in document), and
// in v2 a bare object when the root preserves unknown fields, because kubectl would otherwise
// refuse every field the schema does not list. kubeapi adds apiVersion, kind, metadata and the
// paths.
func crdModel(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion, vs *versionSchema) *kubeapi.Model {
	m := &kubeapi.Model{}
	for _, f := range v.SelectableFields {
		m.SelectableFields = append(m.SelectableFields, strings.TrimPrefix(f.JSONPath, "."))
	}
	if vs == nil || vs.structural == nil {
		return m
	}
	// Unfold rewrites the schema it is given; the version's own serves pruning, defaulting and
	// server-side apply.
	unfolded := vs.structural.DeepCopy().Unfold()
	m.V3 = unfolded.ToKubeOpenAPI()
	if !unfolded.XPreserveUnknownFields && !crd.Spec.PreserveUnknownFields {
		m.V2 = openapiv2.ToStructuralOpenAPIV2(unfolded).ToKubeOpenAPI()
		pruneDefaults(m.V2)
	}
	return m
}

// pruneDefaults removes every default of a schema, in place.
func pruneDefaults(s *spec.Schema) {
	eachSchema(s, func(n *spec.Schema) { n.Default = nil })
}

// eachSchema calls fn on s and, depth first, on every schema below it (properties, items,
// additionalProperties, allOf, anyOf, oneOf, not), each in place.
func eachSchema(s *spec.Schema, fn func(*spec.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for k, p := range s.Properties {
		eachSchema(&p, fn)
		s.Properties[k] = p
	}
	if s.Items != nil {
		eachSchema(s.Items.Schema, fn)
		for i := range s.Items.Schemas {
			eachSchema(&s.Items.Schemas[i], fn)
		}
	}
	if s.AdditionalProperties != nil {
		eachSchema(s.AdditionalProperties.Schema, fn)
	}
	for _, list := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			eachSchema(&list[i], fn)
		}
	}
	eachSchema(s.Not, fn)
}
