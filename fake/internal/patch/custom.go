package patch

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	// Prune drops the fields the schema does not know from an object in place and returns them
	// as the apiserver words them (`unknown field "spec.x"`); nil means none. A JSON or merge
	// patch's result is pruned (and defaulted) before its managedFields are updated, as the
	// apiserver decodes a patched custom resource through its schema first.
	Prune func(obj map[string]any) []string
}

// pruneCustom prunes and defaults a patched custom resource by its CustomType and applies
// fieldValidation to what pruning dropped: Strict is the apiserver's 400, Warn (the default) a
// warning each, Ignore nothing.
func (p *Patcher) pruneCustom(k kind, obj runtime.Object, fc *fieldCheck) error {
	t := p.customType(k.gvk)
	u, ok := obj.(interface{ UnstructuredContent() map[string]any })
	if t == nil || t.Prune == nil || !ok {
		return nil
	}
	unknown := t.Prune(u.UnstructuredContent())
	if t.Default != nil {
		t.Default(u.UnstructuredContent())
	}
	switch {
	case len(unknown) == 0 || !fc.strict:
		return nil
	case fc.fail:
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: strict decoding error: %s",
			k.gvk.Kind, k.gvk.Version, k.gvk.Kind, strings.Join(unknown, ", ")))
	default:
		fc.warnings = append(fc.warnings, unknown...)
		return nil
	}
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
