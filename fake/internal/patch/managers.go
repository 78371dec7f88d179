package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// fieldManager is a kind's field manager for one subresource, built three times for the scheme's
// kinds: full is apimachinery's field manager as the apiserver builds it; lean is the same over
// conversions that leave out what cannot change its answer (leanConverter, sameVersion); bare
// also leaves out the metadata no manager owns (bareConverter). lean and bare are nil for kinds
// without them (custom resources). All are safe for concurrent use.
type fieldManager struct {
	full, lean, bare *managedfields.FieldManager
	// reapply is set with bare.
	reapply *reapply
	// creates is bare's recent answers for creates (create.go).
	creates creates
}

// UpdateNoErrors is the field manager's UpdateNoErrors (a non-apply write by manager), with lean
// when neither object's field ownership can name metadata.managedFields, and bare when it cannot
// name the metadata bareConverter leaves out either. The object it returns is obj (with its
// managedFields set) whichever it picks: the field manager's update returns the object it was
// given, not one made from the conversion.
func (f *fieldManager) UpdateNoErrors(live, obj runtime.Object, manager string) runtime.Object {
	return f.pick(nil, live, obj).UpdateNoErrors(live, obj, manager)
}

// Apply is the field manager's Apply of cfg to live by manager, picked as UpdateNoErrors picks,
// and lean rather than bare when cfg sets metadata bareConverter leaves out. The object bare
// makes lacks that metadata, which it gets back from live: as cfg does not set it, the merge
// keeps live's, which is what the apiserver's field manager returns. bare gets live without
// manager's last field set when the apply would prune nothing (reapply).
//
// bare's apply reuses the conversions withoutLastSet made (converted). The live object's is the
// applied one's: the two differ only in their managedFields, which bareCopy leaves out of a typed
// object (an unstructured one is converted whole, so its conversion is not reused).
func (f *fieldManager) Apply(live, cfg runtime.Object, manager string, force bool) (runtime.Object, error) {
	fm := f.pick(cfg, live)
	if fm != f.bare {
		return fm.Apply(live, cfg, manager, force)
	}
	applied := live
	var made conversions
	if l, ok := f.reapply.withoutLastSet(live, cfg, manager, &made); ok {
		applied = l
	}
	c := f.reapply.converted
	if c.remember(cfg, made.cfg) {
		defer c.forget(cfg)
	}
	if _, ok := live.(runtime.Unstructured); !ok && c.remember(applied, made.live, typed.AllowDuplicates) {
		defer c.forget(applied, typed.AllowDuplicates)
	}
	out, err := fm.Apply(applied, cfg, manager, force)
	if err != nil {
		return out, err
	}
	if err := restoreUnowned(out, live); err != nil {
		return nil, fmt.Errorf("patch: restoring the metadata no manager owns: %w", err)
	}
	return out, nil
}

// pick returns lean unless one of objs' managedFields entries or last-applied configuration might
// name metadata.managedFields, whose ownership only full tells; bare when none of them might name
// the metadata bareConverter leaves out and cfg (an apply configuration, nil for an update) does
// not set it.
func (f *fieldManager) pick(cfg runtime.Object, objs ...runtime.Object) *managedfields.FieldManager {
	if f.lean == nil {
		return f.full
	}
	for _, obj := range objs {
		if mayNameManagedFields(obj) {
			return f.full
		}
	}
	if f.bare == nil || setsUnowned(cfg) {
		return f.lean
	}
	for _, obj := range objs {
		if mayNameUnowned(obj) {
			return f.lean
		}
	}
	return f.bare
}

// mayNameManagedFields reports whether obj's managedFields entries (the field sets the field
// manager decodes) or its kubectl last-applied configuration (the object the field manager
// compares with the live one on a conflict) might name a path under metadata.managedFields, or
// whether an entry's fieldsV1 is not a JSON object, which the full conversion of the object
// fails on (the field manager then keeps the live object's managedFields) and the lean one does
// not see. It is a byte search, so it errs towards yes: any mention of "managedFields", or any \u
// escape, which could spell one.
func mayNameManagedFields(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return true
	}
	for _, e := range m.GetManagedFields() {
		if e.FieldsV1 == nil || !isJSONObject(e.FieldsV1.Raw) ||
			bytes.Contains(e.FieldsV1.Raw, []byte("managedFields")) || bytes.Contains(e.FieldsV1.Raw, []byte(`\u`)) {
			return true
		}
	}
	last := m.GetAnnotations()[corev1.LastAppliedConfigAnnotation]
	return strings.Contains(last, "managedFields") || strings.Contains(last, `\u`)
}

// isJSONObject reports whether b is one valid JSON object.
func isJSONObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// leanConverter is a TypeConverter that converts a typed object as if its metadata.managedFields
// were empty. The field manager converts the live object to the structured-merge-diff typed value
// it compares, merges and prunes, managedFields included: the entries' times are marshalled and
// their field sets unmarshalled from JSON, and the whole subtree is walked by every comparison,
// for nothing, when no manager's field set names it:
//   - metadata.managedFields is one atomic list (client-go's schema), in the set every manager's
//     is stripped of (the field manager's stripMetaManager), so it is no manager's field;
//   - on apply the applied configuration may not hold managedFields (a 400 before any conversion),
//     so the merged object's managedFields are the live object's, and compare equal to them;
//     without them on either side there is nothing to compare either;
//   - on update the new object's managedFields are removed before the conversion, so with them on
//     the live side the comparison finds the path removed, which only changes a field set that
//     holds it: none does;
//   - the object the field manager returns gets its managedFields set from the field sets after
//     the merge, whatever the merge left there.
//
// fieldManager.pick keeps the full converter for the objects whose field sets might hold the path.
type leanConverter struct{ managedfields.TypeConverter }

// ObjectToTyped is the wrapped converter's, on a shallow copy of a typed object without
// managedFields when it has some; obj is not changed.
func (c leanConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return c.TypeConverter.ObjectToTyped(withoutManagedFields(obj), opts...)
}

// withoutManagedFields returns obj, or a shallow copy of it without managedFields when it is a
// typed object (a pointer to a struct) that has some. The copy shares everything else with obj;
// the converter only reads it.
func withoutManagedFields(obj runtime.Object) runtime.Object {
	if _, ok := obj.(runtime.Unstructured); ok {
		return obj
	}
	m, err := meta.Accessor(obj)
	if err != nil || len(m.GetManagedFields()) == 0 {
		return obj
	}
	out, ok := shallowCopy(obj)
	if !ok {
		return obj
	}
	if cm, err := meta.Accessor(out); err == nil {
		cm.SetManagedFields(nil)
		return out
	}
	return obj
}

// shallowCopy returns a copy of obj, a pointer to a struct, that shares everything the struct
// points to with obj, or false for another object.
func shallowCopy(obj runtime.Object) (runtime.Object, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	out, ok := cp.Interface().(runtime.Object)
	return out, ok
}

// sameVersion is the scheme as the field manager's ObjectConvertor, without the deep copy the
// scheme makes of a typed object that already is of the version asked for. The field manager
// converts the live object and the new one to their own version before it reads them into typed
// values, and its result to its own version after defaulting it; none of these uses of the
// converted object changes it while the original is in use, so the copy is the object itself.
type sameVersion struct{ *runtime.Scheme }

// ConvertToVersion returns in itself when it is typed, the scheme knows its Go type, and the kind
// its type meta says is the one target picks among the type's kinds; else it is the scheme's. An
// unstructured in (the object the field manager makes from its merge) is the scheme's conversion
// without its final deep copy, which would copy the typed object the conversion has just made
// and nothing else holds.
func (s sameVersion) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	if _, ok := in.(runtime.Unstructured); ok {
		return s.UnsafeConvertToVersion(in, target)
	}
	if kinds, _, err := s.ObjectKinds(in); err == nil {
		if gvk, ok := target.KindForGroupVersionKinds(kinds); ok && gvk.Version != runtime.APIVersionInternal &&
			gvk == in.GetObjectKind().GroupVersionKind() && !gvk.Empty() {
			return in, nil
		}
	}
	return s.Scheme.ConvertToVersion(in, target)
}
