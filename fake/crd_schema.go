package fake

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// What the apiextensions apiserver does to a custom resource with its version's structural
// schema: prune unknown fields (reporting each as the apiserver's warning or, under
// fieldValidation=Strict, its 400), fill in defaults, and validate with kube-openapi's validator,
// whose results become the apiserver's 422 causes. apiextensions' own validation and defaulting
// packages are not used: they import k8s.io/apiserver (CEL, feature gates), which the fake
// does not depend on. x-kubernetes-validations (CEL rules) are therefore not evaluated here;
// Options.CustomResourceValidator (fake/crdcel) replaces this validation with the apiserver's own.

// versionSchema is one served version's schema, compiled once per CRD write.
type versionSchema struct {
	structural *structuralschema.Structural
	openapi    *spec.Schema
	validator  *validate.SchemaValidator
}

// compileSchema builds a version's structural schema and validator. A CRD that passed
// validateCRD always compiles.
func compileSchema(v *apiextensionsv1.CustomResourceValidation) (*versionSchema, error) {
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("no schema")
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.OpenAPIV3Schema, &internal, nil); err != nil {
		return nil, err
	}
	st, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, err
	}
	forValidation := st.ToKubeOpenAPI()
	intOrStringTypes(forValidation)
	return &versionSchema{structural: st, openapi: st.ToKubeOpenAPI(), validator: validate.NewSchemaValidator(forValidation, nil, "", strfmt.Default)}, nil
}

// intOrStringTypes gives every x-kubernetes-int-or-string node the types integer and string, as
// the apiserver's conversion for its validator does, so that kube-openapi rejects other types
// ("must be of type integer,string").
func intOrStringTypes(s *spec.Schema) {
	eachSchema(s, func(n *spec.Schema) {
		if v, ok := n.Extensions.GetBool("x-kubernetes-int-or-string"); ok && v {
			n.Type = spec.StringOrArray{"integer", "string"}
		}
	})
}

// prune drops the fields the schema does not know and returns their paths ("spec.bogus",
// "spec.ports[0].extra"), as the apiserver's warnings and strict errors name them.
func (vs *versionSchema) prune(obj map[string]any) []string {
	opts := structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}
	paths := pruning.PruneWithOptions(obj, vs.structural, true, opts)
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = fmt.Sprintf("unknown field %q", p)
	}
	return out
}

// applySchemaDefaults fills in the schema's defaults where a field is absent, walking objects,
// arrays and maps as the apiserver's structural defaulting does (a default is deep-copied; an
// object's defaults apply inside it only when it is present).
func applySchemaDefaults(x any, s *structuralschema.Structural) {
	if s == nil {
		return
	}
	switch v := x.(type) {
	case map[string]any:
		for name, prop := range s.Properties {
			if _, ok := v[name]; !ok && prop.Default.Object != nil {
				v[name] = runtime.DeepCopyJSONValue(prop.Default.Object)
			}
			if child, ok := v[name]; ok {
				p := prop
				applySchemaDefaults(child, &p)
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			for _, child := range v {
				applySchemaDefaults(child, s.AdditionalProperties.Structural)
			}
		}
	case []any:
		for _, item := range v {
			applySchemaDefaults(item, s.Items)
		}
	}
}

// validateObject validates a custom resource (its JSON content) against the schema, with the
// apiserver's causes.
func (vs *versionSchema) validateObject(obj map[string]any) field.ErrorList {
	res := vs.validator.Validate(obj)
	if res == nil || res.IsValid() {
		return nil
	}
	return openAPIErrors(res)
}

// openAPIErrors turns kube-openapi's validation errors into the causes the apiserver reports
// for them (reference/observed-crds.md, validation): Required, NotSupported with the allowed
// values, TooLong, TooMany, TypeInvalid, and Invalid with kube-openapi's message otherwise.
func openAPIErrors(res *validate.Result) field.ErrorList {
	var errs field.ErrorList
	for _, e := range res.Errors {
		ve, ok := e.(*openapierrors.Validation)
		if !ok {
			errs = append(errs, field.Invalid(nil, "", e.Error()))
			continue
		}
		var p *field.Path
		if name := strings.TrimPrefix(ve.Name, "."); ve.Name != "" && ve.Name != "." {
			p = p.Child(name)
		}
		value := ve.Value
		if value == nil {
			value = ""
		}
		switch ve.Code() {
		case openapierrors.RequiredFailCode:
			errs = append(errs, field.Required(p, ""))
		case openapierrors.EnumFailCode:
			allowed := make([]string, 0, len(ve.Values))
			for _, a := range ve.Values {
				if s, ok := a.(string); ok {
					allowed = append(allowed, s)
				} else {
					b, _ := json.Marshal(a)
					allowed = append(allowed, string(b))
				}
			}
			errs = append(errs, field.NotSupported(p, ve.Value, allowed))
		case openapierrors.TooLongFailCode:
			errs = append(errs, field.TooLong(p, "", int(asInt64(ve.Valid))))
		case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
			errs = append(errs, field.TooMany(p, int(asInt64(ve.Value)), int(asInt64(ve.Valid))))
		case openapierrors.InvalidTypeCode:
			errs = append(errs, field.TypeInvalid(p, value, ve.Error()))
		default:
			errs = append(errs, field.Invalid(p, value, ve.Error()))
		}
	}
	return errs
}

func asInt64(v any) int64 {
	if i, ok := v.(int64); ok {
		return i
	}
	return -1
}

// validateScaleReplicas is the apiserver's check of a scale subresource's replicas path in a
// custom resource: an integer, not negative (reference/observed-crds.md, validation / type,
// minimum). The path is named as the CRD spells it (".spec.replicas").
func validateScaleReplicas(obj map[string]any, jsonPath string) field.ErrorList {
	if jsonPath == "" {
		return nil
	}
	fields := strings.Split(strings.TrimPrefix(jsonPath, "."), ".")
	p := field.NewPath(jsonPath)
	n, found, err := unstructured.NestedInt64(obj, fields...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(p, int64(0), err.Error())}
	case found && n < 0:
		return field.ErrorList{field.Invalid(p, n, "should be a non-negative integer")}
	}
	return nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
