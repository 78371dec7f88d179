package fake

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The PersistentVolumeClaimResize admission plugin (k8s.io/kubernetes
// plugin/pkg/admission/storage/persistentvolume/resize), recorded in
// reference/observed-writes-more.md, case claim-resize: a claim's storage request grows only
// once it is bound, and only when its storage class allows volume expansion.

var (
	storageClassesGR = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}
	claimsGR         = schema.GroupResource{Resource: "persistentvolumeclaims"}

	errResizeUnbound = errors.New("Only bound persistent volume claims can be expanded") //nolint:staticcheck // the plugin's words
	errResizeClass   = errors.New("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize")
)

// admitClaimResize refuses an update of a claim's main resource that asks for more storage than
// before, unless the stored claim is bound and its storage class, unchanged, allows expansion.
func (s *Server) admitClaimResize(ctx context.Context, obj, old runtime.Object, subresource string) error {
	claim, ok := obj.(*corev1.PersistentVolumeClaim)
	prev, okOld := old.(*corev1.PersistentVolumeClaim)
	if !ok || !okOld || subresource != "" {
		return nil
	}
	size, was := claim.Spec.Resources.Requests[corev1.ResourceStorage], prev.Spec.Resources.Requests[corev1.ResourceStorage]
	if size.Cmp(was) <= 0 {
		return nil
	}
	if prev.Status.Phase != corev1.ClaimBound {
		return apierrors.NewForbidden(claimsGR, claim.Name, errResizeUnbound)
	}
	class := claimClass(claim)
	if class == "" || class != claimClass(prev) || !s.classExpands(ctx, class) {
		return apierrors.NewForbidden(claimsGR, claim.Name, errResizeClass)
	}
	return nil
}

// claimClass is a claim's storage class: the beta annotation's, else spec.storageClassName.
func claimClass(c *corev1.PersistentVolumeClaim) string {
	if class, ok := c.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return class
	}
	if c.Spec.StorageClassName != nil {
		return *c.Spec.StorageClassName
	}
	return ""
}

// classExpands reports whether the stored storage class of that name allows volume expansion.
func (s *Server) classExpands(ctx context.Context, name string) bool {
	for _, o := range s.listTyped(ctx, storageClassesGR, "") {
		if sc := o.(*storagev1.StorageClass); sc.Name == name {
			return sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
		}
	}
	return false
}
