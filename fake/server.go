package fake

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/fake/internal/patch"
	"github.com/watchcache/watchcache/internal/inproc"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/selection"
	"github.com/watchcache/watchcache/watchcache"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Objects are stored before the server starts serving, as if created in order: each gets the
	// next resourceVersion, and a uid and creationTimestamp when it has none. Each must be an
	// object of a built-in kind with its apiVersion and kind set, a typed object of client-go's
	// scheme, or a custom resource (an *unstructured.Unstructured, or a typed object with its
	// apiVersion and kind set) of a kind that CRDs or CRDDirectoryPaths define. Custom resources
	// are stored after the CRDs, pruned, defaulted and validated as a create is; one that fails
	// makes NewServer fail. Their namespaces need not exist.
	Objects []runtime.Object
	// Validate, when set, is called for every create and update (also those of patches and of the
	// status subresource) after the built-in validation passed, with old nil for a create; the
	// errors it returns fail the write with the apiserver's 422 Invalid. It is called with the
	// object's lock held, so it must not write that object through the server.
	Validate func(op Operation, gvr schema.GroupVersionResource, obj, old runtime.Object) field.ErrorList
	// CustomResourceValidator, when set, validates CRDs and custom resources in place of the
	// fake's own checks (crd_validator.go): fake/crdcel's evaluates x-kubernetes-validations
	// (CEL) rules and ratchets updates as the apiserver does.
	CustomResourceValidator CustomResourceValidator
	// WebhookMatchConditions, when set, evaluates admission webhooks' matchConditions (CEL), which
	// then decide whether a webhook is called as in the apiserver: fake/crdcel's
	// WebhookMatchConditions() evaluates them with the apiserver's own matcher. Without it, a
	// webhook with matchConditions is called as if they all held, and storing its configuration
	// answers a warning.
	WebhookMatchConditions WebhookMatchConditions
	// Logger receives one record per request (Debug; Error for 5xx answers); nil discards them.
	Logger *slog.Logger
	// Now is the clock of creationTimestamp and deletionTimestamp; nil means time.Now.
	Now func() time.Time
	// Addr is the listen address; "" means 127.0.0.1:0.
	Addr string
	// WindowEvents, WaitTimeout and BookmarkInterval size every resource's cache (see
	// watchcache.Options); zero means the cache's defaults.
	WindowEvents     int
	WaitTimeout      time.Duration
	BookmarkInterval time.Duration
	// NoNamespaceController turns off the namespace controller: a deleted namespace then stays
	// Terminating, with its content, as in envtest (a kube-apiserver without
	// kube-controller-manager). With it, the fake deletes the namespace's content and then the
	// namespace, as a cluster does.
	NoNamespaceController bool
	// NoGarbageCollector turns off the garbage collector: deleting an owner then leaves its
	// dependents, and the orphan and foregroundDeletion finalizers a delete adds stay, as in
	// envtest. With it, the fake collects dependents by their ownerReferences as
	// kube-controller-manager does (README, "Garbage collection and namespace lifecycle").
	NoGarbageCollector bool
	// NoDefaultNamespaces leaves out the namespaces and priority classes a kube-apiserver creates
	// at start (default, kube-system, kube-public, kube-node-lease; system-node-critical and
	// system-cluster-critical).
	NoDefaultNamespaces bool

	// CRDs are created at start, after the built-in Objects, as if through the API (crd_install.go): each is
	// Established and its resource served before NewServer returns. CRDDirectoryPaths are files
	// or directories of YAML or JSON CustomResourceDefinitions created the same way, as envtest's
	// CRDDirectoryPaths; ErrorIfCRDPathMissing makes a missing path an error rather than skipped.
	CRDs                  []*apiextensionsv1.CustomResourceDefinition
	CRDDirectoryPaths     []string
	ErrorIfCRDPathMissing bool
	// Seed seeds the uids and generateName suffixes the server gives objects, and the draws of
	// injected rules' probabilities: the same seed and the same requests in the same order give
	// the same names and faults. The zero value is a seed like any other.
	Seed int64
	// WebhookServiceURL, when set, resolves the service an admission webhook's clientConfig names
	// to the base URL it is called at (the service's path is appended), e.g. a webhook server the
	// test runs on loopback: https://127.0.0.1:port. Without it, or when it returns "", a webhook
	// of a service fails to be called, as the apiserver's does when the service cannot be reached,
	// and its failurePolicy decides. Webhooks with a url are called there.
	WebhookServiceURL func(namespace, name string, port int32) string
	// RequestLog is how many requests Requests keeps (the last ones); 0 means 10,000 and a negative
	// value keeps none.
	RequestLog int
	// Tokens are static bearer tokens and who they authenticate as, as the apiserver's
	// --token-auth-file: a request with one is that user (with system:authenticated added), and a
	// TokenReview of one answers it. Without credentials a request is Admin.
	Tokens map[string]User
	// EnforceRBAC makes the fake authenticate and authorize every request as kube-apiserver with
	// --authorization-mode=RBAC does: a bearer token it does not know is answered 401, and a user
	// other than a member of system:masters (Admin, a request without credentials, is one) may do
	// only what the stored Roles, ClusterRoles and bindings allow, else 403
	// (reference/observed-authn.md). Off, the fake serves every request as Admin's, and only the
	// review APIs evaluate RBAC.
	EnforceRBAC bool
}

// Operation names the kind of write Options.Validate is called for.
type Operation string

// The operations of Options.Validate.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
)

// Server is a writable Kubernetes API server on a loopback listener, which its Config reaches in
// process (Config, NetworkConfig).
//
// Concurrency: any number of clients may use it at once. Writes of one object are serialized by
// that object's lock; a server-wide lock is held only to give each write the next resourceVersion
// and apply it to its resource's cache in that order, as etcd serializes transactions (lock.go).
// Close may be called more than once.
type Server struct {
	opts  Options
	reg   *registry
	api   *kubeapi.Server
	res   map[string]*served // by "group/version/resource"
	byGR  map[schema.GroupResource]*served
	byGVK map[schema.GroupVersionKind]*served
	order []*served

	// mu serializes commits (the next resourceVersion and the cache's event); rv is the last
	// resourceVersion given out (read atomically by consistent reads, written under mu). locks
	// are the objects' locks, taken before mu.
	mu    sync.Mutex
	rv    atomic.Uint64
	locks objectLocks
	// serviceMu serializes the allocation of services' cluster IPs and node ports (service.go).
	serviceMu sync.Mutex
	// quotaMu serializes quota admission's read and charge of quotas (quota.go).
	quotaMu sync.Mutex
	// typedLists are the lists admission and authorization last decoded (rbac.go).
	typedLists typedLists

	// fields is the patch engine: patches, apply and managedFields.
	fields *patch.Patcher
	// prepareOnWatch makes the first watch request start building the patch engine's type
	// converter (set by Environment.Start, environment.go).
	prepareOnWatch atomic.Bool
	// crds is the custom resources CRDs made (crd.go).
	crds crdRegistry

	// gc is the garbage collector's graph and queue; nil when Options.NoGarbageCollector.
	gc *collector

	// done is closed by Close; controllers (the namespace controller's goroutines) end with it.
	done        chan struct{}
	controllers sync.WaitGroup

	// Fault injection (inject.go), the request log (requests.go), compaction (compact.go) and
	// the seeded source of names (seed.go).
	faultMu     sync.Mutex
	rules       []*Injection
	faultRand   *rand.Rand // guarded by faultMu
	log         *requestLog
	names       *names
	compactedRV atomic.Uint64
	// fixedClock: Options.Now was given, so managedFields times are restamped with it (clock.go).
	fixedClock bool
	// customSeeds are the custom resources of Options.Objects, held by load until the CRDs are
	// installed (load_custom.go); nil once the server is built.
	customSeeds []customSeed

	// createOnlyCaches are the empty caches discovery lists the computed resources with (the review
	// APIs, bindings: registerCreateOnly).
	createOnlyCaches []*watchcache.Cache

	ln     net.Listener
	http   *http.Server
	host   string
	closed sync.Once
	// inproc serves Config's clients: the handler called from the client's RoundTrip.
	inproc *inproc.Transport
}

// served is one resource with its cache.
type served struct {
	*resourceType
	cache *watchcache.Cache
}

// NewServer starts a Server on a loopback listener (Options.Addr).
func NewServer(opts Options) (*Server, error) {
	s, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.stopCaches()
		return nil, fmt.Errorf("fake: listen: %w", err)
	}
	s.ln = ln
	s.host = "http://" + ln.Addr().String()
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.inproc = inproc.New(s, ln.Addr().String())
	s.inproc.Logger = opts.Logger
	s.inproc.Streams = mayStream
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// mayStream reports the requests whose answer the server flushes before its handler returns:
// watches (a watch parameter, whatever its value, or a /watch/ path), which the in-process
// transport serves in a goroutine of their own. A watch it missed would hold its client until
// the watch ends, and a request it reports in excess only costs that goroutine, so it errs
// towards yes.
func mayStream(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	q := r.URL.RawQuery
	return strings.Contains(r.URL.Path, "/watch") || strings.Contains(q, "watch") || (strings.Contains(q, "%") && r.URL.Query().Has("watch"))
}

// NewTest starts a Server for a test and closes it when the test and its subtests have finished.
// It fails the test if the server cannot start.
func NewTest(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s, err := NewServer(opts)
	if err != nil {
		tb.Fatalf("fake.NewServer: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// NewHandler returns a Server that serves no listener: its ServeHTTP is the whole API, for
// embedding in another server (watchcache serve does). Config, NetworkConfig and URL have no host
// and Transport is nil for it; Close stops its caches.
func NewHandler(opts Options) (*Server, error) { return newServer(opts) }

func newServer(opts Options) (*Server, error) {
	fixedClock := opts.Now != nil
	if opts.Now == nil {
		opts.Now = time.Now
	}
	reg, err := builtinRegistry()
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:  opts,
		reg:   reg,
		api:   kubeapi.NewServer(kubeapi.Options{Logger: opts.Logger, Now: opts.Now}),
		res:   make(map[string]*served, len(reg.types)),
		byGR:  make(map[schema.GroupResource]*served, len(reg.types)),
		byGVK: make(map[schema.GroupVersionKind]*served, len(reg.types)),
		done:  make(chan struct{}),

		faultRand: newFaultRand(opts.Seed),
		log:       newRequestLog(opts.RequestLog),
		names:     newNames(opts.Seed),

		fixedClock: fixedClock,
	}
	if s.fields, err = sharedPatcher(); err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	for _, t := range reg.types {
		r := &served{resourceType: t}
		r.cache = watchcache.New(watchcache.Options{
			Resource:               watchcache.Resource{Group: t.gvr.Group, Name: t.gvr.Resource, Namespaced: t.namespaced},
			Schema:                 builtinSchema(t.gvr.Resource, t.namespaced),
			WindowEvents:           opts.WindowEvents,
			WaitTimeout:            opts.WaitTimeout,
			BookmarkInterval:       opts.BookmarkInterval,
			CurrentResourceVersion: s.currentRV(r),
			OnWait:                 func(uint64) { go s.catchUp(r) },
		})
		if err := s.api.Register(resourceInfo(t), r.cache); err != nil {
			s.stopCaches()
			return nil, fmt.Errorf("fake: %w", err)
		}
		s.res[t.gvr.Group+"/"+t.gvr.Version+"/"+t.gvr.Resource] = r
		s.byGR[t.gvr.GroupResource()] = r
		if _, dup := s.byGVK[t.gvk]; !dup {
			s.byGVK[t.gvk] = r // a kind served twice (events, events.k8s.io) loads into the first
		}
		s.order = append(s.order, r)
	}
	if err := s.registerBindings(); err != nil {
		s.stopCaches()
		return nil, fmt.Errorf("fake: %w", err)
	}
	if err := s.registerReviews(); err != nil {
		s.stopCaches()
		return nil, fmt.Errorf("fake: %w", err)
	}
	if !opts.NoGarbageCollector {
		s.gc = newCollector()
	}
	if err := s.load(); err != nil {
		s.stopCaches()
		return nil, err
	}
	if err := s.installCRDs(); err != nil {
		s.stopCaches()
		return nil, err
	}
	if err := s.loadCustom(s.customSeeds); err != nil {
		s.stopCaches()
		return nil, err
	}
	s.customSeeds = nil
	s.startCollector()
	return s, nil
}

// schemas are the built-in selection schemas by resource, shared by every Server of the process:
// a Schema is immutable (a registered field makes a new one), and building one per cache was a
// quarter of a new server's time.
var schemas sync.Map // schemaKey -> *selection.Schema

type schemaKey struct {
	resource   string
	namespaced bool
}

// builtinSchema returns the shared built-in schema of a resource.
func builtinSchema(resource string, namespaced bool) *selection.Schema {
	k := schemaKey{resource, namespaced}
	if s, ok := schemas.Load(k); ok {
		return s.(*selection.Schema)
	}
	s, _ := schemas.LoadOrStore(k, selection.SchemaFor(resource, namespaced))
	return s.(*selection.Schema)
}

var (
	patcherOnce sync.Once
	patcher     *patch.Patcher
	patcherErr  error
)

// sharedPatcher is the patch engine of every Server of the process: it is safe for concurrent use,
// and sharing it builds its type converter (the OpenAPI models of the built-in kinds, about
// 100 ms and 20 MB of allocations) once per process, on the first apply or managedFields update.
func sharedPatcher() (*patch.Patcher, error) {
	patcherOnce.Do(func() { patcher, patcherErr = patch.NewWithDefaults(scheme.Scheme, applyDefaults) })
	return patcher, patcherErr
}

// resourceInfo is what kubeapi serves of a resource: its names, scope, the verbs discovery lists
// for it, and the subresources the fake serves (status and scale; a pod's binding and eviction),
// in the apiserver's order.
func resourceInfo(t *resourceType) kubeapi.ResourceInfo {
	info := kubeapi.ResourceInfo{
		Group: t.gvr.Group, Version: t.gvr.Version, Resource: t.gvr.Resource,
		SingularName: t.singular, Kind: t.gvk.Kind, Namespaced: t.namespaced,
		ShortNames: t.shortNames, Categories: t.categories, Verbs: t.verbs,
	}
	verbs := []string{"get", "patch", "update"}
	if t.status {
		info.Subresources = append(info.Subresources, metav1.APIResource{Name: t.gvr.Resource + "/status", Namespaced: t.namespaced, Kind: t.gvk.Kind, Verbs: verbs})
	}
	if t.scale {
		info.Subresources = append(info.Subresources, metav1.APIResource{Name: t.gvr.Resource + "/scale", Namespaced: t.namespaced, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: verbs})
	}
	if t.gvr.GroupResource() == namespacesGR {
		info.Subresources = append(info.Subresources, metav1.APIResource{Name: "namespaces/finalize", Kind: "Namespace", Verbs: []string{"update"}})
	}
	if t.gvr.GroupResource() == serviceAccountsGR {
		info.Subresources = append(info.Subresources, metav1.APIResource{Name: "serviceaccounts/token", Namespaced: true,
			Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest", Verbs: []string{"create"}})
	}
	if t.gvr.GroupResource() == podsGR {
		// The writes the apiserver computes for a pod (computed.go).
		info.Subresources = append(info.Subresources,
			metav1.APIResource{Name: "pods/binding", Namespaced: true, Kind: "Binding", Verbs: []string{"create"}},
			metav1.APIResource{Name: "pods/eviction", Namespaced: true, Group: "policy", Version: "v1", Kind: "Eviction", Verbs: []string{"create"}})
	}
	sort.Slice(info.Subresources, func(i, j int) bool { return info.Subresources[i].Name < info.Subresources[j].Name })
	info.Printer, _ = kubeapi.PrinterFor(t.gvr.Group, t.gvr.Resource)
	return info
}

// currentRV is a cache's CurrentResourceVersion: the global counter, which a consistent read must
// reach. A cache that has not seen the last write (it was to another resource) is brought to it
// with a bookmark, as etcd's progress notification brings an apiserver's watch cache.
func (s *Server) currentRV(r *served) func(context.Context) (uint64, error) {
	return func(context.Context) (uint64, error) {
		rv := s.rv.Load()
		if r.cache.ResourceVersion() >= rv {
			return rv, nil
		}
		s.catchUp(r)
		return rv, nil
	}
}

// catchUp brings a cache to the global resourceVersion with a bookmark.
func (s *Server) catchUp(r *served) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv := s.rv.Load(); r.cache.ResourceVersion() < rv {
		_ = r.cache.Apply(watchcache.Event{Type: watchcache.Bookmark, ResourceVersion: rv})
	}
}

// Config returns a rest.Config for the server that reaches it in process: its Transport calls the
// server's handler (ServeHTTP: authentication, the request log, injected faults, everything) from
// the client's RoundTrip, with no socket and no HTTP parsing, and the answers are those the
// listener gives, watches streaming. Host is the listener's URL, which the Transport serves;
// client-go still wraps the Transport with what the Config asks for (BearerToken, Impersonate,
// UserAgent, Wrap). It has no credentials (its requests are Admin's, whom the server allows
// everything) and no client-side rate limit. The Config is new on every call.
//
// client-go refuses TLS options (TLSClientConfig, Insecure) beside a Transport; a client that
// needs them, a proxy, its own dialer or a real connection (exec and port-forward dialers, another
// process) takes NetworkConfig.
func (s *Server) Config() *rest.Config {
	cfg := s.NetworkConfig()
	if s.inproc != nil {
		cfg.Transport = s.inproc
	}
	return cfg
}

// NetworkConfig returns a rest.Config for the server over its loopback listener: Config without
// its Transport, so that client-go dials the server and speaks HTTP to it.
func (s *Server) NetworkConfig() *rest.Config {
	return &rest.Config{Host: s.host, QPS: -1, UserAgent: rest.DefaultKubernetesUserAgent()}
}

// Transport returns the http.RoundTripper of Config: it serves the requests to URL in process
// and fails any other. It is nil for a server of NewHandler.
func (s *Server) Transport() http.RoundTripper {
	if s.inproc == nil {
		return nil
	}
	return s.inproc
}

// URL returns the server's base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.host }

// ResourceVersion returns the last resourceVersion given out: that of the last write.
func (s *Server) ResourceVersion() uint64 { return s.rv.Load() }

// AddReadyCheck adds a condition to the server's /readyz, listed after the server's own checks
// (kubeapi.Server.AddReadyCheck): a program serving the fake reports its own state there, as
// kube-apiserver reports "shutdown" while it drains.
func (s *Server) AddReadyCheck(name string, check func() error) error {
	return s.api.AddReadyCheck(name, check)
}

// Cache returns the cache of a resource, or nil if the server does not serve it. Its reads are the
// server's; writing to it directly bypasses the server's admission and its resourceVersion
// counter, which is for feeding a read-path test (the conformance suite's Writer) only.
func (s *Server) Cache(gvr schema.GroupVersionResource) *watchcache.Cache {
	if r := s.res[gvr.Group+"/"+gvr.Version+"/"+gvr.Resource]; r != nil {
		return r.cache
	}
	if r := s.lookupCustom(gvr.Group + "/" + gvr.Version + "/" + gvr.Resource); r != nil {
		return r.cache
	}
	return nil
}

// AdvanceResourceVersion raises the global counter to at least rv, for a test that fed a cache
// directly (Cache) with resourceVersions of its own.
func (s *Server) AdvanceResourceVersion(rv uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv > s.rv.Load() {
		s.rv.Store(rv)
	}
}

// Resources returns the served resources, in discovery order: the built-in ones, then every
// served version of the custom resources CRDs made.
func (s *Server) Resources() []schema.GroupVersionResource {
	out := make([]schema.GroupVersionResource, len(s.order))
	for i, r := range s.order {
		out[i] = r.gvr
	}
	return append(out, s.customGVRs()...)
}

// Close stops the server: running watches end, the listener and connections close, and Config's
// clients are refused as a closed listener refuses connections. It waits for nothing else.
func (s *Server) Close() {
	s.closed.Do(func() {
		if s.inproc != nil {
			s.inproc.Close()
		}
		close(s.done)
		s.controllers.Wait()
		s.stopCaches()
		if s.http != nil {
			ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
			defer cancel()
			if err := s.http.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
				_ = s.http.Close()
			}
		}
	})
}

// closeGrace is how long Close lets requests in flight finish before it closes their connections.
// It is short because net/http's Shutdown counts a connection a client dialed and has not used yet
// as active for 5 s, which held a test's cleanup for those 5 s (client-go's discovery and scale
// clients leave such connections); a test fake has no request worth waiting longer for.
const closeGrace = 100 * time.Millisecond

func (s *Server) stopCaches() {
	for _, r := range s.order {
		r.cache.Stop()
	}
	for _, c := range s.createOnlyCaches {
		c.Stop()
	}
	s.stopCustomCaches()
}
