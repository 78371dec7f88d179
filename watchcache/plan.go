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
	si     *stateIndex
	value  string                     // indexed value when si != nil
	keys   index.Keys[unsafe.Pointer] // value's keys in si (one directory seek, shared by count and walk)
	// covers says the index range itself is the whole selector of its kind (a lone `f=v` or `k=v`
	// the index serves): every entry of the range matches it, so the filter can skip it.
	covers bool
}

// listPrefix returns the list root for a namespace, narrowed by an exact metadata.namespace
// requirement of the field selector when the request names no namespace (rule 4.6).
func listPrefix(namespaced bool, namespace string, f selection.FieldSelector) string {
	if !namespaced {
		return "/"
	}
	if namespace == "" {
		if ns, ok := f.Requires("metadata.namespace"); ok && validName(ns) {
			namespace = ns
		}
	}
	if namespace == "" {
		return "/"
	}
	return "/" + namespace + "/"
}

// makePlan picks the walk: an index range when an exact-match requirement has an index in st (the
// most selective by a bounded count when there are several), otherwise a key scan of the prefix.
// Every requirement is still applied as a filter, so the plan never changes the result.
func makePlan(st *state, prefix, start string, namespaced bool, l selection.LabelSelector, f selection.FieldSelector) plan {
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
	var buf [4]candidate
	cands := buf[:0] // on the stack for up to four exact terms
	for t := range f.ExactTerms() {
		if si := st.findIndex(index.Spec{Kind: index.Field, Name: t.Name}); si != nil {
			cands = append(cands, candidate{si, t.Value})
		}
	}
	for t := range l.ExactTerms() {
		if si := st.findIndex(index.Spec{Kind: index.Label, Name: t.Key}); si != nil {
			cands = append(cands, candidate{si, t.Value})
		}
	}
	// Each candidate costs one directory seek; its count is O(1). The smallest range wins, and
	// its lookup is kept for the walk.
	best := 0
	for _, c := range cands {
		keys := c.si.idx.Lookup(c.value)
		if n := keys.Len(); pl.si == nil || n < best {
			pl.si, pl.value, pl.keys, best = c.si, c.value, keys, n
		}
	}
	if pl.si != nil {
		if pl.si.spec.Kind == index.Field {
			pl.covers = f.Len() == 1
		} else {
			pl.covers = l.Len() == 1
		}
	}
	return pl
}

// singleKey returns the only key a request without a continue token reads when its field selector
// requires an exact metadata.name and its namespace is known (rules 1.10, 4.6, 5.12): prefix+name,
// or "" when there is no such requirement or the request spans all namespaces. The selector still
// applies: an object stored under that key (Event.Key) whose metadata names another is not selected.
func singleKey(prefix string, namespaced bool, f selection.FieldSelector) string {
	if name, ok := f.Requires("metadata.name"); ok && (prefix != "/" || !namespaced) {
		return prefix + name
	}
	return ""
}

type candidate struct {
	si    *stateIndex
	value string
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

// hit is one key as a walk yields it: its version when the walk has it at hand (an index entry
// holding records, an overlay), otherwise its cell and, from the store, its label set — the reader
// resolves the version (hit.version) only if the labels match, so a label scan reads no record.
type hit struct {
	key string
	ls  *labelSet // nil when rec is nil and the walk did not read the store (an index holding cells)
	rec *record
	c   *cell
}

// version returns the hit's version at rv (the reading state's RV), nil if the key has none there.
func (h *hit) version(rv uint64) *record {
	if h.rec == nil {
		h.rec = h.c.at(rv)
		if h.rec != nil {
			h.ls = h.rec.ls
		}
	}
	return h.rec
}

// labels returns the hit's label set at rv.
func (h *hit) labels(rv uint64) *labelSet {
	if h.ls == nil && h.version(rv) == nil {
		return nil
	}
	return h.ls
}

// walk yields the keys of the plan's range from its start key, in key order, until yield returns
// false. The caller reads each hit's version at st's RV (for a state with an overlay, that RV, not
// its base's: the overlay replaces every key written in between).
func (st *state) walk(pl plan, yield func(hit) bool) {
	if st.over != nil {
		st.walkOverlay(pl, yield)
		return
	}
	if pl.si != nil {
		pl.keys.Ascend(pl.start, func(key string, p unsafe.Pointer) bool {
			if !pl.inRange(key) {
				return false
			}
			return yield(pl.si.hit(key, p))
		})
		return
	}
	st.tree.AscendGreaterOrEqual(item{key: pl.start}, func(it item) bool {
		return pl.inRange(it.key) && yield(hit{key: it.key, ls: it.ls, c: it.c})
	})
}

// collect returns up to limit (0: all) matching records' bytes in key order, the key of the last
// one, and whether another key of the range follows it (rule 2.6: then a continue token is due,
// even if no further key will match). The result slice starts small and grows: a page of 500
// pointers allocated up front costs more than a 20-item indexed page itself.
func (st *state) collect(pl plan, pred *predicate, limit int64) (out [][]byte, last string, more bool) {
	out = make([][]byte, 0, collectCap(st, pl, pred, limit))
	visit := func(h hit) bool {
		if limit > 0 && int64(len(out)) == limit {
			more = true
			return false
		}
		if pred.matchHit(&h, st.rv) {
			out = append(out, h.rec.raw)
			last = h.key
		}
		return true
	}
	var keys []index.KeyItem[unsafe.Pointer]
	small := false
	if pl.si != nil && st.over == nil {
		keys, small = pl.keys.Slice(pl.start)
	}
	if small {
		// A value with a few keys (a node's pods): a plain loop lets the CPU fetch the next
		// records while this one is read, where walk's callbacks keep it waiting on each.
		for _, e := range keys {
			if !pl.inRange(e.Key) {
				break
			}
			if limit > 0 && int64(len(out)) == limit {
				more = true
				break
			}
			var rec *record
			if pl.si.cells {
				if rec = (*cell)(e.Item).at(st.rv); rec == nil {
					continue
				}
			} else {
				rec = (*record)(e.Item)
			}
			if pred.matchRecord(rec) {
				out = append(out, rec.raw)
				last = e.Key
			}
		}
	} else {
		st.walk(pl, visit)
	}
	if pl.si != nil && !more && limit > 0 && int64(len(out)) == limit {
		// An index range ended with the page full: whether a token is due depends on the keys of
		// the list's range, as for a key scan, not on the index (indexes never change answers).
		more = st.hasKeyAfter(pl, last)
	}
	return out, last, more
}

// collectCap sizes a page's result: a key scan without a selector fills its page (or the whole
// range), so it gets its final size at once; an index range holds at most its value's entries (an
// O(1) count after a directory seek: cheaper than growing the slice for a 20-item page); a
// filtered scan may return few items, and must not pay for 500 slots, so it starts small and grows.
func collectCap(st *state, pl plan, pred *predicate, limit int64) int {
	switch {
	case pl.si != nil:
		n := pl.keys.Len()
		if limit > 0 {
			n = min(n, int(limit))
		}
		return n
	case pl.only != "":
		return 1
	case !pred.empty():
		return 16
	}
	n := st.tree.Len()
	if limit > 0 {
		n = min(n, int(limit)+1)
	}
	return n
}

// hasKeyAfter reports whether the plan's key range holds a key after key: O(log n).
func (st *state) hasKeyAfter(pl plan, key string) bool {
	found := false
	if st.over != nil {
		st.walk(plan{prefix: pl.prefix, start: key + "\x00", only: pl.only}, func(hit) bool {
			found = true
			return false
		})
		return found
	}
	st.tree.AscendGreaterOrEqual(item{key: key + "\x00"}, func(it item) bool {
		found = pl.inRange(it.key)
		return false
	})
	return found
}

// countAfter counts the keys of prefix strictly after key (remainingItemCount, rule 2.7). For an
// all-namespaces list of a namespaced resource it walks only the rest of key's namespace and adds
// the per-namespace counts of the following namespaces, so it stays cheap on large stores.
func (st *state) countAfter(prefix, key string) int64 {
	if st.over != nil {
		return st.countAfterOverlay(prefix, key)
	}
	var n int64
	walkFrom := func(from, within string) {
		st.tree.AscendGreaterOrEqual(item{key: from}, func(it item) bool {
			if !strings.HasPrefix(it.key, within) {
				return false
			}
			n++
			return true
		})
	}
	if prefix != "/" || st.ns == nil {
		walkFrom(key+"\x00", prefix)
		return n
	}
	nsSlash := keyNamespace(key) // "<namespace>/"
	walkFrom(key+"\x00", key[:len(nsSlash)+1])
	st.ns.AscendGreaterOrEqual(nsCount{ns: nsSlash + "\x00"}, func(c nsCount) bool {
		n += int64(c.n)
		return true
	})
	return n
}
