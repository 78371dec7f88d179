package adapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/client/v3/kubernetes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/etcd3"
	"k8s.io/apiserver/pkg/storage/value"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/utils/clock"

	"github.com/watchcache/watchcache/selection"
	etcdsource "github.com/watchcache/watchcache/source/etcd"
	"github.com/watchcache/watchcache/watchcache"
)

// Config describes the resource a Store serves and where it lives.
type Config struct {
	// Client is the etcd client both the etcd3 store (writes) and the source (the cache's feed) use.
	Client *kubernetes.Client
	// Codec encodes what the etcd3 store writes and decodes what reads return. It must encode JSON:
	// the source can serve only JSON values (source/etcd, ErrUndecodable).
	Codec runtime.Codec
	// NewFunc and NewListFunc return empty objects of the resource's type (bookmarks, list items).
	NewFunc, NewListFunc func() runtime.Object
	// PathPrefix is the etcd prefix ("/registry"); ResourcePrefix is the storage key prefix the
	// registry passes ("/pods"; with or without a trailing slash).
	PathPrefix, ResourcePrefix string
	// GroupResource names the resource in errors.
	GroupResource schema.GroupResource
	// Namespaced says whether keys are <ResourcePrefix>/<namespace>/<name> or <ResourcePrefix>/<name>.
	Namespaced bool
	// Fields are the selectable fields beyond metadata.name and metadata.namespace, by field
	// selector name, each with the gjson path of its value (Cache.RegisterField).
	Fields map[string]string
	// Transformer is the etcd3 store's value transformer; nil means identity. The source reads
	// etcd through it too, so the cache holds what the etcd3 store can read (what it yields must be
	// JSON); a value it fails on fails a list over its key and a Get of it with InternalError, as
	// in the etcd3 store (unreadable.go).
	Transformer value.Transformer
	// SourceTransformer, if set, is what the source reads etcd with instead of Transformer. The
	// etcd3 store transforms a value on every request, with the transformer of the moment; the
	// cache reads it once, when its event arrives. A test that swaps the store's transformer for one
	// write, to store a value as another writer would (the suite's UpdatePrefixTransformer), gives
	// the source the transformer the store returns to, so that the cache does not read that value
	// in the moment the swap lasts.
	SourceTransformer value.Transformer
	// ConsistentGetFromCache answers a Get with resourceVersion "" from the cache, as a consistent
	// read (the cache waits until it has seen etcd's current revision). Off by default: such a Get
	// goes to etcd, as the apiserver's CacheDelegator sends it (rule 6.7), so that an object the
	// cache cannot hold (no metadata.name, a key that does not fit the scope) is still found.
	ConsistentGetFromCache bool
	// KeyFunc returns the storage key of an object from its namespace and name, as the registry's
	// key function (cacher.Config.KeyFunc). It makes the keys the etcd3 store's size estimator takes
	// from the cache (SizeBasedListCostEstimate), which must be the keys etcd holds the objects
	// under. nil means <ResourcePrefix>/<namespace>/<name>, or <ResourcePrefix>/<name> for a
	// cluster-scoped resource.
	KeyFunc func(namespace, name string) string
	// Cache tunes the cache; Resource, Schema and CurrentResourceVersion are set by New.
	Cache watchcache.Options
	// Logger receives the source's logs; nil discards them below Warn.
	Logger *slog.Logger
}

// Store is a storage.Interface whose writes go to the apiserver's etcd3 store and whose reads are
// answered by a watchcache.Cache fed from the same etcd. Close it when done.
type Store struct {
	etcd      storage.Interface // the apiserver's etcd3 store
	client    *kubernetes.Client
	compactor interface{ Stop() }
	cache     *watchcache.Cache
	source    *etcdsource.Source
	stop      context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once

	codec          runtime.Codec
	newFunc        func() runtime.Object
	newListFunc    func() runtime.Object
	versioner      storage.Versioner
	resourcePrefix string // "/pods/": the storage key prefix, with its trailing slash
	resource       string // "pods": the source's resource prefix (Source.Unreadable)
	etcdPrefix     string // "/registry": what the etcd3 store puts before a storage key
	namespaced     bool
	groupResource  schema.GroupResource
	getFromCache   bool
	keyFunc        func(namespace, name string) string

	// watchFloor is the revision below which watches are 410 (set by Compact).
	watchFloor atomic.Uint64
	// sizes feeds the etcd3 store's size estimator (sizes.go).
	sizes sizeFeed
}

var _ storage.Interface = (*Store)(nil)

// New starts a Store: the etcd3 store, the cache, and the source that lists and watches etcd into
// the cache. It returns once the cache has its initial list (reads would be 429 before).
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Client == nil || cfg.Codec == nil || cfg.NewFunc == nil || cfg.NewListFunc == nil {
		return nil, errors.New("adapter: Client, Codec, NewFunc and NewListFunc are required")
	}
	resource := strings.Trim(cfg.ResourcePrefix, "/")
	if resource == "" {
		return nil, errors.New("adapter: ResourcePrefix is required")
	}
	if cfg.PathPrefix == "" {
		cfg.PathPrefix = etcdsource.DefaultPathPrefix
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(discard{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	versioner := storage.APIObjectVersioner{}
	transformer := cfg.Transformer
	if transformer == nil {
		transformer = identity.NewEncryptCheckTransformer()
	}
	// Interval 0: no periodic compaction; the compactor only follows the compact key, which gives
	// CompactRevision (with ListFromCacheSnapshot on, the 1.37 default).
	compactor := etcd3.NewCompactor(cfg.Client.Client, 0, clock.RealClock{}, nil)
	etcdStore, err := etcd3.New(cfg.Client, compactor, cfg.Codec, cfg.NewFunc, cfg.NewListFunc,
		cfg.PathPrefix, "/"+resource+"/", cfg.GroupResource, transformer,
		etcd3.NewDefaultLeaseManagerConfig(), etcd3.NewDefaultDecoder(cfg.Codec, versioner), versioner)
	if err != nil {
		compactor.Stop()
		return nil, fmt.Errorf("adapter: etcd3 store: %w", err)
	}

	readTransformer := transformer
	if cfg.SourceTransformer != nil {
		readTransformer = cfg.SourceTransformer
	}
	src := etcdsource.New(cfg.Client.Client, etcdsource.Options{
		PathPrefix: cfg.PathPrefix,
		Logger:     logger,
		// The source reads what the etcd3 store would read: every value through the same
		// transformer, with the etcd key as authenticated data (etcd3: authenticatedDataString).
		Transform: func(ctx context.Context, key string, v []byte) ([]byte, error) {
			out, _, err := readTransformer.TransformFromStorage(ctx, v, value.DefaultContext(key))
			return out, err
		},
	})
	opts := cfg.Cache
	opts.Resource = watchcache.Resource{Name: cfg.GroupResource.Resource, Group: cfg.GroupResource.Group, Namespaced: cfg.Namespaced}
	opts.CurrentResourceVersion = src.CurrentResourceVersion
	if opts.Schema == nil {
		// The resource is not core/v1 pods whatever its name: metadata.name and metadata.namespace,
		// plus the registered Fields.
		opts.Schema = selection.NewSchema(cfg.Namespaced)
	}
	cache := watchcache.New(opts)
	for name, path := range cfg.Fields {
		if err := cache.RegisterField(name, path); err != nil {
			compactor.Stop()
			return nil, fmt.Errorf("adapter: field %s: %w", name, err)
		}
	}
	if err := src.Add(resource, cache); err != nil {
		compactor.Stop()
		return nil, fmt.Errorf("adapter: source: %w", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	s := &Store{
		etcd:           etcdStore,
		client:         cfg.Client,
		compactor:      compactor,
		cache:          cache,
		source:         src,
		stop:           stop,
		done:           make(chan struct{}),
		codec:          cfg.Codec,
		newFunc:        cfg.NewFunc,
		newListFunc:    cfg.NewListFunc,
		versioner:      versioner,
		resourcePrefix: "/" + resource + "/",
		resource:       resource,
		etcdPrefix:     strings.TrimSuffix(path.Join("/", cfg.PathPrefix), "/"),
		namespaced:     cfg.Namespaced,
		groupResource:  cfg.GroupResource,
		getFromCache:   cfg.ConsistentGetFromCache,
		keyFunc:        cfg.KeyFunc,
	}
	if s.keyFunc == nil {
		s.keyFunc = s.objectKey
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.SizeBasedListCostEstimate) {
		// As the cacher does (NewCacherFromConfig): etcd3 keeps the sizes of the objects it reads
		// and takes the set of keys from the cache; keys also reads the objects changed since its
		// last call through etcd3, so that it has their sizes (sizes.go).
		if err := etcdStore.EnableResourceSizeEstimation(s.keys); err != nil {
			compactor.Stop()
			return nil, fmt.Errorf("adapter: size estimation: %w", err)
		}
	}
	go func() {
		defer close(s.done)
		_ = src.Run(runCtx)
	}()
	for cache.Ready() != nil {
		select {
		case <-ctx.Done():
			s.Close()
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return s, nil
}

// Close stops the source, the cache and the etcd3 store's compactor. The etcd client is the caller's.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		s.stop()
		<-s.done
		s.cache.Stop()
		s.compactor.Stop()
		if c, ok := s.etcd.(interface{ Close() }); ok {
			c.Close()
		}
	})
}

// Cache returns the cache serving the reads.
func (s *Store) Cache() *watchcache.Cache { return s.cache }

// Source returns the source feeding the cache.
func (s *Store) Source() *etcdsource.Source { return s.source }

// Compact compacts etcd at rev, waits until the etcd3 store has observed it (so lists older than
// rev are 410) and makes watches from revisions older than rev 410 too: the cache has no
// compaction of its own (its window is bounded by count and age), so this stands in for the history
// trimming the apiserver's tests do inside the cacher.
func (s *Store) Compact(ctx context.Context, rev int64) error {
	current, _, _, err := etcd3.Compact(ctx, s.client.Client, 0, rev)
	if err != nil {
		if _, _, _, err = etcd3.Compact(ctx, s.client.Client, current, rev); err != nil {
			return err
		}
	}
	for s.etcd.CompactRevision() < rev {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	for {
		old := s.watchFloor.Load()
		if uint64(rev) <= old || s.watchFloor.CompareAndSwap(old, uint64(rev)) {
			return nil
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
