package patch

import (
	"slices"
	"strconv"
	"sync/atomic"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// withoutLastSet decides from the configuration's field set and the manager's last one, and
// making the first (a walk of the typed configuration) and reading the second cost a ConfigMap's
// re-apply some fifty allocations of its six hundred. Both are the same from one apply of a
// controller's loop to the next: the same fields, other values. reapply keeps the last set of
// the latest apply it let skip the prune, with the shape of its configuration (shapeOf) and the
// set's encoding; an apply whose configuration has that shape and whose manager's entry has that
// encoding passes the same checks.

// coveredSet is a last field set that withoutLastSet found covered by the field set of a
// configuration of the given shape, from the managedFields entry encoding raw. Never changed
// once made.
type coveredSet struct {
	shape, raw string
	last       *fieldpath.Set
}

// covered remembers one coveredSet. Safe for concurrent use.
type covered struct {
	p atomic.Pointer[coveredSet]
}

// lookup returns the last set remembered for shape and raw, or nil.
func (c *covered) lookup(shape, raw []byte) *fieldpath.Set {
	s := c.p.Load()
	if s == nil || string(shape) != s.shape || string(raw) != s.raw {
		return nil
	}
	return s.last
}

// remember keeps last for shape and raw, in place of what it kept.
func (c *covered) remember(shape, raw []byte, last *fieldpath.Set) {
	c.p.Store(&coveredSet{shape: string(shape), raw: string(raw), last: last})
}

// shapeOf appends to dst what, of an apply configuration cfg (unstructured JSON values: maps,
// lists, strings, int64, float64, bool, nil), its field set depends on, for a given schema and a
// configuration that validates against it, or returns false for a value of another type. A field
// set names the fields of objects and the elements of lists, which a list names by their key
// fields' values or by their own value: what it depends on is the keys of each object, whether
// each field's value is an object, a list or a scalar, and the lists whole. So an object's fields
// are written in key order with the shape of their value, a scalar as '.', whatever its value;
// a list is written whole (scalars with their type and value), objects in it too. Lengths prefix
// strings so that no two different shapes write the same bytes.
//
// Scalars written as '.' only ever are a leaf of the set: a field is a leaf when its value is a
// scalar, or atomic, which only the schema says, and so the same for all configurations.
func shapeOf(dst []byte, cfg map[string]any) ([]byte, bool) {
	return appendObjectShape(dst, cfg, false)
}

// appendObjectShape appends object m, with its fields' scalar values when whole.
func appendObjectShape(dst []byte, m map[string]any, whole bool) ([]byte, bool) {
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for _, k := range keys {
		dst = appendShapeString(dst, k)
		var ok bool
		switch v := m[k].(type) {
		case map[string]any:
			dst, ok = appendObjectShape(dst, v, whole)
		case []any:
			dst, ok = appendListShape(dst, v)
		default:
			if whole {
				dst, ok = appendScalar(dst, v)
			} else {
				dst, ok = append(dst, '.'), isScalar(v)
			}
		}
		if !ok {
			return nil, false
		}
	}
	return append(dst, '}'), true
}

// appendListShape appends list l whole.
func appendListShape(dst []byte, l []any) ([]byte, bool) {
	dst = append(dst, '[')
	for _, e := range l {
		var ok bool
		switch e := e.(type) {
		case map[string]any:
			dst, ok = appendObjectShape(dst, e, true)
		case []any:
			dst, ok = appendListShape(dst, e)
		default:
			dst, ok = appendScalar(dst, e)
		}
		if !ok {
			return nil, false
		}
	}
	return append(dst, ']'), true
}

// isScalar reports whether v is one of the scalars of unstructured JSON.
func isScalar(v any) bool {
	switch v.(type) {
	case nil, string, int64, float64, bool:
		return true
	}
	return false
}

// appendScalar appends a scalar with its type and value.
func appendScalar(dst []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, 'n'), true
	case string:
		return appendShapeString(append(dst, 's'), v), true
	case int64:
		return append(strconv.AppendInt(append(dst, 'i'), v, 10), ';'), true
	case float64:
		return append(strconv.AppendFloat(append(dst, 'f'), v, 'g', -1, 64), ';'), true
	case bool:
		if v {
			return append(dst, 't'), true
		}
		return append(dst, 'b'), true
	}
	return nil, false
}

// appendShapeString appends s prefixed by its length.
func appendShapeString(dst []byte, s string) []byte {
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	return append(append(dst, ':'), s...)
}
