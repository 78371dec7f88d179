package fuzz

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Model is the reference a watch cache of pods is checked against: the rules of
// reference/apiserver-semantics.md written as plainly as possible. Every applied event keeps a
// full copy of the state (a key-sorted slice) in a list of versions; a read picks a version and
// scans all of it; selectors are apimachinery's, matched on maps. No indexes, no B-trees, no
// clones, no interning: nothing it shares with package watchcache but the rules.
//
// Objects are held under storage keys, given with the event (ApplyKeyed, ReplaceKeyed) or made
// from their metadata; key.go states what the key decides and what the object does.
//
// The window is a count of versions (the re-list's included), as watchcache.Options.WindowEvents
// with no age bound. A Model is not safe for concurrent use.
type Model struct {
	window  int
	custom  []customField
	rv      uint64 // the current RV, bookmarks included (rule 3.1)
	listRV  uint64 // RV of the last re-list
	evicted bool   // a version was evicted since the last re-list (rule 5.3)
	// versions are the retained states, oldest first; versions[i].objects is sorted by key.
	versions []version
}

type version struct {
	rv      uint64
	objects []*Object
	change  *change // nil for a re-list
}

// change is an applied object event: the stored version it replaced (nil if none) and the object
// of the event (for DELETED the last state, stamped with the delete RV).
type change struct {
	typ  string
	prev *Object
	cur  *Object
}

// NewModel returns an empty model retaining window versions (≤ 0: unbounded).
func NewModel(window int) *Model { return &Model{window: window} }

// RV returns the model's current resourceVersion.
func (m *Model) RV() uint64 { return m.rv }

// Len returns the number of objects in the latest state.
func (m *Model) Len() int {
	if len(m.versions) == 0 {
		return 0
	}
	return len(m.latest().objects)
}

func (m *Model) latest() version { return m.versions[len(m.versions)-1] }

// RegisterField adds a selectable field read from a dotted path of plain keys; it applies to every
// version, old ones included (as Cache.RegisterField documents).
func (m *Model) RegisterField(name, path string) error {
	if m.fieldKnown(name) {
		return fmt.Errorf("model: field %s exists", name)
	}
	m.custom = append(m.custom, customField{name: name, path: path})
	return nil
}

func (m *Model) fieldKnown(name string) bool {
	if name == "spec.host" || slices.Contains(podFields, name) {
		return true
	}
	for _, c := range m.custom {
		if c.name == name {
			return true
		}
	}
	return false
}

// parse validates one object for this resource (namespaced pods) and keys it (key.go): under key
// when one is given, by its metadata otherwise (rule 6.3).
func (m *Model) parse(key string, raw []byte) (*Object, error) {
	o, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	if key != "" {
		if err := checkKey(key); err != nil {
			return nil, err
		}
		o.Key = key
		return &o, nil
	}
	ns, name, _ := strings.Cut(o.Key[1:], "/")
	if !validSegment(ns) || !validSegment(name) {
		return nil, fmt.Errorf("%w: invalid key %q", errObject, o.Key)
	}
	return &o, nil
}

// Replace is a re-list of objects keyed by their metadata: the state becomes objects (each
// carrying its own resourceVersion) at rv, and the window restarts.
func (m *Model) Replace(objects [][]byte, rv uint64) error {
	keyed := make([]KeyedObject, len(objects))
	for i, raw := range objects {
		keyed[i].Raw = raw
	}
	return m.ReplaceKeyed(keyed, rv)
}

// ReplaceKeyed is Replace with each object under its Key, or keyed by its metadata when Key is ""
// (key.go). An invalid key, like any invalid object, rejects the whole re-list.
func (m *Model) ReplaceKeyed(objects []KeyedObject, rv uint64) error {
	if rv == 0 {
		return fmt.Errorf("model: re-list at RV 0")
	}
	var st []*Object
	for _, obj := range objects {
		o, err := m.parse(obj.Key, obj.Raw)
		if err != nil {
			return err
		}
		own, err := strconv.ParseUint(o.ownRV, 10, 64)
		if err != nil || own == 0 || strings.HasPrefix(o.ownRV, "0") {
			return fmt.Errorf("model: object %s without a usable resourceVersion (%q)", o.Key, o.ownRV)
		}
		o.RV = own
		st = append(st, o)
	}
	slices.SortFunc(st, func(a, b *Object) int { return strings.Compare(a.Key, b.Key) })
	for i := 1; i < len(st); i++ {
		if st[i].Key == st[i-1].Key {
			return fmt.Errorf("model: duplicate key %s", st[i].Key)
		}
	}
	m.versions = []version{{rv: rv, objects: st}}
	m.rv, m.listRV, m.evicted = rv, rv, false
	return nil
}

// Apply applies one event keyed by its object's metadata: "ADDED", "MODIFIED", "DELETED" or
// "BOOKMARK" (rule 6.8: object events strictly increase the RV; a bookmark may repeat it). The
// model keeps the bytes as given, so to compare bytes with a cache (which writes the event's RV
// into the object) feed objects that already carry rv as their metadata.resourceVersion.
func (m *Model) Apply(typ string, raw []byte, rv uint64) error {
	return m.ApplyKeyed(typ, "", raw, rv)
}

// ApplyKeyed is Apply of an event that carries the key the source stores the object under ("":
// keyed by the object's metadata, key.go). A DELETED event removes the object under the key,
// whatever the event's object says.
func (m *Model) ApplyKeyed(typ, key string, raw []byte, rv uint64) error {
	if len(m.versions) == 0 {
		return fmt.Errorf("model: not listed yet")
	}
	if typ == "BOOKMARK" {
		if rv < m.rv {
			return fmt.Errorf("model: bookmark RV %d below %d", rv, m.rv)
		}
		m.rv = rv
		return nil
	}
	if typ != "ADDED" && typ != "MODIFIED" && typ != "DELETED" {
		return fmt.Errorf("model: event type %q", typ)
	}
	o, err := m.parse(key, raw)
	if err != nil {
		return err
	}
	if rv <= m.rv {
		return fmt.Errorf("model: event RV %d not above %d", rv, m.rv)
	}
	o.RV = rv
	st := slices.Clone(m.latest().objects)
	i, found := slices.BinarySearchFunc(st, o.Key, func(x *Object, k string) int { return strings.Compare(x.Key, k) })
	ch := &change{typ: typ, cur: o}
	switch {
	case typ == "DELETED" && !found:
		return fmt.Errorf("model: delete of unknown %s", o.Key)
	case typ == "DELETED":
		ch.prev = st[i]
		st = slices.Delete(st, i, i+1)
	case found:
		ch.typ, ch.prev = "MODIFIED", st[i]
		st[i] = o
	default:
		ch.typ = "ADDED"
		st = slices.Insert(st, i, o)
	}
	m.versions = append(m.versions, version{rv: rv, objects: st, change: ch})
	if m.window > 0 && len(m.versions) > m.window {
		m.versions = slices.Clone(m.versions[len(m.versions)-m.window:])
		m.evicted = true
	}
	m.rv = rv
	return nil
}

// Status is an error answer: the HTTP code and the exact message, and for a 410 on a continue
// the rv -1 token (rule 2.9).
type Status struct {
	Code     int32
	Message  string
	Continue string
}

// String renders the status for failure messages.
func (s *Status) String() string {
	if s == nil {
		return "<nil>"
	}
	if s.Continue != "" {
		return fmt.Sprintf("%d %q (continue %s)", s.Code, s.Message, s.Continue)
	}
	return fmt.Sprintf("%d %q", s.Code, s.Message)
}

func badRequest(format string, args ...any) *Status {
	return &Status{Code: 400, Message: fmt.Sprintf(format, args...)}
}

// Query holds the parameters of a list or watch, as strings and numbers on the wire.
type Query struct {
	Namespace                             string
	LabelSelector, FieldSelector          string
	ResourceVersion, ResourceVersionMatch string
	Limit                                 int64
	Continue                              string
	SendInitialEvents                     *bool
	AllowWatchBookmarks                   bool
}

// selection is a query's parsed selectors and list root.
type selection struct {
	labels labels.Selector
	fields fields.Selector
	root   string // "/" or "/<ns>/"
	// single, when set, is the only key the request reads (rules 1.10, 4.6, 5.12: an exact
	// metadata.name with a namespace, and no continue token).
	single string
}

// parseSelectors is the first step of the apiserver's listOpts: syntax errors are 400.
func parseSelectors(q Query) (labels.Selector, fields.Selector, *Status) {
	l, err := labels.Parse(q.LabelSelector)
	if err != nil {
		return nil, nil, badRequest("%v", err)
	}
	f, err := fields.ParseSelector(q.FieldSelector)
	if err != nil {
		return nil, nil, badRequest("%v", err)
	}
	return l, f, nil
}

// convert is the last step of listOpts: field label conversion (rule 4.3), then scope narrowing
// (rule 4.6).
func (m *Model) convert(q Query, l labels.Selector, f fields.Selector) (selection, *Status) {
	f, err := f.Transform(func(name, value string) (string, string, error) {
		if name == "spec.host" {
			name = "spec.nodeName"
		}
		if !m.fieldKnown(name) {
			return "", "", fmt.Errorf("field label not supported: %s", name)
		}
		return name, value, nil
	})
	if err != nil {
		return selection{}, badRequest("%v", err)
	}
	ns := q.Namespace
	if ns == "" {
		if v, ok := f.RequiresExactMatch("metadata.namespace"); ok && validSegment(v) {
			ns = v
		}
	}
	root := "/"
	if ns != "" {
		root = "/" + ns + "/"
	}
	single := ""
	if name, ok := f.RequiresExactMatch("metadata.name"); ok && q.Continue == "" && root != "/" {
		single = root + name
	}
	return selection{labels: l, fields: f, root: root, single: single}, nil
}

func (s selection) empty() bool { return s.labels.Empty() && s.fields.Empty() }

// matches reports whether the request selects o: its key is in the request's range (key.go), and
// its labels and fields match the selectors.
func (s selection) matches(m *Model, o *Object) bool {
	if !strings.HasPrefix(o.Key, s.root) || (s.single != "" && o.Key != s.single) {
		return false
	}
	if !s.labels.Matches(labels.Set(o.Labels)) {
		return false
	}
	if s.fields.Empty() {
		return true
	}
	fs := fields.Set(o.Fields)
	if len(m.custom) > 0 {
		fs = fields.Set{}
		for k, v := range o.Fields {
			fs[k] = v
		}
		for _, c := range m.custom {
			fs[c.name] = c.value(o.root)
		}
	}
	return s.fields.Matches(fs)
}

// invalid renders field errors as the apiserver's 422 message (rule 0).
func invalid(errs field.ErrorList) *Status {
	return &Status{Code: 422, Message: fmt.Sprintf("ListOptions.meta.k8s.io %q is invalid: %v", "", errs.ToAggregate())}
}

// tooLarge is rule 3.4's 504.
func (m *Model) tooLarge(rv uint64) *Status {
	return &Status{Code: 504, Message: fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", rv, m.rv)}
}

// parseRV is rule 0.8/0.9.
func parseRV(rv string) (uint64, *Status) {
	if rv == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, badRequest("invalid resource version: %v", field.Invalid(field.NewPath("resourceVersion"), rv, err.Error()))
	}
	return v, nil
}
