package adapter

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apiserver/pkg/storage"

	etcdsource "github.com/watchcache/watchcache/source/etcd"
)

// keyRange is the part of the storage keyspace a read covers, as the etcd3 store ranges over it:
// every key under prefix (recursive), or the one key prefix (non-recursive), from from (a continue
// token's start, "" for the first page) through through ("" for no bound).
type keyRange struct {
	prefix    string
	recursive bool
	from      string
	through   string
}

func (r keyRange) contains(key string) bool {
	if r.recursive && !strings.HasPrefix(key, r.prefix) || !r.recursive && key != r.prefix {
		return false
	}
	return key >= r.from && (r.through == "" || key <= r.through)
}

// unreadable returns the etcd3 store's error for a read whose range holds a key the source could
// not read through the store's transformer (etcdsource.ErrUntransformable), nil if it holds none.
// The cache lacks such objects (the source skips them), so it would answer without them where the
// etcd3 store fails: a list with storage.NewInternalError("unable to transform key …", store.go
// processListItem), whatever the predicate (the store transforms every key of the range before it
// filters). Objects the source skipped for other reasons (not JSON, rejected by the cache) are
// still left out silently: for those the etcd3 store would fail to decode or would serve them.
//
// The source's set may be ahead of what the cache answered (Source.Unreadable), never behind: a
// list at an older resourceVersion sees today's unreadable keys.
func (s *Store) unreadable(r keyRange) error {
	for k, err := range s.source.Unreadable(s.resource) {
		if !errors.Is(err, etcdsource.ErrUntransformable) {
			continue
		}
		key := s.resourcePrefix + strings.TrimPrefix(k, "/") // the cache's "/ns/name" → "/pods/ns/name"
		if r.contains(key) {
			return storage.NewInternalError(fmt.Errorf("unable to transform key %q: %w", s.etcdPrefix+key, err))
		}
	}
	return nil
}
