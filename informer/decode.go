package informer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Decoder turns one stored object into the Go value handlers and readers get. It must return a
// new object per call (the caller may mutate it) and be safe for concurrent use.
type Decoder func(raw []byte) (runtime.Object, error)

// Typed returns a Decoder into the Go type newObject makes (e.g. func() runtime.Object { return
// &corev1.Pod{} }), with the apiserver serializer's JSON rules: case-sensitive field names, and
// integers kept as int64 in untyped fields.
func Typed(newObject func() runtime.Object) Decoder {
	return func(raw []byte) (runtime.Object, error) {
		obj := newObject()
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
			return nil, fmt.Errorf("informer: decode %T: %w", obj, err)
		}
		return obj, nil
	}
}

// Unstructured is a Decoder into *unstructured.Unstructured.
func Unstructured(raw []byte) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("informer: decode unstructured: %w", err)
	}
	return u, nil
}

// Metadata returns a Decoder into *metav1.PartialObjectMetadata of gvk: only the metadata is
// decoded (the rest of the object is skipped by the JSON decoder), as the apiserver's metadata-only
// responses carry.
func Metadata(gvk schema.GroupVersionKind) Decoder {
	return func(raw []byte) (runtime.Object, error) {
		m := &metav1.PartialObjectMetadata{}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, m); err != nil {
			return nil, fmt.Errorf("informer: decode metadata: %w", err)
		}
		m.SetGroupVersionKind(gvk)
		return m, nil
	}
}
