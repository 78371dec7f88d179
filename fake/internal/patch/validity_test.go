package patch

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// TestAlwaysValid runs alwaysValid on every kind of client-go's scheme and, for each kind it
// proves, validates objects built to fail if anything can: every list holds a zero element (all
// its omitempty keys left out) and a filled one, every map an entry, every pointer a value, to a
// depth. The apiserver's conversion must accept them all, as it must the objects the fake then
// converts without validating. Kinds it refuses include ServiceAccount, whose secrets are keyed
// by an omitempty name: a zero element there fails validation.
func TestAlwaysValid(t *testing.T) {
	p := newPatcher(t)
	tc := p.typed()
	proved := 0
	for gvk, typ := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		k, err := p.kindOf(gvk)
		if err != nil {
			t.Fatal(err)
		}
		tv, err := tc.ObjectToTyped(k.empty(), typed.AllowDuplicates)
		if err != nil {
			continue // a kind client-go's models lack (the deduced converter's)
		}
		if !alwaysValid(reflect.PointerTo(typ), tv.Schema(), tv.TypeRef()) {
			if gvk.Kind == "ConfigMap" || gvk.Kind == "Deployment" || gvk.Kind == "Pod" {
				t.Errorf("%v: not proved", gvk)
			}
			continue
		}
		proved++
		obj := k.empty()
		fill(reflect.ValueOf(obj).Elem(), 5)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		if m, err := meta.Accessor(obj); err == nil {
			m.SetManagedFields(nil)
		}
		if _, err := tc.ObjectToTyped(obj, typed.AllowDuplicates); err != nil {
			t.Errorf("%v: proved always valid, but: %v", gvk, err)
		}
	}
	if proved < 100 {
		t.Errorf("only %d kinds proved", proved)
	}

	sa := &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, Secrets: []corev1.ObjectReference{{}}}
	tv, err := tc.ObjectToTyped(&corev1.ServiceAccount{TypeMeta: sa.TypeMeta}, typed.AllowDuplicates)
	if err != nil {
		t.Fatal(err)
	}
	if alwaysValid(reflect.TypeOf(sa), tv.Schema(), tv.TypeRef()) {
		t.Error("ServiceAccount proved always valid")
	}
	if _, err := tc.ObjectToTyped(sa, typed.AllowDuplicates); err == nil {
		t.Error("a ServiceAccount secret without a name validates: the case no longer shows why alwaysValid refuses the kind")
	}
}

// fill sets v to a value with every list, map and pointer non-empty down to depth, lists with a
// zero element first.
func fill(v reflect.Value, depth int) {
	if depth == 0 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth-1)
	case reflect.Struct:
		if stringScalars[v.Type()] || v.Type() == intOrStringType || marshals(v.Type()) {
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), depth)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte("x"))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(1), depth-1)
		v.Set(s)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, depth-1)
		m.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), e)
		v.Set(m)
	}
}
