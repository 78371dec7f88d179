package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/source/internal/backoff"
	"github.com/watchcache/watchcache/watchcache"
)

// Defaults of Options.
const (
	// DefaultPageSize is the list page size: client-go's pager default (tools/pager
	// defaultPageSize = 500), which keeps each response a few MiB for typical objects.
	DefaultPageSize = 500
	// DefaultWatchTimeout is the lower bound of each watch's timeoutSeconds; the actual value is
	// drawn in [d, 2d), as the reflector does (minWatchTimeout = 5 min), so that the watches of many
	// clients do not all end at once.
	DefaultWatchTimeout = 5 * time.Minute
)

// Options configure a Source.
type Options struct {
	// Resource is the plural resource name in the client's group and version, e.g. "pods". Required.
	Resource string
	// Namespace restricts the feed to one namespace; "" feeds all namespaces (or a cluster-scoped
	// resource).
	Namespace string
	// LabelSelector and FieldSelector restrict the feed, in the Kubernetes syntax; "" selects all.
	LabelSelector, FieldSelector string
	// PageSize is the list page size; 0 means DefaultPageSize, negative means one unpaged list.
	PageSize int64
	// WatchTimeout is the lower bound of each watch's server-side timeout; 0 means
	// DefaultWatchTimeout.
	WatchTimeout time.Duration
	// MinRetry and MaxRetry bound the delay before a failed list or watch is retried (doubling with
	// jitter); 0 means 100 ms and 30 s.
	MinRetry, MaxRetry time.Duration
	// Logger receives the source's logs; nil means slog.Default().
	Logger *slog.Logger
	// Transform, when set, rewrites each listed and watched object before the cache gets it (e.g.
	// watchcache.StripManagedFields), so the cache stores its result. It runs on Run's goroutine.
	Transform watchcache.Transform
	// WatchList makes the source start with a watch-list (KEP-3157: sendInitialEvents=true, the
	// state streamed as ADDED events up to the bookmark annotated k8s.io/initial-events-end) instead
	// of a paged list, as client-go's reflector does with the WatchListClient feature, so no list
	// response is held in memory. A server that refuses it (400, 422, 403, 404, or a stream that
	// ends before the bookmark) is listed instead, from then on.
	WatchList bool
}

func (o Options) withDefaults() Options {
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.WatchTimeout <= 0 {
		o.WatchTimeout = DefaultWatchTimeout
	}
	if o.MinRetry <= 0 {
		o.MinRetry = 100 * time.Millisecond
	}
	if o.MaxRetry < o.MinRetry {
		o.MaxRetry = max(30*time.Second, o.MinRetry)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Stats are counters of a Source since New.
type Stats struct {
	// Lists is the number of completed (re)lists, each ending in a Cache.Replace.
	Lists uint64
	// Events is the number of ADDED, MODIFIED and DELETED events applied to the cache.
	Events uint64
	// Bookmarks is the number of BOOKMARK events applied to the cache.
	Bookmarks uint64
	// Skipped is the number of objects or events the cache rejected.
	Skipped uint64
	// Watches is the number of watch requests that the server accepted.
	Watches uint64
	// Expired is the number of 410 Gone answers to a watch; each is followed by a re-list.
	Expired uint64
}

type counters struct {
	lists, events, bookmarks, skipped, watches, expired atomic.Uint64
}

// Source feeds one cache from one resource of an API server.
//
// Concurrency: Run is called once; Stats is safe for concurrent use. The cache is written only by
// Run; do not feed it from elsewhere while Run runs.
type Source struct {
	client rest.Interface
	cache  *watchcache.Cache
	opts   Options
	log    *slog.Logger
	stats  counters

	mu      sync.Mutex
	running bool

	rv          uint64 // last resourceVersion applied (list, event or bookmark); 0: a list is needed
	noWatchList bool   // the server refused a watch-list: list instead
	skipped     int    // objects skipped so far, to rate-limit the warnings
}

// New returns a source that feeds c from the resource opts.Resource served through client. The
// cache must be new: the source lists into it with Replace before it watches.
func New(client rest.Interface, c *watchcache.Cache, opts Options) *Source {
	opts = opts.withDefaults()
	log := opts.Logger.With("resource", opts.Resource)
	if opts.Namespace != "" {
		log = log.With("namespace", opts.Namespace)
	}
	return &Source{client: client, cache: c, opts: opts, log: log}
}

// Run lists and watches until ctx ends or the cache is stopped, then returns nil. Failures of the
// server are logged and retried with backoff, never returned; Run returns an error only when it
// cannot start (ErrNoResource, ErrRunning). When Run returns, the cache keeps what it holds.
func (s *Source) Run(ctx context.Context) error {
	if s.opts.Resource == "" {
		return ErrNoResource
	}
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrRunning
	}
	s.running = true
	s.mu.Unlock()

	retry := backoff.New(s.opts.MinRetry, s.opts.MaxRetry)
	for ctx.Err() == nil {
		if s.rv == 0 && s.opts.WatchList && !s.noWatchList {
			progressed, err := s.watchList(ctx)
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, rvclock.ErrStopped):
				s.log.Info("kube: cache stopped; source ends")
				return nil
			case s.rv == 0 && watchListRefused(err):
				s.log.Info("kube: watch-list refused; listing instead", "err", err)
				s.noWatchList = true
				continue
			case s.rv == 0:
				s.log.Warn("kube: watch-list failed; retrying", "err", err)
				retry.Wait(ctx)
				continue
			}
			if progressed {
				retry.Reset()
			}
			s.log.Debug("kube: watch ended after the watch-list; watching again", "resourceVersion", s.rv, "err", err)
			if isExpired(err) {
				s.stats.expired.Add(1)
				s.rv = 0
			}
			continue
		}
		if s.rv == 0 {
			rv, err := s.list(ctx)
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, rvclock.ErrStopped):
				s.log.Info("kube: cache stopped; source ends")
				return nil
			case err != nil:
				s.log.Warn("kube: list failed; retrying", "err", err)
				retry.Wait(ctx)
				continue
			}
			s.rv = rv
			retry.Reset()
		}
		progressed, err := s.watch(ctx)
		if progressed {
			retry.Reset()
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, rvclock.ErrStopped):
			s.log.Info("kube: cache stopped; source ends")
			return nil
		case isExpired(err):
			// The server no longer holds the history from s.rv (rule 5.3): re-list. Unlike the
			// apiserver's cache (rule 3.6), which answers 429 until its re-list completes, the cache
			// keeps answering from its last complete state, as an informer's store does, and the
			// re-list replaces it in one step (Cache.Replace) at a resourceVersion not older than it.
			s.stats.expired.Add(1)
			s.log.Info("kube: watch expired; re-listing", "resourceVersion", s.rv, "err", err)
			s.rv = 0
		case errors.Is(err, ErrWatchEnded) && progressed:
			s.log.Debug("kube: watch ended; watching again", "resourceVersion", s.rv)
		default:
			// A stream that broke, a watch refused (429, 5xx), or one that ended before
			// delivering anything: back off, as the reflector does, then resume from s.rv.
			s.log.Info("kube: watch failed; resuming", "resourceVersion", s.rv, "err", err)
			retry.Wait(ctx)
		}
	}
	return nil
}

// Stats returns the source's counters.
func (s *Source) Stats() Stats {
	return Stats{
		Lists:     s.stats.lists.Load(),
		Events:    s.stats.events.Load(),
		Bookmarks: s.stats.bookmarks.Load(),
		Skipped:   s.stats.skipped.Load(),
		Watches:   s.stats.watches.Load(),
		Expired:   s.stats.expired.Load(),
	}
}

// isExpired reports a 410: "too old resource version" for a watch, an expired continue token for a
// list (apierrors.IsResourceExpired covers reason Expired, IsGone reason Gone).
func isExpired(err error) bool {
	return err != nil && (apierrors.IsResourceExpired(err) || apierrors.IsGone(err))
}

// request starts a GET of the resource with the source's scope and selectors, asking for JSON.
func (s *Source) request() *rest.Request {
	r := s.client.Get().Resource(s.opts.Resource).SetHeader("Accept", "application/json")
	if s.opts.Namespace != "" {
		r = r.Namespace(s.opts.Namespace)
	}
	if s.opts.LabelSelector != "" {
		r = r.Param("labelSelector", s.opts.LabelSelector)
	}
	if s.opts.FieldSelector != "" {
		r = r.Param("fieldSelector", s.opts.FieldSelector)
	}
	return r
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformedResponse, fmt.Sprintf(format, args...))
}
