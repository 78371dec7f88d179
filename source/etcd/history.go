package etcd

import (
	"context"
	"errors"
	"fmt"
	"path"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/watchcache"
)

// History returns a watchcache.History that reads a resource's past revisions from etcd, for
// watchcache.Options.History: an Exact list or a continue token older than the cache's window is
// then answered from etcd, as the apiserver answers it (rule 1.3), until etcd compacts that revision.
// resourcePrefix is the one given to Add (e.g. "pods"). It needs no running source.
func (s *Source) History(resourcePrefix string) watchcache.History {
	return &etcdHistory{s: s, root: path.Join("/", s.opts.PathPrefix, resourcePrefix)}
}

// etcdHistory maps the cache's keys ("/<ns>/<name>", "/<name>") onto etcd keys under root.
type etcdHistory struct {
	s    *Source
	root string // "/registry/pods"
}

// Range reads [from, end of prefix) at revision rv in pages of Options.PageSize, as the apiserver's
// etcd path does, and hands each object to fn with its key (the etcd key without root, as the
// source keys its events) and its mod revision as metadata.resourceVersion. Values are read through
// Options.Transform; those that are not JSON objects, or that it fails on, are skipped and counted,
// as when listing.
func (h *etcdHistory) Range(ctx context.Context, rv uint64, from, prefix string, fn func(key string, obj []byte) bool) error {
	key := h.root + from
	end := clientv3.GetPrefixRangeEnd(h.root + prefix)
	for {
		resp, err := h.s.client.Get(ctx, key, clientv3.WithRange(end), clientv3.WithRev(int64(rv)), clientv3.WithLimit(h.s.opts.PageSize))
		if err != nil {
			return h.wrap("range", rv, err)
		}
		for _, kv := range resp.Kvs {
			obj, err := h.s.read(ctx, kv.Key, kv.Value, uint64(kv.ModRevision))
			if err != nil {
				h.s.skipped(&h.s.historySkips, h.s.log.With("history", h.root), string(kv.Key), uint64(kv.ModRevision), err)
				continue
			}
			if !fn(string(kv.Key[len(h.root):]), obj) { // the range is within root
				return nil
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return nil
		}
		key = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// Count counts the keys of prefix after key at revision rv (etcd counts them; nothing is read).
func (h *etcdHistory) Count(ctx context.Context, rv uint64, after, prefix string) (int64, error) {
	resp, err := h.s.client.Get(ctx, h.root+after+"\x00", clientv3.WithRange(clientv3.GetPrefixRangeEnd(h.root+prefix)),
		clientv3.WithRev(int64(rv)), clientv3.WithCountOnly())
	if err != nil {
		return 0, h.wrap("count", rv, err)
	}
	return resp.Count, nil
}

func (h *etcdHistory) wrap(op string, rv uint64, err error) error {
	if errors.Is(err, rpctypes.ErrCompacted) {
		return fmt.Errorf("etcd: %s %s at revision %d: %w: %w", op, h.root, rv, watchcache.ErrHistoryCompacted, err)
	}
	return fmt.Errorf("etcd: %s %s at revision %d: %w", op, h.root, rv, err)
}
