package etcd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/source/internal/backoff"
	"github.com/watchcache/watchcache/watchcache"
)

var (
	// errWatchClosed: the watch channel closed without an error (the client is closing, or etcd
	// dropped a stream the client could not resume).
	errWatchClosed = errors.New("etcd: watch channel closed")
	// errStopped: the cache was stopped; the feed ends.
	errStopped = rvclock.ErrStopped
)

// runFeed is one resource's reflector loop: list, then watch; resume a broken watch from the last
// revision; re-list after a compaction. It returns when ctx ends or the cache is stopped.
func (s *Source) runFeed(ctx context.Context, f *feed) {
	retry := backoff.New(s.opts.MinRetry, s.opts.MaxRetry)
	for ctx.Err() == nil {
		if f.rev == 0 {
			rev, err := s.list(ctx, f)
			if ctx.Err() == nil && !errors.Is(err, errStopped) {
				f.setListErr(err)
			}
			switch {
			case ctx.Err() != nil:
				return
			case errors.Is(err, errStopped):
				f.log.Info("etcd: cache stopped; feed ends")
				return
			case errors.Is(err, rpctypes.ErrCompacted):
				s.stats.compactions.Add(1)
				f.log.Info("etcd: list revision compacted while paging; listing again", "err", err)
				continue
			case err != nil:
				f.log.Warn("etcd: list failed; retrying", "err", err)
				retry.Wait(ctx)
				continue
			}
			f.rev = rev
			retry.Reset()
		}
		progressed, err := s.watch(ctx, f)
		if progressed {
			retry.Reset()
		}
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, errStopped):
			f.log.Info("etcd: cache stopped; feed ends")
			return
		case errors.Is(err, rpctypes.ErrCompacted), errors.Is(err, ErrNoPrevKV):
			// Events between f.rev and the compaction are lost: the cache must not answer as if it
			// were current (rule 3.6) until the re-list has replaced it.
			if errors.Is(err, rpctypes.ErrCompacted) {
				s.stats.compactions.Add(1)
			}
			f.log.Warn("etcd: watch cannot continue; re-listing", "revision", f.rev, "err", err)
			f.cache.SetPending(err)
			f.rev = 0
		default:
			s.stats.reconnects.Add(1)
			f.log.Info("etcd: watch broke; resuming", "revision", f.rev, "err", err)
			retry.Wait(ctx)
		}
	}
}

// watch follows the feed's prefix from f.rev+1 until the watch fails or ctx ends, applying every
// event and progress notification to the cache. It reports whether anything arrived (to reset the
// backoff) and why it stopped.
func (s *Source) watch(ctx context.Context, f *feed) (progressed bool, err error) {
	wctx, cancel := context.WithCancel(watchContext(ctx))
	defer cancel()
	wch := s.client.Watch(wctx, f.prefix,
		clientv3.WithPrefix(),
		clientv3.WithRev(int64(f.rev)+1),
		clientv3.WithPrevKV(),
		clientv3.WithProgressNotify(),
	)
	defer func() {
		cancel()
		for range wch { // the client closes the channel once the cancellation is through
		}
	}()
	f.log.Debug("etcd: watching", "from", f.rev+1)
	for wr := range wch {
		if err := wr.Err(); err != nil {
			return progressed, fmt.Errorf("etcd: watch %s from revision %d: %w", f.prefix, f.rev+1, err)
		}
		progressed = true
		if wr.IsProgressNotify() {
			rev := uint64(wr.Header.Revision)
			if err := s.bookmark(f, rev); err != nil {
				return progressed, err
			}
			s.stats.bookmarks.Add(1)
			s.progress.notified(f, rev)
			continue
		}
		for _, ev := range wr.Events {
			if err := s.apply(ctx, f, ev); err != nil {
				return progressed, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return progressed, err
	}
	return progressed, fmt.Errorf("etcd: watch %s from revision %d: %w", f.prefix, f.rev+1, errWatchClosed)
}

// apply translates one etcd event into a cache event (see the package doc's table). An event the
// cache cannot take is skipped and its revision applied as a bookmark, so the cache's clock still
// reaches it and a consistent read does not wait for a revision that will never come. The key's
// place in the unreadable set (Source.Unreadable) changes before the cache sees the revision.
func (s *Source) apply(ctx context.Context, f *feed, ev *clientv3.Event) error {
	rev := uint64(ev.Kv.ModRevision)
	if rev < f.rev {
		return nil // already applied: a resumed watch never repeats, but be safe
	}
	key := f.key(ev.Kv.Key) // the etcd key decides where the cache holds the object
	var out watchcache.Event
	switch ev.Type {
	case clientv3.EventTypePut:
		obj, err := s.read(ctx, ev.Kv.Key, ev.Kv.Value, rev)
		if err != nil {
			s.skip(f, string(ev.Kv.Key), rev, err)
			f.setUnreadable(key, err)
			// The new value cannot be served: the object leaves the cache, if the cache held it.
			if ev.PrevKv == nil {
				return s.bookmark(f, rev)
			}
			prev, perr := s.read(ctx, ev.Kv.Key, ev.PrevKv.Value, rev)
			if perr != nil {
				return s.bookmark(f, rev)
			}
			out = watchcache.Event{Type: watchcache.Deleted, Object: prev, ResourceVersion: rev, Key: key}
			break
		}
		f.setUnreadable(key, nil)
		out = watchcache.Event{Type: watchcache.Modified, Object: obj, ResourceVersion: rev, Key: key}
		if ev.IsCreate() {
			out.Type = watchcache.Added
		}
	case clientv3.EventTypeDelete:
		if ev.PrevKv == nil {
			return fmt.Errorf("%w: %s at revision %d", ErrNoPrevKV, ev.Kv.Key, rev)
		}
		f.setUnreadable(key, nil)
		prev, err := s.read(ctx, ev.Kv.Key, ev.PrevKv.Value, rev)
		if err != nil {
			// Never decodable, so never in the cache: nothing to delete.
			return s.bookmark(f, rev)
		}
		out = watchcache.Event{Type: watchcache.Deleted, Object: prev, ResourceVersion: rev, Key: key}
	default:
		return s.bookmark(f, rev)
	}
	err := f.cache.Apply(out)
	switch {
	case err == nil:
		s.stats.events.Add(1)
		f.rev = rev
		return nil
	case errors.Is(err, errStopped):
		return err
	case errors.Is(err, watchcache.ErrUnknownKey):
		// A delete (or an object leaving, see above) of an object the cache never held, because it
		// was skipped when written: nothing to do.
		return s.bookmark(f, rev)
	}
	// Rejected by the cache (malformed object, a key that does not fit the resource's scope, two
	// keys in one transaction): the object is left out, the revision is still reached.
	rejected := fmt.Errorf("cache rejected %s: %w", out.Type, err)
	s.skip(f, string(ev.Kv.Key), rev, rejected)
	if out.Type != watchcache.Deleted {
		f.setUnreadable(key, rejected) // etcd holds a value the cache does not
	}
	// The key's new value cannot be held, so its previous value must not be served either: it
	// leaves the cache, as for a value that is not JSON.
	if out.Type == watchcache.Modified && ev.PrevKv != nil {
		if prev, perr := s.read(ctx, ev.Kv.Key, ev.PrevKv.Value, rev); perr == nil {
			derr := f.cache.Apply(watchcache.Event{Type: watchcache.Deleted, Object: prev, ResourceVersion: rev, Key: key})
			switch {
			case derr == nil:
				s.stats.events.Add(1)
				f.rev = rev
				return nil
			case errors.Is(derr, errStopped):
				return derr
			}
		}
	}
	return s.bookmark(f, rev)
}

// bookmark advances the cache's clock to rev without a change (rule 3.1).
func (s *Source) bookmark(f *feed, rev uint64) error {
	if rev <= f.rev {
		return nil
	}
	if err := f.cache.Apply(watchcache.Event{Type: watchcache.Bookmark, ResourceVersion: rev}); err != nil {
		if errors.Is(err, errStopped) {
			return err
		}
		// The cache is ahead of this feed: it cannot be, unless someone else feeds it.
		f.log.Warn("etcd: cache refused a bookmark", "revision", rev, "err", err)
	}
	f.rev = rev
	return nil
}

// skip counts and reports an object of a feed left out.
func (s *Source) skip(f *feed, key string, rev uint64, err error) {
	s.skipped(&f.skips, f.log, key, rev, err)
}

// skipped counts and reports a value left out: at Warn the first time l meets its reason
// (reasonOf), at Debug afterwards, so that an etcd full of values of one unreadable kind logs one
// line per resource, not one per object (Stats.Skipped and Source.Skips count them all).
func (s *Source) skipped(l *skipLog, log *slog.Logger, key string, rev uint64, err error) {
	n := s.stats.skipped.Add(1)
	reason := reasonOf(err)
	level := slog.LevelWarn
	if !l.note(reason) {
		level = slog.LevelDebug
	}
	log.Log(context.Background(), level, "etcd: object skipped", "reason", reason, "key", key, "revision", rev, "err", err, "skippedTotal", n)
}

// skipLog counts skipped values by reason. Safe for concurrent use.
type skipLog struct {
	mu      sync.Mutex
	reasons map[string]uint64
}

// note counts one value skipped for reason and reports whether it is the first.
func (l *skipLog) note(reason string) (first bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reasons == nil {
		l.reasons = map[string]uint64{}
	}
	l.reasons[reason]++
	return l.reasons[reason] == 1
}

// addTo adds the counts to m.
func (l *skipLog) addTo(m map[string]uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for r, n := range l.reasons {
		m[r] += n
	}
}

// Skips returns how many values the source skipped since New, by reason: the reason of an
// ErrUndecodable value names its encoding and, where it matters, its kind or encryption key
// ("protobuf value of example.io/v1, Kind=Widget, a kind the scheme lacks"); an untransformable
// value's is ErrUntransformable's text; an object a cache rejected is "rejected by the cache". The
// counts sum to Stats.Skipped. The map is new on every call; Skips is safe for concurrent use.
func (s *Source) Skips() map[string]uint64 {
	m := map[string]uint64{}
	s.mu.Lock()
	feeds := s.feeds
	s.mu.Unlock()
	for _, f := range feeds {
		f.skips.addTo(m)
	}
	s.mu.Lock()
	for r, n := range s.retired {
		m[r] += n
	}
	s.mu.Unlock()
	s.historySkips.addTo(m)
	return m
}
