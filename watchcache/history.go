package watchcache

import (
	"context"
	"errors"
	"fmt"
)

// History serves the lists a cache's window no longer covers from the source's own history, as the
// apiserver sends an Exact list or a continue token older than its cache to etcd (rule 1.3): etcd
// keeps every revision until it compacts. source/etcd implements it; a cache without one answers
// such lists with 410 (rules 1.18, 2.9).
//
// Keys are the cache's (rule 6.1, relative to the resource root: "/<namespace>/<name>" or "/<name>");
// prefix is a list root ("/" or "/<namespace>/").
type History interface {
	// Range calls fn with each object stored under a key in [from, end of prefix) as it was at
	// revision rv, in key order, each with its key and with metadata.resourceVersion set to its
	// revision, until fn returns false. The key has the meaning of Event.Key: a source that keys
	// its events passes it here too; "" makes the object's metadata decide. A compacted rv is an
	// error wrapping ErrHistoryCompacted.
	Range(ctx context.Context, rv uint64, from, prefix string, fn func(key string, obj []byte) bool) error
	// Count returns how many objects were stored at revision rv under keys of prefix after key.
	Count(ctx context.Context, rv uint64, after, prefix string) (int64, error)
}

// ErrHistoryCompacted: the source no longer holds the revision a History read asked for (etcd
// compacted it). The list then gets the same 410 as without a History.
var ErrHistoryCompacted = errors.New("watchcache: history compacted")

// listHistory answers a list older than the window from the History: the same selection, limit and
// continuation rules as a list of a snapshot (the objects are parsed as they arrive, so its cost is
// the apiserver's etcd path's: proportional to the keys read), with the continue token in the etcd
// form the apiserver's etcd path issues. tooOld is the 410 to return if the history is compacted too.
func (c *Cache) listHistory(ctx context.Context, q query, r route, rv uint64, tooOld error) (*ListResult, error) {
	sets := newLabelSets()
	cl := collector{pred: makePredicate(q.schema, sets, q.labels, q.fields), rv: rv, limit: r.limit}
	var (
		badErr  error
		keyOnly string
	)
	if r.start == "" {
		keyOnly = singleKey(q.prefix, c.opts.Resource.Namespaced, q.fields) // as makePlan narrows a snapshot read
	}
	err := c.opts.History.Range(ctx, rv, max(r.start, q.prefix, keyOnly), q.prefix, func(key string, obj []byte) bool {
		rec, lbl, err := buildRecord(q.schema, c.opts.Resource.Namespaced, key, obj, 0, rv, sets.known)
		if err != nil {
			badErr = err
			return false
		}
		if keyOnly != "" && rec.key != keyOnly {
			return false
		}
		rec.internLabels(sets, lbl)
		return cl.record(rec.key, rec)
	})
	switch {
	case errors.Is(err, ErrHistoryCompacted):
		return nil, tooOld
	case err != nil:
		return nil, fmt.Errorf("list at %d from history: %w", rv, err)
	case badErr != nil:
		return nil, fmt.Errorf("list at %d from history: %w", rv, badErr)
	}
	res := &ListResult{Items: cl.items, ResourceVersion: rv}
	if cl.more {
		res.Continue = encodeContinueEtcdForm(cl.last+"\x00", q.prefix, int64(rv))
		if cl.pred.empty() {
			n, err := c.opts.History.Count(ctx, rv, cl.last, q.prefix)
			if err != nil {
				if errors.Is(err, ErrHistoryCompacted) {
					return nil, tooOld
				}
				return nil, fmt.Errorf("list at %d from history: %w", rv, err)
			}
			res.RemainingItemCount = &n
		}
	}
	return res, nil
}
