package watchcache

import "sync/atomic"

// cell is the stable handle of one key, from its creation to its deletion: its versions, newest
// first (record.prev). The entries of an index whose values have many keys hold cells
// (stateIndex.cells): an update that keeps the key's value in that index then writes nothing in it
// — where an entry holding the record had to be rewritten, copying its B-tree path after every
// snapshot — and a read resolves the version at its state's RV (state.indexed).
type cell struct {
	head atomic.Pointer[record]
}

// at returns the newest version with rv ≤ the given rv, or nil when the chain no longer reaches
// that far back (versions older than the window are unlinked; see state.indexed).
func (c *cell) at(rv uint64) *record {
	r := c.head.Load()
	for r != nil && r.rv > rv {
		r = r.prev.Load()
	}
	return r
}

// indexed returns the version of key, found in one of st's indexes with cell c, at st's RV: from
// the cell, or from the store when the chain no longer reaches back to st.rv (st left the window
// while its reader still held it).
func (st *state) indexed(key string, c *cell) *record {
	if r := c.at(st.rv); r != nil {
		return r
	}
	it, _ := st.tree.Get(item{key: key})
	return it.rec
}
