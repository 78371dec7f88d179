package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
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

// Options configure a Source: what it asks the server for, for every resource it feeds. The zero
// value of every field is a sensible default.
type Options struct {
	// Namespace restricts the feeds to one namespace; "" feeds all namespaces (or a cluster-scoped
	// resource).
	Namespace string
	// LabelSelector and FieldSelector restrict the feeds, in the Kubernetes syntax; "" selects all.
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
	// watchcache.StripManagedFields), so the cache stores its result. It runs on the goroutine of
	// the object's resource; with several resources it runs concurrently and must be safe for it.
	Transform watchcache.Transform
	// WatchList makes the source start with a watch-list (KEP-3157: sendInitialEvents=true, the
	// state streamed as ADDED events up to the bookmark annotated k8s.io/initial-events-end) instead
	// of a paged list, as client-go's reflector does with the WatchListClient feature, so no list
	// response is held in memory. A server that refuses it (400, 422, 403, 404, or a stream that
	// ends before the bookmark) is listed instead, from then on, for that resource.
	WatchList bool
	// PackLists copies the objects of every list (a paged list, a watch-list's initial events) into
	// shared blocks of 256 KiB instead of an allocation each, which the allocator rounds up to its
	// size class (8% of the JSON for pods of 3.5 KiB). The trade: a block is freed only when every
	// object in it has been replaced or deleted, so after churn that spares one object per block the
	// cache holds up to the listed objects' bytes again, until the next list. Objects of more
	// than 16 KiB are not packed.
	PackLists bool
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

// Stats are counters of a Source since New, summed over its resources.
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

// Source feeds watch caches from resources of one group and version of an API server, one list and
// watch loop per resource, as the etcd source feeds them from etcd prefixes.
//
// Concurrency: Add must be called before Run; Run is called once; Stats is safe for concurrent use
// at any time. The caches are written only by Run's goroutines; do not feed them from elsewhere
// while Run runs.
type Source struct {
	client rest.Interface
	opts   Options
	stats  counters

	mu      sync.Mutex
	running bool
	feeds   []*feed
}

// feed is one resource and its cache. Its fields after stats are owned by the feed's goroutine.
type feed struct {
	client   rest.Interface
	resource string
	cache    *watchcache.Cache
	opts     Options
	log      *slog.Logger
	stats    *counters

	rv          uint64 // last resourceVersion applied (list, event or bookmark); 0: a list is needed
	noWatchList bool   // the server refused a watch-list: list instead
	skipped     int    // objects skipped so far, to rate-limit the warnings
}

// New returns a source reading through client, a REST client of one group and version (e.g.
// kubernetes.Clientset.CoreV1().RESTClient(), or rest.RESTClientFor for any group). Add the
// resources to feed, then Run it.
func New(client rest.Interface, opts Options) *Source {
	return &Source{client: client, opts: opts.withDefaults()}
}

// Add registers a cache to feed from a resource of the client's group and version: its plural
// name, e.g. "pods" or "deployments". The cache must be new: the source lists into it with Replace
// before it watches. Add fails with ErrInvalidResource for an empty name, a name with a '/' and a
// name added before, and with ErrRunning once Run was called.
func (s *Source) Add(resource string, c *watchcache.Cache) error {
	if resource == "" || strings.Contains(resource, "/") || c == nil {
		return fmt.Errorf("%w: %q", ErrInvalidResource, resource)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return ErrRunning
	}
	for _, f := range s.feeds {
		if f.resource == resource {
			return fmt.Errorf("%w: %q added twice", ErrInvalidResource, resource)
		}
	}
	log := s.opts.Logger.With("resource", resource)
	if s.opts.Namespace != "" {
		log = log.With("namespace", s.opts.Namespace)
	}
	s.feeds = append(s.feeds, &feed{client: s.client, resource: resource, cache: c, opts: s.opts, log: log, stats: &s.stats})
	return nil
}

// Run lists and watches every added resource until ctx ends, then returns nil. Failures of the
// server are logged and retried with backoff, never returned; Run returns an error only when it
// cannot start: nothing was added (ErrNoResources) or it was already called (ErrRunning). A feed
// whose cache was stopped (Cache.Stop) ends; the others go on. When Run returns, the caches keep
// what they hold.
func (s *Source) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrRunning
	}
	if len(s.feeds) == 0 {
		s.mu.Unlock()
		return ErrNoResources
	}
	s.running = true
	feeds := s.feeds
	s.mu.Unlock()

	if len(feeds) == 1 {
		feeds[0].run(ctx)
		return nil
	}
	var wg sync.WaitGroup
	for _, f := range feeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.run(ctx)
		}()
	}
	wg.Wait()
	return nil
}

// run lists and watches the feed's resource until ctx ends or its cache is stopped.
func (s *feed) run(ctx context.Context) {
	retry := backoff.New(s.opts.MinRetry, s.opts.MaxRetry)
	for ctx.Err() == nil {
		if s.rv == 0 && s.opts.WatchList && !s.noWatchList {
			progressed, err := s.watchList(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case errors.Is(err, rvclock.ErrStopped):
				s.log.Info("kube: cache stopped; source ends")
				return
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
				return
			case errors.Is(err, rvclock.ErrStopped):
				s.log.Info("kube: cache stopped; source ends")
				return
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
			return
		case errors.Is(err, rvclock.ErrStopped):
			s.log.Info("kube: cache stopped; source ends")
			return
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
	return
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

// request starts a GET of the feed's resource with the source's scope and selectors, asking for JSON.
func (s *feed) request() *rest.Request {
	r := s.client.Get().Resource(s.resource).SetHeader("Accept", "application/json")
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
