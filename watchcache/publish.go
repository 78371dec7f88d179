package watchcache

import (
	"sync"
	"sync/atomic"
	"time"
)

// publishEvery bounds how many applied events the working content may hold unpublished.
// Publishing clones the writer's B-trees (O(1)), but the next write to each tree then copies the
// nodes on its path: publishing once per batch of events shares the copies of the upper nodes
// within the batch, and leaves the window fewer snapshots to retain. Readers publish whenever they
// need the newest content, so this bounds only what a stretch of events nobody read costs. An RV
// nobody published is read through the nearest snapshot and an overlay of the keys written in
// between (publisher.viewAt), which costs in proportion to publishEvery/2.
//
// BenchmarkApply at 64, 128 and 256: 11.4–12.6, 11.4–11.8 and 11.0–11.5 µs;
// BenchmarkExactUnpublished: 46–59, 61–83 and 84–96 µs. Publishing every event, which would need
// no overlay, allocates 44 instead of 14 objects and 9.0 instead of 3.9 KB per BenchmarkApply
// event, and costs more CPU per event in every round of an A/B (bench/CORE.md).
const publishEvery = 128

// latest is the newest snapshot and the RV a latest read at it answers with: the snapshot's own
// RV, or higher when bookmarks advanced the cache's RV without changing objects (rule 3.1).
type latest struct {
	st *snapshot
	rv uint64
}

// publisher owns what readers see of the writer's content: the newest snapshot (head), the window
// of views and events (window.go), the overlays of RVs nobody published, and the pins and links
// that keep an evicted view readable while a reader is in it.
//
// The engine. Every applied event is parsed once (selection.Schema.Extract) into a record — key,
// RV, bytes, interned label set, selectable field values — that is never modified and is shared
// by every view that holds it. The writer's content (writer) is a set of B-trees: the store,
// ordered by key, holds one item per key — the key, its label set and its cell (cell.go); each
// cell is the head of the key's chain of versions (records, newest first, linked by record.prev).
// An update that keeps the key's label set stores the new version in the cell and writes no tree
// node. An index whose values have many keys (a label such as app) holds cells too, and is not
// written by an update that keeps the key's value; one whose values have a few keys
// (spec.nodeName) holds records, which its pages read directly. Publishing clones the
// trees in O(1) (copy-on-write: the writer's next write to a tree copies the nodes on its path),
// and the clone, a snapshot at the writer's RV, is never written: it reads each key's version at
// its own RV by following the cell's chain to the newest version at or before that RV (cell.at).
// Apply publishes every publishEvery events, and any reader that needs the newest state publishes
// it first (Cache.current); an Exact read of an RV nobody published builds an overlay: the nearest
// snapshot with the versions at that RV of the keys written in between.
//
// Every entry of the window has a pin (shared by the views at its RV): a reader enters the view
// (pin.enter) before it reads and leaves when done. When the window evicts an entry, its pin dies
// (no reader enters it again) and the version its event made is queued to lose its link to the
// previous version, which only views older than the event read. The link is cut (unlink) once no
// reader remains in an evicted view at or before the version's RV; until then the chain keeps
// every version such a reader needs, so a list that outlives its snapshot's eviction still reads
// it whole.
//
// For example, with Options.WindowEvents 3 and a reader R of the re-list's view, key "/ns/a":
//
//	RV  event       window        chain of /ns/a              what happens
//	10  re-list     [10]          a@10
//	                                                          R enters the view at 10
//	11  MODIFIED a  [10 11]       a@11 → a@10
//	12  MODIFIED a  [10 11 12]    a@12 → a@11 → a@10
//	13  ADDED b     [11 12 13]    a@12 → a@11 → a@10          10 evicted: its pin dies, R is still
//	                                                          in it (retired)
//	14  MODIFIED a  [12 13 14]    a@14 → a@12 → a@11 → a@10   11 evicted: a@11 would lose its link,
//	                                                          but R reads at 10 (unlinkable)
//	                                                          R leaves
//	15  MODIFIED a  [13 14 15]    a@15 → a@14 → a@12          12 evicted, no reader in an evicted
//	                                                          view: a@12 and a@11 lose their links
//
// At 14, R reads a@10 through the chain from the cell, and the view at 12 reads a@12. At 15 the
// oldest view, at 13, reads a@12; a@11 and a@10 are garbage (TestDesignExample).
//
// Concurrency: commit, settle, bookmark, reset, retire, unlink and the methods whose name ends in
// Locked are the writer's: they run under Cache.mu. head, dirty, viewAt, atOrBefore, tooOld and
// replay may be called by any goroutine; mu guards the window for them. A view is safe for any
// number of readers.
type publisher struct {
	mu   sync.RWMutex // guards win: the writer holds it to write, readers for an O(log n) lookup
	win  window
	head atomic.Pointer[latest]
	// dirty says the writer's content holds events no snapshot has; pending counts them.
	dirty   atomic.Bool
	pending int

	// retired and unlinkable belong to the writer: the pins of evicted views that still had
	// readers, and the versions whose link to the previous one waits for those readers to leave,
	// in RV order.
	retired    []retiredPin
	unlinkable []*record
}

// retiredPin is the pin of an evicted RV whose readers had not all left when it was evicted.
type retiredPin struct {
	rv uint64
	p  *pin
}

// commit records an applied event at the writer's RV in the window and returns its entry,
// publishing the content first if publishEvery events are pending. The caller queues the entry
// to the watchers, then calls settle.
func (p *publisher) commit(w *writer, ch *change, now time.Time, count int, age time.Duration) entry {
	e := entry{rv: w.rv, at: now, ev: ch}
	p.pending++
	if p.pending >= publishEvery {
		e.snap = w.snapshot()
		p.pending = 0
	}
	p.mu.Lock()
	p.win.push(e, count, age, p.retire)
	p.mu.Unlock()
	if len(p.unlinkable) > 0 {
		p.unlink()
	}
	return e
}

// settle makes the committed entry the newest: its snapshot becomes the head, or, unpublished, the
// first reader that needs it publishes it (Cache.current). Called before the clock moves past e.
func (p *publisher) settle(e entry) {
	if e.snap != nil {
		p.head.Store(&latest{st: e.snap, rv: e.rv})
		p.dirty.Store(false)
		return
	}
	p.dirty.Store(true)
}

// bookmark moves the RV latest reads answer with to rv, when no event is pending (otherwise the
// next publication takes it).
func (p *publisher) bookmark(rv uint64) {
	if !p.dirty.Load() {
		p.head.Store(&latest{st: p.head.Load().st, rv: rv})
	}
}

// reset restarts the window at a re-list's snapshot. The previous views' cells are never written
// again: their links stay as they are, and go with the views once their readers are done.
func (p *publisher) reset(snap *snapshot, rv uint64, now time.Time) {
	p.mu.Lock()
	p.win.reset(snap, rv, now)
	p.mu.Unlock()
	clear(p.retired)
	p.retired = p.retired[:0]
	clear(p.unlinkable)
	p.unlinkable = p.unlinkable[:0]
	p.head.Store(&latest{st: snap, rv: rv})
	p.pending = 0
	p.dirty.Store(false)
}

// publishLocked publishes the writer's content if it holds unpublished events.
func (p *publisher) publishLocked(w *writer, rv uint64) {
	if p.dirty.Load() {
		p.republishLocked(w, rv)
	}
}

// republishLocked publishes the writer's content as the newest window entry's view and as the
// head, answering latest reads at rv (after unpublished events, or again after an index or field
// was added: the newest entry's view, if it has one, has the same content).
func (p *publisher) republishLocked(w *writer, rv uint64) {
	snap := w.snapshot()
	p.mu.Lock()
	if n := len(p.win.entries); n > 0 && p.win.entries[n-1].rv == snap.rv {
		e := &p.win.entries[n-1]
		if old := e.pin(); old != nil {
			snap.pin = old // the readers of either are readers of this RV
		}
		e.snap, e.over = snap, nil
	}
	p.mu.Unlock()
	p.head.Store(&latest{st: snap, rv: rv})
	p.pending = 0
	p.dirty.Store(false)
}

// atOrBefore returns the newest window entry with rv ≤ target.
func (p *publisher) atOrBefore(target uint64) (entry, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.win.atOrBefore(target)
}

// tooOld applies the watch too-old rule (window.tooOld).
func (p *publisher) tooOld(rv uint64) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.win.tooOld(rv)
}

// replay returns the window's entries after rv, or the too-old error of a watch from rv.
func (p *publisher) replay(rv uint64) ([]entry, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if err := p.win.tooOld(rv); err != nil {
		return nil, err
	}
	return p.win.after(rv), nil
}

// viewAt returns the view of the window entry at rv. An RV nobody published is read through the
// nearest snapshot (older or newer, whichever is fewer events away: at most publishEvery/2) and an
// overlay of the keys written in between (newOverlay), kept in the window for the next read at rv
// (continue pages). The newest entry must be published (Cache.current). ok is false if the entry
// left the window.
func (p *publisher) viewAt(rv uint64) (view, bool) {
	p.mu.RLock()
	i, found := p.win.find(rv)
	if !found {
		p.mu.RUnlock()
		return nil, false
	}
	if v, ok := p.win.entries[i].view(); ok {
		p.mu.RUnlock()
		return v, true
	}
	entries := p.win.entries
	published := func(k int) bool { return entries[k].snap != nil }
	older, newer := i-1, i+1
	for older >= 0 && !published(older) {
		older--
	}
	for newer < len(entries) && !published(newer) {
		newer++
	}
	var base *snapshot
	var changes []*change
	fromNewer := false
	switch {
	case older >= 0 && (newer == len(entries) || i-older <= newer-i):
		base = entries[older].snap
		changes = make([]*change, 0, i-older)
		for k := older + 1; k <= i; k++ {
			changes = append(changes, entries[k].ev)
		}
	case newer < len(entries):
		base, fromNewer = entries[newer].snap, true
		changes = make([]*change, 0, newer-i)
		for k := i + 1; k <= newer; k++ {
			changes = append(changes, entries[k].ev)
		}
	default:
		p.mu.RUnlock()
		return nil, false // cannot happen: the newest entry is published
	}
	p.mu.RUnlock()

	ov := newOverlay(base, rv, changes, fromNewer)
	p.mu.Lock()
	defer p.mu.Unlock()
	i, found = p.win.find(rv)
	if !found {
		// Evicted meanwhile: its pin would never be marked dead, so it must not be read.
		return nil, false
	}
	if v, ok := p.win.entries[i].view(); ok {
		return v, true // another reader's: one view, and one pin, per RV
	}
	p.win.entries[i].over = ov
	return ov, true
}

// retire is called by the window (under the writer lock) for each entry it evicts, oldest first:
// the entry's view gets no new readers, and the version the entry's event made will lose its link
// to the previous one as soon as no reader reads a view older than the event (unlink).
func (p *publisher) retire(e entry) {
	if pn := e.pin(); pn != nil {
		pn.dead.Store(true)
		if pn.readers.Load() > 0 {
			p.retired = append(p.retired, retiredPin{rv: e.rv, p: pn})
		}
	}
	if e.ev != nil && e.ev.typ == Modified {
		p.unlinkable = append(p.unlinkable, e.ev.cur)
	}
}

// unlink cuts the links to previous versions that no reader can follow any more: those made by
// evicted events at or before the oldest RV a reader still reads at (every RV, when no reader of
// an evicted view remains). Called by the writer after evictions.
func (p *publisher) unlink() {
	oldest := ^uint64(0)
	kept := p.retired[:0]
	for _, r := range p.retired {
		if r.p.readers.Load() > 0 {
			kept = append(kept, r)
			oldest = min(oldest, r.rv)
		}
	}
	clear(p.retired[len(kept):])
	p.retired = kept
	n := 0
	for n < len(p.unlinkable) && p.unlinkable[n].rv <= oldest {
		// A view at RV ≥ the version's never reads past it.
		p.unlinkable[n].prev.Store(nil)
		n++
	}
	rest := copy(p.unlinkable, p.unlinkable[n:])
	clear(p.unlinkable[rest:]) // release the versions for the collector
	p.unlinkable = p.unlinkable[:rest]
}
