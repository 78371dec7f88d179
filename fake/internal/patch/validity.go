package patch

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apischema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// The field manager converts the live object (and on update the written one) to its typed value
// with validation (typed.AllowDuplicates): a walk of the whole object, through reflection, that
// costs a create about a quarter of its field management. For most Go types of k8s.io/api no
// value can fail that validation: every field is declared by the schema with a matching kind,
// every keyed list's elements always carry a key. alwaysValid proves it of a Go type against its
// schema, once per type; for the types it proves, validatedTypes makes the typed value without
// the walk, which is the value the validating conversion returns.

// validatedTypes keeps, per Go type and kind, the schema a conversion used and whether every
// value of the type validates against it. Safe for concurrent use.
type validatedTypes struct {
	m sync.Map // validatedKey -> validatedType
}

type validatedKey struct {
	typ reflect.Type
	gvk apischema.GroupVersionKind
}

// validatedType is what validatedTypes knows of one Go type as one kind: the schema and type
// reference its conversion uses, and whether alwaysValid proved it.
type validatedType struct {
	schema  *schema.Schema
	typeRef schema.TypeRef
	valid   bool
}

// objectToTyped converts obj with tc as tc.ObjectToTyped(obj, typed.AllowDuplicates) does, without
// the validation walk when obj's Go type is proved always valid against the schema tc used for
// its first conversion as its kind. Other objects and options go to tc.
func (v *validatedTypes) objectToTyped(tc managedfields.TypeConverter, obj runtime.Object, opts []typed.ValidationOptions) (*typed.TypedValue, error) {
	if _, ok := obj.(runtime.Unstructured); ok || len(opts) != 1 || opts[0] != typed.AllowDuplicates {
		return tc.ObjectToTyped(obj, opts...)
	}
	if m, err := meta.Accessor(obj); err != nil || len(m.GetManagedFields()) > 0 {
		return tc.ObjectToTyped(obj, opts...) // alwaysValid does not look into managedFields entries
	}
	key := validatedKey{typ: reflect.TypeOf(obj), gvk: obj.GetObjectKind().GroupVersionKind()}
	if e, ok := v.m.Load(key); ok && e.(validatedType).valid {
		e := e.(validatedType)
		if val, err := value.NewValueReflect(obj); err == nil {
			return typed.AsTypedUnvalidated(val, e.schema, e.typeRef), nil
		}
		return tc.ObjectToTyped(obj, opts...)
	}
	tv, err := tc.ObjectToTyped(obj, opts...)
	if err != nil {
		return tv, err
	}
	if _, ok := v.m.Load(key); !ok {
		v.m.Store(key, validatedType{schema: tv.Schema(), typeRef: tv.TypeRef(),
			valid: alwaysValid(key.typ, tv.Schema(), tv.TypeRef())})
	}
	return tv, nil
}

// alwaysValid reports whether every value of Go type t, as structured-merge-diff reflects it
// (value.NewValueReflect: encoding/json's field names, inlining and omitempty), passes
// validation against tr in s with duplicates allowed. It errs towards no: a type that
// marshals itself (but for the few whose output it knows), an interface, a map with declared
// fields, a keyed list whose elements may omit all their keys, a set of non-scalars are refused.
func alwaysValid(t reflect.Type, s *schema.Schema, tr schema.TypeRef) bool {
	p := prover{s: s, seen: map[proofKey]bool{}}
	return p.valid(t, tr)
}

type proofKey struct {
	t  reflect.Type
	tr schema.TypeRef
}

type prover struct {
	s    *schema.Schema
	seen map[proofKey]bool
}

var (
	managedFieldsEntryType = reflect.TypeOf(metav1.ManagedFieldsEntry{})
	// stringScalars are the types that reflect as a string or null, through their own
	// conversion.
	stringScalars = map[reflect.Type]bool{
		reflect.TypeOf(metav1.Time{}):       true,
		reflect.TypeOf(metav1.MicroTime{}):  true,
		reflect.TypeOf(metav1.Duration{}):   true,
		reflect.TypeOf(resource.Quantity{}): true,
	}
	intOrStringType = reflect.TypeOf(intstr.IntOrString{})
	marshalerType   = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

// valid is alwaysValid of t against tr. A type met again below itself is assumed valid there:
// validation walks a finite value, so a proof of every check on the way down proves them all.
func (p *prover) valid(t reflect.Type, tr schema.TypeRef) bool {
	key := proofKey{t, tr}
	if ok, seen := p.seen[key]; seen {
		return ok
	}
	p.seen[key] = true
	ok := p.check(t, tr)
	p.seen[key] = ok
	return ok
}

func (p *prover) check(t reflect.Type, tr schema.TypeRef) bool {
	if t == managedFieldsEntryType {
		// bareCopy and withoutManagedFields leave no entries for a conversion to validate.
		return true
	}
	atom, ok := p.s.Resolve(tr)
	if !ok || (atom.Scalar == nil && atom.List == nil && atom.Map == nil) {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem() // nil is null, which validates against any atom
	}
	switch {
	case stringScalars[t]:
		return scalarAccepts(atom, schema.String)
	case t == intOrStringType:
		return atom.Scalar != nil && *atom.Scalar == schema.Untyped
	case marshals(t):
		return false
	}
	switch t.Kind() {
	case reflect.String:
		return scalarAccepts(atom, schema.String)
	case reflect.Bool:
		return scalarAccepts(atom, schema.Boolean)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Float32, reflect.Float64:
		return scalarAccepts(atom, schema.Numeric)
	case reflect.Struct:
		return atom.Map != nil && p.validStruct(t, atom.Map)
	case reflect.Map:
		m := atom.Map
		return m != nil && t.Key().Kind() == reflect.String && len(m.Fields) == 0 && m.ElementType != (schema.TypeRef{}) &&
			p.valid(t.Elem(), m.ElementType)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return scalarAccepts(atom, schema.String) // base64
		}
		return atom.List != nil && p.validList(t.Elem(), atom.List)
	}
	return false
}

// validStruct reports whether every value of struct type t validates against m: each field
// declared (or m has an element type) with a type that always validates.
func (p *prover) validStruct(t reflect.Type, m *schema.Map) bool {
	fields, ok := jsonFields(t)
	if !ok {
		return false
	}
	for _, f := range fields {
		tr := m.ElementType
		if sf, ok := m.FindField(f.name); ok {
			tr = sf.Type
		} else if tr == (schema.TypeRef{}) {
			return false
		}
		if !p.valid(f.typ, tr) {
			return false
		}
	}
	return true
}

// validList reports whether every list of elements of type elem validates against l: in an
// associative list, elements must be non-null, and either structs that always carry a key (a
// field without omitempty, or one the schema defaults) or scalars for a set.
func (p *prover) validList(elem reflect.Type, l *schema.List) bool {
	if l.ElementRelationship == schema.Associative {
		if elem.Kind() == reflect.Pointer || marshals(elem) || stringScalars[elem] || elem == intOrStringType {
			return false
		}
		if len(l.Keys) == 0 {
			switch elem.Kind() {
			case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Float32, reflect.Float64:
			default:
				return false
			}
		} else if elem.Kind() != reflect.Struct || !p.alwaysKeyed(elem, l) {
			return false
		}
	}
	return p.valid(elem, l.ElementType)
}

// alwaysKeyed reports whether every element of struct type elem carries one of l's keys: a field
// that encoding/json never omits, or one whose schema has a default.
func (p *prover) alwaysKeyed(elem reflect.Type, l *schema.List) bool {
	fields, ok := jsonFields(elem)
	if !ok {
		return false
	}
	atom, ok := p.s.Resolve(l.ElementType)
	for _, k := range l.Keys {
		for _, f := range fields {
			if f.name == k && !f.omittable {
				return true
			}
		}
		if ok && atom.Map != nil {
			if sf, found := atom.Map.FindField(k); found && sf.Default != nil {
				return true
			}
		}
	}
	return false
}

// scalarAccepts reports whether atom validates every scalar of kind k (and null).
func scalarAccepts(atom schema.Atom, k schema.Scalar) bool {
	return atom.Scalar != nil && (*atom.Scalar == k || *atom.Scalar == schema.Untyped)
}

// marshals reports whether structured-merge-diff reflects t (or *t) through its own conversion
// (a JSON marshaler or an unstructured converter) rather than its fields.
func marshals(t reflect.Type) bool {
	for _, tt := range []reflect.Type{t, reflect.PointerTo(t)} {
		if tt.Implements(marshalerType) {
			return true
		}
		if _, ok := tt.MethodByName("ToUnstructured"); ok {
			return true
		}
		if _, ok := tt.MethodByName("ToUnstructuredWithError"); ok {
			return true
		}
	}
	return false
}

// jsonField is one field of a struct as structured-merge-diff's reflection sees it.
type jsonField struct {
	name string
	typ  reflect.Type
	// omittable is set when the field may be left out of a value: omitempty, omitzero, or a
	// field of an inlined pointer.
	omittable bool
}

// jsonFields returns the fields of struct type t as structured-merge-diff's reflection cache
// builds them (value.TypeReflectEntryOf): exported fields, or embedded ones; "-" skipped; an
// embedded struct without a name inlined. It returns false when two fields share a name, of
// which the cache keeps one.
func jsonFields(t reflect.Type) ([]jsonField, bool) {
	var out []jsonField
	var walk func(t reflect.Type, inPointer bool)
	walk = func(t reflect.Type, inPointer bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.PkgPath != "" && !f.Anonymous {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				e := f.Type
				if e.Kind() == reflect.Pointer {
					e = e.Elem()
				}
				if e.Kind() == reflect.Struct {
					walk(e, inPointer || f.Type.Kind() == reflect.Pointer)
				}
				continue
			}
			if name == "" {
				name = f.Name
			}
			omit := inPointer
			for _, o := range strings.Split(opts, ",") {
				if o == "omitempty" || o == "omitzero" {
					omit = true
				}
			}
			out = append(out, jsonField{name: name, typ: f.Type, omittable: omit})
		}
	}
	walk(t, false)
	names := make(map[string]bool, len(out))
	for _, f := range out {
		if names[f.name] {
			return nil, false
		}
		names[f.name] = true
	}
	return out, true
}
