package patch

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// unstructuredConvertor is the identity conversion the field manager needs for custom resources,
// which are served in the one version they are stored in.
type unstructuredConvertor struct{}

func (unstructuredConvertor) Convert(in, out, _ any) error {
	u, ok := in.(*unstructured.Unstructured)
	o, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("patch: cannot convert %T to %T", in, out)
	}
	o.Object = runtime.DeepCopyJSON(u.Object)
	return nil
}

func (unstructuredConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("patch: cannot convert %T", in)
	}
	out := u.DeepCopy()
	if gvk, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()}); ok {
		out.SetGroupVersionKind(gvk)
	}
	return out, nil
}

func (unstructuredConvertor) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// unstructuredCreater makes the empty object apply merges into when a custom resource does not
// exist yet.
type unstructuredCreater struct{}

func (unstructuredCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// noDefaults is the defaulter of custom resources here: they have no schema defaults.
type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}
