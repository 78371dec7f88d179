package patch

import (
	"bytes"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A create's managedFields cost the field manager a quarter of the CPU of a ConfigMap's create
// in the fake, and a third of its allocations: it converts the kind's empty object and the new
// one to typed values and compares them, for an answer that is the same from one create to the
// next of objects of the same fields. creates remembers that answer, the field manager's own, and
// gives it again for a create by the same manager of an object of the same createShape.
//
// What the answer is a function of, for a create of a typed object through the bare field manager
// (pick's choice for an object without managedFields and without kubectl's last-applied
// configuration, so that the field manager decodes no field set and starts from none):
//   - the field manager: the kind, its version and subresource, its schema, the fields its
//     strategy resets (creates is one field manager's);
//   - the manager's name, which goes into the entry as it is;
//   - the live object, the kind's empty object, the same for every create;
//   - the new object's field set against the live one: the fields the comparison finds added or
//     modified, less the metadata the field manager strips. A field is added when the live object
//     lacks it and modified when the live value differs, so for a scalar what counts is its path
//     and whether it equals the live object's value there (a field not omitted when empty is
//     there on the live object, with its zero value); for an object, its fields, and for an
//     atomic one whether it equals the live one, which is whether each of its scalars does; a
//     list names its elements by their keys' values or by their own value, so it counts whole;
//   - whether the conversion to typed values fails (the field manager then records nothing): it
//     checks the object's structure and the types of its scalars against the schema, and the
//     lists' keys. A scalar's type is its Go field's but where the schema takes more than one
//     (int-or-string, raw extensions), so createShape writes the type of the scalars it hides.
//
// The object's apiVersion and kind are the field manager's (UpdateObject sets them), and the live
// object's: createShape writes them as they are. The time of the entry is the field manager's
// clock at the write (time.Now in UTC), which entries gives again on a hit; the fake puts its
// own clock on it afterwards, as it does on the field manager's answer.
//
// creates remembers only answers of one entry: an error of the field manager also gives none, and
// an object whose every field is the live one's gives none either, at the field manager's cost.

// createdFields is the managedFields entry the field manager gave a create by manager of an
// object of shape, without its time. Never changed once made: FieldsV1 is its own copy.
type createdFields struct {
	manager, shape string
	entry          metav1.ManagedFieldsEntry
}

// createMemoSize is how many answers creates keeps: a test or a controller creates objects of one
// shape in a row, a few shapes per kind at a time (a Deployment's ReplicaSets and their Pods go to
// other kinds' field managers). A lookup compares the shape with each, a few hundred bytes.
const createMemoSize = 4

// creates remembers the field manager's recent answers for creates (createdFields). Safe for
// concurrent use; the zero value is ready.
type creates struct {
	next    atomic.Uint32
	answers [createMemoSize]atomic.Pointer[createdFields]
	// live is the scalars of the kind's empty object's JSON (liveScalars), made on first use;
	// liveOK is false when that object does not encode, which leaves every create to the field
	// manager.
	liveOnce sync.Once
	live     liveScalars
	liveOK   bool
}

// create is the field manager's UpdateNoErrors of a create, obj written by manager over live, the
// kind's empty object (kind.empty), with obj of the field manager's kind. Its answer is the one
// remembered for the same manager and createShape when there is one.
func (f *fieldManager) create(live, obj runtime.Object, manager string) runtime.Object {
	m, err := meta.Accessor(obj)
	if err != nil || f.bare == nil || len(m.GetManagedFields()) != 0 || hasLastApplied(m) || f.pick(nil, live, obj) != f.bare {
		return f.UpdateNoErrors(live, obj, manager)
	}
	if _, ok := obj.(runtime.Unstructured); ok {
		return f.UpdateNoErrors(live, obj, manager)
	}
	c := &f.creates
	c.liveOnce.Do(func() { c.live, c.liveOK = scalarsOf(live) })
	if !c.liveOK {
		return f.UpdateNoErrors(live, obj, manager)
	}
	buf := createShapes.Get().(*shapeBuffer)
	defer buf.put()
	shape, ok := buf.shapeOf(obj, c.live)
	if !ok {
		return f.UpdateNoErrors(live, obj, manager)
	}
	if a := c.lookup(manager, shape); a != nil {
		m.SetManagedFields(a.entries(time.Now().UTC()))
		return obj
	}
	out := f.UpdateNoErrors(live, obj, manager)
	c.remember(manager, shape, out)
	return out
}

// hasLastApplied reports whether m carries kubectl's last-applied configuration.
func hasLastApplied(m metav1.Object) bool {
	_, ok := m.GetAnnotations()[corev1.LastAppliedConfigAnnotation]
	return ok
}

// lookup returns the answer remembered for manager and shape, or nil.
func (c *creates) lookup(manager string, shape []byte) *createdFields {
	for i := range c.answers {
		if a := c.answers[i].Load(); a != nil && a.manager == manager && a.shape == string(shape) {
			return a
		}
	}
	return nil
}

// remember keeps the field manager's answer out for manager and shape, in place of the oldest
// answer kept, when it is one entry with a field set and a time.
func (c *creates) remember(manager string, shape []byte, out runtime.Object) {
	m, err := meta.Accessor(out)
	if err != nil {
		return
	}
	entries := m.GetManagedFields()
	if len(entries) != 1 || entries[0].FieldsV1 == nil || entries[0].Time == nil {
		return
	}
	e := entries[0]
	e.Time = nil
	e.FieldsV1 = &metav1.FieldsV1{Raw: bytes.Clone(e.FieldsV1.Raw)}
	i := c.next.Add(1) % createMemoSize
	c.answers[i].Store(&createdFields{manager: manager, shape: string(shape), entry: e})
}

// createdEntry is the managedFields of one create, made in one allocation with what its entry
// points to.
type createdEntry struct {
	entries [1]metav1.ManagedFieldsEntry
	fields  metav1.FieldsV1
	time    metav1.Time
}

// entries returns a new managedFields with a's entry at time now; nothing in it is a's, so the
// caller may change it.
func (a *createdFields) entries(now time.Time) []metav1.ManagedFieldsEntry {
	c := &createdEntry{time: metav1.Time{Time: now}}
	c.fields.Raw = bytes.Clone(a.entry.FieldsV1.Raw)
	c.entries[0] = a.entry
	c.entries[0].FieldsV1 = &c.fields
	c.entries[0].Time = &c.time
	return c.entries[:]
}

// shapeBuffer is an encoder of objects' JSON and the buffers shapeOf writes into.
type shapeBuffer struct {
	js    bytes.Buffer
	enc   *json.Encoder
	shape []byte
}

// createShapes pools the shapeBuffers of creates.
var createShapes = sync.Pool{New: func() any {
	b := &shapeBuffer{}
	b.enc = json.NewEncoder(&b.js)
	return b
}}

// put returns b to createShapes unless it has grown beyond maxPooledShape (a ConfigMap's JSON
// is a few hundred bytes, a Pod's a few KiB).
func (b *shapeBuffer) put() {
	if b.js.Cap() > maxPooledShape || cap(b.shape) > maxPooledShape {
		return
	}
	createShapes.Put(b)
}

// shapeOf returns obj's createShape, in b's buffer, or false when obj does not encode as JSON.
func (b *shapeBuffer) shapeOf(obj runtime.Object, live liveScalars) ([]byte, bool) {
	b.js.Reset()
	if err := b.enc.Encode(obj); err != nil {
		return nil, false
	}
	js := bytes.TrimSuffix(b.js.Bytes(), []byte("\n"))
	shape, end, ok := appendCreateShape(b.shape[:0], js, 0, live)
	if !ok || end != len(js) {
		return nil, false
	}
	b.shape = shape
	return shape, true
}

// appendCreateShape appends to dst the createShape of the JSON value at js[i:], compact as
// encoding/json writes it, and returns the index after the value, or false for JSON it does not
// read.
//
// A createShape is the object's JSON with each scalar outside lists written as '$' (a string) or
// '#' (a number) when no scalar of the live object's JSON has its value (liveScalars.has, by its
// JSON spelling; the live object's numbers are zero values, so every numeric zero, however
// spelt, is written as it is); lists, and the scalars a live one may equal, are written as they
// are. So two objects of one shape have the same fields at every level, the same lists, and
// scalars that either are the same or both differ from whatever the live object has at their
// path, of the same JSON type: the comparison with the live object finds the same fields added
// and modified, and the conversion meets the same structure and types. The typed value the field
// manager compares is the object's JSON, as apimachinery's unstructured converter follows
// encoding/json. true, false and null are written as they are, and so are strings holding an
// escape, which another escape could spell the same.
func appendCreateShape(dst, js []byte, i int, live liveScalars) ([]byte, int, bool) {
	if i >= len(js) {
		return nil, 0, false
	}
	switch c := js[i]; {
	case c == '{':
		dst = append(dst, '{')
		i++
		if i < len(js) && js[i] == '}' {
			return append(dst, '}'), i + 1, true
		}
		for {
			end, ok := stringEnd(js, i)
			if !ok || end >= len(js) || js[end] != ':' {
				return nil, 0, false
			}
			dst = append(dst, js[i:end+1]...)
			if dst, i, ok = appendCreateShape(dst, js, end+1, live); !ok || i >= len(js) {
				return nil, 0, false
			}
			switch js[i] {
			case ',':
				dst = append(dst, ',')
				i++
			case '}':
				return append(dst, '}'), i + 1, true
			default:
				return nil, 0, false
			}
		}
	case c == '[':
		end, ok := listEnd(js, i)
		if !ok {
			return nil, 0, false
		}
		return append(dst, js[i:end]...), end, true
	case c == '"':
		end, ok := stringEnd(js, i)
		if !ok {
			return nil, 0, false
		}
		tok := js[i:end]
		if bytes.IndexByte(tok, '\\') >= 0 || live.has(tok) {
			return append(dst, tok...), end, true
		}
		return append(dst, '$'), end, true
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(js[i:], []byte(lit)) {
				return append(dst, lit...), i + len(lit), true
			}
		}
		return nil, 0, false
	case c == '-' || (c >= '0' && c <= '9'):
		end := numberEnd(js, i)
		tok := js[i:end]
		if isZero(tok) || live.has(tok) {
			return append(dst, tok...), end, true
		}
		return append(dst, '#'), end, true
	}
	return nil, 0, false
}

// stringEnd returns the index after the JSON string starting at js[i].
func stringEnd(js []byte, i int) (int, bool) {
	if i >= len(js) || js[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(js); j++ {
		switch js[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// listEnd returns the index after the JSON list starting at js[i].
func listEnd(js []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(js); j++ {
		switch js[j] {
		case '"':
			end, ok := stringEnd(js, j)
			if !ok {
				return 0, false
			}
			j = end - 1
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// numberEnd returns the index after the JSON number starting at js[i].
func numberEnd(js []byte, i int) int {
	for i < len(js) {
		switch c := js[i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			i++
		default:
			return i
		}
	}
	return i
}

// isZero reports whether tok, a JSON number, is zero: no digit of its mantissa is another.
func isZero(tok []byte) bool {
	for _, c := range tok {
		switch {
		case c == 'e' || c == 'E':
			return true
		case c >= '1' && c <= '9':
			return false
		}
	}
	return true
}

// liveScalars are the scalars (strings and numbers, as JSON spells them) of the JSON of a kind's
// empty object, the live object of its creates: the zero values of its fields that are not
// omitted when empty (a resource.Quantity's "0", a metav1.Duration's "0s") and its apiVersion and
// kind. Never changed once made.
type liveScalars []string

// has reports whether tok is one of s.
func (s liveScalars) has(tok []byte) bool {
	for _, l := range s {
		if l == string(tok) {
			return true
		}
	}
	return false
}

// scalarsOf returns the scalars of obj's JSON, or false when it does not encode.
func scalarsOf(obj runtime.Object) (liveScalars, bool) {
	js, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	var s liveScalars
	for i := 0; i < len(js); {
		switch c := js[i]; {
		case c == '"':
			end, ok := stringEnd(js, i)
			if !ok {
				return nil, false
			}
			if end >= len(js) || js[end] != ':' { // not a field name
				s = append(s, string(js[i:end]))
			}
			i = end
		case c == '-' || (c >= '0' && c <= '9'):
			end := numberEnd(js, i)
			s = append(s, string(js[i:end]))
			i = end
		default:
			i++
		}
	}
	return s, true
}
