package watchcache

import (
	"github.com/watchcache/watchcache/index"
)

// watcherSet holds the live watchers of a cache, grouped so that an event reaches only candidates
// (rule 4.8): watchers with an exact-match requirement on an indexed field or label are filed under
// that index value; the others under their namespace ("" for all namespaces). All methods run under
// Cache.mu: the dispatcher is the writer.
type watcherSet struct {
	byNS   map[string]map[*watcher]struct{}
	byTrig map[index.Spec]map[string]map[*watcher]struct{}
	n      int
	// behind counts the watchers closed because they fell behind (ErrWatcherBehind).
	behind uint64
}

func (s *watcherSet) init() {
	s.byNS = make(map[string]map[*watcher]struct{})
	s.byTrig = make(map[index.Spec]map[string]map[*watcher]struct{})
}

// Len is the number of registered watchers.
func (s *watcherSet) Len() int { return s.n }

// triggerFor picks the index value a watcher is filed under: the index that serves its selectors
// in the newest view, as for a list (servingIndex).
func triggerFor(v view, q query) trigger {
	si, value, _ := servingIndex(v, q.labels, q.fields)
	if si == nil {
		return trigger{}
	}
	return trigger{spec: si.spec, pos: si.pos, value: value, ok: true}
}

func (s *watcherSet) group(w *watcher) map[*watcher]struct{} {
	if w.trig.ok {
		byVal := s.byTrig[w.trig.spec]
		if byVal == nil {
			byVal = make(map[string]map[*watcher]struct{})
			s.byTrig[w.trig.spec] = byVal
		}
		g := byVal[w.trig.value]
		if g == nil {
			g = make(map[*watcher]struct{})
			byVal[w.trig.value] = g
		}
		return g
	}
	ns := scopeNamespace(w.prefix)
	g := s.byNS[ns]
	if g == nil {
		g = make(map[*watcher]struct{})
		s.byNS[ns] = g
	}
	return g
}

func (s *watcherSet) add(w *watcher) {
	s.group(w)[w] = struct{}{}
	s.n++
}

// remove unregisters w and closes its queue; idempotent. Called by the watcher's goroutine when
// it ends, so it takes the writer lock itself.
func (s *watcherSet) remove(w *watcher) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	s.removeLocked(w, nil)
}

// removeLocked unregisters w and closes its queue, recording why (Watcher.Err) when the cache ends
// the watch; the reason is written before the queue closes, so the watcher's goroutine reads it
// once it sees the queue closed. Its queued events are still delivered.
func (s *watcherSet) removeLocked(w *watcher, reason error) { s.closeLocked(w, reason, false) }

// closeLocked is removeLocked, dropping the queued events with drop (a watcher over its budget
// resumes from its last RV; the window has them, and the memory is freed now).
func (s *watcherSet) closeLocked(w *watcher, reason error, drop bool) {
	if w.closed {
		return
	}
	w.closed = true
	w.reason = reason
	w.in.close(drop)
	g := s.group(w)
	if _, ok := g[w]; ok {
		delete(g, w)
		s.n--
	}
	if len(g) == 0 {
		if w.trig.ok {
			delete(s.byTrig[w.trig.spec], w.trig.value)
		} else {
			delete(s.byNS, scopeNamespace(w.prefix))
		}
	}
}

// closeAll ends every watcher (re-list, stop; rule 3.6): queued events are still delivered, then
// the channels close without an error event (as the apiserver ends the streams); Watcher.Err
// returns reason.
func (s *watcherSet) closeAll(reason error) {
	for _, g := range s.byNS {
		for w := range g {
			s.removeLocked(w, reason)
		}
	}
	for _, byVal := range s.byTrig {
		for _, g := range byVal {
			for w := range g {
				s.removeLocked(w, reason)
			}
		}
	}
}

// dispatch queues an applied event to every watcher it concerns. It never blocks: a watcher over
// its budget (eventQueue.push: bytes, stall, Options.WatchBuffer) is closed (rule 5.10) and
// re-watches from the last RV it received.
func (s *watcherSet) dispatch(c *Cache, e entry) {
	if s.n == 0 || e.ev == nil {
		return
	}
	ch := e.ev
	var exit []byte
	now := sinceEpoch()
	budget := queueBudget{bytes: c.opts.WatchQueueBytes, events: c.opts.WatchBuffer, stall: c.opts.WatchStall}
	deliver := func(g map[*watcher]struct{}) {
		for w := range g {
			ev, ok := convert(w.pred, w.prefix, w.only, ch, e.rv, &exit)
			if !ok {
				continue
			}
			if !w.in.push(ev, now, budget) {
				s.behind++
				s.closeLocked(w, ErrWatcherBehind, true)
			}
		}
	}
	deliver(s.byNS[""])
	// The key's namespace, as in inScope: an object's metadata need not match its key (Event.Key).
	// cur and prev share the key. The empty namespace ("//name": "/") has no watchers of its own.
	if ns := keyNamespace(ch.cur.key); len(ns) > 1 {
		deliver(s.byNS[ns[:len(ns)-1]])
	}
	schema := c.schema.Load()
	for spec, byVal := range s.byTrig {
		pos := -1
		if spec.Kind == index.Field {
			pos, _ = schema.Field(spec.Name)
		}
		si := contentIndex{spec: spec, pos: pos}
		nv, nok := si.value(schema, ch.cur)
		if nok {
			deliver(byVal[nv])
		}
		if ch.prev != nil {
			if ov, ook := si.value(schema, ch.prev); ook && (!nok || ov != nv) {
				deliver(byVal[ov])
			}
		}
	}
}
