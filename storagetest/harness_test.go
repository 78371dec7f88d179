package storagetest

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"go.etcd.io/etcd/server/v3/embed"
	"google.golang.org/grpc/grpclog"
	"k8s.io/apimachinery/pkg/api/apitesting"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/cacher"
	"k8s.io/apiserver/pkg/storage/etcd3"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	"k8s.io/apiserver/pkg/storage/value"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/watchcache/watchcache/storagetest/adapter"
)

// The suite's setup, as in k8s.io/apiserver/pkg/storage/etcd3/store_test.go and
// cacher/cacher_testing_utils_test.go: example.Pod, the JSON codec of example/v1 (apitesting.TestCodec:
// the legacy JSON codec), etcd prefix /registry, resource prefix /pods/.
var (
	scheme = runtime.NewScheme()
	codecs = serializer.NewCodecFactory(scheme)
	codec  runtime.Codec
)

func init() {
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(example.AddToScheme(scheme))
	utilruntime.Must(examplev1.AddToScheme(scheme))
	codec = apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, os.Stderr))
}

const pathPrefix = "/registry"

func newPod() runtime.Object     { return &example.Pod{} }
func newPodList() runtime.Object { return &example.PodList{} }

// backend is one implementation of storage.Interface under test.
type backend string

const (
	etcd3Backend  backend = "etcd3"  // the apiserver's etcd3 store
	cacherBackend backend = "cacher" // the apiserver's watch cache (CacheDelegator over etcd3)
	oursBackend   backend = "ours"   // adapter.Store: etcd3 writes, watchcache.Cache reads
)

var backends = []backend{etcd3Backend, cacherBackend, oursBackend}

// options vary the setup per test, as the apiserver's tests do (withClusterScopedKeyFunc,
// withNodeNameAndNamespaceIndex, withCodec, withTransformer).
type options struct {
	clusterScoped bool // keys /pods/<name>, objects without namespace
	nodeNameIndex bool // the pod registry's spec.nodeName index and trigger
	codec         func() runtime.Codec
	transformer   func() value.Transformer
	createWrapper bool // Create waits until the cache has the object (cacher_test.go createWrapper)
	// progressNotify sets etcd's WatchProgressNotifyInterval (etcd3/watcher_test.go sets 1 s for
	// the progress-notify and bookmark tests; etcd's default is 10 min).
	progressNotify time.Duration
	// getFromCache: ours answers Get with resourceVersion "" from the cache, as a consistent read,
	// instead of sending it to etcd as CacheDelegator.Get does (adapter.Config.ConsistentGetFromCache).
	getFromCache bool
}

// env is a running backend.
type env struct {
	ctx    context.Context
	store  storage.Interface
	client *kubernetes.Client
	// compact compacts etcd at an RV and makes the backend observe it (the upstream tests'
	// compactStorage / compactStore); nil when the harness cannot do it for this backend.
	compact storagetesting.Compaction
	// compactWatch additionally trims the watch history (cacher_testing_utils_test.go compactWatch).
	compactWatch storagetesting.Compaction
	// The transformer or codec the test controls, when it asked for one.
	prefix       *swappable
	failing      *failing
	failingCodec *failingCodec
}

// etcdKeys is etcd3's getKeys: the keys under the resource prefix.
func (e *env) etcdKeys(ctx context.Context) ([]string, error) {
	resp, err := e.client.KV.Get(ctx, pathPrefix+"/pods/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		keys = append(keys, string(kv.Key))
	}
	return keys, nil
}

// etcdStarts serializes the starts of embedded etcd servers, as testserver.RunEtcd does when it
// picks the ports itself: a port is free when NewTestConfig picks it and must still be when the
// server binds it.
var etcdStarts sync.Mutex

// runEtcd is testserver.RunEtcd with the upstream test configuration (NewTestConfig: loopback,
// random ports, UnsafeNoFsync), except that a single member elects itself leader in about 0.1 s
// rather than 0.6 s (10 ms ticks instead of 100 ms, an election timeout of 100 ms instead of 1 s).
// Measured: 75 ms instead of 650 ms per start and stop; the run starts about 180 servers one after
// the other, so the defaults cost about 110 s of its wall time. Leases, compaction and progress
// notifications keep their own clocks.
func runEtcd(t *testing.T, configure func(*embed.Config)) *kubernetes.Client {
	t.Helper()
	etcdStarts.Lock()
	defer etcdStarts.Unlock()
	cfg := testserver.NewTestConfig(t)
	cfg.TickMs, cfg.ElectionMs = 10, 100
	if configure != nil {
		configure(cfg)
	}
	return testserver.RunEtcd(t, cfg)
}

func (e *env) increaseRV(ctx context.Context, t *testing.T) int64 {
	resp, err := e.client.KV.Put(ctx, "increaseRV", "ok")
	if err != nil {
		t.Fatalf("Could not update increaseRV: %v", err)
	}
	return resp.Header.Revision
}

func setup(t *testing.T, b backend, o options) *env {
	t.Helper()
	e := &env{ctx: context.Background()}
	c := codec
	if o.codec != nil {
		c = o.codec()
		e.failingCodec, _ = c.(*failingCodec)
	}
	var tr value.Transformer = identity.NewEncryptCheckTransformer()
	if o.transformer != nil {
		tr = o.transformer()
		e.prefix, _ = tr.(*swappable)
		e.failing, _ = tr.(*failing)
	}
	client := runEtcd(t, func(cfg *embed.Config) {
		if o.progressNotify > 0 {
			cfg.WatchProgressNotifyInterval = o.progressNotify
		}
	})
	// Close the client before the server stops (cleanups run last-in first-out; the backends'
	// come after this one, so they stop first): a watch a test leaves open otherwise holds the
	// server's graceful shutdown for seconds.
	t.Cleanup(func() { _ = client.Close() })
	e.client = client
	switch b {
	case etcd3Backend:
		s := newEtcd3(t, client, c, tr)
		e.store = s
		e.compact = compactEtcd(client, s, nil)
	case cacherBackend:
		s := newEtcd3(t, client, c, tr)
		d, trigger := newCacher(t, s, o, c)
		e.store = d
		e.compact = compactEtcd(client, s, trigger)
		if o.createWrapper {
			e.store = &createWrapper{Interface: d}
		}
	case oursBackend:
		cfg := adapter.Config{
			Client: client, Codec: c, NewFunc: newPod, NewListFunc: newPodList,
			PathPrefix: pathPrefix, ResourcePrefix: "/pods",
			GroupResource:          schema.GroupResource{Resource: "pods"},
			Namespaced:             !o.clusterScoped,
			Fields:                 podFields,
			Transformer:            tr,
			ConsistentGetFromCache: o.getFromCache,
		}
		if e.prefix != nil {
			// The suite swaps the prefix transformer only to write a value as another writer would
			// (UpdatePrefixTransformer): the source keeps reading with the one it swaps back to.
			cfg.SourceTransformer = storagetesting.NewPrefixTransformer(e.prefix.prefix, false)
		}
		a, err := adapter.New(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		e.store = a
		e.compact = func(ctx context.Context, t *testing.T, rv string) {
			if err := a.Compact(ctx, int64(mustRV(t, rv))); err != nil {
				t.Fatal(err)
			}
		}
		e.compactWatch = e.compact
		if o.createWrapper {
			e.store = &createWrapper{Interface: a}
		}
	}
	return e
}

// podFields are the selectable fields of the cacher tests' GetPodAttrs (cacher_test.go:
// PodToSelectableFields) beyond metadata.name and metadata.namespace, which every schema has. The
// suite's own predicates select on metadata.name, metadata.namespace and spec.nodeName only.
var podFields = map[string]string{
	"spec.nodeName":      "spec.nodeName",
	"spec.restartPolicy": "spec.restartPolicy",
	"status.phase":       "status.phase",
}

func newEtcd3(t *testing.T, client *kubernetes.Client, c runtime.Codec, tr value.Transformer) storage.Interface {
	versioner := storage.APIObjectVersioner{}
	compactor := etcd3.NewCompactor(client.Client, 0, clock.RealClock{}, nil)
	t.Cleanup(compactor.Stop)
	s, err := etcd3.New(client, compactor, c, newPod, newPodList, pathPrefix, "/pods/",
		schema.GroupResource{Resource: "pods"}, tr, etcd3.NewDefaultLeaseManagerConfig(),
		etcd3.NewDefaultDecoder(c, versioner), versioner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// newCacher builds the apiserver's watch cache as cacher_test.go's testSetupWithEtcdServer does,
// through the package's exported API. It returns a function that runs the cacher's compactor once
// (see compactorClock).
func newCacher(t *testing.T, s storage.Interface, o options, c runtime.Codec) (*cacher.CacheDelegator, func()) {
	prefix := "/pods/"
	keyFunc := func(obj runtime.Object) (string, error) { return storage.NamespaceKeyFunc(prefix, obj) }
	if o.clusterScoped {
		keyFunc = func(obj runtime.Object) (string, error) { return storage.NoNamespaceKeyFunc(prefix, obj) }
	}
	var indexerFuncs map[string]storage.IndexerFunc
	var indexers cache.Indexers
	if o.nodeNameIndex {
		indexerFuncs = map[string]storage.IndexerFunc{
			"spec.nodeName": func(obj runtime.Object) string {
				pod, ok := obj.(*example.Pod)
				if !ok {
					return ""
				}
				return pod.Spec.NodeName
			},
		}
		indexers = cache.Indexers{
			"f:spec.nodeName": func(obj interface{}) ([]string, error) {
				return []string{obj.(*example.Pod).Spec.NodeName}, nil
			},
			"f:metadata.namespace": func(obj interface{}) ([]string, error) {
				return []string{obj.(*example.Pod).Namespace}, nil
			},
		}
	}
	clk := newCompactorClock()
	ch, err := cacher.NewCacherFromConfig(cacher.Config{
		Storage:             s,
		Versioner:           storage.APIObjectVersioner{},
		GroupResource:       schema.GroupResource{Resource: "pods"},
		EventsHistoryWindow: cacher.DefaultEventFreshDuration,
		ResourcePrefix:      prefix,
		KeyFunc:             keyFunc,
		GetAttrsFunc:        getPodAttrs,
		NewFunc:             newPod,
		NewListFunc:         newPodList,
		IndexerFuncs:        indexerFuncs,
		Indexers:            &indexers,
		Codec:               c,
		Clock:               clk,
	})
	if err != nil {
		t.Fatalf("Failed to initialize cacher: %v", err)
	}
	if err := ch.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := cacher.NewCacheDelegator(ch, s)
	t.Cleanup(func() {
		d.Stop()
		ch.Stop()
	})
	return d, clk.fire
}

// getPodAttrs is cacher_test.go's GetPodAttrs.
func getPodAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	pod, ok := obj.(*example.Pod)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod")
	}
	return labels.Set(pod.Labels), fields.Set{
		"spec.nodeName":      pod.Spec.NodeName,
		"spec.restartPolicy": string(pod.Spec.RestartPolicy),
		"status.phase":       string(pod.Status.Phase),
		"metadata.name":      pod.Name,
		"metadata.namespace": pod.Namespace,
	}, nil
}

// compactEtcd is etcd3/store_test.go's compactStorage (and cacher_testing_utils_test.go's
// compactStore): compact etcd, wait until the store's compactor has seen it, then, for the cacher,
// run its compactor once so that it drops the snapshots below the revision.
func compactEtcd(client *kubernetes.Client, s storage.Interface, runCacherCompactor func()) storagetesting.Compaction {
	return func(ctx context.Context, t *testing.T, resourceVersion string) {
		rv := int64(mustRV(t, resourceVersion))
		current, _, _, err := etcd3.Compact(ctx, client.Client, 0, rv)
		if err != nil {
			_, _, _, err = etcd3.Compact(ctx, client.Client, current, rv)
		}
		if err != nil {
			t.Fatal(err)
		}
		for s.CompactRevision() < rv {
			select {
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			case <-time.After(10 * time.Millisecond):
			}
		}
		if runCacherCompactor != nil {
			runCacherCompactor()
		}
	}
}

func mustRV(t *testing.T, rv string) uint64 {
	t.Helper()
	n, err := storage.APIObjectVersioner{}.ParseResourceVersion(rv)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// compactorClock is a real clock except for the cacher compactor's 15 s poll timer
// (cacher/compactor.go: compactorPollPeriod), which fire triggers: the upstream test calls
// compactor.compactIfNeeded() directly, which the exported API does not allow.
type compactorClock struct {
	clock.RealClock
	mu    sync.Mutex
	timer *manualTimer
}

const compactorPollPeriod = 15 * time.Second

func newCompactorClock() *compactorClock { return &compactorClock{} }

func (c *compactorClock) NewTimer(d time.Duration) clock.Timer {
	if d != compactorPollPeriod {
		return c.RealClock.NewTimer(d)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = &manualTimer{c: make(chan time.Time, 1), reset: make(chan struct{}, 1)}
	return c.timer
}

// fire runs the compactor once and waits until it has finished (it resets its timer afterwards).
func (c *compactorClock) fire() {
	c.mu.Lock()
	tm := c.timer
	c.mu.Unlock()
	if tm == nil {
		return
	}
	select {
	case <-tm.reset:
	default:
	}
	tm.c <- time.Now()
	select {
	case <-tm.reset:
	case <-time.After(wait.ForeverTestTimeout):
	}
}

type manualTimer struct {
	c     chan time.Time
	reset chan struct{}
}

func (m *manualTimer) C() <-chan time.Time { return m.c }
func (m *manualTimer) Stop() bool          { return true }
func (m *manualTimer) Reset(time.Duration) bool {
	select {
	case m.reset <- struct{}{}:
	default:
	}
	return true
}

// createWrapper is cacher_test.go's: Create returns once the cache serves the created object, so
// that the watch semantics tests are deterministic for an asynchronous store.
type createWrapper struct {
	storage.Interface
}

func (c *createWrapper) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	if err := c.Interface.Create(ctx, key, obj, out, ttl); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, wait.ForeverTestTimeout, true, func(ctx context.Context) (bool, error) {
		currentObj := newPod()
		err := c.Interface.Get(ctx, key, storage.GetOptions{ResourceVersion: "0"}, currentObj)
		if err != nil {
			if storage.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return apiequality.Semantic.DeepEqual(currentObj, out), nil
	})
}

// swappable is a value.Transformer whose implementation a test can replace, for the suite's
// InterfaceWithPrefixTransformer and InterfaceWithTransformerOverride (upstream they reach into the
// etcd3 store's unexported fields).
type swappable struct {
	mu     sync.RWMutex
	cur    value.Transformer
	prefix []byte // of the PrefixTransformer it starts with
}

func (s *swappable) get() value.Transformer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cur
}

func (s *swappable) set(t value.Transformer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur = t
}

func (s *swappable) TransformFromStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	return s.get().TransformFromStorage(ctx, data, dataCtx)
}

func (s *swappable) TransformToStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, error) {
	return s.get().TransformToStorage(ctx, data, dataCtx)
}

// withPrefixTransformer wraps a store whose transformer is a swappable PrefixTransformer.
type withPrefixTransformer struct {
	storage.Interface
	sw *swappable
}

func (s *withPrefixTransformer) UpdatePrefixTransformer(modifier storagetesting.PrefixTransformerModifier) func() {
	orig := s.sw.get()
	if _, ok := orig.(*storagetesting.PrefixTransformer); !ok {
		panic(fmt.Sprintf("transformer is %T, not a PrefixTransformer", orig))
	}
	// A fresh PrefixTransformer like the current one (upstream copies the current one, which races
	// with the atomic read counter that concurrent reads, e.g. a cache's etcd watch, increment).
	s.sw.set(modifier(storagetesting.NewPrefixTransformer(s.sw.prefix, false)))
	return func() { s.sw.set(orig) }
}

func (s *withPrefixTransformer) UpdateTransformer(modifier storagetesting.TransformerModifier) func() {
	orig := s.sw.get()
	s.sw.set(modifier(orig))
	return func() { s.sw.set(orig) }
}
