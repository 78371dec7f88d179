package watchcache

import (
	"context"
	"time"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/rvclock"
)

// Defaults of the watch path.
const (
	// DefaultBookmarkInterval is how often a watcher that allows bookmarks gets one (rule 5.7:
	// defaultBookmarkFrequency = 1 min), or 2 s before its deadline if that comes first.
	DefaultBookmarkInterval = time.Minute
)

// InitialEventsAnnotation marks the bookmark that ends a watch-list's initial events (rule 5.8).
const InitialEventsAnnotation = "k8s.io/initial-events-end"

// WatchOptions are the parameters of a watch, with the Kubernetes query-parameter semantics.
type WatchOptions struct {
	Namespace                             string
	LabelSelector, FieldSelector          string
	ResourceVersion, ResourceVersionMatch string
	// SendInitialEvents asks for the current state as ADDED events first (watch-list, KEP-3157).
	// nil with RV "" or "0" and no ResourceVersionMatch defaults to true with NotOlderThan (rule 0.7).
	SendInitialEvents *bool
	// AllowWatchBookmarks enables periodic bookmarks and the initial-events-end bookmark.
	AllowWatchBookmarks bool
	// Continue is not valid on a watch; it is here so validation can reject it as the apiserver does.
	Continue string
}

// WatchEvent is one event of a watch stream.
type WatchEvent struct {
	Type EventType
	// Object is the object's JSON for ADDED, MODIFIED and DELETED (shared: do not modify); nil for
	// BOOKMARK (the edge renders an empty object of the resource's kind) and ERROR.
	Object []byte
	// ResourceVersion is the event's RV; for a BOOKMARK the RV the stream has reached.
	ResourceVersion uint64
	// InitialEventsEnd marks the BOOKMARK that ends the initial events of a watch-list (rule 5.8).
	InitialEventsEnd bool
	// Err is set for ERROR events; apistatus.FromError gives the Status to send (rule 5.1: errors found after
	// the watch started arrive as one ERROR event, then the stream ends).
	Err error
}

// Watcher is a running watch. Its channel closes when the context ends, Stop is called, the cache
// re-lists or stops, or the watcher falls too far behind (then it re-watches from the last RV it got);
// Err says which.
//
// Concurrency: Events, Err and Stop may be called from any goroutine.
type Watcher struct {
	out    chan WatchEvent
	cancel context.CancelFunc
	err    error // written by the watcher's goroutine before out closes
}

// Events returns the event channel.
func (w *Watcher) Events() <-chan WatchEvent { return w.out }

// Err returns why the watch ended, once Events is closed (nil before): ErrWatcherBehind when the
// consumer fell more than Options.WatchBuffer events behind (re-watch from the last RV received),
// ErrRelisted when the cache was replaced by a re-list (a watch from the last RV then gets 410:
// list again), rvclock.ErrStopped when the cache stopped, the error of the ERROR event when one was
// sent, and the context's error after Stop or when the caller's context ended. Reading Err before
// the channel is closed is a race.
func (w *Watcher) Err() error { return w.err }

// Stop ends the watch; the channel closes soon after. Safe to call more than once.
func (w *Watcher) Stop() { w.cancel() }

// Watch starts a watch (rule 5). Errors in the options (400, 422) and readiness (429) are returned
// directly; errors found once the watch is accepted — a too-old RV (410), a wait that timed out
// (504) — arrive as a single ERROR event, after which the channel closes (rule 5.1).
//
// Per-event cost for the cache: watchers whose selector has an exact-match requirement on an indexed
// field or label are reached through that index (rule 4.8, for every registered index), so an event
// costs O(1) in the number of such watchers.
func (c *Cache) Watch(ctx context.Context, o WatchOptions) (*Watcher, error) {
	q, err := c.prepare(o.Namespace, o.LabelSelector, o.FieldSelector)
	if err != nil {
		return nil, err
	}
	ws, err := routeWatch(o)
	if err := c.admit(q.unsupported, err); err != nil {
		return nil, err
	}
	// Fix the start of a watch without initial events now, before returning (rule 5.1; the
	// apiserver's cacher resolves it inside Watch): a change applied after Watch returns must reach
	// the watcher.
	if !ws.initial {
		if ws.fromNow {
			ws.fromNow, ws.sinceRV = false, c.current().rv
		} else if ws.consistent {
			rv, err := c.currentSourceRV(ctx)
			ws.consistent, ws.sinceRV, ws.startErr = false, rv, err
		}
	} else if ws.consistent {
		// The state a watch with initial events starts from is the source's at the request, as
		// the apiserver's cacher reads it inside Watch.
		rv, err := c.currentSourceRV(ctx)
		ws.consistent, ws.waitRV, ws.startErr = false, rv, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{out: make(chan WatchEvent), cancel: cancel}
	ww := &watcher{
		pub:       w,
		c:         c,
		ctx:       ctx,
		in:        newEventQueue(),
		out:       w.out,
		prefix:    q.prefix,
		only:      singleKey(q.prefix, c.opts.Resource.Namespaced, q.fields),
		pred:      newPredicate(q.schema, c.labels.Load(), q.labels, q.fields),
		sinceRV:   ws.sinceRV,
		bookmarks: o.AllowWatchBookmarks,
	}
	// Register now when the cache has reached the start, so that the initial state or the replay
	// is fixed before Watch returns, as the cacher fixes it: a write the caller makes after Watch
	// returns is then one of the watch's events, never folded into its initial state. A start the
	// cache has not reached yet is waited for by the watcher's goroutine.
	var reg *registration
	if ws.startErr == nil && !ws.consistent && ws.waitRV <= c.clock.Current() {
		r := ww.register(q, ws)
		reg = &r
	}
	go ww.run(q, ws, reg)
	return w, nil
}

// registration is where a registered watcher starts: the state it sends as initial events, or
// the window's events it replays, and the RV its live events follow.
type registration struct {
	initial *snapshot // entered; the watcher leaves it
	replay  []entry
	startRV uint64
	err     error // the replay's start is too old: sent as the watch's ERROR event
	stopped bool  // the cache stopped: the watch ends
}

// register adds the watcher to the cache's watchers under the writer lock, so that the snapshot
// or replay and the live queue meet exactly: no event is missed or sent twice (rule 5.6).
func (w *watcher) register(q query, ws watchStart) registration {
	c := w.c
	var r registration
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clock.State() == rvclock.Stopped {
		r.stopped = true
		return r
	}
	c.pub.publishLocked(c.work, c.lastRV)
	h := c.pub.head.Load()
	switch {
	case ws.initial:
		r.initial, r.startRV = h.st, h.rv
		r.initial.enter() // the head is the window's newest entry: never evicted, so never refused
	case ws.fromNow:
		r.startRV = h.rv
	default:
		if r.replay, r.err = c.pub.replay(ws.sinceRV); r.err != nil {
			return r
		}
		r.startRV = ws.sinceRV
	}
	w.trig = triggerFor(h.st, q)
	c.watchers.add(w)
	return r
}

// wevent is a queued live event: compact, because a watcher's queue may hold thousands of them.
type wevent struct {
	typ EventType
	obj []byte
	rv  uint64
}

// watcher is the cache side of one watch. The fields below mu-guarded ones are owned by its goroutine.
type watcher struct {
	c      *Cache
	ctx    context.Context
	in     *eventQueue // live events, pushed by the dispatcher under Cache.mu
	out    chan WatchEvent
	prefix string
	// only, when set, is the single key the watch reads (singleKey): its initial events walk just
	// that key, and it gets the events of that key only, even for an object stored elsewhere whose
	// metadata.name is the watched one (Event.Key).
	only   string
	pred   *predicate // used only by the dispatcher once registered
	trig   trigger
	closed bool  // guarded by Cache.mu: in is closed and the watcher left the set
	reason error // guarded by Cache.mu until in closes: why the cache closed in
	pub    *Watcher
	ended  error // why the watch ended (goroutine-owned), published as Watcher.err

	bookmarks bool
	sinceRV   uint64 // the watch's start RV: no bookmark below it (rule 5.7)
	lastRV    uint64 // last RV sent on out (goroutine-owned)
}

// trigger is the index value a watcher is registered under, if any.
type trigger struct {
	spec  index.Spec
	pos   int // field position, -1 for a label
	value string
	ok    bool
}

func (w *watcher) run(q query, ws watchStart, reg *registration) {
	defer func() {
		w.pub.err = w.endReason()
		close(w.out)
	}()
	defer w.c.watchers.remove(w)
	c := w.c
	if ws.startErr != nil {
		w.sendError(ws.startErr)
		return
	}
	if reg == nil {
		if ws.waitRV > 0 || ws.consistent {
			target := ws.waitRV
			if ws.consistent {
				rv, err := c.currentSourceRV(w.ctx)
				if err != nil {
					w.sendError(err)
					return
				}
				target = rv
			}
			if ws.initial || !ws.consistent {
				if _, err := c.waitFor(w.ctx, target); err != nil {
					w.sendError(err)
					return
				}
			}
			if !ws.initial {
				ws.sinceRV = target // RV="" without initial events: from the source's current RV, no wait
				w.sinceRV = target
			}
		}
		r := w.register(q, ws)
		reg = &r
	}
	if reg.stopped {
		return
	}
	if reg.err != nil {
		w.sendError(reg.err)
		return
	}
	initial, replay, startRV := reg.initial, reg.replay, reg.startRV
	w.lastRV = startRV
	if initial != nil {
		pl := makePlan(initial, q.prefix, "", c.opts.Resource.Namespaced, q.labels, q.fields)
		cl := collector{pred: makePredicate(q.schema, c.labels.Load(), q.labels, q.fields), rv: initial.rv, send: func(rec *record) bool {
			return w.send(WatchEvent{Type: Added, Object: rec.raw, ResourceVersion: rec.rv})
		}}
		cl.pred.use(pl)
		initial.collect(pl, &cl)
		initial.leave()
		if cl.done {
			return
		}
		w.lastRV = startRV
		if w.bookmarks && !w.send(WatchEvent{Type: Bookmark, ResourceVersion: startRV, InitialEventsEnd: true}) {
			return
		}
	}
	replayPred := newPredicate(q.schema, c.labels.Load(), q.labels, q.fields)
	for _, e := range replay {
		if e.ev == nil {
			continue
		}
		if ev, ok := convert(replayPred, w.prefix, w.only, e.ev, e.rv, nil); ok && !w.send(ev.public()) {
			return
		}
		w.lastRV = e.rv
	}
	w.live()
}

// live forwards queued events and sends periodic bookmarks until the watch ends.
func (w *watcher) live() {
	var tick <-chan time.Time // nil (never ready) without bookmarks
	var t *time.Timer
	if w.bookmarks {
		t = time.NewTimer(w.bookmarkDelay())
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-w.in.ready:
			if !w.drain() {
				return
			}
		case <-tick:
			if !w.bookmark() {
				return
			}
			t.Reset(w.bookmarkDelay())
		}
	}
}

// drain forwards every queued event; false when the watch ended (the queue closed and empty, or
// the client gone).
func (w *watcher) drain() bool {
	evs, open := w.in.take()
	for _, ev := range evs {
		if !w.forward(ev) {
			return false
		}
	}
	if !open {
		w.ended = w.reason // written before the queue closed
	}
	return open
}

// forward sends a queued event unless it is not newer than what the stream already carried (the
// snapshot or replay covered it; rule 5.6).
func (w *watcher) forward(ev wevent) bool {
	if ev.rv <= w.lastRV {
		return true
	}
	return w.send(ev.public())
}

// bookmark sends a bookmark at the newest RV all of whose events this watcher has been given. The
// dispatcher queues an event before queuedRV moves past it, so once the queue as it stands after
// reading queuedRV is drained, every event up to that RV has been sent (rule 5.7).
func (w *watcher) bookmark() bool {
	rv := w.c.queuedRV.Load()
	if !w.drain() {
		return false
	}
	if rv < w.sinceRV {
		return true // a watch from a future RV gets no bookmark before the cache reaches it
	}
	rv = max(rv, w.lastRV)
	return w.send(WatchEvent{Type: Bookmark, ResourceVersion: rv})
}

func (w *watcher) bookmarkDelay() time.Duration {
	d := w.c.opts.BookmarkInterval
	if dl, ok := w.ctx.Deadline(); ok {
		if early := time.Until(dl) - 2*time.Second; early > 0 && early < d {
			d = early
		}
	}
	return d
}

// send delivers one event or gives up when the watch ends.
func (w *watcher) send(ev WatchEvent) bool {
	select {
	case w.out <- ev:
		if ev.Type != Error {
			w.lastRV = max(w.lastRV, ev.ResourceVersion)
		}
		w.in.progressed()
		return true
	case <-w.ctx.Done():
		return false
	}
}

func (w *watcher) sendError(err error) {
	w.ended = err
	w.send(WatchEvent{Type: Error, Err: err})
}

// endReason is what Watcher.Err reports: the recorded reason, else the context's error, else (the
// cache stopped before the watch registered) rvclock.ErrStopped.
func (w *watcher) endReason() error {
	if w.ended != nil {
		return w.ended
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	return rvclock.ErrStopped
}

func (e wevent) public() WatchEvent {
	return WatchEvent{Type: e.typ, Object: e.obj, ResourceVersion: e.rv}
}

// convert turns an applied change into what one watcher sees (rule 5.5): entering the selection is
// ADDED, staying is MODIFIED, leaving is DELETED carrying the previous object stamped with the
// event's RV, a real delete is DELETED with the last state. The watch's range is prefix, or the
// single key only when set. exit caches the stamped previous object across the watchers of one
// event.
func convert(p *predicate, prefix, only string, ch *change, rv uint64, exit *[]byte) (wevent, bool) {
	if only != "" && ch.cur.key != only {
		// A keyed object whose metadata.name is the watched one (Event.Key): cur and prev share the
		// key, and an unkeyed object's key already agrees with the name the selector checks.
		return wevent{}, false
	}
	cur := ch.typ != Deleted && inScope(prefix, ch.cur.key) && p.matchRecord(ch.cur)
	old := ch.prev != nil && inScope(prefix, ch.prev.key) && p.matchRecord(ch.prev)
	switch {
	case cur && !old:
		return wevent{typ: Added, obj: ch.cur.raw, rv: rv}, true
	case cur && old:
		return wevent{typ: Modified, obj: ch.cur.raw, rv: rv}, true
	case old && ch.typ == Deleted:
		return wevent{typ: Deleted, obj: ch.cur.raw, rv: rv}, true
	case old:
		var obj []byte
		if exit != nil && *exit != nil {
			obj = *exit
		} else {
			var err error
			if obj, err = spliceRV(ch.prev.raw, rv); err != nil {
				obj = ch.prev.raw // cannot happen: prev was parsed and spliced before
			}
			if exit != nil {
				*exit = obj
			}
		}
		return wevent{typ: Deleted, obj: obj, rv: rv}, true
	}
	return wevent{}, false
}
