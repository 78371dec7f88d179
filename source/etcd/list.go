package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/watchcache"
)

// list reads the feed's prefix at one revision and replaces the cache's content with it. The first
// Range reads the latest revision; every further page is pinned at the first response's revision, so
// the pages form one consistent snapshot however long the list takes (as the apiserver's cacher
// lists etcd). If that revision is compacted mid-list, the list fails and is retried from scratch.
// Each object goes to the cache with its key (feed.key), as the watch's events do.
func (s *Source) list(ctx context.Context, f *feed) (uint64, error) {
	start := time.Now()
	lastLog := start
	end := clientv3.GetPrefixRangeEnd(f.prefix)
	key := f.prefix
	var (
		rev        int64
		objs       []watchcache.Object
		unreadable map[string]error
		skipped    int
		pages      int
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
			objs = make([]watchcache.Object, 0, min(resp.Count, 1<<20))
		}
		for _, kv := range resp.Kvs {
			obj, err := s.read(ctx, kv.Key, kv.Value, uint64(kv.ModRevision))
			if err != nil {
				skipped++
				s.skip(f, string(kv.Key), uint64(kv.ModRevision), err)
				if unreadable == nil {
					unreadable = make(map[string]error)
				}
				unreadable[f.key(kv.Key)] = err
				continue
			}
			objs = append(objs, watchcache.Object{Key: f.key(kv.Key), Raw: obj})
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
	if err := s.replace(f, objs, unreadable, uint64(rev)); err != nil {
		return 0, err
	}
	s.stats.lists.Add(1)
	f.log.Info("etcd: listed", "revision", rev, "objects", len(objs), "skipped", skipped, "pages", pages, "elapsed", time.Since(start).Round(time.Millisecond))
	return uint64(rev), nil
}

// replace hands a list to the cache. ReplaceKeyed is all or nothing: one object the cache rejects
// (a key that is not /<namespace>/<name> or /<name> for the resource's scope, an object that is not
// one) fails the whole list. The source then drops the objects the cache would reject — found with
// the cache's own schema, one parse each, paid only on this rare path — and replaces again, so one
// bad object cannot keep a resource from loading. unreadable (the keys the list could not read)
// becomes the feed's set before the cache holds the list, with the dropped objects added to it.
func (s *Source) replace(f *feed, objs []watchcache.Object, unreadable map[string]error, rev uint64) error {
	f.resetUnreadable(unreadable)
	err := f.cache.ReplaceKeyed(objs, rev)
	if err == nil || errors.Is(err, errStopped) {
		return wrapReplace(f, rev, err)
	}
	f.log.Warn("etcd: cache rejected the list; dropping the objects it cannot hold", "revision", rev, "err", err)
	kept := acceptable(f.cache, objs, func(o watchcache.Object, why error) {
		err := fmt.Errorf("%w: %s", why, truncate(o.Raw, 120))
		s.skip(f, f.prefix+o.Key[1:], rev, err)
		f.setUnreadable(o.Key, err)
	})
	return wrapReplace(f, rev, f.cache.ReplaceKeyed(kept, rev))
}

func wrapReplace(f *feed, rev uint64, err error) error {
	if err != nil {
		return fmt.Errorf("etcd: replace %s at revision %d: %w", f.prefix, rev, err)
	}
	return nil
}

// acceptable returns the objects Cache.ReplaceKeyed accepts, by its rules (watchcache key.go:
// checkKey, record.go: buildRecord; rules 6.1, 6.3): valid JSON in valid UTF-8 with metadata.name,
// under a key of the resource's scope made of valid path segments. The key decides, so the object's
// own namespace and name are not checked, and no key comes twice (etcd keys are unique).
func acceptable(c *watchcache.Cache, objs []watchcache.Object, drop func(o watchcache.Object, why error)) []watchcache.Object {
	schema := c.Schema()
	namespaced := c.Resource().Namespaced
	kept := objs[:0:0]
	for _, o := range objs {
		err := checkKey(o.Key, namespaced)
		if err == nil && !utf8.Valid(o.Raw) {
			err = errors.New("invalid UTF-8")
		}
		if err == nil {
			_, err = schema.Extract(o.Raw)
		}
		if err != nil {
			drop(o, err)
			continue
		}
		kept = append(kept, o)
	}
	return kept
}

// checkKey is watchcache's check of a key: "/<namespace>/<name>" (the namespace may be empty: an
// object stored without one) or "/<name>", in valid UTF-8.
func checkKey(key string, namespaced bool) error {
	rest, ok := strings.CutPrefix(key, "/")
	if !ok || !utf8.ValidString(key) {
		return fmt.Errorf("invalid key %q", key)
	}
	if !namespaced {
		if !validSegment(rest) {
			return fmt.Errorf("key %q is not /<name> for a cluster-scoped resource", key)
		}
		return nil
	}
	ns, name, ok := strings.Cut(rest, "/")
	if !ok || (ns != "" && !validSegment(ns)) || !validSegment(name) {
		return fmt.Errorf("key %q is not /<namespace>/<name> for a namespaced resource", key)
	}
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
