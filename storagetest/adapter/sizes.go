package adapter

import (
	"context"
	"strconv"
	"sync"

	"k8s.io/apiserver/pkg/storage"

	"github.com/watchcache/watchcache/watchcache"
)

// With SizeBasedListCostEstimate on, the etcd3 store answers Stats from its size estimator: the
// object count is the number of keys its KeysFunc returns, and the average size is over the stored
// (encoded, transformed) values it has seen for those keys — in its own lists, gets and watches.
// The apiserver's cacher fills it as a side effect: its cache is fed by a list and a watch through
// that etcd3 store. Ours is fed by source/etcd, which reads etcd itself, so the estimator would
// know no size at all (average 0). The cache does not keep stored sizes either: it holds the JSON
// with metadata.resourceVersion stamped in.
//
// So keys, the KeysFunc the adapter gives the estimator (which calls it in every Stats), also reads
// through the etcd3 store each object that changed since its previous call: one single-key read per
// created or updated object, which records the stored size. The apiserver calls Stats for the cost
// estimate of each list, so that is at most one read per write in between. A deleted object needs
// no read: the estimator drops the sizes of keys that KeysFunc no longer returns.
//
// Without these reads the core would have to report stored sizes: source/etcd hands the cache the
// value after decoding, and the value's length is lost there.

// sizeFeed remembers up to which resourceVersion the estimator has the size of every object.
type sizeFeed struct {
	mu sync.Mutex
	rv uint64 // the list RV of the last call of keys whose reads all succeeded
}

// keys lists the storage keys (Config.KeyFunc) of the objects the cache holds, after a consistent
// read (the cacher's getKeys: WaitUntilFreshAndGetKeys at etcd's current revision), and feeds the
// estimator the sizes of the objects changed since the previous call.
func (s *Store) keys(ctx context.Context) ([]string, error) {
	res, err := s.cache.List(ctx, watchcache.ListOptions{})
	if err != nil {
		return nil, toStorageError(err, s.resourcePrefix, 0)
	}
	s.sizes.mu.Lock()
	defer s.sizes.mu.Unlock()
	since, complete := s.sizes.rv, true
	schema := s.cache.Schema()
	keys := make([]string, 0, len(res.Items))
	for _, raw := range res.Items {
		o, err := schema.Extract(raw)
		if err != nil {
			return nil, err
		}
		key := s.keyFunc(o.Namespace, o.Name)
		keys = append(keys, key)
		if rv, _ := strconv.ParseUint(o.ResourceVersion, 10, 64); rv > since {
			if err := s.readSize(ctx, key); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				complete = false // retried at the next call
			}
		}
	}
	if complete && res.ResourceVersion > s.sizes.rv {
		s.sizes.rv = res.ResourceVersion
	}
	return keys, nil
}

// readSize reads key through the etcd3 store, whose size estimator records the stored value's
// size (a non-recursive GetList reads the one key; the estimator sees it before it is decoded). A
// key deleted in the meantime is no error.
func (s *Store) readSize(ctx context.Context, key string) error {
	err := s.etcd.GetList(ctx, key, storage.ListOptions{Predicate: storage.Everything}, s.newListFunc())
	if err != nil && !storage.IsNotFound(err) {
		return err
	}
	return nil
}
