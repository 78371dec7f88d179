package etcd

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/selection"
	"github.com/watchcache/watchcache/watchcache"
)

// list reads the feed's prefix at one revision and replaces the cache's content with it. The first
// Range reads the latest revision; every further page is pinned at the first response's revision, so
// the pages form one consistent snapshot however long the list takes (as the apiserver's cacher
// lists etcd). If that revision is compacted mid-list, the list fails and is retried from scratch.
func (s *Source) list(ctx context.Context, f *feed) (uint64, error) {
	start := time.Now()
	lastLog := start
	end := clientv3.GetPrefixRangeEnd(f.prefix)
	key := f.prefix
	var (
		rev     int64
		objs    [][]byte
		skipped int
		pages   int
	)
	for {
		ops := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(s.opts.PageSize)}
		if rev > 0 {
			ops = append(ops, clientv3.WithRev(rev))
		}
		resp, err := s.client.Get(ctx, key, ops...)
		if err != nil {
			return 0, fmt.Errorf("etcd: list %s at revision %d, page %d: %w", f.prefix, rev, pages+1, err)
		}
		pages++
		if rev == 0 {
			rev = resp.Header.Revision
			if rev <= 0 {
				return 0, fmt.Errorf("list %s: %w", f.prefix, ErrZeroRevision)
			}
		}
		if objs == nil {
			objs = make([][]byte, 0, min(resp.Count, 1<<20))
		}
		for _, kv := range resp.Kvs {
			obj, err := decode(kv.Value, uint64(kv.ModRevision))
			if err != nil {
				skipped++
				s.skip(f, string(kv.Key), uint64(kv.ModRevision), err)
				continue
			}
			objs = append(objs, obj)
		}
		if now := time.Now(); now.Sub(lastLog) >= s.opts.LogEvery {
			lastLog = now
			f.log.Info("etcd: listing", "revision", rev, "objects", len(objs), "total", resp.Count, "pages", pages, "elapsed", now.Sub(start).Round(time.Millisecond))
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		key = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	if err := s.replace(f, objs, uint64(rev)); err != nil {
		return 0, err
	}
	s.stats.lists.Add(1)
	f.log.Info("etcd: listed", "revision", rev, "objects", len(objs), "skipped", skipped, "pages", pages, "elapsed", time.Since(start).Round(time.Millisecond))
	return uint64(rev), nil
}

// replace hands a list to the cache. Replace is all or nothing: one object the cache rejects (a
// name that is not a path segment, a namespace that does not fit the resource's scope, a duplicate
// key) fails the whole list. The source then drops the objects the cache would reject — found with
// the cache's own schema, one parse each, paid only on this rare path — and replaces again, so one
// bad object cannot keep a resource from loading.
func (s *Source) replace(f *feed, objs [][]byte, rev uint64) error {
	err := f.cache.Replace(objs, rev)
	if err == nil || errors.Is(err, errStopped) {
		return wrapReplace(f, rev, err)
	}
	f.log.Warn("etcd: cache rejected the list; dropping the objects it cannot hold", "revision", rev, "err", err)
	kept := acceptable(f.cache, objs, func(obj []byte, why error) {
		s.skip(f, "", rev, fmt.Errorf("%w: %s", why, truncate(obj, 120)))
	})
	return wrapReplace(f, rev, f.cache.Replace(kept, rev))
}

func wrapReplace(f *feed, rev uint64, err error) error {
	if err != nil {
		return fmt.Errorf("etcd: replace %s at revision %d: %w", f.prefix, rev, err)
	}
	return nil
}

// acceptable returns the objects Cache.Replace accepts, by its rules (watchcache record.go:
// buildRecord, rule 6.3): valid JSON with metadata.name, name and namespace valid path segments,
// a namespace exactly when the resource is namespaced, no key twice (the first one is kept).
func acceptable(c *watchcache.Cache, objs [][]byte, drop func(obj []byte, why error)) [][]byte {
	schema := c.Schema()
	namespaced := c.Resource().Namespaced
	seen := make(map[string]bool, len(objs))
	kept := objs[:0:0]
	for _, obj := range objs {
		o, err := schema.Extract(obj)
		if err == nil {
			err = checkObject(o, namespaced, seen)
		}
		if err != nil {
			drop(obj, err)
			continue
		}
		kept = append(kept, obj)
	}
	return kept
}

func checkObject(o selection.Object, namespaced bool, seen map[string]bool) error {
	switch {
	case !validSegment(o.Name):
		return fmt.Errorf("invalid name %q", o.Name)
	case namespaced && !validSegment(o.Namespace):
		return fmt.Errorf("invalid or missing namespace %q", o.Namespace)
	case !namespaced && o.Namespace != "":
		return fmt.Errorf("cluster-scoped object with namespace %q", o.Namespace)
	}
	key := o.Namespace + "/" + o.Name
	if seen[key] {
		return fmt.Errorf("duplicate key %s", key)
	}
	seen[key] = true
	return nil
}

// validSegment is rule 6.3's IsPathSegmentName, as the cache checks it.
func validSegment(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '%' {
			return false
		}
	}
	return true
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
