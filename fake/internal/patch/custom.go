package patch

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

// CustomType is what a Patcher knows of a custom resource's kind from its
// CustomResourceDefinition: the version's schema as a type converter (so that apply merges
// list-maps by their keys and sets as sets, as the apiserver's CRD handler does), whether the
// resource has a status subresource (which decides which fields a main-resource write may own),
// and the schema's defaults, which apply fills in as the apiserver's CRD field manager does.
// A CustomType is not modified after SetCustomType.
type CustomType struct {
	TypeConverter managedfields.TypeConverter
	Status        bool
	// Default fills in the schema's defaults of an object in place; nil means none.
	Default func(obj map[string]any)
}

// SetCustomType makes the kind a custom resource typed by t, or with nil, untyped again (every
// field atomic). Field managers made for the kind before are dropped: writes after SetCustomType
// use the new type. It is safe to call while other goroutines patch.
func (p *Patcher) SetCustomType(gvk schema.GroupVersionKind, t *CustomType) {
	if t == nil {
		p.customs.Delete(gvk)
	} else {
		p.customs.Store(gvk, t)
	}
	p.managers.Range(func(k, _ any) bool {
		if k.(managerKey).gvk == gvk {
			p.managers.Delete(k)
		}
		return true
	})
}

// customType returns the kind's CustomType, or nil.
func (p *Patcher) customType(gvk schema.GroupVersionKind) *CustomType {
	if t, ok := p.customs.Load(gvk); ok {
		return t.(*CustomType)
	}
	return nil
}

// schemaDefaults is the defaulter of a typed custom resource.
type schemaDefaults struct{ fill func(map[string]any) }

func (d schemaDefaults) Default(obj runtime.Object) {
	if u, ok := obj.(interface{ UnstructuredContent() map[string]any }); ok && d.fill != nil {
		d.fill(u.UnstructuredContent())
	}
}
