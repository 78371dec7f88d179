package fake

import (
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateCRD is the part of the apiserver's CustomResourceDefinition validation the fake
// reproduces, with its wording (reference/observed-crds.md, invalid): the name is
// plural.group; names are given; the scope is Cluster or Namespaced and immutable; exactly one
// version is the storage version; every version has a structural schema; selectable fields name
// fields of the schema. apiextensions' own validation is not used: it imports k8s.io/apiserver.
//
// As the apiserver's conversion to its internal type does, schemas (and selectable fields) that
// are the same in every version are validated once, under spec.validation (spec.selectableFields).
func validateCRD(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	var in apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &in, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if want := in.Spec.Names.Plural + "." + in.Spec.Group; in.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), in.Name, `must be spec.names.plural+"."+spec.group`))
	}
	if in.Spec.Group == "" {
		errs = append(errs, field.Required(spec.Child("group"), ""))
	}
	names := spec.Child("names")
	for _, n := range []struct{ name, value string }{
		{"plural", in.Spec.Names.Plural}, {"singular", in.Spec.Names.Singular},
		{"kind", in.Spec.Names.Kind}, {"listKind", in.Spec.Names.ListKind},
	} {
		if n.value == "" {
			errs = append(errs, field.Required(names.Child(n.name), ""))
		}
	}
	switch in.Spec.Scope {
	case apiextensions.ClusterScoped, apiextensions.NamespaceScoped:
	default:
		errs = append(errs, field.NotSupported(spec.Child("scope"), in.Spec.Scope, []string{"Cluster", "Namespaced"}))
	}
	if old != nil && old.Spec.Scope != crd.Spec.Scope {
		errs = append(errs, field.Invalid(spec.Child("scope"), in.Spec.Scope, "field is immutable"))
	}
	storage := 0
	for _, v := range in.Spec.Versions {
		if v.Storage {
			storage++
		}
	}
	if storage != 1 {
		errs = append(errs, field.Invalid(spec.Child("versions"), in.Spec.Versions, "must have exactly one version marked as storage version"))
	}
	if in.Spec.Validation != nil {
		errs = append(errs, validateCRDSchema(in.Spec.Validation, in.Spec.SelectableFields, spec.Child("validation", "openAPIV3Schema"), spec.Child("selectableFields"))...)
	}
	for i, v := range in.Spec.Versions {
		vp := spec.Child("versions").Index(i)
		if in.Spec.Validation == nil && v.Schema == nil {
			errs = append(errs, field.Required(vp.Child("schema", "openAPIV3Schema"), ""))
			continue
		}
		if v.Schema != nil {
			errs = append(errs, validateCRDSchema(v.Schema, v.SelectableFields, vp.Child("schema", "openAPIV3Schema"), vp.Child("selectableFields"))...)
		} else if len(v.SelectableFields) > 0 && in.Spec.Validation != nil {
			errs = append(errs, validateSelectable(in.Spec.Validation, v.SelectableFields, vp.Child("selectableFields"))...)
		}
	}
	if storage != 1 && len(in.Status.StoredVersions) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("status", "storedVersions"), in.Status.StoredVersions, "must have at least one stored version"))
	}
	return errs
}

// validateCRDSchema checks that a schema is structural and that the selectable fields name its
// fields.
func validateCRDSchema(v *apiextensions.CustomResourceValidation, fields []apiextensions.SelectableField, schemaPath, fieldsPath *field.Path) field.ErrorList {
	if v.OpenAPIV3Schema == nil {
		return field.ErrorList{field.Required(schemaPath, "")}
	}
	st, err := structuralschema.NewStructural(v.OpenAPIV3Schema)
	if err != nil {
		return field.ErrorList{field.Invalid(schemaPath, "", err.Error())}
	}
	if errs := structuralschema.ValidateStructural(schemaPath, st); len(errs) > 0 {
		return errs
	}
	return validateSelectable(v, fields, fieldsPath)
}

func validateSelectable(v *apiextensions.CustomResourceValidation, fields []apiextensions.SelectableField, fieldsPath *field.Path) field.ErrorList {
	if len(fields) == 0 {
		return nil
	}
	st, err := structuralschema.NewStructural(v.OpenAPIV3Schema)
	if err != nil {
		return nil
	}
	var errs field.ErrorList
	for i, f := range fields {
		p := fieldsPath.Index(i).Child("jsonPath")
		if !schemaHasPath(st, f.JSONPath) {
			errs = append(errs, field.Invalid(p, f.JSONPath, "is an invalid path: does not refer to a valid field"))
		}
	}
	return errs
}

// schemaHasPath reports whether a simple JSONPath (".spec.color") names a field of the schema.
func schemaHasPath(st *structuralschema.Structural, jsonPath string) bool {
	if !strings.HasPrefix(jsonPath, ".") {
		return false
	}
	cur := st
	for _, part := range strings.Split(strings.TrimPrefix(jsonPath, "."), ".") {
		next, ok := cur.Properties[part]
		if !ok {
			return false
		}
		cur = &next
	}
	return true
}
