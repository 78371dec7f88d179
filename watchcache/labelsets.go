package watchcache

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/watchcache/watchcache/selection"
)

// labelSet is an interned, immutable set of labels. Objects with the same labels share one set, so
// a label selector is evaluated once per distinct set per query (a memo indexed by id) instead of
// once per object: a scan costs a few ns per object instead of ~200 ns of cache misses on each
// object's labels (reference/feasibility.md, lesson 4).
type labelSet struct {
	id     uint32
	labels selection.Labels
}

// labelSets interns label sets by the raw JSON text of metadata.labels. Two objects whose labels
// differ only in key order get two sets: harmless, they evaluate the same.
//
// Sets are never removed while the cache lives (a Replace starts a new table); the table grows with
// the number of distinct label sets ever seen, which in clusters is bounded by templates × versions.
type labelSets struct {
	mu    sync.Mutex
	byRaw map[string]*labelSet
	next  atomic.Uint32 // ids handed out so far; readers size memos by it
	empty *labelSet
}

func newLabelSets() *labelSets {
	t := &labelSets{byRaw: make(map[string]*labelSet)}
	t.empty = &labelSet{id: 0}
	t.next.Store(1)
	return t
}

// known reports whether raw has a set (selection.Schema.ExtractKnownLabels then skips reading it).
func (t *labelSets) known(raw string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.byRaw[raw]
	return ok
}

// intern returns the shared set for raw, the text of a non-empty labels object ("" for none).
// labels is the parse of raw, or nil when the extraction skipped it because raw was known.
func (t *labelSets) intern(raw string, labels selection.Labels) *labelSet {
	if raw == "" {
		return t.empty
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ls, ok := t.byRaw[raw]; ok {
		return ls
	}
	if labels == nil {
		// Not reached: raw was known when the record was built, under the writer lock that
		// still holds, and sets are never removed. Read it rather than lose the labels.
		var err error
		if labels, err = selection.ReadLabels(raw); err != nil || len(labels) == 0 {
			return t.empty
		}
	}
	// Copy what the table keeps, so that it does not pin the first object's bytes after that object
	// is gone; the copy happens once per distinct set.
	own := make(selection.Labels, len(labels))
	for i, l := range labels {
		own[i] = selection.Label{Key: strings.Clone(l.Key), Value: strings.Clone(l.Value)}
	}
	ls := &labelSet{id: t.next.Add(1) - 1, labels: own}
	t.byRaw[strings.Clone(raw)] = ls
	return ls
}

// size is an upper bound of the ids handed out so far.
func (t *labelSets) size() int { return int(t.next.Load()) }
