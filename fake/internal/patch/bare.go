package patch

import (
	"bytes"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// unownedFields are the metadata fields bareConverter leaves out of the objects it converts: the
// ones the field manager takes out of every manager's field set (its stripMetaManager) but for
// name and namespace, which apply configurations set. Every walk of the field manager (merge,
// compare, prune, the field sets) visits them, on an object as small as a ConfigMap a fifth of
// what it visits, for no answer: a field no manager owns and the request does not set is kept as
// it is on the live object, whatever the walks find.
var unownedFields = []string{"uid", "resourceVersion", "creationTimestamp", "generation", "selfLink"}

// unownedKeys are unownedFields as fieldsV1 spells them, for mayNameUnowned's byte search.
var unownedKeys = func() [][]byte {
	keys := make([][]byte, len(unownedFields))
	for i, f := range unownedFields {
		keys[i] = []byte(`"f:` + f + `"`)
	}
	return keys
}()

// bareConverter is leanConverter that also converts a typed object as if the metadata of
// unownedFields were unset. fieldManager.pick uses it only where nothing can own that metadata
// or read it in the conversion:
//   - no managedFields entry of the objects names any of it (mayNameUnowned): the field manager
//     records none of it (stripMetaManager), so only a client writing managedFields can;
//   - no object carries kubectl's last-applied configuration, which the field manager compares
//     with the live object on a conflict;
//   - on apply, the configuration sets none of it (setsUnowned), so the merged object keeps the
//     live object's, which restoreUnowned puts back on the result; on update the field manager
//     returns the written object itself, not the conversion;
//   - objects without a name are converted whole (bareCopy), so that no object's metadata becomes
//     empty, which would make metadata itself a field.
//
// The apiserver's defaulting does not read the metadata it leaves out.
//
// It also leaves out the validation of the live and written objects where no value of their Go
// type can fail it (validatedTypes), and the conversions reapply has already made (converted).
type bareConverter struct {
	managedfields.TypeConverter
	validated *validatedTypes
	converted *converted
}

// ObjectToTyped is the wrapped converter's, on bareCopy of obj; obj is not changed.
func (c bareConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if tv, ok := c.converted.load(obj, opts); ok {
		return tv, nil
	}
	return c.validated.objectToTyped(c.TypeConverter, bareCopy(obj), opts)
}

// bareCopy returns obj, or a shallow copy of it without managedFields and without the metadata of
// unownedFields when it is a named typed object that has some. A creationTimestamp is left out
// only when the conversion would give it back unchanged (roundTrips), so that restoreUnowned can
// restore it from the live object; another is converted, as the apiserver's field manager does.
func bareCopy(obj runtime.Object) runtime.Object {
	if _, ok := obj.(runtime.Unstructured); ok {
		return obj
	}
	m, err := meta.Accessor(obj)
	if err != nil || m.GetName() == "" {
		return withoutManagedFields(obj)
	}
	ct := m.GetCreationTimestamp()
	stripTime := !ct.IsZero() && roundTrips(ct)
	if len(m.GetManagedFields()) == 0 && m.GetUID() == "" && m.GetResourceVersion() == "" && !stripTime &&
		m.GetGeneration() == 0 && m.GetSelfLink() == "" {
		return obj
	}
	out, ok := shallowCopy(obj)
	if !ok {
		return withoutManagedFields(obj)
	}
	cm, err := meta.Accessor(out)
	if err != nil {
		return withoutManagedFields(obj)
	}
	cm.SetManagedFields(nil)
	cm.SetUID("")
	cm.SetResourceVersion("")
	cm.SetGeneration(0)
	cm.SetSelfLink("")
	if stripTime {
		cm.SetCreationTimestamp(metav1.Time{})
	}
	return out
}

// roundTrips reports whether t is what converting it to the field manager's typed value and back
// gives: RFC 3339 in UTC, whole seconds, read back in the local zone (metav1.Time's JSON), a
// four-digit year. A time decoded from JSON does; one from time.Now does not.
func roundTrips(t metav1.Time) bool {
	y := t.UTC().Year()
	return y >= 0 && y <= 9999 && t.Time == t.Truncate(time.Second).Local()
}

// restoreUnowned sets on out, the object the bare field manager made from live, the metadata of
// unownedFields that bareCopy left out of live.
func restoreUnowned(out, live runtime.Object) error {
	lm, err := meta.Accessor(live)
	if err != nil {
		return err
	}
	if lm.GetName() == "" {
		return nil // converted whole
	}
	om, err := meta.Accessor(out)
	if err != nil {
		return err
	}
	om.SetUID(lm.GetUID())
	om.SetResourceVersion(lm.GetResourceVersion())
	om.SetGeneration(lm.GetGeneration())
	om.SetSelfLink(lm.GetSelfLink())
	if ct := lm.GetCreationTimestamp(); !ct.IsZero() && roundTrips(ct) {
		om.SetCreationTimestamp(ct)
	}
	return nil
}

// mayNameUnowned reports whether obj's managedFields entries might name one of unownedFields (a
// byte search, which errs towards yes: a label named uid says yes too) or obj carries kubectl's
// last-applied configuration.
func mayNameUnowned(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return true
	}
	for _, e := range m.GetManagedFields() {
		if e.FieldsV1 == nil {
			return true
		}
		for _, k := range unownedKeys {
			if bytes.Contains(e.FieldsV1.Raw, k) {
				return true
			}
		}
	}
	_, ok := m.GetAnnotations()[corev1.LastAppliedConfigAnnotation]
	return ok
}

// setsUnowned reports whether cfg, an apply configuration (nil for none), sets one of
// unownedFields, or might: a configuration that is not unstructured, or whose metadata is not an
// object, says yes.
func setsUnowned(cfg runtime.Object) bool {
	if cfg == nil {
		return false
	}
	u, ok := cfg.(*unstructured.Unstructured)
	if !ok {
		return true
	}
	md, ok := u.Object["metadata"]
	if !ok {
		return false
	}
	fields, ok := md.(map[string]any)
	if !ok {
		return true
	}
	for _, f := range unownedFields {
		if _, ok := fields[f]; ok {
			return true
		}
	}
	return false
}
