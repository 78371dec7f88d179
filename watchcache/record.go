package watchcache

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/watchcache/watchcache/selection"
)

// record is one immutable version of one object: built once per applied event, never modified
// (but for the link prev, which only the window clears), shared by every snapshot that holds it.
//
// Field order matters: an index range reads raw and ls of every entry's record, so both are in the
// record's first cache line, with the key and RV (a cold indexed page misses once per record
// instead of twice: BenchmarkIndexedPageCold).
type record struct {
	raw []byte    // the object's JSON; obj's strings alias it
	ls  *labelSet // the interned label set
	key string    // "/<namespace>/<name>" or "/<name>"
	rv  uint64    // the RV of the event that produced this version (== metadata.resourceVersion of raw)
	// prev is the key's previous version while a retained or running read may need it: set before
	// the record is published, cleared once the event that made this version left the window and
	// no reader reads a view older than it (publisher.unlink). The only field written after publication.
	prev atomic.Pointer[record]
	cell *cell // the key's cell, shared by all its versions since it was created
	// vals are the values of the schema's fields (selection.Object.Fields). The rest of the
	// object's parse is not kept: its identity is in key, its labels in ls, and a record of 96 B
	// is an allocation size class where one holding the whole selection.Object (184 B) took 192.
	vals []string
}

// parsedLabels is what interning needs of an object's parse: kept beside the record from
// buildRecord until internLabels, never in it, so that no record carries it once published.
type parsedLabels struct {
	raw    string           // selection.Object.LabelsRaw
	labels selection.Labels // selection.Object.Labels (nil when raw was known)
}

func labelsOf(obj selection.Object) parsedLabels {
	return parsedLabels{raw: obj.LabelsRaw, labels: obj.Labels}
}

// withFields returns a new version of the record with fields (re-extracted under another schema),
// in a cell of its own: a writer built from such records shares no cells with the snapshots before
// it.
func (r *record) withFields(fields []string) *record {
	return &record{raw: r.raw, ls: r.ls, key: r.key, rv: r.rv, vals: fields}
}

// internLabels points the record at the shared copy of its label set, l (from buildRecord).
func (r *record) internLabels(t *labelSets, l parsedLabels) {
	r.ls = t.intern(l.raw, l.labels)
}

// item is what the store B-tree holds: the key inline (comparisons do not chase the cell), the
// key's cell (its versions), and the label set of the version the tree was last written with
// inline (a label-only scan reads neither the cell nor the record; a change of labels rewrites the
// item, so in every state the item's set is its version's).
type item struct {
	key string
	c   *cell
	ls  *labelSet
}

func itemLess(a, b item) bool { return a.key < b.key }

func (r *record) item() item { return item{key: r.key, c: r.cell, ls: r.ls} }

// fieldValue returns the value of the field at schema position pos. Records extracted before the
// field was registered (held only by older snapshots) are re-extracted: slow, but correct.
func (r *record) fieldValue(schema *selection.Schema, pos int) string {
	if pos < len(r.vals) {
		return r.vals[pos]
	}
	obj, err := schema.Extract(r.raw)
	if err != nil || pos >= len(obj.Fields) {
		return ""
	}
	return obj.Fields[pos]
}

// fields returns the record's field values under schema (re-extracting if it predates a field).
func (r *record) fields(schema *selection.Schema) []string {
	if len(r.vals) >= schema.NumFields() {
		return r.vals
	}
	obj, err := schema.Extract(r.raw)
	if err != nil {
		return r.vals
	}
	return obj.Fields
}

// buildRecord parses raw once (selection.Schema.Extract, a single pass; labels whose text known
// reports as interned already are not read again) and validates it against the
// resource scope: key, when given, must be a valid key for the scope and decides (key.go);
// otherwise the object's metadata makes the key and must fit the scope. rv 0 means "take the
// object's own resourceVersion", and fallback is used when the object has none (a re-list stamps
// such objects with the list RV; an event has no fallback). When the object's resourceVersion
// differs from rv, the bytes are copied with rv spliced in and parsed again — the
// one case that parses twice; sources that stamp objects with their RV (etcd, the apiserver) never
// pay it. The record's labels are interned by the caller, with the parsedLabels returned.
func buildRecord(schema *selection.Schema, namespaced bool, key string, raw []byte, rv, fallback uint64, known func(labelsRaw string) bool) (*record, parsedLabels, error) {
	obj, err := schema.ExtractKnownLabels(raw, known)
	if err != nil {
		return nil, parsedLabels{}, fmt.Errorf("%w: %w", ErrMalformedObject, err)
	}
	// Decoders read invalid UTF-8 as U+FFFD: an object stored with it would be keyed and selected
	// by bytes no client can name. The extraction's pass says when every byte is ASCII; otherwise
	// one more pass checks.
	if !obj.ASCII && !utf8.Valid(raw) {
		return nil, parsedLabels{}, fmt.Errorf("%w: invalid UTF-8", ErrMalformedObject)
	}
	if key == "" {
		key, err = metadataKey(obj, namespaced)
	} else {
		err = checkKey(key, namespaced)
	}
	if err != nil {
		return nil, parsedLabels{}, err
	}
	own, ownOK := parseRV(obj.ResourceVersion)
	if rv == 0 && !ownOK && obj.ResourceVersion == "" {
		rv = fallback
	}
	switch {
	case rv == 0 && !ownOK:
		return nil, parsedLabels{}, fmt.Errorf("%w: %s has no usable metadata.resourceVersion (%q) and the event none", ErrResourceVersion, obj.Name, obj.ResourceVersion)
	case rv == 0:
		rv = own
	case !ownOK || own != rv:
		raw, err = spliceRV(raw, rv)
		if err != nil {
			return nil, parsedLabels{}, fmt.Errorf("%w: %w", ErrMalformedObject, err)
		}
		if obj, err = schema.ExtractKnownLabels(raw, known); err != nil {
			return nil, parsedLabels{}, fmt.Errorf("%w: %w", ErrMalformedObject, err)
		}
	}
	return &record{key: key, rv: rv, raw: raw, vals: obj.Fields}, labelsOf(obj), nil
}

// parseRV parses a canonical decimal resourceVersion (no sign, no leading zeros, not 0).
func parseRV(s string) (uint64, bool) {
	if s == "" || s[0] == '0' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// spliceRV returns a copy of raw whose metadata.resourceVersion is rv. Every occurrence is
// rewritten — JSON decoders keep the last of repeated keys (of metadata and of resourceVersion),
// gjson finds the first, and both must read rv — and when the last metadata has none, the field is
// inserted where the apiserver's encoding of ObjectMeta has it (after name, namespace and uid). Slow path: only events whose object does not already carry their RV.
func spliceRV(raw []byte, rv uint64) ([]byte, error) {
	quoted := strconv.AppendQuote(nil, strconv.FormatUint(rv, 10))
	view := unsafe.String(unsafe.SliceData(raw), len(raw))
	offset := func(sub string) int {
		return int(uintptr(unsafe.Pointer(unsafe.StringData(sub))) - uintptr(unsafe.Pointer(unsafe.SliceData(raw))))
	}
	type span struct{ at, n int }
	var rvs []span
	lastMD, insertAt, last := -1, -1, false
	hasRV := false
	gjson.Parse(view).ForEach(func(k, md gjson.Result) bool {
		if k.Str != "metadata" || !md.IsObject() {
			return true
		}
		lastMD, hasRV, insertAt = offset(md.Raw), false, -1
		md.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "resourceVersion":
				rvs = append(rvs, span{offset(v.Raw), len(v.Raw)})
				hasRV = true
			case "name", "generateName", "namespace", "selfLink", "uid":
			default:
				if insertAt < 0 {
					insertAt = offset(k.Raw)
				}
			}
			return true
		})
		// Where ObjectMeta's encoding puts resourceVersion: before the first member it declares
		// after it (all but name, generateName, namespace, selfLink and uid), else last.
		last = insertAt < 0
		if last {
			insertAt = lastMD + len(md.Raw) - 1
		}
		return true
	})
	if lastMD < 0 {
		return nil, fmt.Errorf("cannot locate metadata to write resourceVersion")
	}
	out := make([]byte, 0, len(raw)+len(quoted)+20)
	pos := 0
	if !hasRV {
		out = append(out, raw[:insertAt]...)
		empty := strings.TrimSpace(string(raw[lastMD+1:insertAt])) == ""
		if last && !empty {
			out = append(out, ',')
		}
		out = append(out, `"resourceVersion":`...)
		out = append(out, quoted...)
		if !last {
			out = append(out, ',')
		}
		pos = insertAt
	}
	for _, sp := range rvs {
		if sp.at < pos {
			continue // cannot happen: occurrences come in document order after pos
		}
		out = append(out, raw[pos:sp.at]...)
		out = append(out, quoted...)
		pos = sp.at + sp.n
	}
	return append(out, raw[pos:]...), nil
}
