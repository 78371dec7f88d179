package fake

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A write encodes the object it stores (encodeStored: a protobuf round trip, then JSON), and a
// protobuf answer or the next write of the object decodes that JSON again. The object the
// encoding was made from is that decoding whenever JSON loses nothing of it, which is what
// losslessJSON tells without decoding: then the write keeps it as the JSON's decoding
// (storedDecodings) and nothing decodes the JSON.
//
// What encoding/json (and sigs.k8s.io/json, which the protobuf answer decodes with) does not give
// back, each found by the check named:
//   - a string that is not UTF-8: encoded as \ufffd (the JSON is searched for that escape);
//   - an empty but non-nil slice or map of an omitempty field: omitted, decoded as nil;
//   - a metav1.Time: JSON keeps whole seconds in UTC and decodes to the local zone, and a zero
//     time is null (a non-nil pointer to one decodes as nil); a MicroTime keeps microseconds;
//     years outside 0–9999 do not decode at all;
//   - metav1.FieldsV1 and runtime.RawExtension: their raw bytes are compacted and <, >, & and
//     U+2028/U+2029 escaped, empty ones are null, and bytes that are not a JSON object are
//     converted (CBOR);
//   - an intstr.IntOrString keeps only the value its type names;
//   - resource.Quantity and metav1.Duration are canonicalised, other types with their own JSON
//     methods may do anything, an interface decodes to maps: objects holding one are not kept;
//   - unexported fields and fields JSON skips or hides (json:"-", a name two embedded structs
//     share) are not encoded.

// losslessJSON reports whether decoding b, the JSON encoding of obj, gives an object
// reflect.DeepEqual to obj. It reads obj and b without changing them, and is safe for concurrent
// use. A false answer costs a decoding, never a wrong object: anything it does not know is false.
func losslessJSON(obj runtime.Object, b []byte) bool {
	if bytes.Contains(b, replacementEscape) {
		return false
	}
	v := reflect.ValueOf(obj)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	c := checkOf(v.Type().Elem())
	return c == nil || c(v.Elem())
}

// replacementEscape is how encoding/json writes a byte of a string that is not UTF-8.
var replacementEscape = []byte(`\ufffd`)

// losslessCheck reports whether a value of one Go type comes back from its JSON as it is; a nil
// check is a type whose values always do.
type losslessCheck func(v reflect.Value) bool

// never is the check of a type whose values are not kept.
func never(reflect.Value) bool { return false }

// losslessChecks caches checkOf per reflect.Type.
var losslessChecks sync.Map // reflect.Type → *losslessEntry

type losslessEntry struct {
	once  sync.Once
	check losslessCheck
}

var (
	timeType        = reflect.TypeFor[metav1.Time]()
	microTimeType   = reflect.TypeFor[metav1.MicroTime]()
	fieldsV1Type    = reflect.TypeFor[metav1.FieldsV1]()
	rawExtType      = reflect.TypeFor[runtime.RawExtension]()
	intOrStrType    = reflect.TypeFor[intstr.IntOrString]()
	quantityType    = reflect.TypeFor[resource.Quantity]()
	durationType    = reflect.TypeFor[metav1.Duration]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	// jsonMethods are the interfaces through which a type encodes or decodes itself.
	jsonMethods = []reflect.Type{
		reflect.TypeFor[json.Marshaler](), reflect.TypeFor[json.Unmarshaler](),
		reflect.TypeFor[encoding.TextMarshaler](), textUnmarshaler,
	}
)

// checkOf returns the check of values of type t.
func checkOf(t reflect.Type) losslessCheck {
	e, ok := losslessChecks.Load(t)
	if !ok {
		// Only on a miss: LoadOrStore's argument is an allocation whether it is stored or not.
		e, _ = losslessChecks.LoadOrStore(t, &losslessEntry{})
	}
	entry := e.(*losslessEntry)
	entry.once.Do(func() { entry.check = buildCheck(t, map[reflect.Type]*losslessCheck{}) })
	return entry.check
}

// buildCheck makes the check of type t. building holds the checks of the types being built
// further up, so that a recursive type refers to its own check.
func buildCheck(t reflect.Type, building map[reflect.Type]*losslessCheck) losslessCheck {
	switch t {
	case timeType:
		return func(v reflect.Value) bool { return losslessTime(valueAs[metav1.Time](v).Time, time.Second, false) }
	case microTimeType:
		return func(v reflect.Value) bool {
			return losslessTime(valueAs[metav1.MicroTime](v).Time, time.Microsecond, false)
		}
	case fieldsV1Type:
		return func(v reflect.Value) bool {
			f := valueAs[metav1.FieldsV1](v)
			return losslessRaw(f.GetRawBytes())
		}
	case rawExtType:
		return func(v reflect.Value) bool {
			re := valueAs[runtime.RawExtension](v)
			return re.Object == nil && (re.Raw == nil || losslessRaw(re.Raw))
		}
	case intOrStrType:
		return func(v reflect.Value) bool {
			is := valueAs[intstr.IntOrString](v)
			return (is.Type == intstr.Int && is.StrVal == "") || (is.Type == intstr.String && is.IntVal == 0)
		}
	case quantityType, durationType:
		return never
	}
	if t.Kind() == reflect.Pointer {
		return pointerCheck(t, building) // a pointer has its element's methods
	}
	for _, m := range jsonMethods {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return never
		}
	}
	if p, ok := building[t]; ok {
		return func(v reflect.Value) bool { return *p == nil || (*p)(v) }
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil // base64, which gives the bytes back
		}
		elem := buildCheck(t.Elem(), building)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) bool {
			for i := range v.Len() {
				if !elem(v.Index(i)) {
					return false
				}
			}
			return true
		}
	case reflect.Map:
		if k := t.Key(); k.Kind() != reflect.String || reflect.PointerTo(k).Implements(textUnmarshaler) {
			return never
		}
		elem := buildCheck(t.Elem(), building)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) bool {
			it := v.MapRange()
			for it.Next() {
				if !elem(it.Value()) {
					return false
				}
			}
			return true
		}
	case reflect.Struct:
		return structCheck(t, building)
	}
	return never // interfaces, channels, functions, complex numbers
}

// pointerCheck is the check of a pointer type: nil is null, which decodes as nil; a non-nil
// pointer to a value whose JSON is null (a zero time, empty raw bytes) would decode as nil too.
func pointerCheck(t reflect.Type, building map[reflect.Type]*losslessCheck) losslessCheck {
	switch t.Elem() {
	case timeType:
		return func(v reflect.Value) bool {
			return v.IsNil() || losslessTime(v.Interface().(*metav1.Time).Time, time.Second, true)
		}
	case microTimeType:
		return func(v reflect.Value) bool {
			return v.IsNil() || losslessTime(v.Interface().(*metav1.MicroTime).Time, time.Microsecond, true)
		}
	case rawExtType:
		return func(v reflect.Value) bool {
			re := v.Interface().(*runtime.RawExtension)
			return re == nil || (re.Object == nil && losslessRaw(re.Raw))
		}
	}
	elem := buildCheck(t.Elem(), building)
	if elem == nil {
		return nil
	}
	return func(v reflect.Value) bool { return v.IsNil() || elem(v.Elem()) }
}

// structCheck is the check of a struct type: each field's, and for an omitempty slice or map,
// that it is nil when empty. A struct JSON does not encode whole is never kept.
func structCheck(t reflect.Type, building map[reflect.Type]*losslessCheck) losslessCheck {
	if !jsonFieldsUnique(t, map[string]bool{}) {
		return never
	}
	self := new(losslessCheck)
	building[t] = self
	defer delete(building, t)
	type fieldCheck struct {
		index     int
		omitEmpty bool // a slice or map that JSON omits when empty
		check     losslessCheck
	}
	var checks []fieldCheck
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			if f.Type.Size() == 0 {
				continue
			}
			return never
		}
		_, opts, _ := strings.Cut(tag, ",")
		omitEmpty := false
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				k := f.Type.Kind()
				omitEmpty = k == reflect.Slice || k == reflect.Map
			case "string":
				return never
			}
		}
		c := buildCheck(f.Type, building)
		if c != nil || omitEmpty {
			checks = append(checks, fieldCheck{index: i, omitEmpty: omitEmpty, check: c})
		}
	}
	if len(checks) == 0 {
		return nil
	}
	*self = func(v reflect.Value) bool {
		for _, fc := range checks {
			f := v.Field(fc.index)
			if fc.omitEmpty && f.Len() == 0 && !f.IsNil() {
				return false
			}
			if fc.check != nil && !fc.check(f) {
				return false
			}
		}
		return true
	}
	return *self
}

// jsonFieldsUnique reports whether no two fields of struct t, embedded structs' promoted fields
// included, have the same JSON name at the same depth, which JSON would drop. It adds the names
// to seen.
func jsonFieldsUnique(t reflect.Type, seen map[string]bool) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" && f.Anonymous {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				return false // promoted through a pointer: nil drops its fields
			}
			if ft.Kind() == reflect.Struct {
				if !jsonFieldsUnique(ft, seen) {
					return false
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if seen[name] {
			return false
		}
		seen[name] = true
	}
	return true
}

// valueAs returns v, a value of type T, without the copy to the heap that v.Interface() makes of
// a struct when v is addressable (a field reached through a pointer; a map's value is not).
func valueAs[T any](v reflect.Value) *T {
	if v.CanAddr() {
		return v.Addr().Interface().(*T)
	}
	t := v.Interface().(T)
	return &t
}

// losslessTime reports whether a time comes back from its JSON (unit: a second for metav1.Time,
// a microsecond for MicroTime) as it is: a zero time is the zero time.Time, which null decodes to
// (unless it is pointed to: null decodes as a nil pointer); another is a whole unit, in the local
// zone, without a monotonic reading, in a year the encoding can write.
func losslessTime(t time.Time, unit time.Duration, pointed bool) bool {
	if t.IsZero() {
		return !pointed && t == time.Time{}
	}
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return false
	}
	return t == time.Unix(t.Unix(), int64(t.Nanosecond())/int64(unit)*int64(unit)).Local()
}

// losslessRaw reports whether raw JSON bytes come back as they are from an encoding of them: a
// JSON object (other bytes are converted, empty ones are null) without a byte encoding/json
// would compact away or escape (whitespace, <, >, &, and 0xE2, which starts U+2028 and U+2029).
func losslessRaw(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n', '<', '>', '&', 0xe2:
			return false
		}
	}
	return true
}
