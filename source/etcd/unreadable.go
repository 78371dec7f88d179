package etcd

import (
	"iter"
	"maps"
	"path"
	"slices"
)

// Unreadable yields, in key order, the keys of a resource (the resourcePrefix given to Add) that
// etcd holds but the source left out of the cache, each with why: a value Options.Transform failed
// on (ErrUntransformable), a value that is not JSON (ErrUndecodable), an object the cache rejected.
// Keys are the cache's, the etcd key without the path and resource prefixes ("/ns/name"). Nothing is
// yielded for a resource that was not added or has no such key.
//
// The set follows etcd: a key joins it when a list or a watch event finds its value unreadable, and
// leaves it when a later value is read or the key is deleted (or a re-list no longer finds it
// unreadable). It changes before the cache applies the revision that changed it, so after a read of
// the cache at revision R it is the set at R or later — what the apiserver's etcd3 store would fail
// on, which the cache, keeping only what it can serve, cannot tell. A store built on the source uses
// it to fail a list whose range holds such a key, as the etcd3 store fails it (InternalError for a
// value its transformer rejects).
//
// The sequence is a copy taken when iteration starts; Unreadable is safe for concurrent use. It costs
// O(k log k) for k unreadable keys of the resource, and nothing on the source's hot path while the
// set is empty beyond a map lookup per event.
func (s *Source) Unreadable(resourcePrefix string) iter.Seq2[string, error] {
	prefix := path.Join("/", s.opts.PathPrefix, resourcePrefix) + "/"
	var f *feed
	s.mu.Lock()
	for _, g := range s.feeds {
		if g.prefix == prefix {
			f = g
		}
	}
	s.mu.Unlock()
	return func(yield func(string, error) bool) {
		if f == nil {
			return
		}
		f.unreadableMu.RLock()
		snapshot := maps.Clone(f.unreadable)
		f.unreadableMu.RUnlock()
		for _, k := range slices.Sorted(maps.Keys(snapshot)) {
			if !yield(k, snapshot[k]) {
				return
			}
		}
	}
}

// setUnreadable records key (the cache's key) as unreadable because of err, or, with err nil, as
// readable again. Called by the feed's goroutine only, so it reads the map without the lock.
func (f *feed) setUnreadable(key string, err error) {
	if err == nil {
		if _, ok := f.unreadable[key]; !ok {
			return
		}
		f.unreadableMu.Lock()
		delete(f.unreadable, key)
		f.unreadableMu.Unlock()
		return
	}
	f.unreadableMu.Lock()
	if f.unreadable == nil {
		f.unreadable = make(map[string]error)
	}
	f.unreadable[key] = err
	f.unreadableMu.Unlock()
}

// resetUnreadable replaces the set with the one a list found (nil: none). Called by the feed's
// goroutine only.
func (f *feed) resetUnreadable(m map[string]error) {
	f.unreadableMu.Lock()
	f.unreadable = m
	f.unreadableMu.Unlock()
}
