package ctrlcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/informer"
	"github.com/watchcache/watchcache/watchcache"
)

// Config is what cache.Options cannot say.
type Config struct {
	// StripManagedFields removes metadata.managedFields from every stored object, on the raw bytes.
	StripManagedFields bool
	// PageSize is the sources' list page size; 0 means source/kube's default.
	PageSize int64
	// NoWatchList makes the sources start with a paged list; by default they start with a
	// watch-list where the server serves one (kube.Options.WatchList).
	NoWatchList bool
	// NoPackLists stores each listed object in an allocation of its own. By default the objects of
	// every list (the first sync, a re-list) are packed into shared 256 KiB blocks
	// (kube.Options.PackLists), which saves the allocator's rounding of each object to its size
	// class (8% of the JSON for pods of 3.5 KiB); a block is freed only when the last of its
	// objects is replaced or deleted, so a cache whose listed objects all changed but one per block
	// holds up to the list's bytes again until its next re-list.
	NoPackLists bool
	// Logger receives the sources' and informers' logs; nil means slog.Default().
	Logger *slog.Logger
}

// Errors of the cache.
var (
	// ErrLimitAcrossNamespaces: a List over several namespaces, each with its own feed, whose Limit
	// would need a continue token across them.
	ErrLimitAcrossNamespaces = errors.New("ctrlcache: limit across several cached namespaces needs a continue token: list one namespace at a time")
	// ErrUnknownNamespace: a read of a namespace the cache was not configured for.
	ErrUnknownNamespace = errors.New("ctrlcache: namespace not cached")
)

// New is a cache.NewCacheFunc: manager.Options{NewCache: ctrlcache.New}.
func New(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
	return Build(cfg, opts, Config{})
}

// NewFunc returns a cache.NewCacheFunc with c, e.g. manager.Options{NewCache:
// ctrlcache.NewFunc(ctrlcache.Config{StripManagedFields: true})}.
func NewFunc(c Config) cache.NewCacheFunc {
	return func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) { return Build(cfg, opts, c) }
}

// Cache is a controller-runtime cache.Cache over watch caches.
//
// Concurrency: all methods are safe for concurrent use.
type Cache struct {
	cfg    *rest.Config
	http   *http.Client
	scheme *runtime.Scheme
	mapper apimeta.RESTMapper
	opts   cache.Options
	conf   Config
	log    *slog.Logger
	byGVK  map[schema.GroupVersionKind]cache.ByObject

	mu      sync.Mutex
	kinds   map[schema.GroupVersionKind]*kind
	ctx     context.Context // set by Start
	started bool
	startCh chan struct{} // closed by Start
	wg      sync.WaitGroup
}

// Build returns a Cache (New with a Config).
func Build(cfg *rest.Config, opts cache.Options, conf Config) (*Cache, error) {
	if opts.Scheme == nil {
		opts.Scheme = scheme.Scheme
	}
	hc := opts.HTTPClient
	if hc == nil {
		var err error
		if hc, err = rest.HTTPClientFor(cfg); err != nil {
			return nil, fmt.Errorf("ctrlcache: HTTP client: %w", err)
		}
	}
	if opts.Mapper == nil {
		m, err := apiutil.NewDynamicRESTMapper(cfg, hc)
		if err != nil {
			return nil, fmt.Errorf("ctrlcache: REST mapper: %w", err)
		}
		opts.Mapper = m
	}
	if conf.Logger == nil {
		conf.Logger = slog.Default()
	}
	c := &Cache{cfg: rest.CopyConfig(cfg), http: hc, scheme: opts.Scheme, mapper: opts.Mapper, opts: opts, conf: conf,
		log: conf.Logger, byGVK: map[schema.GroupVersionKind]cache.ByObject{}, kinds: map[schema.GroupVersionKind]*kind{},
		startCh: make(chan struct{})}
	for obj, bo := range opts.ByObject {
		gvk, err := apiutil.GVKForObject(obj, opts.Scheme)
		if err != nil {
			return nil, fmt.Errorf("ctrlcache: ByObject %T: %w", obj, err)
		}
		c.byGVK[gvk] = bo
	}
	return c, nil
}

// form is the Go shape a reader asks for: the kind's type, unstructured, or metadata only. Each
// has its own informers, over the kind's shared feeds.
type form uint8

const (
	typed form = iota
	unstructuredForm
	metadataForm
)

func formOf(obj runtime.Object) form {
	switch obj.(type) {
	case runtime.Unstructured:
		return unstructuredForm
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return metadataForm
	}
	return typed
}

// kind is everything the cache holds of one GroupVersionKind: a feed per namespace and the
// informers of each form over them.
type kind struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	feeds      map[string]*informer.Feed // by namespace; "" for all namespaces
	namespaces []string                  // the keys of feeds, sorted
	transform  toolscache.TransformFunc
	running    bool

	informers map[form]*nsInformer
	goIndexes map[string]form // IndexField names, with the form whose informers hold them

	// decoders are the kind's Decoders by form, made once: a read neither looks the kind up in the
	// scheme nor builds a decoder. target decodes into the kind's Go type in place (Get, List).
	decoders [metadataForm + 1]informer.Decoder
	target   decodeTarget
}

// getKind returns gvk's entry, making it unless it does not exist and make is false.
func (c *Cache) getKind(gvk schema.GroupVersionKind, make bool) (*kind, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := c.kinds[gvk]; k != nil {
		return k, nil
	}
	if !make {
		return nil, &cache.ErrResourceNotCached{}
	}
	mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("ctrlcache: resource of %s: %w", gvk, err)
	}
	client, err := restClientFor(c.cfg, c.http, gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	bo := c.byGVK[gvk]
	k := &kind{gvk: gvk, namespaced: mapping.Scope.Name() == apimeta.RESTScopeNameNamespace,
		feeds: map[string]*informer.Feed{}, informers: map[form]*nsInformer{}, goIndexes: map[string]form{}}
	for f := range k.decoders {
		k.decoders[f] = c.decoder(gvk, form(f))
	}
	if proto, err := c.scheme.New(gvk); err == nil {
		if t := reflect.TypeOf(proto); t.Kind() == reflect.Pointer {
			k.target = targetOf(t.Elem())
		}
	}
	namespaces := bo.Namespaces
	if namespaces == nil {
		namespaces = c.opts.DefaultNamespaces
	}
	if !k.namespaced || len(namespaces) == 0 {
		namespaces = map[string]cache.Config{cache.AllNamespaces: {}}
	}
	k.transform = c.opts.DefaultTransform
	if bo.Transform != nil {
		k.transform = bo.Transform
	}
	for ns, nc := range namespaces {
		label, field := c.opts.DefaultLabelSelector, c.opts.DefaultFieldSelector
		if bo.Label != nil {
			label = bo.Label
		}
		if bo.Field != nil {
			field = bo.Field
		}
		if nc.LabelSelector != nil {
			label = nc.LabelSelector
		}
		if nc.FieldSelector != nil {
			field = nc.FieldSelector
		}
		fo := informer.FeedOptions{
			Resource:           mapping.Resource.Resource,
			Group:              gvk.Group,
			Namespaced:         k.namespaced,
			Namespace:          ns,
			StripManagedFields: c.conf.StripManagedFields,
			PageSize:           c.conf.PageSize,
			WatchList:          !c.conf.NoWatchList,
			PackLists:          !c.conf.NoPackLists,
			Logger:             c.log.With("gvk", gvk.String()),
		}
		if label != nil && !label.Empty() {
			fo.LabelSelector = label.String()
		}
		if field != nil && !field.Empty() {
			fo.FieldSelector = field.String()
		}
		k.feeds[ns] = informer.NewFeed(client, fo)
		k.namespaces = append(k.namespaces, ns)
		if nc.Transform != nil {
			k.transform = nc.Transform
		}
	}
	sort.Strings(k.namespaces)
	c.kinds[gvk] = k
	if c.started {
		c.runLocked(k)
	}
	return k, nil
}

// runLocked starts k's feeds and informers (once the cache is started).
func (c *Cache) runLocked(k *kind) {
	if k.running {
		return
	}
	k.running = true
	for _, f := range k.feeds {
		c.wg.Go(func() { f.Run(c.ctx) })
	}
	for _, ni := range k.informers {
		ni.run(c.ctx, &c.wg)
	}
}

// informerFor returns k's informers of form f, making them.
func (c *Cache) informerFor(k *kind, f form) *nsInformer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ni := k.informers[f]; ni != nil {
		return ni
	}
	decode := k.decoders[f]
	ni := &nsInformer{name: k.gvk.String()}
	resync := time.Duration(0)
	if p := c.opts.SyncPeriod; p != nil {
		resync = *p
	}
	if p := c.byGVK[k.gvk].SyncPeriod; p != nil {
		resync = *p
	}
	for _, ns := range k.namespaces {
		inf := informer.NewShared(k.feeds[ns], informer.Options{Decode: decode, Name: k.gvk.String(), ResyncPeriod: resync, Logger: c.log})
		if k.transform != nil {
			_ = inf.SetTransform(k.transform)
		}
		ni.infs = append(ni.infs, inf)
	}
	k.informers[f] = ni
	if k.running {
		ni.run(c.ctx, &c.wg)
	}
	return ni
}

// restClientFor returns a REST client of one group and version, sharing hc.
func restClientFor(cfg *rest.Config, hc *http.Client, gv schema.GroupVersion) (rest.Interface, error) {
	rc := rest.CopyConfig(cfg)
	rc.GroupVersion = &gv
	rc.APIPath = "/apis"
	if gv.Group == "" {
		rc.APIPath = "/api"
	}
	rc.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	if rc.UserAgent == "" {
		rc.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	client, err := rest.RESTClientForConfigAndClient(rc, hc)
	if err != nil {
		return nil, fmt.Errorf("ctrlcache: REST client for %s: %w", gv, err)
	}
	return client, nil
}

// Start runs the cache until ctx ends: every kind requested so far, and each one requested later as
// it is. It returns once everything it started has stopped.
func (c *Cache) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return errors.New("ctrlcache: cache already started")
	}
	c.started, c.ctx = true, ctx
	for _, k := range c.kinds {
		c.runLocked(k)
	}
	close(c.startCh)
	c.mu.Unlock()
	<-ctx.Done()
	c.wg.Wait()
	return nil
}

// WaitForCacheSync waits until the cache is started and every feed and informer started so far
// has synced, or ctx ends.
func (c *Cache) WaitForCacheSync(ctx context.Context) bool {
	select {
	case <-c.startCh:
	case <-ctx.Done():
		return false
	}
	c.mu.Lock()
	var ks []*kind
	for _, k := range c.kinds {
		ks = append(ks, k)
	}
	c.mu.Unlock()
	for _, k := range ks {
		if !c.waitKind(ctx, k) {
			return false
		}
		c.mu.Lock()
		var nis []*nsInformer
		for _, ni := range k.informers {
			nis = append(nis, ni)
		}
		c.mu.Unlock()
		for _, ni := range nis {
			if !toolscache.WaitForCacheSync(ctx.Done(), ni.HasSynced) {
				return false
			}
		}
	}
	return true
}

// waitKind waits until every feed of k has had its first list.
func (c *Cache) waitKind(ctx context.Context, k *kind) bool {
	for _, f := range k.feeds {
		for f.Cache().Ready() != nil {
			select {
			case <-ctx.Done():
				return false
			case <-f.Done():
				return false
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return true
}

// NeedLeaderElection is false: every replica needs its cache, as with controller-runtime's.
func (c *Cache) NeedLeaderElection() bool { return false }

// kindForRead returns the kind of a read, checking that the cache is started and waiting until the
// kind's feeds have synced (as controller-runtime's reader waits for its informer).
func (c *Cache) kindForRead(ctx context.Context, gvk schema.GroupVersionKind) (*kind, error) {
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	k, err := c.getKind(gvk, !c.opts.ReaderFailOnMissingInformer)
	if err != nil {
		var nc *cache.ErrResourceNotCached
		if errors.As(err, &nc) {
			return nil, fmt.Errorf("%w: %s", err, gvk)
		}
		return nil, err
	}
	if !started {
		return nil, &cache.ErrCacheNotStarted{}
	}
	if !c.waitKind(ctx, k) {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ctrlcache: waiting for %s to sync: %w", gvk, ctx.Err())
		}
		return nil, fmt.Errorf("ctrlcache: %s: the cache stopped", gvk)
	}
	return k, nil
}

// feedFor returns the feed holding namespace ns of k.
func (k *kind) feedFor(ns string) (*informer.Feed, error) {
	if !k.namespaced {
		return k.feeds[cache.AllNamespaces], nil
	}
	if f := k.feeds[cache.AllNamespaces]; f != nil {
		return f, nil
	}
	if f := k.feeds[ns]; f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%w: %q (cached: %s)", ErrUnknownNamespace, ns, strings.Join(k.namespaces, ", "))
}

// IndexJSONPath indexes obj's kind on a gjson path of the stored JSON (github.com/tidwall/gjson
// syntax, e.g. "spec.nodeName", `status.conditions.#(type=="Ready").status`) under the name
// field, for List with client.MatchingFields{field: value} and field selectors (=, ==, !=). It
// costs no decode: the value is read from the bytes once per event, with the other selectable
// fields. A name the apiserver already supports for the kind (spec.nodeName of pods) is indexed
// as it is; path is then ignored. A path with one value per array element is refused
// (selection.ErrInvalidField): index an element, or use IndexField.
func (c *Cache) IndexJSONPath(ctx context.Context, obj client.Object, field, path string) error {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return err
	}
	k, err := c.getKind(gvk, true)
	if err != nil {
		return err
	}
	for _, ns := range k.namespaces {
		wc := k.feeds[ns].Cache()
		if _, ok := wc.Schema().Field(field); !ok {
			if err := wc.RegisterField(field, path); err != nil {
				return fmt.Errorf("ctrlcache: index %s on %s: %w", field, gvk, err)
			}
		}
		if err := wc.AddIndex(index.Spec{Kind: index.Field, Name: field}); err != nil && !errors.Is(err, watchcache.ErrIndexExists) {
			return fmt.Errorf("ctrlcache: index %s on %s: %w", field, gvk, err)
		}
	}
	return nil
}

// IndexLabel indexes obj's kind on the label key, so that List with a label selector naming key
// with = or in (client.MatchingLabels{key: value}) reads the key's index instead of scanning the
// kind's objects: a page costs O(log n + page) however few objects carry the value. Like
// IndexJSONPath it costs no decode (labels are read from the stored bytes once per event). Results
// are those of a scan; the index only makes them cheaper.
func (c *Cache) IndexLabel(ctx context.Context, obj client.Object, key string) error {
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return fmt.Errorf("ctrlcache: label index %q: %s", key, strings.Join(errs, "; "))
	}
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return err
	}
	k, err := c.getKind(gvk, true)
	if err != nil {
		return err
	}
	for _, ns := range k.namespaces {
		if err := k.feeds[ns].Cache().AddIndex(index.Spec{Kind: index.Label, Name: key}); err != nil && !errors.Is(err, watchcache.ErrIndexExists) {
			return fmt.Errorf("ctrlcache: label index %s on %s: %w", key, gvk, err)
		}
	}
	return nil
}

// IndexField indexes obj's kind by the values extractValue returns, for List with
// client.MatchingFields{field: value} (and =, ==, != field selectors on it). Cost: the objects of
// the kind are decoded once per event to call extractValue (shared with the handlers of the
// informer of obj's form); for a value that is a JSON field of the object, IndexJSONPath costs no
// decode.
func (c *Cache) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return err
	}
	k, err := c.getKind(gvk, true)
	if err != nil {
		return err
	}
	f := formOf(obj)
	ni := c.informerFor(k, f)
	name := fieldIndexName(field)
	fn := func(o any) ([]string, error) {
		co, ok := o.(client.Object)
		if !ok {
			return nil, fmt.Errorf("object of type %T is not an Object", o)
		}
		return extractValue(co), nil
	}
	for _, inf := range ni.infs {
		if err := inf.AddIndexers(toolscache.Indexers{name: fn}); err != nil {
			return err
		}
	}
	c.mu.Lock()
	k.goIndexes[field] = f
	c.mu.Unlock()
	return nil
}

// fieldIndexName is controller-runtime's name of a field index.
func fieldIndexName(field string) string { return "field:" + field }

// GetInformer returns the informer of obj's kind and form, starting it if the cache is started;
// unless cache.BlockUntilSynced(false), it waits until the informer has synced.
func (c *Cache) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return nil, err
	}
	return c.getInformer(ctx, gvk, formOf(obj), opts)
}

// GetInformerForKind is GetInformer for a kind of the scheme (typed objects), or unstructured
// objects when the scheme does not know gvk.
func (c *Cache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	f := typed
	if !c.scheme.Recognizes(gvk) {
		f = unstructuredForm
	}
	return c.getInformer(ctx, gvk, f, opts)
}

func (c *Cache) getInformer(ctx context.Context, gvk schema.GroupVersionKind, f form, opts []cache.InformerGetOption) (cache.Informer, error) {
	var o cache.InformerGetOptions
	for _, opt := range opts {
		opt(&o)
	}
	k, err := c.getKind(gvk, true)
	if err != nil {
		return nil, err
	}
	ni := c.informerFor(k, f)
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	if started && (o.BlockUntilSynced == nil || *o.BlockUntilSynced) {
		if !toolscache.WaitForCacheSync(ctx.Done(), ni.HasSynced) {
			return nil, fmt.Errorf("ctrlcache: informer of %s did not sync: %w", gvk, ctx.Err())
		}
	}
	return ni, nil
}

// RemoveInformer stops the informers and feeds of obj's kind; a later read makes them again.
func (c *Cache) RemoveInformer(ctx context.Context, obj client.Object) error {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return err
	}
	c.mu.Lock()
	k := c.kinds[gvk]
	delete(c.kinds, gvk)
	c.mu.Unlock()
	if k == nil {
		return nil
	}
	for _, ni := range k.informers {
		ni.stop()
	}
	for _, f := range k.feeds {
		f.Stop()
	}
	return nil
}

var _ cache.Cache = (*Cache)(nil)

// keysOf returns the sorted keys of a set.
func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
