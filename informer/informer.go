package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/rvclock"
)

// Options configure an Informer.
type Options struct {
	// Decode makes the Go objects handlers and readers get (Typed, Unstructured, Metadata). Required.
	Decode Decoder
	// Name names the informer in DoneChecker names and logs, e.g. "*v1.Pod".
	Name string
	// ResyncPeriod is the default resync period of handlers (0: no resync), as
	// cache.NewSharedIndexInformer's defaultEventHandlerResyncPeriod.
	ResyncPeriod time.Duration
	// Indexers are registered before the informer starts (see AddIndexers).
	Indexers cache.Indexers
	// Logger receives the informer's logs; nil means slog.Default().
	Logger *slog.Logger
}

// Informer is a cache.SharedIndexInformer over a Feed. It follows the feed's watch cache with a
// watch of its own and keeps, per key, the raw bytes it last delivered (shared with the cache, so
// they cost a map entry) and the values of its Go indexers; typed objects are decoded per event
// (once, shared by all handlers and indexers) and per read.
//
// Concurrency: all methods are safe for concurrent use.
type Informer struct {
	feed    *Feed
	ownFeed bool
	decode  Decoder
	name    string
	log     *slog.Logger
	resync  time.Duration

	startMu   sync.Mutex
	started   bool
	stopped   bool
	transform cache.TransformFunc

	// mu guards the delivered state below and the listener set: the dispatcher writes it, readers
	// (GetIndexer) read it, AddEventHandler joins under it so that no event is missed or doubled.
	mu        sync.RWMutex
	items     map[string]*entry // by client-go key ("ns/name" or "name")
	indexers  cache.Indexers
	indexes   map[string]map[string]map[string]struct{} // indexer → value → keys
	rv        uint64
	synced    chan struct{}
	isSynced  bool
	listeners map[*listener]struct{}
	runDone   chan struct{}
}

// entry is what the informer keeps of one object.
type entry struct {
	raw  []byte
	rv   uint64
	vals map[string][]string // indexer name → values, when indexers are registered
}

// New returns an informer over its own Feed of feedOpts through client; Run runs both.
func New(client rest.Interface, feedOpts FeedOptions, opts Options) *Informer {
	inf := NewShared(NewFeed(client, feedOpts), opts)
	inf.ownFeed = true
	return inf
}

// NewShared returns an informer over feed, which the caller runs (Feed.Run); several informers
// (say a typed and a metadata-only one) may share a feed.
func NewShared(feed *Feed, opts Options) *Informer {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Name == "" {
		opts.Name = feed.cache.Resource().Name
	}
	inf := &Informer{
		feed:      feed,
		decode:    opts.Decode,
		name:      opts.Name,
		log:       opts.Logger.With("informer", opts.Name),
		resync:    opts.ResyncPeriod,
		items:     make(map[string]*entry),
		indexers:  cache.Indexers{},
		indexes:   make(map[string]map[string]map[string]struct{}),
		synced:    make(chan struct{}),
		listeners: make(map[*listener]struct{}),
		runDone:   make(chan struct{}),
	}
	if len(opts.Indexers) > 0 {
		if err := inf.AddIndexers(opts.Indexers); err != nil {
			inf.log.Error("informer: indexers refused", "err", err)
		}
	}
	return inf
}

// Feed returns the feed the informer follows; its Cache serves List with limit/continue and
// field selectors over the same objects.
func (inf *Informer) Feed() *Feed { return inf.feed }

// Run runs the informer until stopCh is closed.
func (inf *Informer) Run(stopCh <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stopCh:
		case <-ctx.Done():
		}
		cancel()
	}()
	inf.RunWithContext(ctx)
	cancel()
}

// RunWithContext runs the informer (and its feed, if it owns it) until ctx ends. Calls after the
// first return at once.
func (inf *Informer) RunWithContext(ctx context.Context) {
	inf.startMu.Lock()
	if inf.started || inf.stopped {
		inf.startMu.Unlock()
		return
	}
	inf.started = true
	inf.startMu.Unlock()
	defer close(inf.runDone)

	var wg sync.WaitGroup
	if inf.ownFeed {
		wg.Go(func() { inf.feed.Run(ctx) })
	}
	inf.dispatch(ctx)
	wg.Wait()

	inf.startMu.Lock()
	inf.stopped = true
	inf.startMu.Unlock()
	inf.mu.Lock()
	ls := inf.listeners
	inf.listeners = map[*listener]struct{}{}
	inf.mu.Unlock()
	for l := range ls {
		l.stop()
		<-l.done
	}
}

// HasSynced reports whether the informer has delivered the initial list to its store.
func (inf *Informer) HasSynced() bool {
	select {
	case <-inf.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker returns HasSynced as a cache.DoneChecker.
func (inf *Informer) HasSyncedChecker() cache.DoneChecker {
	return doneChecker{name: inf.name, ch: inf.synced}
}

// LastSyncResourceVersion is the resourceVersion of the last event or bookmark delivered, in
// decimal ("" before the first list).
func (inf *Informer) LastSyncResourceVersion() string {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	if inf.rv == 0 {
		return ""
	}
	return strconv.FormatUint(inf.rv, 10)
}

// IsStopped reports whether Run has returned.
func (inf *Informer) IsStopped() bool {
	inf.startMu.Lock()
	defer inf.startMu.Unlock()
	return inf.stopped
}

// SetTransform sets a transform applied to every decoded object before handlers, indexers and
// readers get it (after Options.Decode). As with client-go it must be set before Run; for the
// transforms that only drop data, prefer FeedOptions.StripManagedFields, which shrinks what the
// cache keeps.
func (inf *Informer) SetTransform(f cache.TransformFunc) error {
	inf.startMu.Lock()
	defer inf.startMu.Unlock()
	if inf.started {
		return errors.New("informer has already started")
	}
	inf.transform = f
	return nil
}

// SetWatchErrorHandler is accepted for compatibility; the handler is never called, because the
// source retries the server's errors itself (with backoff, re-listing after a 410) and logs them.
func (inf *Informer) SetWatchErrorHandler(cache.WatchErrorHandler) error { return inf.notStarted() }

// SetWatchErrorHandlerWithContext is SetWatchErrorHandler's context variant, with the same caveat.
func (inf *Informer) SetWatchErrorHandlerWithContext(cache.WatchErrorHandlerWithContext) error {
	return inf.notStarted()
}

func (inf *Informer) notStarted() error {
	inf.startMu.Lock()
	defer inf.startMu.Unlock()
	if inf.started {
		return errors.New("informer has already started")
	}
	return nil
}

// GetStore returns the informer's store (the same as GetIndexer).
func (inf *Informer) GetStore() cache.Store { return inf.GetIndexer() }

// GetIndexer returns a read-only cache.Indexer over the informer's state, for client-go listers.
// Each object it returns is decoded for the call.
func (inf *Informer) GetIndexer() cache.Indexer { return (*indexer)(inf) }

// GetController returns a cache.Controller view of the informer.
func (inf *Informer) GetController() cache.Controller { return controller{inf} }

// AddEventHandler adds a handler with the informer's default resync period.
func (inf *Informer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(h, cache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod adds a handler that, every resyncPeriod, gets OnUpdate(obj, obj)
// for each object (0: never).
func (inf *Informer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(h, cache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// minResync is client-go's minimumResyncPeriod.
const minResync = time.Second

// AddEventHandlerWithOptions adds a handler. A handler added after the initial list first gets
// OnAdd(obj, true) for every object held, then the events that follow, with none missed or
// repeated. Events to one handler are delivered in order on one goroutine; handlers do not wait
// for one another.
func (inf *Informer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, o cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	if inf.IsStopped() {
		return nil, fmt.Errorf("handler %v was not added to shared informer because it has stopped already", h)
	}
	resync := inf.resync
	if o.ResyncPeriod != nil {
		resync = *o.ResyncPeriod
	}
	if resync > 0 && resync < minResync {
		resync = minResync
	}
	l := newListener(h, resync, inf.name)
	inf.mu.Lock()
	if inf.isSynced {
		keys := inf.sortedKeysLocked()
		for _, k := range keys {
			obj, err := inf.object(inf.items[k].raw)
			if err != nil {
				inf.log.Warn("informer: object not decoded", "key", k, "err", err)
				continue
			}
			l.add(notification{kind: notifyAdd, obj: obj, initial: true})
		}
		l.add(notification{kind: notifySynced})
	}
	inf.listeners[l] = struct{}{}
	inf.mu.Unlock()
	if resync > 0 {
		go inf.resyncLoop(l)
	}
	return l, nil
}

// RemoveEventHandler removes a handler; its queued notifications are dropped.
func (inf *Informer) RemoveEventHandler(reg cache.ResourceEventHandlerRegistration) error {
	l, ok := reg.(*listener)
	if !ok {
		return fmt.Errorf("informer: registration %T is not one of this informer's", reg)
	}
	inf.mu.Lock()
	_, found := inf.listeners[l]
	delete(inf.listeners, l)
	inf.mu.Unlock()
	if found {
		l.stop()
	}
	return nil
}

// resyncLoop gives l OnUpdate(obj, obj) for every object every l.resync, until l stops.
func (inf *Informer) resyncLoop(l *listener) {
	t := time.NewTicker(l.resync)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		inf.mu.RLock()
		if _, ok := inf.listeners[l]; ok && inf.isSynced {
			for _, k := range inf.sortedKeysLocked() {
				if obj, err := inf.object(inf.items[k].raw); err == nil {
					l.add(notification{kind: notifyUpdate, old: obj, obj: obj})
				}
			}
		}
		inf.mu.RUnlock()
	}
}

// AddIndexers registers indexers: each object is decoded once to compute the values of every
// indexer (at registration for the objects held, then once per event). It may be called after
// Run, as with client-go; a name already registered is an error.
func (inf *Informer) AddIndexers(add cache.Indexers) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	for name := range add {
		if name == cache.NamespaceIndex && inf.feed.cache.Resource().Namespaced {
			continue // served from the keys, without a decode (see indexer.ByIndex)
		}
		if _, ok := inf.indexers[name]; ok {
			return fmt.Errorf("indexer conflict: %v", name)
		}
	}
	for name, fn := range add {
		if name == cache.NamespaceIndex && inf.feed.cache.Resource().Namespaced {
			continue
		}
		inf.indexers[name] = fn
		byVal := make(map[string]map[string]struct{})
		inf.indexes[name] = byVal
		for k, e := range inf.items {
			obj, err := inf.object(e.raw)
			if err != nil {
				continue
			}
			vals, err := fn(obj)
			if err != nil {
				return fmt.Errorf("informer: indexer %s on %s: %w", name, k, err)
			}
			if e.vals == nil {
				e.vals = make(map[string][]string)
			}
			e.vals[name] = vals
			for _, v := range vals {
				addKey(byVal, v, k)
			}
		}
	}
	return nil
}

func addKey(byVal map[string]map[string]struct{}, v, k string) {
	keys := byVal[v]
	if keys == nil {
		keys = make(map[string]struct{})
		byVal[v] = keys
	}
	keys[k] = struct{}{}
}

func (inf *Informer) sortedKeysLocked() []string {
	keys := make([]string, 0, len(inf.items))
	for k := range inf.items {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// object decodes raw and applies the transform.
func (inf *Informer) object(raw []byte) (any, error) {
	obj, err := inf.decode(raw)
	if err != nil {
		return nil, err
	}
	if t := inf.transform; t != nil {
		return t(obj)
	}
	return obj, nil
}

// ObjectKey returns client-go's key of a stored object: "ns/name", or "name" for a cluster-scoped
// one, read from the raw bytes.
func ObjectKey(raw []byte) string {
	r := gjson.GetManyBytes(raw, "metadata.namespace", "metadata.name")
	if ns := r[0].Str; ns != "" {
		return ns + "/" + r[1].Str
	}
	return r[1].Str
}

// waitReady waits until the feed's cache has had its first list (or ends).
func (inf *Informer) waitReady(ctx context.Context) bool {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		err := inf.feed.cache.Ready()
		if err == nil {
			return true
		}
		if errors.Is(err, rvclock.ErrStopped) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-inf.feed.Done():
			return false
		case <-t.C:
		}
	}
}

// controller is the cache.Controller view of an Informer.
type controller struct{ inf *Informer }

func (c controller) Run(stopCh <-chan struct{})          { c.inf.Run(stopCh) }
func (c controller) RunWithContext(ctx context.Context)  { c.inf.RunWithContext(ctx) }
func (c controller) HasSynced() bool                     { return c.inf.HasSynced() }
func (c controller) HasSyncedChecker() cache.DoneChecker { return c.inf.HasSyncedChecker() }
func (c controller) LastSyncResourceVersion() string     { return c.inf.LastSyncResourceVersion() }

var (
	_ cache.SharedIndexInformer              = (*Informer)(nil)
	_ cache.ResourceEventHandlerRegistration = (*listener)(nil)
)
