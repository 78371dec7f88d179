package informer

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/source/kube"
	"github.com/watchcache/watchcache/watchcache"
)

// FeedOptions configure a Feed: which resource it follows and how the cache keeps it.
type FeedOptions struct {
	// Resource is the plural resource name in the client's group and version, e.g. "pods". Required.
	Resource string
	// Group is the API group, "" for the core group (names the resource in errors).
	Group string
	// Namespaced says whether the resource's objects live in namespaces.
	Namespaced bool
	// Namespace, LabelSelector and FieldSelector restrict what the server sends (as an
	// informer's ListWatch options do); "" means all.
	Namespace, LabelSelector, FieldSelector string
	// StripManagedFields removes metadata.managedFields from every object on the raw bytes
	// (watchcache.StripManagedFields) before the cache stores it.
	StripManagedFields bool
	// Cache are further options of the watch cache; Resource and Transform are set from the fields
	// above (a Transform set here runs after StripManagedFields).
	Cache watchcache.Options
	// PageSize is the source's list page size (kube.Options.PageSize).
	PageSize int64
	// WatchList starts from a watch-list instead of a paged list where the server serves one
	// (kube.Options.WatchList), as client-go's reflector does by default since 1.35.
	WatchList bool
	// PackLists packs the objects of each list into shared blocks (kube.Options.PackLists: less
	// memory after a sync, a block freed only with the last of its objects).
	PackLists bool
	// Logger receives the source's logs; nil means slog.Default().
	Logger *slog.Logger
}

// Feed is one watch cache fed from the API server: the storage that any number of Informers over
// the same resource and selectors share (each decoding into its own Go type).
//
// Concurrency: all methods are safe for concurrent use; Run runs once.
type Feed struct {
	cache  *watchcache.Cache
	src    *kube.Source
	addErr error

	once sync.Once
	done chan struct{}

	mu      sync.Mutex
	cancel  context.CancelFunc
	stopped bool
}

// NewFeed returns a feed of opts.Resource through client (a REST client of the resource's group
// and version, e.g. kubernetes.Clientset.CoreV1().RESTClient()). It starts following the server
// on Run.
func NewFeed(client rest.Interface, opts FeedOptions) *Feed {
	co := opts.Cache
	co.Resource = watchcache.Resource{Name: opts.Resource, Group: opts.Group, Namespaced: opts.Namespaced}
	if opts.StripManagedFields {
		if t := co.Transform; t != nil {
			co.Transform = func(raw []byte) []byte { return t(watchcache.StripManagedFields(raw)) }
		} else {
			co.Transform = watchcache.StripManagedFields
		}
	}
	c := watchcache.New(co)
	src := kube.New(client, kube.Options{
		Namespace:     opts.Namespace,
		LabelSelector: opts.LabelSelector,
		FieldSelector: opts.FieldSelector,
		PageSize:      opts.PageSize,
		WatchList:     opts.WatchList,
		PackLists:     opts.PackLists,
		Logger:        opts.Logger,
	})
	// Add fails only for an empty or path-like resource name, or a nil cache; Run then reports it.
	addErr := src.Add(opts.Resource, c)
	return &Feed{cache: c, src: src, addErr: addErr, done: make(chan struct{})}
}

// Cache returns the watch cache the feed fills: List with limit/continue, any field selector
// (RegisterField, AddIndex), Get and Watch over the raw JSON.
func (f *Feed) Cache() *watchcache.Cache { return f.cache }

// Stats returns the source's counters.
func (f *Feed) Stats() kube.Stats { return f.src.Stats() }

// Run follows the server until ctx ends, then stops the cache (its watchers end, reads fail with
// rvclock.ErrStopped). Calls after the first return at once.
func (f *Feed) Run(ctx context.Context) {
	first := false
	f.once.Do(func() { first = true })
	if !first {
		return
	}
	defer close(f.done)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		f.cache.Stop()
		return
	}
	f.cancel = cancel
	f.mu.Unlock()
	err := f.addErr
	if err == nil {
		err = f.src.Run(ctx)
	}
	f.cache.Stop()
	if err != nil && !errors.Is(err, context.Canceled) {
		slog.Default().Error("informer: feed did not start", "err", err)
	}
}

// Stop ends Run (or makes a later Run return at once).
func (f *Feed) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	if f.cancel != nil {
		f.cancel()
	}
}

// Done is closed when Run has returned.
func (f *Feed) Done() <-chan struct{} { return f.done }
