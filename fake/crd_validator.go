package fake

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CustomResourceValidator takes over the validation of CustomResourceDefinitions and of custom
// resources from the fake (Options.CustomResourceValidator). The fake's own checks reproduce the
// apiserver's for what they cover, without k8s.io/apiserver: they neither evaluate
// x-kubernetes-validations (CEL) rules nor ratchet, and validate every update whole. A validator
// built on apiextensions-apiserver's own validation (the module
// github.com/watchcache/watchcache/fake/crdcel) does both, at the cost of that dependency in the
// module that uses it.
//
// Implementations must be safe for concurrent use: the fake calls them from its request
// goroutines, with the written object's lock held, so they must not write through the server.
// They must not mutate what they are given.
type CustomResourceValidator interface {
	// ValidateCRD validates the create (old nil) or update of a CustomResourceDefinition, defaulted
	// as the apiserver defaults it and with its status as the server sets it, in place of the
	// fake's own CRD validation. The errors fail the write with the apiserver's 422 Invalid, in
	// the order returned. Writes of a CRD's status subresource keep the fake's validation.
	ValidateCRD(ctx context.Context, crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList
	// ForVersion returns the validator of one served version of a CRD the server accepted. It is
	// called once per version each time the CRD is written, so it is where schemas and rules are
	// compiled; a rule that does not compile is the returned validator's to report.
	ForVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) VersionValidator
}

// VersionValidator validates the writes of custom resources of one version of a CRD (see
// CustomResourceValidator).
type VersionValidator interface {
	// Validate validates a create, update, patch or apply (scale subresource writes are updates of
	// the main resource), in place of the fake's validation of the object against its schema and
	// of the scale subresource's paths. The object has been pruned and defaulted and has passed
	// the fake's metadata checks. The errors fail the write with the apiserver's 422 Invalid, in
	// the order returned.
	Validate(ctx context.Context, w CustomResourceWrite) field.ErrorList
}

// CustomResourceWrite is one write a VersionValidator judges. Its objects must not be mutated.
type CustomResourceWrite struct {
	// Operation is Create or Update.
	Operation Operation
	// Subresource is "" for the main resource (and its scale subresource) and "status" for the
	// status subresource, whose update changes only the status.
	Subresource string
	// Object is the object to store; Old the stored one, nil for a create.
	Object, Old *unstructured.Unstructured
}
