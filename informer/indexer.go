package informer

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/client-go/tools/cache"
)

// ErrReadOnly is returned by the Store methods that write (Add, Update, Delete, Replace): the
// informer's state is written only by its watch of the cache.
var ErrReadOnly = errors.New("informer: the store is read-only")

// indexer is the cache.Indexer view of an Informer: reads of its delivered state, each object
// decoded for the call (so it is the caller's own).
type indexer Informer

func (x *indexer) inf() *Informer { return (*Informer)(x) }

// Add is refused (ErrReadOnly).
func (x *indexer) Add(any) error { return ErrReadOnly }

// Update is refused (ErrReadOnly).
func (x *indexer) Update(any) error { return ErrReadOnly }

// Delete is refused (ErrReadOnly).
func (x *indexer) Delete(any) error { return ErrReadOnly }

// Replace is refused (ErrReadOnly).
func (x *indexer) Replace([]any, string) error { return ErrReadOnly }

// Resync does nothing: resyncs are per handler (AddEventHandlerWithResyncPeriod).
func (x *indexer) Resync() error { return nil }

// Bookmark does nothing: the informer's resourceVersion follows its watch.
func (x *indexer) Bookmark(string) {}

// LastStoreSyncResourceVersion is the informer's LastSyncResourceVersion.
func (x *indexer) LastStoreSyncResourceVersion() string { return x.inf().LastSyncResourceVersion() }

// List decodes every object held, in key order.
func (x *indexer) List() []any {
	inf := x.inf()
	inf.mu.RLock()
	keys := inf.sortedKeysLocked()
	raws := make([][]byte, len(keys))
	for i, k := range keys {
		raws[i] = inf.items[k].raw
	}
	inf.mu.RUnlock()
	return x.decodeAll(raws)
}

func (x *indexer) decodeAll(raws [][]byte) []any {
	out := make([]any, 0, len(raws))
	for _, raw := range raws {
		if obj, err := x.inf().object(raw); err == nil {
			out = append(out, obj)
		}
	}
	return out
}

// ListKeys returns every key held, in order.
func (x *indexer) ListKeys() []string {
	inf := x.inf()
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return inf.sortedKeysLocked()
}

// Get returns the object with obj's key.
func (x *indexer) Get(obj any) (any, bool, error) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, false, cache.KeyError{Obj: obj, Err: err}
	}
	return x.GetByKey(key)
}

// GetByKey returns the object with the key ("ns/name" or "name").
func (x *indexer) GetByKey(key string) (any, bool, error) {
	inf := x.inf()
	inf.mu.RLock()
	e := inf.items[key]
	inf.mu.RUnlock()
	if e == nil {
		return nil, false, nil
	}
	obj, err := inf.object(e.raw)
	if err != nil {
		return nil, false, err
	}
	return obj, true, nil
}

// GetIndexers returns the registered indexers; cache.NamespaceIndex is always there for a
// namespaced resource, served from the keys.
func (x *indexer) GetIndexers() cache.Indexers {
	inf := x.inf()
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	out := make(cache.Indexers, len(inf.indexers)+1)
	for k, v := range inf.indexers {
		out[k] = v
	}
	if inf.feed.cache.Resource().Namespaced {
		out[cache.NamespaceIndex] = cache.MetaNamespaceIndexFunc
	}
	return out
}

// AddIndexers is Informer.AddIndexers.
func (x *indexer) AddIndexers(add cache.Indexers) error { return x.inf().AddIndexers(add) }

// Index returns the objects that share an indexed value with obj.
func (x *indexer) Index(name string, obj any) ([]any, error) {
	inf := x.inf()
	var vals []string
	if x.isNamespaceIndex(name) {
		v, err := cache.MetaNamespaceIndexFunc(obj)
		if err != nil {
			return nil, err
		}
		vals = v
	} else {
		inf.mu.RLock()
		fn, ok := inf.indexers[name]
		inf.mu.RUnlock()
		if !ok {
			return nil, fmt.Errorf("Index with name %s does not exist", name)
		}
		v, err := fn(obj)
		if err != nil {
			return nil, err
		}
		vals = v
	}
	seen := map[string]struct{}{}
	var keys []string
	for _, v := range vals {
		ks, err := x.IndexKeys(name, v)
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			if _, dup := seen[k]; !dup {
				seen[k] = struct{}{}
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return x.byKeys(keys), nil
}

func (x *indexer) isNamespaceIndex(name string) bool {
	return name == cache.NamespaceIndex && x.inf().feed.cache.Resource().Namespaced
}

// IndexKeys returns the keys whose objects have the indexed value, in order.
func (x *indexer) IndexKeys(name, value string) ([]string, error) {
	inf := x.inf()
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	if x.isNamespaceIndex(name) {
		var keys []string
		prefix := value + "/"
		for k := range inf.items {
			if strings.HasPrefix(k, prefix) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		return keys, nil
	}
	byVal, ok := inf.indexes[name]
	if !ok {
		return nil, fmt.Errorf("Index with name %s does not exist", name)
	}
	keys := make([]string, 0, len(byVal[value]))
	for k := range byVal[value] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, nil
}

// ListIndexFuncValues returns the values an indexer holds.
func (x *indexer) ListIndexFuncValues(name string) []string {
	inf := x.inf()
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	var out []string
	if x.isNamespaceIndex(name) {
		seen := map[string]struct{}{}
		for k := range inf.items {
			ns, _, _ := strings.Cut(k, "/")
			if _, ok := seen[ns]; !ok {
				seen[ns] = struct{}{}
				out = append(out, ns)
			}
		}
	} else {
		for v := range inf.indexes[name] {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// ByIndex returns the objects whose indexed values include value, in key order.
func (x *indexer) ByIndex(name, value string) ([]any, error) {
	keys, err := x.IndexKeys(name, value)
	if err != nil {
		return nil, err
	}
	return x.byKeys(keys), nil
}

func (x *indexer) byKeys(keys []string) []any {
	inf := x.inf()
	inf.mu.RLock()
	raws := make([][]byte, 0, len(keys))
	for _, k := range keys {
		if e := inf.items[k]; e != nil {
			raws = append(raws, e.raw)
		}
	}
	inf.mu.RUnlock()
	return x.decodeAll(raws)
}

// Entries calls fn with the key and raw bytes of each object whose value of the indexer is value
// ("" name: every object), in key order from the key after (exclusive), until fn returns false;
// it returns the informer's resourceVersion at the read. It decodes nothing: controller-runtime's
// cache pages Go-indexed lists with it.
func (inf *Informer) Entries(name, value, after string, fn func(key string, raw []byte) bool) (uint64, error) {
	inf.mu.RLock()
	var keys []string
	if name == "" {
		keys = inf.sortedKeysLocked()
	} else {
		byVal, ok := inf.indexes[name]
		if !ok {
			inf.mu.RUnlock()
			return 0, fmt.Errorf("Index with name %s does not exist", name)
		}
		for k := range byVal[value] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
	i, _ := slices.BinarySearch(keys, after)
	if i < len(keys) && keys[i] == after {
		i++
	}
	type kv struct {
		k   string
		raw []byte
	}
	sel := make([]kv, 0, len(keys)-i)
	for _, k := range keys[i:] {
		sel = append(sel, kv{k, inf.items[k].raw})
	}
	rv := inf.rv
	inf.mu.RUnlock()
	for _, e := range sel {
		if !fn(e.k, e.raw) {
			break
		}
	}
	return rv, nil
}

// Values returns the values of the indexer for the object with key (nil when not held).
func (inf *Informer) Values(name, key string) []string {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	if e := inf.items[key]; e != nil {
		return e.vals[name]
	}
	return nil
}
