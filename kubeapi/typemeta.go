package kubeapi

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// The apiserver writes kind and apiVersion on every object it answers alone (a get, a watch
// event's object) and on none of a list's items: a typed list's items are structs whose TypeMeta
// the conversion to the request's version leaves empty (kubeapi/testdata/oracle/list-*.http:
// `"items":[{"metadata":{...`). The cache keeps the object as the apiserver writes it alone —
// `{"kind":"Pod","apiVersion":"v1","metadata":...` is the etcd value's own beginning — so a list
// item is that object without its first two members: `{` followed by the bytes after them.

// typePrefix is how an object of the resource begins as the apiserver encodes it:
// `{"kind":"Pod","apiVersion":"v1",`.
func typePrefix(kind, gv string) []byte {
	b := append([]byte(`{"kind":`), jsonString(kind)...)
	b = append(b, `,"apiVersion":`...)
	b = append(b, jsonString(gv)...)
	return append(b, ',')
}

// listItem returns what a list item of obj is written as. When obj begins with its kind and
// apiVersion (in either order, as one string each: every object the apiserver or source/etcd
// stores does) the item is `{` followed by rest, a sub-slice of obj — no copy, and for objects of
// the resource's own kind and version one comparison of ~30 bytes. Otherwise rest is the whole
// item (sliced=false): obj itself when it has neither member, else a copy without them.
func (r *resource) listItem(obj []byte) (rest []byte, sliced bool) {
	if r.info.Unstructured {
		return r.inVersion(obj), false
	}
	if r.info.Convert != nil {
		// serveList converted the page's objects already.
		return withoutTypeMeta(obj), false
	}
	if bytes.HasPrefix(obj, r.typePrefix) {
		return obj[len(r.typePrefix):], true
	}
	if n := leadingTypeMeta(obj); n > 0 {
		return obj[n:], true
	}
	return withoutTypeMeta(obj), false
}

// inVersion returns obj with the resource's apiVersion when the resource is AnyVersion and obj
// names another at its top level, else obj. A custom resource's stored object begins with its
// apiVersion (unstructured objects are written with sorted keys), so finding it reads a few bytes.
// The member is replaced where it is: the apiserver writes a converted custom resource with the
// same sorted keys, so the object is the stored one but for that string.
func (r *resource) inVersion(obj []byte) []byte {
	if !r.info.AnyVersion {
		return obj
	}
	v := gjson.GetBytes(obj, "apiVersion")
	if v.Type != gjson.String || v.Str == r.gv || v.Index <= 0 || v.Index+len(v.Raw) > len(obj) {
		return obj
	}
	gv := jsonString(r.gv)
	out := make([]byte, 0, len(obj)-len(v.Raw)+len(gv))
	out = append(out, obj[:v.Index]...)
	out = append(out, gv...)
	return append(out, obj[v.Index+len(v.Raw):]...)
}

// converted returns obj as the resource serves it (ResourceInfo.Convert), or obj when the
// resource has no conversion or obj cannot be converted.
func (r *resource) converted(obj []byte) []byte {
	if r.info.Convert == nil {
		return obj
	}
	out, err := r.info.Convert(obj)
	if err != nil {
		return obj
	}
	return out
}

// leadingTypeMeta returns the length of `{"kind":"…","apiVersion":"…",` (or apiVersion first) at
// the start of obj, with nothing between the tokens and no escapes in the strings, or 0.
func leadingTypeMeta(obj []byte) int {
	if len(obj) == 0 || obj[0] != '{' {
		return 0
	}
	i := 1
	seen := 0 // 1: kind, 2: apiVersion
	for range 2 {
		var bit int
		switch {
		case bytes.HasPrefix(obj[i:], []byte(`"kind":"`)):
			bit, i = 1, i+len(`"kind":"`)
		case bytes.HasPrefix(obj[i:], []byte(`"apiVersion":"`)):
			bit, i = 2, i+len(`"apiVersion":"`)
		default:
			return 0
		}
		if seen&bit != 0 {
			return 0
		}
		seen |= bit
		end := bytes.IndexByte(obj[i:], '"')
		if end < 0 || bytes.IndexByte(obj[i:i+end], '\\') >= 0 {
			return 0
		}
		i += end + 1
		if i >= len(obj) || obj[i] != ',' {
			return 0
		}
		i++
	}
	return i
}

// withoutTypeMeta returns obj without its top-level kind and apiVersion members: obj itself when
// it has neither, else a new object of its other members in their order. Slow path, for objects
// not stored as the apiserver encodes them.
func withoutTypeMeta(obj []byte) []byte {
	root := gjson.ParseBytes(obj)
	if !root.IsObject() || (!root.Get("kind").Exists() && !root.Get("apiVersion").Exists()) {
		return obj
	}
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	root.ForEach(func(k, v gjson.Result) bool {
		if k.Str == "kind" || k.Str == "apiVersion" {
			return true
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, k.Raw...)
		out = append(out, ':')
		out = append(out, v.Raw...)
		return true
	})
	return append(out, '}')
}

// emptyTail is what follows metadata when the apiserver encodes an empty object of kind — the
// zero values Go's encoding of the type writes (`,"spec":{"containers":null},"status":{}}` for a
// Pod) — up to the closing brace, found by encoding the built-in type once; `}` for kinds
// client-go's scheme lacks (custom resources, whose empty object is unstructured).
func emptyTail(gvk schema.GroupVersionKind) []byte {
	if b, ok := emptyTails.Load(gvk); ok {
		return b.([]byte)
	}
	b, _ := emptyTails.LoadOrStore(gvk, buildEmptyTail(gvk))
	return b.([]byte)
}

// emptyTails memoizes emptyTail for every Server of the process (the encoding of an empty object
// of each kind, which a new server would otherwise redo for every resource); the slices are never
// modified.
var emptyTails sync.Map // schema.GroupVersionKind -> []byte

func buildEmptyTail(gvk schema.GroupVersionKind) []byte {
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return []byte("}")
	}
	b, err := json.Marshal(obj)
	rest, ok := bytes.CutPrefix(b, []byte(`{"metadata":{}`))
	if err != nil || !ok {
		return []byte("}")
	}
	return rest
}
