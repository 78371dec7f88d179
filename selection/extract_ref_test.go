package selection

import (
	"slices"
	"unsafe"

	"github.com/tidwall/gjson"
)

// referenceExtract is the reference Extract's tests compare against, the same extraction in two
// passes: validJSON, then gjson walking the top-level object with ForEach and descending into the
// keys the plan has nodes for (acts first, then the members). Slower (two scans), simpler.
func (s *Schema) referenceExtract(raw []byte) (Object, error) {
	if !validJSON(raw) {
		return Object{}, malformed("invalid JSON")
	}
	json := unsafe.String(unsafe.SliceData(raw), len(raw))
	top := gjson.Parse(json)
	if !top.IsObject() {
		return Object{}, malformed("top level is not an object")
	}
	x := extractor{json: json, fields: make([]string, len(s.fields))}
	for _, i := range s.bools {
		x.fields[i] = "false"
	}
	for _, i := range s.ints {
		x.fields[i] = "0"
	}
	x.referenceVisit(s.plan, top)
	if x.err != nil {
		return Object{}, x.err
	}
	obj, err := s.finish(&x, nil)
	obj.ASCII = err == nil && len(raw) <= maxMarkedLen && !slices.ContainsFunc(raw, func(c byte) bool { return c >= 0x80 })
	return obj, err
}

// referenceVisit applies n's acts to v, then descends into v's keys that n has nodes for.
func (x *extractor) referenceVisit(n *node, v gjson.Result) {
	if n.meta {
		if v.Type == gjson.Null {
			return // as absent: decoding null into a struct leaves it as it was
		}
		if !v.IsObject() {
			x.err = malformed("metadata is not an object")
			return
		}
		if x.sawMeta {
			// JSON decoders disagree on a repeated object: typed ones merge the two, maps keep
			// the last. An object whose identity depends on the decoder is refused.
			x.err = malformed("metadata is repeated")
			return
		}
		x.sawMeta = true
	}
	for i := range n.acts {
		x.apply(&n.acts[i], v)
	}
	if len(n.kids) == 0 || x.err != nil {
		return
	}
	if v.IsObject() {
		v.ForEach(func(k, val gjson.Result) bool {
			if kid := n.child(k.Str); kid != nil {
				x.referenceVisit(kid, val)
			}
			return x.err == nil
		})
		return
	}
	if v.Type == gjson.Null {
		return
	}
	for i := range n.deep {
		x.apply(&n.deep[i], v)
	}
}
