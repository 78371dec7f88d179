package watchcache

import "sync/atomic"

// cell is what index entries hold for a key: the key's versions, newest first (record.prev), from
// its creation to its deletion. An update that keeps an index's value then writes nothing in that
// index — where an entry holding the record had to be rewritten, copying its B-tree path or slice
// after every snapshot — and an index read resolves the version at its state's RV (state.indexed).
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
