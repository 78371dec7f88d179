package watchcache

import (
	"sync"
	"sync/atomic"

	"github.com/watchcache/watchcache/selection"
)

// maxParsedSelectors bounds the parsed-selector memo. Controllers and kubelets repeat a set of
// selectors (one per node, one per owner): a 5,000-node cluster's kubelets alone send 5,000
// `spec.nodeName=` selectors, and a memo smaller than that set, dropped whenever full, would miss
// on every request of a round robin over them. Parsing costs ≈1–5 µs and 15–50 allocations, more
// than an indexed page itself (≈1 µs); an entry costs a few hundred bytes. When the memo is full it
// is dropped and refills.
const maxParsedSelectors = 1 << 14

// selectorKey identifies a parse: the field selector depends on the schema it is compiled against.
type selectorKey struct {
	schema        *selection.Schema
	label, fields string
}

type parsedSelectors struct {
	labels selection.LabelSelector
	fields selection.FieldSelector
	err    error // a label or field syntax error, or an unsupported field
}

// selectorMemo caches parsed selectors; parsed selectors are immutable, so entries are shared by
// concurrent queries.
type selectorMemo struct {
	m sync.Map // selectorKey -> *parsedSelectors
	n atomic.Int64
}

func (sm *selectorMemo) parse(schema *selection.Schema, label, fields string) *parsedSelectors {
	k := selectorKey{schema, label, fields}
	if v, ok := sm.m.Load(k); ok {
		return v.(*parsedSelectors)
	}
	p := &parsedSelectors{}
	p.labels, p.err = selection.ParseLabels(label)
	if p.err == nil {
		p.fields, p.err = schema.ParseFields(fields)
	}
	if sm.n.Add(1) > maxParsedSelectors {
		sm.m.Clear()
		sm.n.Store(1)
	}
	sm.m.Store(k, p)
	return p
}
