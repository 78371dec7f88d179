package informer

import (
	"context"
	"errors"
	"strconv"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/watchcache"
)

// dispatch follows the feed's cache until ctx ends. It watches with initial events (a list) first
// and after the cache re-listed, and from its last resourceVersion when it merely fell behind, so
// that every change reaches the store and the handlers exactly once.
func (inf *Informer) dispatch(ctx context.Context) {
	if !inf.waitReady(ctx) {
		return
	}
	relist := true
	for ctx.Err() == nil {
		var opts watchcache.WatchOptions
		if relist {
			yes := true
			opts = watchcache.WatchOptions{SendInitialEvents: &yes, ResourceVersionMatch: watchcache.MatchNotOlderThan, AllowWatchBookmarks: true}
		} else {
			opts = watchcache.WatchOptions{ResourceVersion: strconv.FormatUint(inf.lastRV(), 10), AllowWatchBookmarks: true}
		}
		w, err := inf.feed.cache.Watch(ctx, opts)
		if err != nil {
			if errors.Is(err, rvclock.ErrStopped) {
				return
			}
			inf.log.Debug("informer: watch refused; retrying", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		var seen map[string]struct{}
		if relist {
			seen = make(map[string]struct{})
		}
		for ev := range w.Events() {
			switch ev.Type {
			case watchcache.Added, watchcache.Modified, watchcache.Deleted:
				if seen != nil {
					inf.listed(ev, seen)
				} else {
					inf.changed(ev)
				}
			case watchcache.Bookmark:
				if ev.InitialEventsEnd && seen != nil {
					inf.listEnded(seen, ev.ResourceVersion)
					seen = nil
				} else {
					inf.setRV(ev.ResourceVersion)
				}
			}
		}
		w.Stop()
		err = w.Err()
		switch {
		case ctx.Err() != nil, errors.Is(err, rvclock.ErrStopped):
			return
		case errors.Is(err, watchcache.ErrWatcherBehind) && seen == nil:
			relist = false // nothing is lost: the window holds the events after lastRV
			inf.log.Debug("informer: fell behind the cache; watching again", "resourceVersion", inf.lastRV())
		default:
			// The cache re-listed (its window restarted), or the events after lastRV have left
			// it (410): list again and reconcile, as a reflector does.
			relist = true
			inf.log.Debug("informer: listing the cache again", "reason", err)
		}
	}
}

func (inf *Informer) lastRV() uint64 {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return inf.rv
}

func (inf *Informer) setRV(rv uint64) {
	inf.mu.Lock()
	inf.rv = max(inf.rv, rv)
	inf.mu.Unlock()
}

// decoded is an event's objects, decoded once for every handler and indexer.
type decoded struct {
	obj any
	err error
}

func (inf *Informer) needObjects() bool { return len(inf.listeners) > 0 || len(inf.indexers) > 0 }

// listed handles one object of a list (initial events): on the first list every object is an add
// in the initial list; on a re-list an object already held at the same resourceVersion is
// unchanged, one held at another is an update, and a new one an add.
func (inf *Informer) listed(ev watchcache.WatchEvent, seen map[string]struct{}) {
	key := ObjectKey(ev.Object)
	inf.mu.Lock()
	defer inf.mu.Unlock()
	seen[key] = struct{}{}
	old := inf.items[key]
	if old != nil && old.rv == ev.ResourceVersion {
		return
	}
	inf.put(key, old, ev, !inf.isSynced)
}

// listEnded completes a list: objects held but not listed were deleted while the informer was not
// watching, and are delivered as cache.DeletedFinalStateUnknown with their last known state.
func (inf *Informer) listEnded(seen map[string]struct{}, rv uint64) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	for key, e := range inf.items {
		if _, ok := seen[key]; ok {
			continue
		}
		var last any
		if inf.needObjects() {
			if obj, err := inf.object(e.raw); err == nil {
				last = obj
			}
		}
		inf.drop(key, e)
		inf.notify(notification{kind: notifyDelete, obj: cache.DeletedFinalStateUnknown{Key: key, Obj: last}})
	}
	inf.rv = max(inf.rv, rv)
	if !inf.isSynced {
		inf.isSynced = true
		close(inf.synced)
		inf.notify(notification{kind: notifySynced})
	}
}

// changed handles one live event.
func (inf *Informer) changed(ev watchcache.WatchEvent) {
	key := ObjectKey(ev.Object)
	inf.mu.Lock()
	defer inf.mu.Unlock()
	old := inf.items[key]
	if ev.Type == watchcache.Deleted {
		if old == nil {
			inf.rv = max(inf.rv, ev.ResourceVersion)
			return
		}
		inf.drop(key, old)
		inf.rv = max(inf.rv, ev.ResourceVersion)
		if inf.needObjects() {
			d := inf.decodeEvent(ev.Object)
			if d.err == nil {
				inf.notify(notification{kind: notifyDelete, obj: d.obj})
			}
		}
		return
	}
	inf.put(key, old, ev, false)
}

// put stores a new or changed object, updates the indexes and notifies: an add when old is nil,
// else an update with old's decoded state.
func (inf *Informer) put(key string, old *entry, ev watchcache.WatchEvent, initial bool) {
	e := &entry{raw: ev.Object, rv: ev.ResourceVersion}
	inf.rv = max(inf.rv, ev.ResourceVersion)
	if !inf.needObjects() {
		inf.items[key] = e
		return
	}
	d := inf.decodeEvent(ev.Object)
	if d.err != nil {
		inf.log.Warn("informer: object not decoded; left out", "key", key, "err", d.err)
		return
	}
	if len(inf.indexers) > 0 {
		e.vals = make(map[string][]string, len(inf.indexers))
		for name, fn := range inf.indexers {
			vals, err := fn(d.obj)
			if err != nil {
				inf.log.Warn("informer: indexer failed", "indexer", name, "key", key, "err", err)
				continue
			}
			e.vals[name] = vals
		}
	}
	var oldObj any
	if old != nil {
		inf.drop(key, old)
		if len(inf.listeners) > 0 {
			o := inf.decodeEvent(old.raw)
			oldObj = o.obj
		}
	}
	inf.items[key] = e
	for name, vals := range e.vals {
		for _, v := range vals {
			addKey(inf.indexes[name], v, key)
		}
	}
	if old == nil {
		inf.notify(notification{kind: notifyAdd, obj: d.obj, initial: initial})
	} else if oldObj != nil {
		inf.notify(notification{kind: notifyUpdate, old: oldObj, obj: d.obj})
	}
}

// drop removes key's entry and its index values.
func (inf *Informer) drop(key string, e *entry) {
	delete(inf.items, key)
	for name, vals := range e.vals {
		byVal := inf.indexes[name]
		for _, v := range vals {
			if keys := byVal[v]; keys != nil {
				delete(keys, key)
				if len(keys) == 0 {
					delete(byVal, v)
				}
			}
		}
	}
}

func (inf *Informer) decodeEvent(raw []byte) decoded {
	obj, err := inf.object(raw)
	return decoded{obj: obj, err: err}
}

// notify queues n to every handler; the object is shared (handlers must not mutate it, as with
// client-go).
func (inf *Informer) notify(n notification) {
	for l := range inf.listeners {
		l.add(n)
	}
}
