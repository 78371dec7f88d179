package ctrlcache

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	jsoniter "github.com/json-iterator/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"

	"github.com/watchcache/watchcache/informer"
)

// fastJSON decodes the stored bytes of typed objects. A decode is what every read pays (a Get, each
// item of a List) where controller-runtime's cache pays a deep copy; sigs.k8s.io/json, the
// apiserver serializer's decoder, validates the whole document and then walks it by reflection,
// ≈5× the cost of a pod's DeepCopy, while jsoniter decodes a pod in about the time of its DeepCopy
// (BenchmarkDecode). jsoniter is already linked into every program that uses apimachinery's
// runtime (structured-merge-diff decodes with it).
//
// The two agree on every valid document into a type without untyped (interface) fields: both match
// names case-sensitively, call the types' UnmarshalJSON (Time, Quantity, IntOrString, FieldsV1),
// keep the last of repeated keys and merge repeated objects (TestFastDecodeAgrees). They differ on
// what they refuse and on untyped numbers (sigs.k8s.io/json keeps integers as int64), so fastDecode
// uses jsoniter only for types without interface fields and, when jsoniter refuses a document,
// decodes it again with sigs.k8s.io/json into a zeroed object: the result and the error are
// always sigs.k8s.io/json's.
var fastJSON = jsoniter.Config{CaseSensitive: true}.Froze()

// decodeTarget is how objects of one Go type are decoded.
type decodeTarget struct {
	typ  reflect.Type // the struct type (not the pointer)
	fast bool         // fastJSON agrees with sigs.k8s.io/json on the type (no untyped fields)
}

// targets caches decodeTarget by struct type: the walk of a type's fields runs once per process.
var targets sync.Map // reflect.Type → decodeTarget

func targetOf(t reflect.Type) decodeTarget {
	if d, ok := targets.Load(t); ok {
		return d.(decodeTarget)
	}
	d := decodeTarget{typ: t, fast: !hasUntyped(t, map[reflect.Type]bool{})}
	targets.Store(t, d)
	return d
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// hasUntyped reports whether decoding into t may store into an interface value: a field, element or
// map value of interface type reachable without passing a type that decodes itself.
func hasUntyped(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return hasUntyped(t.Elem(), seen)
	case reflect.Map:
		return hasUntyped(t.Key(), seen) || hasUntyped(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if (f.IsExported() || f.Anonymous) && f.Tag.Get("json") != "-" && hasUntyped(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// into decodes raw into obj, a pointer to a zero value of d.typ.
func (d decodeTarget) into(raw []byte, obj any) error {
	if d.fast {
		if err := fastJSON.Unmarshal(raw, obj); err == nil {
			return nil
		}
		// A refused document: sigs.k8s.io/json's own result and error, from a zero value again.
		reflect.ValueOf(obj).Elem().SetZero()
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
		return fmt.Errorf("ctrlcache: decode %s: %w", d.typ, err)
	}
	return nil
}

// decoder returns the Decoder of a form of gvk: typed and metadata-only objects are decoded by
// decodeTarget, unstructured ones by Unstructured's own decoder.
func (c *Cache) decoder(gvk schema.GroupVersionKind, f form) informer.Decoder {
	switch f {
	case unstructuredForm:
		return func(raw []byte) (runtime.Object, error) {
			obj, err := informer.Unstructured(raw)
			if err == nil {
				obj.GetObjectKind().SetGroupVersionKind(gvk)
			}
			return obj, err
		}
	case metadataForm:
		d := targetOf(reflect.TypeFor[metav1.PartialObjectMetadata]())
		return func(raw []byte) (runtime.Object, error) {
			m := &metav1.PartialObjectMetadata{}
			if err := d.into(raw, m); err != nil {
				return nil, err
			}
			m.SetGroupVersionKind(gvk)
			return m, nil
		}
	}
	proto, err := c.scheme.New(gvk)
	if err != nil {
		// Not reached: typed forms are made only for kinds of the scheme.
		return func([]byte) (runtime.Object, error) { return nil, fmt.Errorf("ctrlcache: decode %s: %w", gvk, err) }
	}
	d := targetOf(reflect.TypeOf(proto).Elem())
	return func(raw []byte) (runtime.Object, error) {
		obj := reflect.New(d.typ).Interface()
		if err := d.into(raw, obj); err != nil {
			return nil, err
		}
		return obj.(runtime.Object), nil
	}
}
