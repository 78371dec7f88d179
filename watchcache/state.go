package watchcache

import (
	"unsafe"

	"github.com/google/btree"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/selection"
)

// storeDegree is the store B-tree's degree. Without snapshots degree 32 inserts fastest
// (reference/feasibility.md: 658 ns vs 808 at 16), but every event clones the tree and its write
// copies the nodes on its path: with 32-byte items a degree-16 node is 1 KiB instead of 2 KiB, and
// BenchmarkApply measured degree 16 ≈1.5–2× faster per event than 32, while a page of 500 is as fast.
const storeDegree = 16

// state is the cache's content at one resourceVersion: the store, the namespace counts and the
// indexes, all B-trees. A published state is immutable and may be read by any number of
// goroutines; only the writer's working state is ever modified, and each snapshot is an O(1)
// copy-on-write clone of it. The store and the indexes whose values have many keys hold the keys'
// cells, which an update writes in place: a state reads each key's version at its own RV through
// the cell, after entering the state (pin).
type state struct {
	rv      uint64
	schema  *selection.Schema
	tree    *btree.BTreeG[item]
	ns      *btree.BTreeG[nsCount] // objects per namespace (namespaced resources only), for remainingItemCount
	indexes []*stateIndex
	// base and over: a state at an RV nobody published reads as the published state base with the
	// overlay's versions (overlay.go); its tree, ns and indexes are base's. Such a state is only
	// read, never cloned or written.
	base *state
	over *overlay
	// pin counts the readers of the states at this RV (cell.go): a reader enters a published state
	// before reading it.
	pin *pin
	// cells maps each key to its cell in a state being written (the writer's working state, or
	// one a re-list is building); nil in published states. An update that keeps the key's label
	// set finds its cell here and writes no tree: a hash lookup instead of a B-tree search whose
	// key comparisons miss the CPU cache.
	cells map[string]*cell
}

// stateIndex is one registered index as held by one state.
type stateIndex struct {
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
func (si *stateIndex) ref(rec *record) unsafe.Pointer {
	if si.cells {
		return unsafe.Pointer(rec.cell)
	}
	return unsafe.Pointer(rec)
}

// hit returns key's entry in si, which holds p, as a walk yields it.
func (si *stateIndex) hit(key string, p unsafe.Pointer) hit {
	if si.cells {
		return hit{key: key, c: (*cell)(p)}
	}
	rec := (*record)(p)
	return hit{key: key, rec: rec, ls: rec.ls}
}

// value returns the indexed value of rec and whether rec is in this index at all.
func (si *stateIndex) value(schema *selection.Schema, rec *record) (string, bool) {
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

func newState(schema *selection.Schema, namespaced bool) *state {
	st := &state{schema: schema, tree: btree.NewG(storeDegree, itemLess), pin: new(pin), cells: map[string]*cell{}}
	if namespaced {
		st.ns = btree.NewG(storeDegree, nsLess)
	}
	return st
}

// clone returns an O(1) copy-on-write copy. It writes only to st's B-tree headers (their
// copy-on-write context), so it must be called by the writer on its working state, never on a
// published one.
func (st *state) clone() *state {
	out := &state{rv: st.rv, schema: st.schema, tree: st.tree.Clone(), pin: new(pin)}
	if st.ns != nil {
		out.ns = st.ns.Clone()
	}
	out.indexes = make([]*stateIndex, len(st.indexes))
	for i, si := range st.indexes {
		out.indexes[i] = &stateIndex{spec: si.spec, pos: si.pos, idx: si.idx.Clone(), cells: si.cells}
	}
	return out
}

// get returns the version of key at st's RV.
func (st *state) get(key string) (*record, bool) {
	if st.over != nil {
		return st.getOverlay(key)
	}
	return st.storeAt(key, st.rv)
}

// storeAt returns the version at rv of key, as st's store holds it (st has no overlay).
func (st *state) storeAt(key string, rv uint64) (*record, bool) {
	it, ok := st.tree.Get(item{key: key})
	if !ok {
		return nil, false
	}
	rec := it.c.at(rv)
	return rec, rec != nil
}

// put stores rec (insert or replace) in the writer's working state and maintains indexes and
// counts. It returns the replaced record. rec joins the cell of the version it replaces (a new key
// gets a new cell): the store's B-tree is written only for a new key or a new label set, and an
// index whose entries hold cells only when rec's value in it differs from the replaced version's.
func (st *state) put(rec *record) (*record, bool) {
	var old *record
	c, had := st.cells[rec.key]
	if had {
		old = c.head.Load() // the working state's version is its cell's newest
		rec.cell = c
		rec.prev.Store(old) // before the cell publishes rec: readers follow prev from it
		if old.ls != rec.ls {
			st.tree.ReplaceOrInsert(rec.item())
		}
	} else {
		rec.cell = new(cell)
		st.cells[rec.key] = rec.cell
		st.tree.ReplaceOrInsert(rec.item())
	}
	rec.cell.head.Store(rec)
	for _, si := range st.indexes {
		nv, nok := si.value(st.schema, rec)
		if had {
			ov, ook := si.value(st.schema, old)
			same := ook && nok && ov == nv
			if same && si.cells {
				continue
			}
			if ook && !same {
				si.idx.Delete(ov, rec.key)
			}
		}
		if nok {
			si.idx.Insert(nv, rec.key, si.ref(rec))
		}
	}
	if !had && st.ns != nil {
		st.addNS(keyNamespace(rec.key), 1) // the key's: an object's metadata need not match it (Event.Key)
	}
	return old, had
}

// remove deletes key from the writer's working state and returns the record it held. The key's
// cell keeps its versions for the states that still hold it.
func (st *state) remove(key string) (*record, bool) {
	it, had := st.tree.Delete(item{key: key})
	if !had {
		return nil, false
	}
	delete(st.cells, key)
	old := it.c.head.Load()
	for _, si := range st.indexes {
		if v, ok := si.value(st.schema, old); ok {
			si.idx.Delete(v, key)
		}
	}
	if st.ns != nil {
		st.addNS(keyNamespace(key), -1)
	}
	return old, true
}

func (st *state) addNS(ns string, d int) {
	c, _ := st.ns.Get(nsCount{ns: ns})
	c.ns, c.n = ns, c.n+d
	if c.n == 0 {
		st.ns.Delete(c)
		return
	}
	st.ns.ReplaceOrInsert(c)
}

// addIndex builds an index over the current content of st (O(n log n)), its entries holding cells
// if its values have more than index.MaxSlice keys on average (stateIndex.cells).
func (st *state) addIndex(spec index.Spec, pos int) {
	si := &stateIndex{spec: spec, pos: pos}
	build := func() {
		si.idx = index.New[unsafe.Pointer]()
		st.tree.Ascend(func(it item) bool {
			rec := it.c.head.Load() // a state being built or the working state: the newest version
			if v, ok := si.value(st.schema, rec); ok {
				si.idx.Insert(v, it.key, si.ref(rec))
			}
			return true
		})
	}
	build()
	if si.idx.Len() > index.MaxSlice*si.idx.Values() {
		si.cells = true
		build()
	}
	st.indexes = append(st.indexes, si)
}

// findIndex returns the state's index for spec, if any.
func (st *state) findIndex(spec index.Spec) *stateIndex {
	for _, si := range st.indexes {
		if si.spec == spec {
			return si
		}
	}
	return nil
}
