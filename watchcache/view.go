package watchcache

import "github.com/watchcache/watchcache/index"

// view is the cache's content at one RV as List, Get and Watch read it. Its implementations are
// immutable: a snapshot (a published content) and an overlay (an RV nobody published, read
// through the nearest snapshot). Any number of goroutines may read a view at once, each between
// a successful enter and its leave.
type view interface {
	// at is the view's RV: every key reads its version at it.
	at() uint64
	// enter registers a reader; false if the window evicted the view's RV (its versions may be
	// unlinked: the reader must not read it). A successful enter must be followed by leave.
	enter() bool
	leave()
	// get returns the version of key.
	get(key string) (*record, bool)
	// walk yields the keys of the plan's range from its start, in key order, until yield
	// returns false; the caller reads each hit's version at the view's RV (hit.version).
	walk(pl plan, yield func(hit) bool)
	// collect offers the plan's range to cl, in key order, until cl is done.
	collect(pl plan, cl *collector)
	// hasKeyAfter reports whether the plan's key range (ignoring its index) holds a key after key.
	hasKeyAfter(pl plan, key string) bool
	// countAfter counts the keys of prefix strictly after key.
	countAfter(prefix, key string) int64
	// count counts the keys of a list prefix ("/" or "/<namespace>/").
	count(prefix string) int64
	// findIndex returns the view's index for spec, if any.
	findIndex(spec index.Spec) *contentIndex
	// len is the number of keys of the store a walk reads (a bound for a page's size).
	len() int
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

// version returns the hit's version at rv (the reading view's RV), nil if the key has none there.
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

// collector gathers what a read returns from a key range in key order: the versions the predicate
// selects, up to limit (0: all), either as a page's items or, when send is set, handed to send one
// by one (a watch's initial events). List, the History's lists and a watch's initial events all
// fill one.
type collector struct {
	pred  predicate // held by value: a collector on its caller's stack keeps it there
	rv    uint64    // the RV versions are read at (the view's)
	limit int64
	send  func(rec *record) bool // false: stop
	items [][]byte
	n     int64  // versions collected
	last  string // the key of the last one
	// more says another key of the range followed the last collected one when the collector was
	// full (rule 2.6: then a continue token is due, even if no further key would match).
	more bool
	done bool // send refused, or the range is over for the caller
}

// full reports whether the collector holds limit versions; it is called with another key of the
// range at hand, so it sets more.
func (cl *collector) full() bool {
	if cl.limit > 0 && cl.n == cl.limit {
		cl.more = true
		return true
	}
	return false
}

// visit returns the walk callback that offers each key of the range to cl, reading its version
// only if its labels match; it returns false to end the walk. The page's own case is written out
// in the closure, so that a walk pays one call per key, as a plain loop over a page of 500 would
// not notice; visit itself inlines, so the closure stays on its caller's stack.
func (cl *collector) visit() func(hit) bool {
	return func(h hit) bool {
		if cl.full() {
			return false
		}
		if !cl.pred.matchHit(&h, cl.rv) {
			return true
		}
		if cl.send != nil {
			return cl.add(h.key, h.rec)
		}
		cl.n++
		cl.last = h.key
		cl.items = append(cl.items, h.rec.raw)
		return true
	}
}

// record offers the next key of the range with its version; false ends the walk.
func (cl *collector) record(key string, rec *record) bool {
	if cl.full() {
		return false
	}
	if cl.pred.matchRecord(rec) {
		return cl.add(key, rec)
	}
	return true
}

// add collects a selected version; false ends the walk.
func (cl *collector) add(key string, rec *record) bool {
	cl.n++
	cl.last = key
	if cl.send != nil {
		if !cl.send(rec) {
			cl.done = true
			return false
		}
		return true
	}
	cl.items = append(cl.items, rec.raw)
	return true
}

// page fills cl from the plan's range of v. An index range that ended with the page full leaves
// more to the keys of the list's range, as for a key scan: indexes never change answers.
//
// Each view type is called directly: a collector passed through the interface escapes to the
// heap (escape analysis cannot see the callee), which costs a list an allocation, as much as the
// rest of an indexed page, and, while the collector runs, makes every item's store of the page's
// slice and last key a heap write, with a write barrier whenever a GC cycle is marking.
func page(v view, pl plan, cl *collector) {
	switch v := v.(type) {
	case *snapshot:
		v.collect(pl, cl)
	case *overlay:
		v.collect(pl, cl)
	default:
		c := *cl
		v.collect(pl, &c)
		*cl = c
	}
	if pl.si != nil && !cl.more && cl.limit > 0 && cl.n == cl.limit {
		cl.more = v.hasKeyAfter(pl, cl.last)
	}
}

// pageCap sizes a page's result: a key scan without a selector fills its page (or the whole
// range), so it gets its final size at once; an index range holds at most its value's entries (an
// O(1) count after a directory seek: cheaper than growing the slice for a 20-item page); a
// filtered scan may return few items, and must not pay for 500 slots, so it starts small and grows.
func pageCap(v view, pl plan, pred *predicate, limit int64) int {
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
	n := v.len()
	if limit > 0 {
		n = min(n, int(limit)+1)
	}
	return n
}
