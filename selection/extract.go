package selection

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Object is what Extract reads from one object's JSON: identity, labels and the values of the
// schema's selectable fields.
//
// Its strings are views of the raw bytes given to Extract (zero-copy), except strings that
// needed JSON unescaping and values Extract computes ("true"/"false" of typed booleans, results
// of gjson queries such as counts), which are fresh. The raw bytes must therefore never be modified while
// the Object, or any string taken from it, is in use. An Object is a value; treat its slices as
// read-only, after which it may be shared between goroutines freely.
type Object struct {
	Name      string
	Namespace string // "" when absent; whether it must be present is the caller's rule, not Extract's
	// ResourceVersion is the text of metadata.resourceVersion ("" when absent).
	ResourceVersion string
	// LabelsRaw is the JSON text of metadata.labels ("" when absent, null or empty): a cheap key
	// to intern label sets by (equal text ⇒ equal labels; the converse needs the same encoder).
	LabelsRaw string
	// Labels are the labels sorted by key, without duplicates.
	Labels Labels
	// Fields[i] is the value of the schema's field i; len(Fields) == schema.NumFields().
	Fields []string
	// ASCII says that every byte of the document is ASCII, which the pass sees at no cost in
	// documents of up to 16 KiB; false says that one is not, or that the document is longer.
	ASCII bool
}

// Extract validates raw and reads the object's identity, labels and selectable fields in one
// pass over its bytes: the pass checks the JSON syntax of the whole document (what
// encoding/json.Valid accepts, nesting limit included) and, on the way, descends only into the keys
// the schema needs (metadata, and spec/status for pods), skipping every other value at the speed of
// the syntax check (BenchmarkExtract: ≈2× faster than validating, then walking with gjson, which
// BenchmarkReferenceExtract measures). It allocates the Fields slice and, when there are labels,
// the Labels slice — nothing else, unless strings need unescaping or a registered path uses a
// gjson feature that builds its result (e.g. `#.name`).
//
// Errors wrap ErrMalformed: invalid JSON; top level not an object; metadata missing or not an
// object; metadata.name missing, empty or not a string; metadata.labels not an object of string
// values; metadata.namespace or metadata.resourceVersion present but not a string. A syntax error
// anywhere wins over the others. A null value counts as absent everywhere. Duplicate keys are
// resolved as encoding/json does (the last one wins, a repeated object merges), except that a
// repeated metadata.labels replaces the earlier one and a repeated metadata is refused.
//
// Extract is safe for concurrent use. raw must not be modified afterwards (see Object).
func (s *Schema) Extract(raw []byte) (Object, error) { return s.ExtractKnownLabels(raw, nil) }

// ExtractKnownLabels is Extract for a caller that keeps the label sets it has seen by the JSON text
// of metadata.labels (an interning table): when known reports that text as seen before, the labels
// are not read again — they were valid then, and the same text reads the same — and the Object has
// LabelsRaw without Labels (ReadLabels reads them from LabelsRaw). known is called at most once,
// with the text of the labels object when it is not "{}"; nil means nothing is known.
func (s *Schema) ExtractKnownLabels(raw []byte, known func(labelsRaw string) bool) (Object, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		if !validJSON(raw) {
			return Object{}, malformed("invalid JSON")
		}
		return Object{}, malformed("top level is not an object")
	}
	x := extractor{
		// The view aliases raw: the values handed to gjson are substrings of it, and so is every
		// string gjson returns without unescaping.
		json:   unsafe.String(unsafe.SliceData(raw), len(raw)),
		fields: make([]string, len(s.fields)),
	}
	// The string ends of raw, on the stack: a parameter of the walk rather than a field of x,
	// whose contents escape.
	var buf endsBuf
	ends, ascii := buf.mark(raw)
	for _, i := range s.bools {
		x.fields[i] = "false"
	}
	for _, i := range s.ints {
		x.fields[i] = "0"
	}
	if end, ok := x.walk(s.plan, raw, ends, i, 0); !ok || skipSpace(raw, end) != len(raw) {
		return Object{}, malformed("invalid JSON")
	}
	if x.err != nil {
		return Object{}, x.err
	}
	obj, err := s.finish(&x, known)
	obj.ASCII = ascii && err == nil
	return obj, err
}

// finish checks what the pass found and derives the fields computed from several values.
func (s *Schema) finish(x *extractor, known func(string) bool) (Object, error) {
	switch {
	case !x.sawMeta:
		return Object{}, malformed("metadata is missing")
	case x.o.Name == "":
		return Object{}, malformed("metadata.name is missing or empty")
	}
	if s.namePos >= 0 {
		x.fields[s.namePos] = x.o.Name
	}
	if s.nsPos >= 0 {
		x.fields[s.nsPos] = x.o.Namespace
	}
	if s.podIPPos >= 0 {
		// Convert_v1_PodStatus_To_core_PodStatus: podIP is authoritative when set; otherwise
		// the internal PodIPs is the v1 podIPs. ToSelectableFields then takes PodIPs[0].
		x.fields[s.podIPPos] = x.podIP
		if x.podIP == "" {
			x.fields[s.podIPPos] = x.podIPs
		}
	}
	if s.saPos >= 0 {
		// Convert_v1_PodSpec_To_core_PodSpec: serviceAccountName wins; the deprecated
		// serviceAccount fills in when it is empty.
		x.fields[s.saPos] = x.saName
		if x.saName == "" {
			x.fields[s.saPos] = x.sa
		}
	}
	x.o.Fields = x.fields
	if x.labels.IsObject() {
		if known != nil && x.labels.Raw != "{}" && known(x.labels.Raw) {
			x.o.LabelsRaw = x.labels.Raw
			return x.o, nil
		}
		var err error
		if x.o.Labels, err = readLabels(x.labels); err != nil {
			return Object{}, err
		}
		if len(x.o.Labels) > 0 {
			x.o.LabelsRaw = x.labels.Raw
		}
	}
	return x.o, nil
}

// extractor is the state of one Extract call. It lives on Extract's stack: the ForEach callbacks
// capture it by pointer, and gjson does not retain them.
type extractor struct {
	json       string // the raw bytes being read, as a string
	o          Object
	fields     []string
	labels     gjson.Result // the last metadata.labels object; read after the pass
	sawMeta    bool
	podIP      string
	podIPs     string
	saName, sa string
	err        error
}

// walk validates the value at b[i:] (after whitespace) for plan node n, walks the members of an
// object value that n has nodes for, and then applies n's acts to the value. depth is the number of
// containers enclosing the value; ends is the bitmap of markStringEnds for b, or nil. It returns
// the index after the value, and false on a syntax error. After a semantic error (x.err) it only
// checks syntax.
func (x *extractor) walk(n *node, b []byte, ends []uint64, i, depth int) (int, bool) {
	i, c := peek(b, i)
	if c == 0 {
		return i, false
	}
	start := i
	act := x.err == nil
	if n.meta && act {
		switch {
		case c == 'n':
			act = false // null is absent: decoding null into a struct leaves it as it was
		case c != '{':
			x.err = malformed("metadata is not an object")
		case x.sawMeta:
			// JSON decoders disagree on a repeated object: typed ones merge the two, maps keep
			// the last. An object whose identity depends on the decoder is refused.
			x.err = malformed("metadata is repeated")
		default:
			x.sawMeta = true
		}
		act = act && x.err == nil
	}
	var ok bool
	if c == '{' && len(n.kids) > 0 && act {
		i, ok = x.members(n, b, ends, i, depth)
	} else {
		i, ok = skipValue(b, ends, i, depth)
	}
	if !ok || !act || x.err != nil {
		return i, ok
	}
	deep := c != '{' && c != 'n' && len(n.kids) > 0
	if len(n.acts) == 0 && !(deep && len(n.deep) > 0) {
		return i, true
	}
	v := parseValue(x.json[start:i])
	for k := range n.acts {
		x.apply(&n.acts[k], v)
	}
	if deep {
		// Not an object: the descendants' paths may still resolve (an array indexed by a
		// numeric component), through gjson.Get on the value.
		for k := range n.deep {
			x.apply(&n.deep[k], v)
		}
	}
	return i, true
}

// parseValue is gjson.Parse of one validated JSON value; a string without escapes, the value of
// most acts (a name, a node, a phase), is built without gjson's second scan of its bytes.
func parseValue(raw string) gjson.Result {
	if len(raw) >= 2 && raw[0] == '"' && strings.IndexByte(raw, '\\') < 0 {
		return gjson.Result{Type: gjson.String, Raw: raw, Str: raw[1 : len(raw)-1]}
	}
	return gjson.Parse(raw)
}

// members walks the object at b[i] ('{') for n: each key that n has a node for is walked with it,
// every other value is only validated.
func (x *extractor) members(n *node, b []byte, ends []uint64, i, depth int) (int, bool) {
	if depth >= maxDepth {
		return i, false
	}
	var c byte
	if i, c = peek(b, i+1); c == '}' {
		return i + 1, true
	}
	for {
		if i, c = peek(b, i); c != '"' {
			return i, false
		}
		var key string
		var ok bool
		end := chunkEnd(ends, i+1)
		if end >= 0 && b[end] == '"' {
			end++ // the common key, without escapes, read without a call
			key = x.json[i+1 : end-1]
		} else {
			if end, ok = skipString(b, ends, i+1); !ok {
				return end, false
			}
			key = x.json[i+1 : end-1]
			if strings.IndexByte(key, '\\') >= 0 {
				key = gjson.Parse(x.json[i:end]).Str // escaped: match the key as decoders read it
			}
		}
		if i, c = peek(b, end); c != ':' {
			return i, false
		}
		switch kid := n.child(key); {
		case kid != nil && x.err == nil:
			i, ok = x.walk(kid, b, ends, i+1, depth+1)
		default:
			if i, c = peek(b, i+1); c == '"' {
				// Most skipped values are strings, most of them plain.
				if j := chunkEnd(ends, i+1); j >= 0 && b[j] == '"' {
					i, ok = j+1, true
				} else {
					i, ok = skipString(b, ends, i+1)
				}
			} else {
				i, ok = skipValue(b, ends, i, depth+1)
			}
		}
		if !ok {
			return i, false
		}
		switch i, c = peek(b, i); c {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func (x *extractor) apply(a *act, v gjson.Result) {
	if a.path != "" {
		v = gjson.Get(v.Raw, a.path)
	}
	// null (or missing) leaves a value as it was, as decoding null into a Go value does.
	switch a.kind {
	case actValue:
		if v.Type != gjson.Null {
			x.fields[a.pos] = render(v)
		}
	case actBool:
		switch v.Type {
		case gjson.True:
			x.fields[a.pos] = "true"
		case gjson.False:
			x.fields[a.pos] = "false"
		}
	case actName:
		x.o.Name = x.str(v, "metadata.name", x.o.Name)
	case actNamespace:
		x.o.Namespace = x.str(v, "metadata.namespace", x.o.Namespace)
	case actRV:
		x.o.ResourceVersion = x.str(v, "metadata.resourceVersion", x.o.ResourceVersion)
	case actLabels:
		x.setLabels(v)
	case actPodIP:
		if v.Type == gjson.String {
			x.podIP = v.Str
		}
	case actPodIPs:
		if v.Type == gjson.Null || v.IsArray() {
			x.podIPs = ""
			if ip := gjson.Get(v.Raw, "0.ip"); ip.Type == gjson.String {
				x.podIPs = ip.Str
			}
		}
	case actSAName:
		if v.Type == gjson.String {
			x.saName = v.Str
		}
	case actSA:
		if v.Type == gjson.String {
			x.sa = v.Str
		}
	}
}

// str returns v's string, old when v is null, and records an error when v is anything else.
func (x *extractor) str(v gjson.Result, what, old string) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return old
	}
	x.err = malformed("%s is not a string", what)
	return old
}

func (x *extractor) setLabels(v gjson.Result) {
	switch {
	case v.Type == gjson.Null:
		x.labels = gjson.Result{}
	case v.IsObject():
		x.labels = v
	default:
		x.err = malformed("metadata.labels is not an object")
	}
}

// ReadLabels reads the JSON text of a labels object (Object.LabelsRaw, which ExtractKnownLabels
// leaves unread for a label set its caller has seen) into sorted labels, with the errors Extract
// gives for metadata.labels (wrapping ErrMalformed); nil for an empty object.
// Safe for concurrent use.
func ReadLabels(raw string) (Labels, error) {
	v := gjson.Parse(raw)
	if !v.IsObject() {
		return nil, malformed("metadata.labels is not an object")
	}
	return readLabels(v)
}

// readLabels returns the labels of a labels object, sorted, in one allocation. In a
// labels object every key and every value is a string, so the unescaped quotes number four per
// label; counting quotes (a vectorised byte count) sizes the slice without a second ForEach.
// Escaped quotes only make the estimate larger.
func readLabels(v gjson.Result) (Labels, error) {
	n := strings.Count(v.Raw, `"`) / 4
	if n == 0 {
		n = 1 // {} reads nothing; anything else is malformed and fails below
	}
	ls := make(Labels, 0, n)
	sorted := true
	var err error
	v.ForEach(func(k, val gjson.Result) bool {
		if val.Type != gjson.String {
			err = malformed("metadata.labels[%q] is not a string", k.Str)
			return false
		}
		if len(ls) > 0 && ls[len(ls)-1].Key >= k.Str {
			sorted = false // also true of a duplicate key
		}
		ls = append(ls, Label{Key: k.Str, Value: val.Str})
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case len(ls) == 0:
		return nil, nil
	case !sorted:
		ls = sortLabels(ls)
	}
	return ls, nil
}

// sortLabels sorts ls by key in place, keeping the last of duplicate keys (encoding/json's rule).
func sortLabels(ls Labels) Labels {
	slices.SortStableFunc(ls, func(a, b Label) int { return strings.Compare(a.Key, b.Key) })
	out := ls[:0]
	for i := range ls {
		if i+1 < len(ls) && ls[i+1].Key == ls[i].Key {
			continue
		}
		out = append(out, ls[i])
	}
	return out
}

// render turns a JSON value into a field value: string → the string; number → its JSON text;
// true/false → "true"/"false"; null or missing → ""; object or array → its JSON text.
func render(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.True:
		return "true"
	case gjson.False:
		return "false"
	case gjson.Null:
		return ""
	}
	return v.Raw
}

// node is one JSON object key of the extraction plan: what to do with its value (acts) and which
// of its own keys to visit (kids). Extract walks the object once with gjson's ForEach, descending
// only into keys that have a node.
type node struct {
	keys []string
	kids []*node
	acts []act
	// deep repeats, with paths relative to this node, the acts of every descendant: they are
	// evaluated with gjson.Get when this node's value is not an object (e.g. an array indexed by
	// a numeric path component), the one case a ForEach descent cannot serve.
	deep []act
	// meta marks the metadata object, which must be present and an object.
	meta bool
}

// act is one thing to do with a value: if path is set, first take gjson.Get(value, path).
type act struct {
	kind actKind
	pos  int
	path string
}

type actKind uint8

const (
	actValue     actKind = iota // Fields[pos] = render(value)
	actBool                     // Fields[pos] = "true"/"false" for JSON true/false
	actName                     // Object.Name
	actNamespace                // Object.Namespace
	actRV                       // Object.ResourceVersion
	actLabels                   // Object.Labels, Object.LabelsRaw
	actPodIP                    // status.podIP
	actPodIPs                   // status.podIPs[0].ip
	actSAName                   // spec.serviceAccountName
	actSA                       // spec.serviceAccount
)

func (n *node) child(key string) *node {
	for i := range n.keys {
		if n.keys[i] == key {
			return n.kids[i]
		}
	}
	return nil
}

func (n *node) add(key string) *node {
	if c := n.child(key); c != nil {
		return c
	}
	c := &node{}
	n.keys = append(n.keys, key)
	n.kids = append(n.kids, c)
	return c
}

// compile builds the extraction plan and the derived positions from s.fields.
func (s *Schema) compile() {
	s.namePos, s.nsPos, s.podIPPos, s.saPos = -1, -1, -1, -1
	s.bools, s.ints = nil, nil
	root := &node{}
	meta := root.add("metadata")
	meta.meta = true
	meta.add("name").acts = []act{{kind: actName}}
	meta.add("namespace").acts = []act{{kind: actNamespace}}
	meta.add("resourceVersion").acts = []act{{kind: actRV}}
	meta.add("labels").acts = []act{{kind: actLabels}}

	for i, f := range s.fields {
		switch f.kind {
		case kindName:
			s.namePos = i
		case kindNamespace:
			s.nsPos = i
		case kindAbsent:
		case kindPodIP:
			s.podIPPos = i
			s.place(root, "status.podIP", act{kind: actPodIP})
			s.place(root, "status.podIPs", act{kind: actPodIPs})
		case kindServiceAccount:
			s.saPos = i
			s.place(root, "spec.serviceAccountName", act{kind: actSAName})
			s.place(root, "spec.serviceAccount", act{kind: actSA})
		case kindBool:
			s.bools = append(s.bools, i)
			s.place(root, f.path, act{kind: actBool, pos: i})
		case kindInt:
			s.ints = append(s.ints, i)
			s.place(root, f.path, act{kind: actValue, pos: i})
		default:
			s.place(root, f.path, act{kind: actValue, pos: i})
		}
	}
	s.plan = root
}

// place adds a to the plan at path: at the node of the path's plain leading components, with the
// rest of the path (if any) left for gjson.Get on that node's value, and repeated in the deep
// list of every intermediate node.
func (s *Schema) place(root *node, path string, a act) {
	comps, rest := splitPath(path)
	n := root
	for d, c := range comps {
		if d > 0 && (a.kind == actValue || a.kind == actBool) {
			rel := strings.Join(comps[d:], ".")
			if rest != "" {
				rel += "." + rest
			}
			n.deep = append(n.deep, act{kind: a.kind, pos: a.pos, path: rel})
		}
		n = n.add(c)
	}
	a.path = rest
	n.acts = append(n.acts, a)
}

// splitPath splits a gjson path into its leading plain components — keys made only of
// [A-Za-z0-9_/-], which gjson matches literally and which a ForEach descent can therefore serve —
// and the remainder, starting at the first component that is not plain (a wildcard, an escape, a
// query, a modifier, an empty component). gjson evaluates "a.b.<rest>" component by component, so
// it equals gjson.Get(value of a.b, rest).
func splitPath(p string) (comps []string, rest string) {
	i := 0
	for i < len(p) {
		j := i
		for j < len(p) && plain(p[j]) {
			j++
		}
		switch {
		case j == len(p) && j > i:
			return append(comps, p[i:]), ""
		case j > i && p[j] == '.' && j+1 < len(p):
			comps = append(comps, p[i:j])
			i = j + 1
		default:
			return comps, p[i:]
		}
	}
	return comps, ""
}

func plain(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '/'
}
