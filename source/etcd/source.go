package etcd

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/watchcache/watchcache/watchcache"
)

// Defaults of Options.
const (
	// DefaultPathPrefix is the kube-apiserver's default --etcd-prefix.
	DefaultPathPrefix = "/registry"
	// DefaultPageSize is the number of keys per Range request while listing: the apiserver's cacher
	// lists etcd in pages of 10,000 too. At ~4 KiB per pod a page is ~40 MiB, under etcd's default
	// 2 GiB gRPC receive limit by far and large enough that a 100k-pod list takes ten round trips.
	DefaultPageSize = 10_000
	// DefaultProgressInterval is how long a progress request may go unanswered before it is repeated
	// while a read waits: the apiserver's ConditionalProgressRequester ticks every 100 ms (rule 3.3).
	// An answer normally comes within one round trip (0.1–0.3 ms over loopback, BenchmarkConsistentRead);
	// etcd drops requests while a watch catches up, and a broken watch answers none.
	DefaultProgressInterval = 100 * time.Millisecond
	// DefaultProgressTimeout bounds how long one consistent read keeps progress requests going: the
	// cache's own wait timeout (rule 3.3, blockTimeout = 3 s); after it the read has failed anyway.
	DefaultProgressTimeout = 3 * time.Second
	// DefaultLogEvery is how often a long list logs how far it got.
	DefaultLogEvery = 5 * time.Second
)

// Options configure a Source. The zero value of every field is a sensible default.
type Options struct {
	// PathPrefix is the apiserver's --etcd-prefix; "" means DefaultPathPrefix.
	PathPrefix string
	// PageSize is the number of keys per Range request while listing; 0 means DefaultPageSize.
	PageSize int64
	// ProgressInterval is how long a progress request may go unanswered before it is repeated while a
	// read waits; 0 means DefaultProgressInterval. A read that needs a request sends it at once; only
	// one request is in flight at a time.
	ProgressInterval time.Duration
	// ProgressTimeout bounds how long the progress requests for one consistent read go on; 0 means
	// DefaultProgressTimeout. Set it to the caches' WaitTimeout if that is not the default.
	ProgressTimeout time.Duration
	// MinRetry and MaxRetry bound the delay before a failed list is retried or a broken watch is
	// re-established (doubling with jitter); 0 means 100 ms and 10 s.
	MinRetry, MaxRetry time.Duration
	// LogEvery is how often a long list logs its progress; 0 means DefaultLogEvery.
	LogEvery time.Duration
	// Logger receives the source's logs; nil means slog.Default().
	Logger *slog.Logger
	// Transform, if set, is applied to every value read from etcd (lists, watch events and their
	// previous values, History) before it is decoded, with the value's full etcd key
	// ("/registry/pods/ns/name"): the apiserver's value.Transformer.TransformFromStorage with the key
	// as authenticated data, for a store written through a transformer (an encryption provider, a
	// test's prefix). It must return a value as the apiserver's storage codec writes it (protobuf,
	// CBOR or JSON), and must not retain or modify value; it is called from the source's goroutines, concurrently for different resources. A
	// value it fails on is skipped like an undecodable one (ErrUntransformable) and its key is listed
	// by Source.Unreadable. nil: values are decoded as stored.
	Transform func(ctx context.Context, key string, value []byte) ([]byte, error)
	// Scheme holds the types protobuf and CBOR values are decoded into; nil means client-go's
	// scheme (k8s.io/client-go/kubernetes/scheme: every built-in type). Pass a scheme with more types
	// (e.g. apiextensions' or an aggregated server's) to read them too; it must not change while the
	// source runs. A protobuf value of a kind it lacks is ErrUndecodable; a CBOR one is decoded
	// as unstructured content.
	Scheme *runtime.Scheme
	// HealthInterval is how often the running source checks that etcd answers (Health, Ready);
	// 0 means DefaultHealthInterval.
	HealthInterval time.Duration
	// HealthTimeout bounds one check; 0 means DefaultHealthTimeout.
	HealthTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.PathPrefix == "" {
		o.PathPrefix = DefaultPathPrefix
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = DefaultProgressInterval
	}
	if o.ProgressTimeout <= 0 {
		o.ProgressTimeout = DefaultProgressTimeout
	}
	if o.MinRetry <= 0 {
		o.MinRetry = 100 * time.Millisecond
	}
	if o.MaxRetry < o.MinRetry {
		o.MaxRetry = max(10*time.Second, o.MinRetry)
	}
	if o.LogEvery <= 0 {
		o.LogEvery = DefaultLogEvery
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.HealthInterval <= 0 {
		o.HealthInterval = DefaultHealthInterval
	}
	if o.HealthTimeout <= 0 {
		o.HealthTimeout = DefaultHealthTimeout
	}
	return o
}

// Stats are counters of a Source since New, summed over its resources.
type Stats struct {
	// Lists is the number of completed (re)lists, each ending in a Cache.Replace.
	Lists uint64
	// Events is the number of watch events applied to a cache.
	Events uint64
	// Bookmarks is the number of progress notifications applied to a cache.
	Bookmarks uint64
	// Skipped is the number of objects left out: values that cannot be decoded (ErrUndecodable) or
	// that Options.Transform failed on (ErrUntransformable), and objects or events a cache rejected.
	// Each distinct reason is logged once per resource at Warn, the rest at Debug.
	Skipped uint64
	// Reconnects is the number of watches re-established after they broke, without a re-list.
	Reconnects uint64
	// Compactions is the number of times a watch or a list found its revision compacted; each is
	// followed by a re-list.
	Compactions uint64
	// ProgressRequests is the number of progress notifications requested from etcd.
	ProgressRequests uint64
	// Lost is the number of times etcd stopped answering the source's health probe; Regained the
	// number of times it answered again after that (Source.Health).
	Lost, Regained uint64
}

type counters struct {
	lists, events, bookmarks, skipped, reconnects, compactions, progressRequests, lost, regained atomic.Uint64
}

// Source feeds watch caches from etcd prefixes, one watch per prefix over one client.
//
// Concurrency: Run is called once. Add and Remove may be called before and while Run runs (a CRD
// created or deleted while serving). CurrentResourceVersion, WaitingFor, RequestProgress,
// Unreadable, Health, Ready, Skips and Stats are safe for concurrent use at any time. The caches
// are written only by Run's goroutines; do not feed them from elsewhere while Run runs.
type Source struct {
	client *clientv3.Client
	opts   Options
	// revisionKey is the key CurrentResourceVersion reads: the path prefix itself, a single key
	// (never a range), read count-only.
	revisionKey string
	log         *slog.Logger
	dec         *decoder
	progress    *progressRequester
	stats       counters
	// historySkips counts the values History's reads skipped.
	historySkips skipLog
	health       health

	mu      sync.Mutex
	feeds   []*feed // replaced, never modified in place, so a copy of the slice header may be read unlocked
	running bool
	runCtx  context.Context   // Run's context, nil before Run
	ending  bool              // Run's context ended: Add refuses, Run waits for the feeds
	feedsWG sync.WaitGroup    // the feeds' goroutines
	retired map[string]uint64 // the skips of removed feeds, by reason, so that Skips still sums to Stats.Skipped
}

// feed is one resource: its etcd prefix and its cache. rev is owned by the feed's goroutine.
type feed struct {
	resource string // the resource prefix as given to Add, e.g. "pods" or "services/specs"
	prefix   string // the etcd key prefix, with a trailing slash: "/registry/pods/"
	cache    *watchcache.Cache
	log      *slog.Logger

	rev uint64 // last etcd revision applied (event, progress or list); 0: a list is needed

	cancel context.CancelFunc // ends the feed's goroutine; nil until Run starts it
	done   chan struct{}      // closed when the feed's goroutine ends

	skips skipLog // values skipped, by reason

	// listed says a list completed; lastListErr is the last list's failure. Written by the feed's
	// goroutine, read by Ready, under listMu.
	listMu      sync.Mutex
	listed      bool
	lastListErr error

	// unreadable holds the keys etcd holds and the cache does not (unreadable.go). Only the feed's
	// goroutine writes it, under unreadableMu; other goroutines read it under unreadableMu.
	unreadableMu sync.RWMutex
	unreadable   map[string]error

	// notifiedRev is the revision of the last progress notification received, notifiedAt the
	// number received at it: they tell the progress requester which answers are new.
	notifiedRev uint64
	notifiedAt  int
}

// key returns the cache's key of an etcd key of the feed: the etcd key without the path and
// resource prefixes, "/registry/pods/ns/name" → "/ns/name" (rule 6.1). The cache stores the object
// under it whatever the object's metadata says (watchcache.Event.Key), so that it holds what etcd
// holds. etcdKey must be under the feed's prefix, as every key of its ranges and watch is. The
// result is a copy of the relative part only: the cache keeps it with the object.
func (f *feed) key(etcdKey []byte) string { return string(etcdKey[len(f.prefix)-1:]) }

// New returns a source reading through client. The client is the caller's: the source never closes it.
func New(client *clientv3.Client, opts Options) *Source {
	opts = opts.withDefaults()
	s := &Source{client: client, opts: opts, log: opts.Logger, revisionKey: path.Join("/", opts.PathPrefix), dec: newDecoder(opts.Scheme)}
	s.progress = newProgressRequester(s)
	return s
}

// Add registers a cache to feed from a resource prefix: the path under Options.PathPrefix where the
// apiserver stores the resource (rule 6.1) — "pods", "minions" for nodes, "services/specs" for
// services, "services/endpoints" for endpoints, "<group>/<resource>" for most other groups
// (e.g. "deployments", "apiextensions.k8s.io/customresourcedefinitions", "<group>/<plural>" for CRs).
// The cache must be new: the source lists into it with Replace before it watches. Added while Run
// runs, the feed starts at once: it lists, then watches, as the others did. Add fails with
// ErrInvalidPrefix for an empty, unclean or duplicate prefix, and with ErrRunning once Run's
// context has ended.
func (s *Source) Add(resourcePrefix string, c *watchcache.Cache) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending {
		return fmt.Errorf("add %q: %w (its context has ended)", resourcePrefix, ErrRunning)
	}
	p := path.Clean("/" + resourcePrefix)
	if resourcePrefix == "" || p == "/" || p[1:] != resourcePrefix {
		return fmt.Errorf("%w: %q (want e.g. \"pods\" or \"services/specs\")", ErrInvalidPrefix, resourcePrefix)
	}
	prefix := path.Join("/", s.opts.PathPrefix, resourcePrefix) + "/"
	for _, f := range s.feeds {
		if f.prefix == prefix {
			return fmt.Errorf("%w: %q added twice", ErrInvalidPrefix, resourcePrefix)
		}
	}
	f := &feed{
		resource: resourcePrefix,
		prefix:   prefix,
		cache:    c,
		log:      s.log.With("resource", resourcePrefix, "prefix", prefix),
	}
	s.feeds = append(slices.Clip(s.feeds), f)
	if s.running {
		s.progress.addCache(c)
		s.startLocked(f)
	}
	return nil
}

// Remove stops feeding the cache of a resource prefix given to Add (a CRD deleted while serving)
// and forgets the prefix, which may be added again with a new cache. When Remove returns, the
// source no longer writes the cache; the caller may Stop it. Remove fails with ErrInvalidPrefix
// for a prefix that was not added.
func (s *Source) Remove(resourcePrefix string) error {
	prefix := path.Join("/", s.opts.PathPrefix, resourcePrefix) + "/"
	s.mu.Lock()
	i := slices.IndexFunc(s.feeds, func(f *feed) bool { return f.prefix == prefix })
	if i < 0 {
		s.mu.Unlock()
		return fmt.Errorf("%w: %q was not added", ErrInvalidPrefix, resourcePrefix)
	}
	f := s.feeds[i]
	s.feeds = slices.Delete(slices.Clone(s.feeds), i, i+1)
	s.mu.Unlock()
	if f.cancel != nil {
		f.cancel()
		<-f.done
	}
	s.progress.removeCache(f.cache)
	s.mu.Lock()
	if s.retired == nil {
		s.retired = map[string]uint64{}
	}
	f.skips.addTo(s.retired)
	s.mu.Unlock()
	f.log.Info("etcd: feed removed")
	return nil
}

// startLocked starts f's goroutine under Run's context. s.mu is held and Run is running.
func (s *Source) startLocked(f *feed) {
	ctx, cancel := context.WithCancel(s.runCtx)
	f.cancel, f.done = cancel, make(chan struct{})
	s.feedsWG.Go(func() {
		defer close(f.done)
		defer cancel()
		s.runFeed(ctx, f)
	})
}

// Run lists and watches every added prefix until ctx ends, then returns nil once every feed has
// ended. Failures of etcd are logged and retried with backoff, never returned: a list is retried, a
// broken watch resumes from the last revision, a compacted one re-lists. Run returns an error only
// when it cannot start: nothing was added (ErrNoResources) or it was already called (ErrRunning). A
// feed whose cache was stopped (Cache.Stop) ends; the others go on, and Add may start more.
//
// When Run returns, the caches keep what they hold, at the revision reached; they stay Ready, so
// reads at "0" or old RVs go on, while consistent reads wait for a revision they no longer reach and
// fail with the 504 of rule 3.4.
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
	s.running, s.runCtx = true, ctx
	caches := make([]*watchcache.Cache, len(s.feeds))
	for i, f := range s.feeds {
		caches[i] = f.cache
	}
	// Under s.mu, so that a concurrent Add finds the requester started and its feed is started once.
	s.progress.start(ctx, caches)
	for _, f := range s.feeds {
		s.startLocked(f)
	}
	s.mu.Unlock()
	defer s.progress.stop()
	hctx, stopHealth := context.WithCancel(ctx)
	defer stopHealth()
	var hwg sync.WaitGroup
	hwg.Go(func() { s.runHealth(hctx) })
	<-ctx.Done()
	s.mu.Lock()
	s.ending = true // no feedsWG.Go after this: Wait may start
	s.mu.Unlock()
	s.feedsWG.Wait()
	stopHealth()
	hwg.Wait()
	return nil
}

// Stats returns the source's counters.
func (s *Source) Stats() Stats {
	return Stats{
		Lists:            s.stats.lists.Load(),
		Events:           s.stats.events.Load(),
		Bookmarks:        s.stats.bookmarks.Load(),
		Skipped:          s.stats.skipped.Load(),
		Reconnects:       s.stats.reconnects.Load(),
		Compactions:      s.stats.compactions.Load(),
		ProgressRequests: s.stats.progressRequests.Load(),
		Lost:             s.stats.lost.Load(),
		Regained:         s.stats.regained.Load(),
	}
}

// watchContext is the context of every watch and progress request: etcd groups watches into one
// gRPC stream per distinct outgoing metadata, and a progress request reaches only the stream whose
// metadata it carries. WithRequireLeader (as the apiserver uses) makes etcd cancel the watches of a
// member that lost its leader, instead of leaving them silently stale.
func watchContext(ctx context.Context) context.Context { return clientv3.WithRequireLeader(ctx) }
