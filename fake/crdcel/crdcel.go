package crdcel

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemavalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/watchcache/watchcache/fake"
)

// Validator is a fake.CustomResourceValidator made of the apiextensions apiserver's own
// validation. The zero value is ready to use; it holds no state, so it is safe for concurrent
// use.
type Validator struct{}

// New returns the validator to set as fake.Options.CustomResourceValidator.
func New() fake.CustomResourceValidator { return Validator{} }

var _ fake.CustomResourceValidator = Validator{}

// ValidateCRD is the CustomResourceDefinition strategy's Validate (old nil) and ValidateUpdate:
// apiextensions' ValidateCustomResourceDefinition(Update) on the CRD converted to its internal
// version, which compiles every x-kubernetes-validations rule and messageExpression and checks
// their estimated cost against the per-rule and per-CRD limits.
func (Validator) ValidateCRD(ctx context.Context, crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	in, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	if old == nil {
		return crdvalidation.ValidateCustomResourceDefinition(ctx, in)
	}
	prev, err := toInternal(old)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return crdvalidation.ValidateCustomResourceDefinitionUpdate(ctx, in, prev)
}

func toInternal(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	var in apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &in, nil); err != nil {
		return nil, err
	}
	return &in, nil
}

// ForVersion builds one version's custom resource strategy as the apiextensions apiserver builds
// it when it starts serving the CRD (its customresource_handler): the schema validator of the
// whole object and that of the status, the structural schema with its defaults pruned, and the
// CEL validator that compiles the version's rules once.
func (Validator) ForVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) fake.VersionValidator {
	s, err := newStrategy(crd, version)
	if err != nil {
		return failing{err}
	}
	return s
}

// strategy validates as the apiserver's custom resource strategies do: Validate for a create,
// ValidateUpdate for an update (ratcheting), and the status strategy's ValidateUpdate for a write
// of the status subresource.
type strategy struct {
	main   validatingStrategy
	status validatingStrategy
}

// validatingStrategy is the part of the apiserver's strategies used here.
type validatingStrategy interface {
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

type createStrategy interface {
	validatingStrategy
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
}

func (s *strategy) Validate(ctx context.Context, w fake.CustomResourceWrite) field.ErrorList {
	switch {
	case w.Old == nil:
		return s.main.(createStrategy).Validate(ctx, w.Object)
	case w.Subresource == "status":
		return s.status.ValidateUpdate(ctx, w.Object, w.Old)
	default:
		return s.main.ValidateUpdate(ctx, w.Object, w.Old)
	}
}

func newStrategy(crd *apiextensionsv1.CustomResourceDefinition, version string) (*strategy, error) {
	var v *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			v = &crd.Spec.Versions[i]
		}
	}
	if v == nil {
		return nil, fmt.Errorf("crdcel: %s has no version %q", crd.Name, version)
	}
	var in apiextensions.CustomResourceValidation
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("crdcel: version %q of %s has no schema", version, crd.Name)
	}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &in, nil); err != nil {
		return nil, err
	}
	st, err := structuralschema.NewStructural(in.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	st = st.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(st); err != nil {
		return nil, err
	}
	validator, _, err := schemavalidation.NewSchemaValidator(in.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var status *apiextensions.CustomResourceSubresourceStatus
	var statusValidator schemavalidation.SchemaValidator
	var scale *apiextensions.CustomResourceSubresourceScale
	if sr := v.Subresources; sr != nil {
		if sr.Status != nil {
			status = &apiextensions.CustomResourceSubresourceStatus{}
			if statusSchema, ok := in.OpenAPIV3Schema.Properties["status"]; ok {
				if statusValidator, _, err = schemavalidation.NewSchemaValidator(&statusSchema); err != nil {
					return nil, err
				}
			}
		}
		if sr.Scale != nil {
			scale = &apiextensions.CustomResourceSubresourceScale{}
			if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(sr.Scale, scale, nil); err != nil {
				return nil, err
			}
		}
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Status.AcceptedNames.Kind}
	if kind.Kind == "" {
		kind.Kind = crd.Spec.Names.Kind
	}
	main := customresource.NewStrategy(nil, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, kind,
		validator, statusValidator, st, status, scale, v.SelectableFields)
	return &strategy{main: main, status: customresource.NewStatusStrategy(main)}, nil
}

// failing is the validator of a version whose schema could not be built: every write fails with
// the reason, as the apiserver fails to serve such a version.
type failing struct{ err error }

func (f failing) Validate(context.Context, fake.CustomResourceWrite) field.ErrorList {
	return field.ErrorList{field.InternalError(nil, f.err)}
}
