package selection

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Schema is the set of selectable fields of one resource: the names a field selector may use,
// where each value comes from in the JSON, and the position of each value in Object.Fields.
//
// A Schema is immutable: WithField returns a new Schema and leaves the receiver untouched, so a
// cache can publish a new schema while records extracted under the old one stay valid. Positions
// are append-only: a field keeps its position in every schema derived from the one that
// introduced it, so values extracted under an older schema are a prefix of those extracted under
// a newer one. Any number of goroutines may use a Schema concurrently.
//
// Build one with NewSchema, CustomResourceSchema, PodSchema, NodeSchema or SchemaFor; the zero
// value is not usable.
type Schema struct {
	namespaced bool
	// generic selects the unknown-field message of kinds without a field-label conversion of
	// their own (runtime.DefaultMetaV1FieldSelectorConversion, rule 4.3).
	generic bool
	fields  []field
	names   map[string]int // every accepted field label (aliases included) → position
	plan    *node          // the extraction plan: which keys to visit in one pass, and what to do there

	// positions of the values Extract derives after the pass (-1 when absent)
	namePos, nsPos, podIPPos, saPos int
	bools                           []int // positions of kindBool fields: "false" unless the JSON says true
	ints                            []int // positions of kindInt fields: "0" unless the JSON has a number
}

// field is one selectable field.
type field struct {
	name string
	path string // where the value is, in gjson path syntax relative to the object
	kind fieldKind
}

// fieldKind says how Extract computes a field's value.
type fieldKind uint8

const (
	// kindPath: the value at path, rendered by render (string → itself, number → its text,
	// true/false → "true"/"false", missing/null → "", object/array → its JSON text).
	kindPath fieldKind = iota
	// kindName: metadata.name (Object.Name).
	kindName
	// kindNamespace: metadata.namespace (Object.Namespace).
	kindNamespace
	// kindBool: a typed bool of the API: "true" if the JSON value is true, else "false" — the
	// zero value of a missing field is false, not "" (strconv.FormatBool in the strategies).
	kindBool
	// kindInt: a typed integer of the API: its JSON text, "0" when missing (strconv.Itoa in the
	// strategies, e.g. a replication controller's status.replicas).
	kindInt
	// kindPodIP: status.podIP, else status.podIPs[0].ip, else "" (rule 4.4; see PodSchema).
	kindPodIP
	// kindServiceAccount: spec.serviceAccountName, else the deprecated spec.serviceAccount.
	kindServiceAccount
	// kindAbsent: accepted by the field-label conversion but absent from the object's field
	// set, so its value is always "" (status.podIPs of pods, rule 4.4; metadata.namespace of
	// cluster-scoped kinds without a conversion of their own).
	kindAbsent
)

// NewSchema returns the schema of a kind without a field-label conversion of its own: namespaced
// kinds select on metadata.name and metadata.namespace; cluster-scoped kinds on metadata.name,
// and accept metadata.namespace whose value is always "" (so `metadata.namespace=` matches every
// object and `metadata.namespace=x` none), as runtime.DefaultMetaV1FieldSelectorConversion and
// storage.DefaultClusterScopedAttr do together (rules 4.3, 4.4). Unknown fields get the message
// `"<f>" is not a known field selector: only "metadata.name", "metadata.namespace"` until a
// field is registered with WithField.
func NewSchema(namespaced bool) *Schema {
	fs := []field{{name: "metadata.name", path: "metadata.name", kind: kindName}}
	if namespaced {
		fs = append(fs, field{name: "metadata.namespace", path: "metadata.namespace", kind: kindNamespace})
	} else {
		fs = append(fs, field{name: "metadata.namespace", kind: kindAbsent})
	}
	return newSchema(namespaced, true, fs, nil)
}

// CustomResourceSchema returns the schema of a custom resource before any selectableFields are
// registered (add them with WithField). The apiextensions-apiserver's conversion accepts
// metadata.name, and metadata.namespace only for namespaced resources, and answers anything else
// with "field label not supported: <f>" (apiextensions-apiserver crConverter.ConvertFieldLabel).
func CustomResourceSchema(namespaced bool) *Schema {
	fs := []field{{name: "metadata.name", path: "metadata.name", kind: kindName}}
	if namespaced {
		fs = append(fs, field{name: "metadata.namespace", path: "metadata.namespace", kind: kindNamespace})
	}
	return newSchema(namespaced, false, fs, nil)
}

// PodSchema returns the schema of core/v1 pods (rules 4.3, 4.4): the field labels accepted by
// the pod conversion, valued as pod.ToSelectableFields values the internal object decoded from
// the JSON:
//
//	metadata.name, metadata.namespace
//	spec.nodeName, spec.restartPolicy, spec.schedulerName, status.phase, status.nominatedNodeName
//	spec.serviceAccountName   spec.serviceAccountName, else the deprecated spec.serviceAccount (v1→internal conversion)
//	spec.hostNetwork          "true" or "false" (missing = "false")
//	status.podIP              status.podIP when set, else status.podIPs[0].ip, else "" (v1→internal
//	                          conversion makes podIP authoritative, then the field set takes podIPs[0])
//	status.podIPs             accepted but never in the field set: always "", so `status.podIPs=x`
//	                          matches nothing and `status.podIPs!=x` everything
//
// spec.host is an alias: ParseFields rewrites it to spec.nodeName. Unknown fields get
// "field label not supported: <f>".
//
// No API defaults are applied: a pod whose JSON lacks spec.restartPolicy has the value "", not
// "Always". Objects read from an apiserver or etcd carry their defaults, and the cache serves
// the bytes it stores, so selecting on what is in them is the consistent choice.
func PodSchema() *Schema {
	return newSchema(true, false, []field{
		{name: "metadata.name", path: "metadata.name", kind: kindName},
		{name: "metadata.namespace", path: "metadata.namespace", kind: kindNamespace},
		{name: "spec.nodeName", path: "spec.nodeName"},
		{name: "spec.restartPolicy", path: "spec.restartPolicy"},
		{name: "spec.schedulerName", path: "spec.schedulerName"},
		{name: "spec.serviceAccountName", path: "spec.serviceAccountName", kind: kindServiceAccount},
		{name: "spec.hostNetwork", path: "spec.hostNetwork", kind: kindBool},
		{name: "status.phase", path: "status.phase"},
		{name: "status.podIP", path: "status.podIP", kind: kindPodIP},
		{name: "status.nominatedNodeName", path: "status.nominatedNodeName"},
		{name: "status.podIPs", kind: kindAbsent},
	}, map[string]string{"spec.host": "spec.nodeName"})
}

// NodeSchema returns the schema of core/v1 nodes, a cluster-scoped kind: metadata.name and
// spec.unschedulable ("true" or "false", missing = "false"). Unknown fields, metadata.namespace
// included, get "field label not supported: <f>".
func NodeSchema() *Schema {
	return newSchema(false, false, []field{
		{name: "metadata.name", path: "metadata.name", kind: kindName},
		{name: "spec.unschedulable", path: "spec.unschedulable", kind: kindBool},
	}, nil)
}

// The other core/v1 kinds with a field-label conversion of their own (K37
// pkg/apis/core/v1/conversion.go), valued as their strategies' selectable fields: an unknown
// field gets "field label not supported: <f>", not the generic message.
var coreSchemas = map[string]func() *Schema{
	"namespaces": func() *Schema { // cluster-scoped: metadata.namespace is not accepted
		return newSchema(false, false, []field{
			{name: "metadata.name", path: "metadata.name", kind: kindName},
			{name: "status.phase", path: "status.phase"},
		}, nil)
	},
	"services": func() *Schema {
		return namespacedSchema(field{name: "spec.clusterIP", path: "spec.clusterIP"}, field{name: "spec.type", path: "spec.type"})
	},
	"secrets": func() *Schema { return namespacedSchema(field{name: "type", path: "type"}) },
	"replicationcontrollers": func() *Schema {
		return namespacedSchema(field{name: "status.replicas", path: "status.replicas", kind: kindInt})
	},
	"events": func() *Schema {
		var fs []field
		for _, f := range []string{"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"} {
			fs = append(fs, field{name: "involvedObject." + f, path: "involvedObject." + f})
		}
		return namespacedSchema(append(fs,
			field{name: "reason", path: "reason"},
			field{name: "reportingComponent", path: "reportingComponent"},
			field{name: "source", path: "source.component"}, // the event strategy selects on source.component
			field{name: "type", path: "type"})...)
	},
}

// namespacedSchema is metadata.name, metadata.namespace and the kind's own fields.
func namespacedSchema(own ...field) *Schema {
	fs := []field{
		{name: "metadata.name", path: "metadata.name", kind: kindName},
		{name: "metadata.namespace", path: "metadata.namespace", kind: kindNamespace},
	}
	return newSchema(true, false, append(fs, own...), nil)
}

// SchemaFor returns the built-in schema of a resource (by its plural name): PodSchema for
// "pods", NodeSchema for "nodes", the kind's own field list for namespaces, services, secrets,
// replicationcontrollers and events, NewSchema(namespaced) for anything else.
func SchemaFor(resource string, namespaced bool) *Schema {
	switch resource {
	case "pods":
		return PodSchema()
	case "nodes":
		return NodeSchema()
	}
	if f, ok := coreSchemas[resource]; ok {
		return f()
	}
	return NewSchema(namespaced)
}

func newSchema(namespaced, generic bool, fs []field, aliases map[string]string) *Schema {
	s := &Schema{namespaced: namespaced, generic: generic, fields: fs, names: make(map[string]int, len(fs)+len(aliases))}
	for i, f := range fs {
		s.names[f.name] = i
	}
	for alias, target := range aliases {
		s.names[alias] = s.names[target]
	}
	s.compile()
	return s
}

// WithField returns a copy of s that also selects on the field name, valued by the gjson path
// (github.com/tidwall/gjson syntax, relative to the object): like a CRD's selectableFields, but
// any path, e.g. "spec.replicas", "metadata.labels.app" or `status.conditions.#(type=="Ready").status`.
// The value is rendered as: string → the string; number → its JSON text; true/false →
// "true"/"false"; missing or null → ""; object or array → its JSON text.
//
// The new field takes the next position (s.NumFields()); every existing field keeps its
// position. Unknown fields of the returned schema get "field label not supported: <f>", as for
// a custom resource with selectableFields. s itself is not modified.
//
// Errors (wrapping ErrInvalidField): empty name; a name no field selector can spell (containing
// ',' or '=', or ending in '!'); a name s already accepts (aliases included); empty path; a path
// that yields one value per array element (multiValued), which a field holding one value could
// only match as a JSON array's text, never by any element's value.
//
// Paths whose leading components are plain keys ([A-Za-z0-9_/-]) are served by Extract's single
// pass; the rest of a path (from its first wildcard, escape, query or modifier) is evaluated by
// gjson on the sub-object already found, so only a path that is not plain from its very first
// component re-scans the object from its first byte.
func (s *Schema) WithField(name, path string) (*Schema, error) {
	switch {
	case name == "":
		return nil, fmt.Errorf("%w: empty field name", ErrInvalidField)
	case strings.ContainsAny(name, ",=") || strings.HasSuffix(name, "!"):
		// The parser splits terms at ',' and a term at its first "!=", "==" or "=".
		return nil, fmt.Errorf("%w: no field selector can spell the name %q", ErrInvalidField, name)
	case path == "":
		return nil, fmt.Errorf("%w: field %q has an empty path", ErrInvalidField, name)
	case multiValued(path):
		return nil, fmt.Errorf("%w: field %q: path %q yields one value per array element, and a selectable field holds one value; select an element (e.g. spec.containers.0.image, or #(name==\"x\").image)", ErrInvalidField, name, path)
	}
	if _, dup := s.names[name]; dup {
		return nil, fmt.Errorf("%w: field %q is already selectable", ErrInvalidField, name)
	}
	out := &Schema{
		namespaced: s.namespaced,
		fields:     append(slices.Clip(s.fields), field{name: name, path: path, kind: kindPath}),
		names:      maps.Clone(s.names),
	}
	out.names[name] = len(out.fields) - 1
	out.compile()
	return out, nil
}

// multiValued reports whether a gjson path yields an array of values gathered from an array's
// elements: a "#" component followed by more of the path ("containers.#.image"), or a query that
// returns every match ("#(...)#"). A trailing "#" (the array's length) and a "#(...)" query (the
// first match) yield one value.
func multiValued(path string) bool {
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '\\':
			i++ // an escaped character is literal
		case '#':
			if i > 0 && path[i-1] != '.' && path[i-1] != '|' {
				continue // '#' inside a key or a query
			}
			if i+1 < len(path) && (path[i+1] == '.' || path[i+1] == '|') {
				return true
			}
			if i+1 < len(path) && path[i+1] == '(' {
				if end := queryEnd(path, i+1); end > 0 && end+1 < len(path) && path[end+1] == '#' {
					return true
				}
			}
		}
	}
	return false
}

// queryEnd returns the index of the ')' closing the query that opens at path[open], or -1.
func queryEnd(path string, open int) int {
	depth := 0
	for i := open; i < len(path); i++ {
		switch path[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// NumFields returns the number of field positions, i.e. the length of Object.Fields.
func (s *Schema) NumFields() int { return len(s.fields) }

// Field returns the position of a field by any name a field selector may use for it (aliases
// such as spec.host included).
func (s *Schema) Field(name string) (int, bool) {
	i, ok := s.names[name]
	return i, ok
}

// FieldName returns the canonical name of the field at position i. It panics if i is out of
// range.
func (s *Schema) FieldName(i int) string { return s.fields[i].name }

// FieldPath returns the gjson path the value of field i is read from ("" for a field whose value
// is always "", such as status.podIPs). Built-in fields with derived values (status.podIP,
// spec.serviceAccountName, booleans) report their primary path.
func (s *Schema) FieldPath(i int) string { return s.fields[i].path }

// Namespaced reports whether the resource is namespaced.
func (s *Schema) Namespaced() bool { return s.namespaced }

// known returns the accepted field names, sorted (for UnsupportedFieldError.Known).
func (s *Schema) known() []string {
	return slices.Sorted(maps.Keys(s.names))
}
