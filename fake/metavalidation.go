package fake

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The common ObjectMeta validation of every create and update is apimachinery's
// ValidateObjectMetaAccessor and ValidateObjectMetaAccessorUpdate, check for check and in their
// order, with the paths of metadata's fields built once: those functions build each field's path
// before validating it, valid or not, which is ten allocations a create and twelve an update.
// A field.Path is immutable once built (Child and Index return new ones), so one is shared by
// every request; an error's Field is the path's text, the same as the one built per call.

// metaPaths are the paths of ObjectMeta's fields under "metadata".
var metaPaths = struct {
	generateName, name, namespace, generation, labels, annotations, ownerReferences, finalizers, managedFields,
	resourceVersion, uid, creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds *field.Path
}{
	generateName:               field.NewPath("metadata", "generateName"),
	name:                       field.NewPath("metadata", "name"),
	namespace:                  field.NewPath("metadata", "namespace"),
	generation:                 field.NewPath("metadata", "generation"),
	labels:                     field.NewPath("metadata", "labels"),
	annotations:                field.NewPath("metadata", "annotations"),
	ownerReferences:            field.NewPath("metadata", "ownerReferences"),
	finalizers:                 field.NewPath("metadata", "finalizers"),
	managedFields:              field.NewPath("metadata", "managedFields"),
	resourceVersion:            field.NewPath("metadata", "resourceVersion"),
	uid:                        field.NewPath("metadata", "uid"),
	creationTimestamp:          field.NewPath("metadata", "creationTimestamp"),
	deletionTimestamp:          field.NewPath("metadata", "deletionTimestamp"),
	deletionGracePeriodSeconds: field.NewPath("metadata", "deletionGracePeriodSeconds"),
}

// validateMeta is the common ObjectMeta validation of a create:
// apimachineryvalidation.ValidateObjectMetaAccessor with the resource's name validation.
func validateMeta(t *resourceType, m metav1Object) field.ErrorList {
	names := nameValidator(t)
	if b, ok := m.(*certificatesv1.ClusterTrustBundle); ok {
		names = trustBundleName(b.Spec.SignerName)
	}
	p := &metaPaths
	var errs field.ErrorList
	if g := m.GetGenerateName(); len(g) != 0 {
		for _, msg := range names(g, true) {
			errs = append(errs, field.Invalid(p.generateName, g, msg))
		}
	}
	if name := m.GetName(); len(name) == 0 {
		errs = append(errs, field.Required(p.name, "name or generateName is required"))
	} else {
		for _, msg := range names(name, false) {
			errs = append(errs, field.Invalid(p.name, name, msg))
		}
	}
	return append(errs, validateMetaCommon(m, t.namespaced)...)
}

// validateMetaCommon is apimachinery's validateObjectMetaAccessorWithOptsCommon: the namespace,
// generation, labels, annotations, owner references, finalizers and managed fields of a create.
func validateMetaCommon(m metav1Object, namespaced bool) field.ErrorList {
	p := &metaPaths
	var errs field.ErrorList
	if ns := m.GetNamespace(); namespaced {
		if len(ns) == 0 {
			errs = append(errs, field.Required(p.namespace, ""))
		} else {
			for _, msg := range apimachineryvalidation.ValidateNamespaceName(ns, false) {
				errs = append(errs, field.Invalid(p.namespace, ns, msg))
			}
		}
	} else if len(ns) != 0 {
		errs = append(errs, field.Forbidden(p.namespace, "not allowed on this type"))
	}
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(m.GetGeneration(), p.generation).MarkCoveredByDeclarative()...)
	errs = append(errs, metav1validation.ValidateLabels(m.GetLabels(), p.labels)...)
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(m.GetAnnotations(), p.annotations)...)
	errs = append(errs, apimachineryvalidation.ValidateOwnerReferences(m.GetOwnerReferences(), p.ownerReferences)...)
	errs = append(errs, apimachineryvalidation.ValidateFinalizers(m.GetFinalizers(), p.finalizers)...)
	errs = append(errs, metav1validation.ValidateManagedFields(m.GetManagedFields(), p.managedFields, metav1validation.CoveredByDeclarative)...)
	return errs
}

// validateMetaUpdate is the common ObjectMeta validation of an update (labels, annotations,
// finalizers, owner references, immutable name and namespace; the name was validated on create):
// apimachineryvalidation.ValidateObjectMetaAccessorUpdate.
func validateMetaUpdate(m, old metav1Object) field.ErrorList {
	p := &metaPaths
	var errs field.ErrorList
	if old.GetDeletionTimestamp() != nil {
		errs = append(errs, apimachineryvalidation.ValidateNoNewFinalizers(m.GetFinalizers(), old.GetFinalizers(), p.finalizers)...)
	}
	if len(m.GetResourceVersion()) == 0 {
		errs = append(errs, field.Invalid(p.resourceVersion, m.GetResourceVersion(), "must be specified for an update"))
	}
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(m.GetGeneration(), p.generation).MarkCoveredByDeclarative()...)
	if m.GetGeneration() < old.GetGeneration() {
		errs = append(errs, field.Invalid(p.generation, m.GetGeneration(), "must not be decremented"))
	}
	// A field equal in Go (==) is semantically equal, for which ValidateImmutableField returns no
	// error: the comparison spares it boxing both values, which allocates for strings and times.
	if a, b := m.GetName(), old.GetName(); a != b {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(a, b, p.name)...)
	}
	if a, b := m.GetNamespace(), old.GetNamespace(); a != b {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(a, b, p.namespace)...)
	}
	if a, b := m.GetUID(), old.GetUID(); a != b {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(a, b, p.uid).WithOrigin("immutable").MarkCoveredByDeclarative()...)
	}
	if a, b := m.GetCreationTimestamp(), old.GetCreationTimestamp(); a != b {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(a, b, p.creationTimestamp).WithOrigin("immutable").MarkCoveredByDeclarative()...)
	}
	if a, b := m.GetDeletionTimestamp(), old.GetDeletionTimestamp(); a != b {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(a, b, p.deletionTimestamp).WithOrigin("immutable").MarkCoveredByDeclarative()...)
	}
	if a, b := m.GetDeletionGracePeriodSeconds(), old.GetDeletionGracePeriodSeconds(); a != b {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(a, b, p.deletionGracePeriodSeconds).WithOrigin("immutable").MarkCoveredByDeclarative()...)
	}
	errs = append(errs, metav1validation.ValidateLabels(m.GetLabels(), p.labels)...)
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(m.GetAnnotations(), p.annotations)...)
	errs = append(errs, apimachineryvalidation.ValidateOwnerReferences(m.GetOwnerReferences(), p.ownerReferences)...)
	errs = append(errs, metav1validation.ValidateManagedFields(m.GetManagedFields(), p.managedFields, metav1validation.CoveredByDeclarative)...)
	return errs
}
