package watchcache

import (
	"fmt"
	"math/bits"
	"time"
)

// change is one applied object event, kept for watch replay: the version it replaced (nil for a
// creation) and the version it produced (for DELETED: the last state, stamped with the delete RV).
type change struct {
	typ  EventType
	prev *record
	cur  *record
}

// entry is one point of the window: an applied event (or a re-list) at rv and the view right after
// it: its snapshot once published, or the overlay a read built (publisher.viewAt); the re-list
// entry always has its snapshot.
type entry struct {
	rv   uint64
	at   time.Time
	snap *snapshot
	over *overlay
	ev   *change // nil for the re-list entry
}

// view returns the entry's view, if it has one.
func (e entry) view() (view, bool) {
	switch {
	case e.snap != nil:
		return e.snap, true
	case e.over != nil:
		return e.over, true
	}
	return nil, false
}

// pin returns the pin of the entry's view, nil if it has none.
func (e entry) pin() *pin {
	switch {
	case e.snap != nil:
		return e.snap.pin
	case e.over != nil:
		return e.over.pin
	}
	return nil
}

// window holds the retained views and events, oldest first: snapshots for Exact/continue lists and
// the event history for watches are the same ring, as in the apiserver, where snapshots older than
// the oldest retained event are dropped (rule 2.10(a)). The publisher guards it.
type window struct {
	entries []entry
	// listRV is the RV of the last re-list and evicted says whether an event has been evicted since:
	// the watch too-old rule depends on both (rule 5.3).
	listRV  uint64
	evicted bool
}

// reset empties the window and starts it with the re-list snapshot at rv.
func (w *window) reset(snap *snapshot, rv uint64, now time.Time) {
	w.entries = append(w.entries[:0:0], entry{rv: rv, at: now, snap: snap})
	w.listRV, w.evicted = rv, false
}

// push appends an entry and evicts the oldest ones beyond count or older than age (age < 0: no age
// bound), handing each to retire, oldest first. The newest entry is never evicted.
func (w *window) push(e entry, count int, age time.Duration, retire func(entry)) {
	w.entries = append(w.entries, e)
	drop := 0
	for len(w.entries)-drop > 1 {
		old := w.entries[drop]
		if len(w.entries)-drop > count || (age >= 0 && e.at.Sub(old.at) > age) {
			drop++
			continue
		}
		break
	}
	if drop > 0 {
		for _, old := range w.entries[:drop] {
			retire(old)
		}
		clear(w.entries[:drop]) // release the views for the collector
		w.entries = w.entries[drop:]
		w.evicted = true
	}
}

// atOrBefore returns the newest entry with rv ≤ target: the view a read at target sees.
func (w *window) atOrBefore(target uint64) (entry, bool) {
	i := w.upper(target)
	if i == 0 {
		return entry{}, false
	}
	return w.entries[i-1], true
}

// find returns the index of the entry at exactly rv.
func (w *window) find(rv uint64) (int, bool) {
	if rv == 0 {
		return 0, len(w.entries) > 0 && w.entries[0].rv == 0
	}
	i := w.upper(rv - 1)
	return i, i < len(w.entries) && w.entries[i].rv == rv
}

// after returns a copy of the retained entries with rv > since, oldest first. It copies because the
// writer clears evicted entries in place.
func (w *window) after(since uint64) []entry {
	i := w.upper(since)
	return append([]entry(nil), w.entries[i:]...)
}

// tooOld applies rule 5.3 to a watch from rv: oldest is listRV+1 until an event has been evicted
// since the last re-list, then the RV of the oldest retained event; rv < oldest-1 is too old.
func (w *window) tooOld(rv uint64) error {
	if len(w.entries) == 0 {
		return fmt.Errorf("watch cache isn't correctly initialized")
	}
	oldest := w.listRV + 1
	if w.evicted {
		oldest = w.entries[0].rv
	}
	if rv < oldest-1 {
		return &ExpiredError{Message: fmt.Sprintf("too old resource version: %d (%d)", rv, oldest-1)}
	}
	return nil
}

// upper returns the index of the first entry with rv > target (len(entries) if none). Entries'
// RVs increase, most often by one (a resource's events are most of the RVs its source gives out),
// so a guess interpolated between two entries' RVs lands on the answer or next to it: a continue
// page's read of a 20,000-entry window then probes two entries instead of fifteen. Each round also
// halves the range, which bounds the probes by twice a binary search's when the RVs are uneven.
func (w *window) upper(target uint64) int {
	e := w.entries
	n := len(e)
	if n == 0 || target < e[0].rv {
		return 0
	}
	if target >= e[n-1].rv {
		return n
	}
	lo, hi := 0, n-1 // e[lo].rv ≤ target < e[hi].rv
	for hi-lo > 1 {
		// off < span, so off*(hi-lo) / span fits and is below hi-lo.
		span, off := e[hi].rv-e[lo].rv, target-e[lo].rv
		mh, ml := bits.Mul64(off, uint64(hi-lo))
		q, _ := bits.Div64(mh, ml, span)
		g := min(max(lo+int(q), lo+1), hi-1)
		if e[g].rv <= target {
			lo = g
			if e[g+1].rv > target {
				return g + 1
			}
		} else {
			hi = g
			if e[g-1].rv <= target {
				return g
			}
		}
		if hi-lo > 1 {
			if m := int(uint(lo+hi) >> 1); e[m].rv <= target {
				lo = m
			} else {
				hi = m
			}
		}
	}
	return hi
}
