package watchcache

import "sync/atomic"

// cell is the stable handle of one key, from its creation to its deletion: its versions, newest
// first (record.prev). The store holds cells, not records: an update writes the cell (one atomic
// store) and leaves the store's B-tree alone — only a creation, a deletion or a change of the label
// set (held inline for scans) writes it, copying its path after each snapshot. A view reads the
// version at its own RV (cell.at); so do the entries of an index whose values have many keys
// (contentIndex.cells).
//
// A version's link to the previous one is cut when the event that made it leaves the window and
// no reader still reads a view older than that event (publisher.unlink, with a worked example
// on publisher): cells retain what the window and the running reads need, nothing more.
type cell struct {
	head atomic.Pointer[record]
}

// at returns the newest version with rv ≤ the given rv, or nil when the key did not exist yet at
// that rv. A reader calls it only for a view it entered (pin.enter), so the chain reaches back to
// the view's RV.
func (c *cell) at(rv uint64) *record {
	r := c.head.Load()
	for r != nil && r.rv > rv {
		r = r.prev.Load()
	}
	return r
}

// pin counts the readers of the views at one RV. A reader enters a view before it reads through
// cells and leaves when done; the writer marks the pin dead when the window evicts the RV, after
// which no reader enters, and unlinks the versions a view at that RV needs only once the readers
// that had entered have left (publisher.retire, publisher.unlink). Views at the same RV (a
// snapshot and an overlay a read built before it) share one pin.
type pin struct {
	readers atomic.Int32
	dead    atomic.Bool
}

// enter registers a reader of the views at the pin's RV; false if the window already evicted it
// (its versions may be unlinked: the reader must not read it). A successful enter must be
// followed by leave.
func (p *pin) enter() bool {
	p.readers.Add(1)
	// The writer stores dead before it loads readers; a reader adds itself before it loads dead:
	// either the writer sees this reader, or this reader sees dead.
	if p.dead.Load() {
		p.readers.Add(-1)
		return false
	}
	return true
}

// leave ends a read that enter started.
func (p *pin) leave() { p.readers.Add(-1) }
