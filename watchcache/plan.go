package watchcache

import (
	"strings"
	"unsafe"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/selection"
)

// plan says how to walk one state for one query.
type plan struct {
	prefix string // list root, ends in "/": "/" or "/<namespace>/"
	start  string // absolute key to start at (≥ prefix)
	only   string // when set, the only key that can match (metadata.name narrowing, rule 4.6)
	si     *contentIndex
	value  string                     // indexed value when si != nil
	keys   index.Keys[unsafe.Pointer] // value's keys in si (one directory seek, shared by count and walk)
	// covers says the index range itself is the whole selector of its kind (a lone `f=v` or `k=v`
	// the index serves): every entry of the range matches it, so the filter can skip it.
	covers bool
}

// makePlan picks the walk: the range of the index that serves the selectors in v (servingIndex),
// otherwise a key scan of the prefix. Every requirement is still applied as a filter, so the plan
// never changes the result.
func makePlan(v view, prefix, start string, namespaced bool, l selection.LabelSelector, f selection.FieldSelector) plan {
	pl := plan{prefix: prefix, start: max(start, prefix)}
	// Rule 4.6: an exact metadata.name (with the namespace known) makes a first page a single-key
	// read, with no continue; a continued list stays a filtered scan (MatchesSingle is false with
	// a continue token), so its token presence is a scan's.
	if start == "" {
		pl.only = singleKey(prefix, namespaced, f)
		pl.start = max(pl.start, pl.only)
	}
	if pl.only != "" {
		return pl // a single key: nothing is cheaper
	}
	pl.si, pl.value, pl.keys = servingIndex(v, l, f)
	if pl.si != nil {
		if pl.si.spec.Kind == index.Field {
			pl.covers = f.Len() == 1
		} else {
			pl.covers = l.Len() == 1
		}
	}
	return pl
}

// servingIndex decides which index serves a selector in v, for a list's walk and for filing a
// watcher: among the exact-match requirements (fields first, then labels) that have an index in
// v, the one whose value has the fewest keys, the first of them on a tie. Each candidate costs one
// directory seek; its count is O(1); the winner's lookup is returned for the walk. si is nil when
// no requirement has an index.
func servingIndex(v view, l selection.LabelSelector, f selection.FieldSelector) (si *contentIndex, value string, keys index.Keys[unsafe.Pointer]) {
	best := 0
	consider := func(c *contentIndex, val string) {
		if c == nil {
			return
		}
		k := c.idx.Lookup(val)
		if n := k.Len(); si == nil || n < best {
			si, value, keys, best = c, val, k, n
		}
	}
	for t := range f.ExactTerms() {
		consider(v.findIndex(index.Spec{Kind: index.Field, Name: t.Name}), t.Value)
	}
	for t := range l.ExactTerms() {
		consider(v.findIndex(index.Spec{Kind: index.Label, Name: t.Key}), t.Value)
	}
	return si, value, keys
}

// inRange reports whether key is still inside the plan's range (keys arrive in ascending order).
func (pl *plan) inRange(key string) bool {
	switch {
	case pl.only != "":
		return key == pl.only
	case pl.prefix == "/":
		return true // every key; not reading the key's bytes saves a cache miss per entry
	}
	return strings.HasPrefix(key, pl.prefix)
}
