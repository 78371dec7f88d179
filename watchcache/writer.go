package watchcache

import (
	"unsafe"

	"github.com/google/btree"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/selection"
)

// writer is the cache's working content: the only content that is ever modified, by the one
// goroutine that holds Cache.mu (or by a re-list that builds a new one before it replaces the old).
// Every snapshot is an O(1) copy-on-write clone of it (snapshot). The store and the indexes whose
// values have many keys hold the keys' cells, which an update writes in place: a snapshot reads
// each key's version at its own RV through the cell.
type writer struct {
	content
	// cells maps each key to its cell. An update that keeps the key's label set finds its cell
	// here and writes no tree: a hash lookup instead of a B-tree search whose key comparisons
	// miss the CPU cache.
	cells map[string]*cell
}

func newWriter(schema *selection.Schema, namespaced bool) *writer {
	w := &writer{content: content{schema: schema, tree: btree.NewG(storeDegree, itemLess)}, cells: map[string]*cell{}}
	if namespaced {
		w.ns = btree.NewG(storeDegree, nsLess)
	}
	return w
}

// snapshot returns an O(1) copy-on-write copy of the content as it is now, at w.rv. It writes
// only to w's B-tree headers (their copy-on-write context): the next write to each tree copies
// the nodes on its path.
func (w *writer) snapshot() *snapshot {
	out := &snapshot{content: content{rv: w.rv, schema: w.schema, tree: w.tree.Clone()}, pin: new(pin)}
	if w.ns != nil {
		out.ns = w.ns.Clone()
	}
	out.indexes = make([]*contentIndex, len(w.indexes))
	for i, si := range w.indexes {
		out.indexes[i] = &contentIndex{spec: si.spec, pos: si.pos, idx: si.idx.Clone(), cells: si.cells}
	}
	return out
}

// put stores rec (insert or replace) and maintains indexes and counts. It returns the replaced
// record. rec joins the cell of the version it replaces (a new key gets a new cell): the store's
// B-tree is written only for a new key or a new label set, and an index whose entries hold cells
// only when rec's value in it differs from the replaced version's.
func (w *writer) put(rec *record) (*record, bool) {
	var old *record
	c, had := w.cells[rec.key]
	if had {
		old = c.head.Load() // the working content's version is its cell's newest
		rec.cell = c
		rec.prev.Store(old) // before the cell publishes rec: readers follow prev from it
		if old.ls != rec.ls {
			w.tree.ReplaceOrInsert(rec.item())
		}
	} else {
		rec.cell = new(cell)
		w.cells[rec.key] = rec.cell
		w.tree.ReplaceOrInsert(rec.item())
	}
	rec.cell.head.Store(rec)
	for _, si := range w.indexes {
		nv, nok := si.value(w.schema, rec)
		if had {
			ov, ook := si.value(w.schema, old)
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
	if !had && w.ns != nil {
		w.addNS(keyNamespace(rec.key), 1) // the key's: an object's metadata need not match it (Event.Key)
	}
	return old, had
}

// remove deletes key and returns the record it held. The key's cell keeps its versions for the
// snapshots that still hold it.
func (w *writer) remove(key string) (*record, bool) {
	it, had := w.tree.Delete(item{key: key})
	if !had {
		return nil, false
	}
	delete(w.cells, key)
	old := it.c.head.Load()
	for _, si := range w.indexes {
		if v, ok := si.value(w.schema, old); ok {
			si.idx.Delete(v, key)
		}
	}
	if w.ns != nil {
		w.addNS(keyNamespace(key), -1)
	}
	return old, true
}

func (w *writer) addNS(ns string, d int) {
	c, _ := w.ns.Get(nsCount{ns: ns})
	c.ns, c.n = ns, c.n+d
	if c.n == 0 {
		w.ns.Delete(c)
		return
	}
	w.ns.ReplaceOrInsert(c)
}

// addIndex builds an index over the current content (O(n log n)), its entries holding cells if
// its values have more than index.MaxSlice keys on average (contentIndex.cells).
func (w *writer) addIndex(spec index.Spec, pos int) {
	si := &contentIndex{spec: spec, pos: pos}
	build := func() {
		si.idx = index.New[unsafe.Pointer]()
		w.tree.Ascend(func(it item) bool {
			rec := it.c.head.Load() // the working content: the newest version
			if v, ok := si.value(w.schema, rec); ok {
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
	w.indexes = append(w.indexes, si)
}
