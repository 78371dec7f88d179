package watchcache

import (
	"strings"
	"unsafe"

	"github.com/google/btree"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/selection"
)

// storeDegree is the store B-tree's degree. Without snapshots degree 32 inserts fastest
// (reference/feasibility.md: 658 ns vs 808 at 16), but every publication clones the tree and the
// next write copies the nodes on its path: with 32-byte items a degree-16 node is 1 KiB instead of
// 2 KiB, and BenchmarkApply is ≈1.5–2× faster per event at degree 16 than at 32, while a page of
// 500 is as fast.
const storeDegree = 16

// content is the cache's objects at one RV, as B-trees: the store (keys in order, each with its
// cell), the namespace counts and the registered indexes. The writer modifies its content; a
// snapshot's is a copy-on-write clone that nobody modifies.
type content struct {
	rv      uint64
	schema  *selection.Schema
	tree    *btree.BTreeG[item]
	ns      *btree.BTreeG[nsCount] // objects per namespace (namespaced resources only), for remainingItemCount
	indexes []*contentIndex
}

// findIndex returns the content's index for spec, if any.
func (ct *content) findIndex(spec index.Spec) *contentIndex {
	for _, si := range ct.indexes {
		if si.spec == spec {
			return si
		}
	}
	return nil
}

// contentIndex is one registered index as held by one content.
type contentIndex struct {
	spec index.Spec
	pos  int                          // field position in schema for index.Field; -1 for index.Label
	idx  *index.Index[unsafe.Pointer] // each entry's item is its key's *record, or its *cell (cells)
	// cells says the entries hold the keys' cells rather than their records (cell.go): chosen
	// when the index is built, for values with more than index.MaxSlice keys on average (an app
	// label, a phase). Such values keep their keys in B-trees, whose path a rewritten entry
	// copies after every snapshot: with cells, an update that keeps the value writes nothing. A
	// value with a few keys (a node's pods) is a slice, cheap to copy, and a page of it reads
	// each record directly instead of through its cell (one dependent load less per item).
	cells bool
}

// ref is what si's entry for rec holds.
func (si *contentIndex) ref(rec *record) unsafe.Pointer {
	if si.cells {
		return unsafe.Pointer(rec.cell)
	}
	return unsafe.Pointer(rec)
}

// hit returns key's entry in si, which holds p, as a walk yields it.
func (si *contentIndex) hit(key string, p unsafe.Pointer) hit {
	if si.cells {
		return hit{key: key, c: (*cell)(p)}
	}
	rec := (*record)(p)
	return hit{key: key, rec: rec, ls: rec.ls}
}

// value returns the indexed value of rec and whether rec is in this index at all.
func (si *contentIndex) value(schema *selection.Schema, rec *record) (string, bool) {
	if si.pos >= 0 {
		return rec.fieldValue(schema, si.pos), true
	}
	return rec.ls.labels.Lookup(si.spec.Name)
}

// nsCount is the number of objects in one namespace, the namespace of their keys (keyNamespace). ns
// is the namespace followed by "/", so that the counts sort as the keys do ("a-b/" < "a/", while
// "a" < "a-b"; the empty namespace of "//name" keys is "/").
type nsCount struct {
	ns string
	n  int
}

func nsLess(a, b nsCount) bool { return a.ns < b.ns }

// snapshot is the view of a published content: the writer's content at one RV, cloned (writer.
// snapshot). Nothing modifies it: any number of goroutines may read it at once, each after
// entering it (pin) and until it leaves. It reads every key's version at its own RV through the
// key's cell.
type snapshot struct {
	content
	// pin counts the readers of the views at this RV (cell.go).
	pin *pin
}

func (s *snapshot) at() uint64                              { return s.rv }
func (s *snapshot) enter() bool                             { return s.pin.enter() }
func (s *snapshot) leave()                                  { s.pin.leave() }
func (s *snapshot) len() int                                { return s.tree.Len() }
func (s *snapshot) findIndex(spec index.Spec) *contentIndex { return s.content.findIndex(spec) }

// get returns the version of key at s's RV.
func (s *snapshot) get(key string) (*record, bool) { return s.storeAt(key, s.rv) }

// storeAt returns the version at rv of key, as s's store holds it.
func (s *snapshot) storeAt(key string, rv uint64) (*record, bool) {
	it, ok := s.tree.Get(item{key: key})
	if !ok {
		return nil, false
	}
	rec := it.c.at(rv)
	return rec, rec != nil
}

// walk yields the keys of the plan's range from its start key, in key order, until yield returns
// false. The caller reads each hit's version at the RV it reads (s's, or an overlay's: see
// overlay.walk).
func (s *snapshot) walk(pl plan, yield func(hit) bool) {
	if pl.si != nil {
		pl.keys.Ascend(pl.start, func(key string, p unsafe.Pointer) bool {
			if !pl.inRange(key) {
				return false
			}
			return yield(pl.si.hit(key, p))
		})
		return
	}
	s.tree.AscendGreaterOrEqual(item{key: pl.start}, func(it item) bool {
		return pl.inRange(it.key) && yield(hit{key: it.key, ls: it.ls, c: it.c})
	})
}

// collect offers the plan's range to cl, in key order, until cl is done.
func (s *snapshot) collect(pl plan, cl *collector) {
	if pl.si != nil {
		if keys, small := pl.keys.Slice(pl.start); small {
			// A value with a few keys (a node's pods): a plain loop lets the CPU fetch the next
			// records while this one is read, where walk's callbacks keep it waiting on each. A
			// page's item is appended here, and the last key written once after the loop: a call
			// and a string store per item cost an indexed page of 20 items a fifth of its time.
			last := ""
			for _, e := range keys {
				if !pl.inRange(e.Key) || cl.full() {
					break
				}
				var rec *record
				if pl.si.cells {
					if rec = (*cell)(e.Item).at(cl.rv); rec == nil {
						continue
					}
				} else {
					rec = (*record)(e.Item)
				}
				if !cl.pred.matchRecord(rec) {
					continue
				}
				if cl.send != nil {
					if !cl.add(e.Key, rec) {
						break
					}
					continue
				}
				cl.n++
				last = e.Key
				cl.items = append(cl.items, rec.raw)
			}
			if last != "" {
				cl.last = last
			}
			return
		}
	}
	s.walk(pl, cl.visit())
}

// hasKeyAfter reports whether the plan's key range holds a key after key: O(log n).
func (s *snapshot) hasKeyAfter(pl plan, key string) bool {
	found := false
	s.tree.AscendGreaterOrEqual(item{key: key + "\x00"}, func(it item) bool {
		found = pl.inRange(it.key)
		return false
	})
	return found
}

// count counts the keys of a list prefix ("/" or "/<namespace>/"): O(1) for all keys, O(log n)
// in the namespace counts for a namespace.
func (s *snapshot) count(prefix string) int64 {
	switch {
	case prefix == "/":
		return int64(s.tree.Len())
	case s.ns != nil:
		c, _ := s.ns.Get(nsCount{ns: prefix[1:]}) // keyNamespace of the prefix's keys
		return int64(c.n)
	}
	return s.countAfter(prefix, prefix) // a key is longer than its prefix
}

// countAfter counts the keys of prefix strictly after key (remainingItemCount, rule 2.7). For an
// all-namespaces list of a namespaced resource it walks only the rest of key's namespace and adds
// the per-namespace counts of the following namespaces, so it stays cheap on large stores.
func (s *snapshot) countAfter(prefix, key string) int64 {
	var n int64
	walkFrom := func(from, within string) {
		s.tree.AscendGreaterOrEqual(item{key: from}, func(it item) bool {
			if !strings.HasPrefix(it.key, within) {
				return false
			}
			n++
			return true
		})
	}
	if prefix != "/" || s.ns == nil {
		walkFrom(key+"\x00", prefix)
		return n
	}
	nsSlash := keyNamespace(key) // "<namespace>/"
	walkFrom(key+"\x00", key[:len(nsSlash)+1])
	s.ns.AscendGreaterOrEqual(nsCount{ns: nsSlash + "\x00"}, func(c nsCount) bool {
		n += int64(c.n)
		return true
	})
	return n
}
