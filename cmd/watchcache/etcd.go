package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/encryption"
	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/selection"
	etcdsource "github.com/watchcache/watchcache/source/etcd"
	"github.com/watchcache/watchcache/watchcache"
)

const (
	// etcdCheckTimeout bounds the first request to etcd. Creating a client does not connect, and the
	// source retries a failing etcd for ever; this read makes a wrong --etcd-endpoints an error within
	// seconds instead of a silent wait. A healthy etcd answers it in milliseconds.
	etcdCheckTimeout = 10 * time.Second
	// readyPoll is how often Load looks whether the caches have their first list: a list of 10,000
	// pods takes ~100 ms, so 10 ms keeps the wait within a few percent of the list itself.
	readyPoll = 10 * time.Millisecond
	// loadLogEvery is how often Load logs the resources still listing.
	loadLogEvery = 2 * time.Second
)

// etcdFeed is the source of serve --etcd-endpoints: the keyspace of a kube-apiserver (protobuf,
// CBOR or JSON values), read by source/etcd — a paged range read of each resource's prefix, then a
// watch from its revision with progress notifications as bookmarks. It serves every built-in
// resource (source/etcd.Builtin) and the custom resources of the Established CRDs etcd holds
// (in every served version, with their columns and selectableFields), or those --resources names; Load
// logs the prefixes etcd holds that it does not serve.
//
// Load starts the etcd source (which lists and then watches) and returns once every cache has its
// first list; Run waits for ctx and stops it. Close releases the source and the client whether or
// not Run was called.
type etcdFeed struct {
	cli       *clientv3.Client
	src       *etcdsource.Source
	prefix    string                       // --etcd-prefix
	resources []etcdsource.Resource        // served, in discovery order
	schemas   map[string]*selection.Schema // of the custom resources, by cacheKey
	customs   map[string]customResource    // the custom resources read at start, by cacheKey
	log       *slog.Logger
	transform func(context.Context, string, []byte) ([]byte, error) // the source's, for CRDs
	crdRev    int64                                                 // etcd's revision when the CRDs were read
	narrowed  bool                                                  // --resources was given: no CRD is followed
	dynamic   map[string]*followed                                  // custom resources added while serving, by cacheKey; under mu

	mu     sync.Mutex
	cancel context.CancelFunc // stops the source started by Load
	runCtx context.Context    // the source's context, which Close ends
	done   chan error         // the source's result; nil before Load
	wg     sync.WaitGroup     // the source's goroutines
	closed bool
}

// etcdFlags are serve's options of the etcd client beyond the endpoints: TLS, as the apiserver's
// --etcd-cafile, --etcd-certfile and --etcd-keyfile.
type etcdFlags struct {
	caFile, certFile, keyFile string
	resources                 string        // --resources: comma-separated; "" means all
	kubeconfig                string        // --kubeconfig: a live cluster instead of etcd
	rediscover                time.Duration // --rediscover-interval: how often --kubeconfig reads discovery again
	encryptionConfig          string        // --encryption-provider-config: values encrypted at rest
}

// etcdOnlyFlags are the flags that only --etcd-endpoints reads.
var etcdOnlyFlags = []string{"etcd-cafile", "etcd-certfile", "etcd-keyfile", "resources"}

// addEtcdFlags defines the etcd client's flags on fs.
func addEtcdFlags(fs *flag.FlagSet, f *etcdFlags) {
	fs.StringVar(&f.caFile, "etcd-cafile", "", "SSL Certificate Authority file used to secure etcd communication (as the kube-apiserver's)")
	fs.StringVar(&f.certFile, "etcd-certfile", "", "SSL certification file used to secure etcd communication (as the kube-apiserver's)")
	fs.StringVar(&f.keyFile, "etcd-keyfile", "", "SSL key file used to secure etcd communication (as the kube-apiserver's)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "serve a live cluster through its apiserver: the kubeconfig file (\"in-cluster\": the pod's service account); every listable resource, or those --resources names")
	fs.DurationVar(&f.rediscover, "rediscover-interval", defaultRediscover, "with --kubeconfig: how often the cluster's discovery is read again, to serve resources of new CRDs and aggregated APIs and stop serving those that went")
	fs.StringVar(&f.resources, "resources", "", "comma-separated resources to serve, as kubectl names them (pods, deploy, deployments.apps, ev); empty: every built-in resource")
}

// selectResources returns the resources of all that the --resources list names (all for "").
func selectResources(all []etcdsource.Resource, list string) ([]etcdsource.Resource, error) {
	return pick(all, list, "is neither a built-in resource (e.g. pods, deployments.apps, ev) nor a custom resource of a CRD in etcd",
		func(r etcdsource.Resource) (string, string, string, []string) {
			return r.Resource, r.Group, r.Kind, r.ShortNames
		})
}

// pick returns the resources of all that a --resources list names (all for ""): each entry is a
// plural name, a plural name with its group (deployments.apps), a short name or a kind,
// case-insensitive, as kubectl resolves them; a name that matches none is an error ending with
// unknown. names gives a resource's plural, group, kind and short names.
func pick[T any](all []T, list, unknown string, names func(T) (resource, group, kind string, short []string)) ([]T, error) {
	if strings.TrimSpace(list) == "" {
		return all, nil
	}
	chosen := map[int]bool{}
	for name := range strings.SplitSeq(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		found := false
		for i, r := range all {
			resource, group, kind, short := names(r)
			if name == resource || name == resource+"."+group || name == strings.ToLower(kind) || slices.Contains(short, name) {
				chosen[i], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("--resources: %q %s", name, unknown)
		}
	}
	if len(chosen) == 0 {
		return nil, errors.New("--resources: no resource named")
	}
	var out []T
	for i, r := range all {
		if chosen[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

// newEtcdFeed connects to etcd (lazily: the first request dials).
func newEtcdFeed(endpoints, pathPrefix string, ef etcdFlags, log *slog.Logger) (*etcdFeed, error) {
	var eps []string
	for e := range strings.SplitSeq(endpoints, ",") {
		if e = strings.TrimSpace(e); e != "" {
			eps = append(eps, e)
		}
	}
	if len(eps) == 0 {
		return nil, errors.New("--etcd-endpoints: no endpoint")
	}
	if !strings.HasPrefix(pathPrefix, "/") || path.Clean(pathPrefix) != pathPrefix || pathPrefix == "/" {
		return nil, fmt.Errorf("--etcd-prefix %q: want a clean absolute path such as /registry", pathPrefix)
	}
	cli, err := etcdsource.NewClient(etcdsource.ClientConfig{
		Endpoints: eps,
		CAFile:    ef.caFile, CertFile: ef.certFile, KeyFile: ef.keyFile,
		DialTimeout: etcdCheckTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	log = log.With("source", "etcd")
	opts := etcdsource.Options{PathPrefix: pathPrefix, Logger: log}
	if ef.encryptionConfig != "" {
		// The transformers live as long as the process: KMS plugins' connections end with it.
		tr, err := encryption.Load(context.Background(), ef.encryptionConfig, pathPrefix)
		if err != nil {
			cli.Close()
			return nil, fmt.Errorf("--encryption-provider-config: %w", err)
		}
		opts.Transform = tr.Transform
	}
	// The custom resources of the CRDs etcd holds now; follow serves those of CRDs created later.
	ctx, cancel := context.WithTimeout(context.Background(), etcdCheckTimeout)
	crs, crdRev, err := customResources(ctx, cli, pathPrefix, opts.Transform, log)
	cancel()
	if err != nil {
		cli.Close()
		return nil, err
	}
	all := append(etcdsource.Builtin(), crdsResource)
	schemas, customs := map[string]*selection.Schema{}, map[string]customResource{}
	for _, cr := range crs {
		s, err := cr.schema()
		if err == nil {
			_, err = cr.infos()
		}
		if err != nil {
			log.Warn("custom resource not served", "resource", cr.Resource.Resource, "group", cr.Group, "err", err)
			continue
		}
		all = append(all, cr.Resource)
		schemas[cacheKey(cr.Resource.Resource, cr.Group)] = s
		customs[cacheKey(cr.Resource.Resource, cr.Group)] = cr
	}
	resources, err := selectResources(all, ef.resources)
	if err != nil {
		cli.Close()
		return nil, err
	}
	return &etcdFeed{
		cli:       cli,
		src:       etcdsource.New(cli, opts),
		prefix:    pathPrefix,
		resources: resources,
		schemas:   schemas,
		customs:   customs,
		log:       log,
		transform: opts.Transform,
		crdRev:    crdRev,
		narrowed:  strings.TrimSpace(ef.resources) != "",
	}, nil
}

// Resources lists the built-in resources once and each custom resource once per served version,
// all of whose versions build serves from one cache.
func (f *etcdFeed) Resources() []kubeapi.ResourceInfo {
	var out []kubeapi.ResourceInfo
	for _, r := range f.resources {
		if cr, ok := f.customs[cacheKey(r.Resource, r.Group)]; ok {
			infos, _ := cr.infos() // checked by newEtcdFeed
			out = append(out, infos...)
			continue
		}
		info := kubeapi.ResourceInfo{
			Group: r.Group, Version: r.Version, Resource: r.Resource, Kind: r.Kind, Namespaced: r.Namespaced,
			ShortNames: r.ShortNames, Categories: r.Categories,
			// A custom resource's kinds name its group and version in aggregated discovery, as
			// the apiextensions apiserver names them.
			QualifiedKinds: f.schemas[cacheKey(r.Resource, r.Group)] != nil,
		}
		info.Printer, _ = kubeapi.PrinterFor(r.Group, r.Resource) // Tables as kube-apiserver prints them
		if r.Prefix != crdsResource.Prefix {
			builtinSubresources(&info)
		}
		out = append(out, info)
		if r.Group == "" && r.Resource == "events" {
			out = append(out, eventsV1Info())
		}
	}
	return out
}

// builtinSubresources adds to a built-in resource's info the status and scale subresources
// kube-apiserver's discovery lists for it (fake.BuiltinSubresources), in its order (scale before
// status). serve reads only: they advertise get, and their GETs answer as kube-apiserver's (the
// object for status, fake.BuiltinScale's autoscaling/v1 Scale for scale).
func builtinSubresources(info *kubeapi.ResourceInfo) {
	status, scale := fake.BuiltinSubresources(info.Group, info.Resource)
	if !status && !scale {
		return
	}
	info.Views = map[string]kubeapi.View{}
	if scale {
		info.Subresources = append(info.Subresources, metav1.APIResource{
			Name: info.Resource + "/scale", Namespaced: info.Namespaced, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get"},
		})
		group, resource := info.Group, info.Resource
		info.Views["scale"] = func(obj []byte) ([]byte, error) { return fake.BuiltinScale(group, resource, obj) }
	}
	if status {
		info.Subresources = append(info.Subresources, metav1.APIResource{
			Name: info.Resource + "/status", Namespaced: info.Namespaced, Kind: info.Kind, Verbs: []string{"get"},
		})
		info.Views["status"] = statusView
	}
}

// configure makes consistent reads ask etcd for its revision (rule 1.8), and reads waiting for a
// revision their cache has not reached ask for progress notifications (rule 3.3): the revision is
// etcd-global, so it may belong to a write of another resource. A consistent read arranges its own
// requests (source/etcd CurrentResourceVersion); OnWait covers reads at an exact resourceVersion.
func (f *etcdFeed) configure(o *watchcache.Options) {
	for _, r := range f.resources {
		if r.Resource == o.Resource.Name && r.Group == o.Resource.Group {
			f.feedOptions(o, r.Prefix, f.schemas[cacheKey(r.Resource, r.Group)])
			if r.Prefix == crdsResource.Prefix {
				o.Transform = crdInV1
				o.History = transformedHistory{o.History, crdInV1}
			}
			if t := etcdsource.ServedAs(r); t != nil {
				// Stored at an older version (clustertrustbundles, …): served as the apiserver
				// serves them, from the window and from etcd's history alike.
				o.Transform = t
				o.History = transformedHistory{o.History, t}
			}
		}
	}
}

// transformedHistory is a History whose objects go through the cache's Transform, as the cache's
// own objects do.
type transformedHistory struct {
	watchcache.History
	transform watchcache.Transform
}

func (h transformedHistory) Range(ctx context.Context, rv uint64, from, prefix string, fn func(key string, obj []byte) bool) error {
	return h.History.Range(ctx, rv, from, prefix, func(key string, obj []byte) bool { return fn(key, h.transform(obj)) })
}

// feedOptions sets the options of the cache of the resource under prefix: consistent reads and
// waits through the source, exact lists and continue tokens older than the window read from etcd
// as the apiserver reads them (rule 1.3) until etcd compacts their revision, and a custom
// resource's schema (metadata.name, metadata.namespace and the CRD's selectableFields; nil for a
// built-in resource, whose schema the cache knows).
func (f *etcdFeed) feedOptions(o *watchcache.Options, prefix string, schema *selection.Schema) {
	o.CurrentResourceVersion = f.src.CurrentResourceVersion
	o.History = f.src.History(prefix)
	o.OnWait = f.src.WaitingFor
	if schema != nil {
		o.Schema = schema
	}
}

func (f *etcdFeed) Load(ctx context.Context, c caches) error {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, etcdCheckTimeout)
	resp, err := f.cli.Get(cctx, f.pathPrefix(), clientv3.WithCountOnly())
	cancel()
	if err != nil {
		return fmt.Errorf("etcd %v: %w", f.cli.Endpoints(), err)
	}
	f.log.Info("etcd reachable", "endpoints", f.cli.Endpoints(), "revision", resp.Header.Revision)
	f.logLayout(ctx)
	for _, r := range f.resources {
		if err := f.src.Add(r.Prefix, c[cacheKey(r.Resource, r.Group)]); err != nil {
			return err
		}
	}
	// The custom resources served from start are followed as those found later are: a CRD
	// deleted or changed stops their serving (follow).
	f.mu.Lock()
	for _, r := range f.resources {
		key := cacheKey(r.Resource, r.Group)
		if cr, ok := f.customs[key]; ok {
			if f.dynamic == nil {
				f.dynamic = map[string]*followed{}
			}
			f.dynamic[key] = &followed{cr: cr, cache: c[key]}
		}
	}
	f.mu.Unlock()

	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return errors.New("etcd source closed")
	}
	rctx, stop := context.WithCancel(context.Background())
	f.cancel, f.done, f.runCtx = stop, make(chan error, 1), rctx
	f.wg.Go(func() { f.done <- f.src.Run(rctx) })
	f.mu.Unlock()

	// Wait for every first list (rule 3.6: a cache is Pending until it), logging who is still
	// listing. The source retries a failing list by itself; only ctx ends the wait early.
	pending := map[string]bool{}
	for _, r := range f.resources {
		pending[cacheKey(r.Resource, r.Group)] = true
	}
	poll := time.NewTicker(readyPoll)
	defer poll.Stop()
	lastLog := time.Now()
	for len(pending) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-f.done:
			f.done <- err
			return fmt.Errorf("etcd source stopped while loading: %v", err)
		case <-poll.C:
		}
		for _, r := range f.resources {
			cache := c[cacheKey(r.Resource, r.Group)]
			if key := cacheKey(r.Resource, r.Group); pending[key] && cache.Ready() == nil {
				delete(pending, key)
				level := slog.LevelInfo
				if cache.Len() == 0 {
					level = slog.LevelDebug // most of the built-in resources are empty
				}
				f.log.Log(ctx, level, "loaded", "resource", r.Resource, "group", r.Group, "prefix", path.Join(f.pathPrefix(), r.Prefix),
					"objects", cache.Len(), "resourceVersion", cache.ResourceVersion(), "after", time.Since(start).Round(time.Millisecond))
			}
		}
		if len(pending) > 0 && time.Since(lastLog) >= loadLogEvery {
			lastLog = time.Now()
			st := f.src.Stats()
			f.log.Info("waiting for the first lists", "pending", sortedKeys(pending), "lists", st.Lists,
				"skipped", st.Skipped, "after", time.Since(start).Round(time.Second))
		}
	}
	st := f.src.Stats()
	objects := 0
	for _, r := range f.resources {
		objects += c[cacheKey(r.Resource, r.Group)].Len()
	}
	f.log.Info("etcd caches ready", "resources", len(f.resources), "objects", objects, "skipped", st.Skipped, "took", time.Since(start).Round(time.Millisecond))
	for reason, n := range f.src.Skips() {
		f.log.Warn("objects not served", "reason", reason, "count", n)
	}
	return nil
}

// logLayout logs the resource prefixes etcd holds keys under, and those it does not serve (custom
// resources, aggregated APIs, the apiserver's own ranges and leases). It only informs: a failure is
// logged and Load goes on.
func (f *etcdFeed) logLayout(ctx context.Context) {
	all := etcdsource.Builtin()
	found, err := etcdsource.ScanPrefixes(ctx, f.cli, f.prefix, all)
	if err != nil {
		f.log.Warn("cannot scan the etcd prefixes", "err", err)
		return
	}
	served := map[string]bool{}
	for _, r := range f.resources {
		served[r.Prefix] = true
	}
	var keys int64
	var notServed []string
	for _, p := range found {
		keys += p.Keys
		if !served[p.Prefix] {
			notServed = append(notServed, fmt.Sprintf("%s (%d keys)", p.Prefix, p.Keys))
		}
	}
	f.log.Info("etcd layout", "prefix", f.prefix, "resourcePrefixes", len(found), "keys", keys, "served", len(f.resources))
	if len(notServed) > 0 {
		f.log.Info("etcd prefixes not served", "prefixes", strings.Join(notServed, ", "))
	}
}

// cacheKey is the key of a resource's cache in caches: its plural name, with its group after a dot
// outside the core group (events, events.events.k8s.io), so that resources of the same name in two
// groups keep two caches.
func cacheKey(resource, group string) string {
	if group == "" {
		return resource
	}
	return resource + "." + group
}

// readyChecker is implemented by sources whose server can be unreachable: /readyz then fails.
type readyChecker interface {
	readyChecks() []namedCheck
}

type namedCheck struct {
	name  string
	check func() error
}

// addReadyChecks adds the source's checks, if any, to the server's /readyz.
func addReadyChecks(src source, srv *kubeapi.Server) error {
	rc, ok := src.(readyChecker)
	if !ok {
		return nil
	}
	for _, c := range rc.readyChecks() {
		if err := srv.AddReadyCheck(c.name, c.check); err != nil {
			return err
		}
	}
	return nil
}

// readyChecks are "etcd" (etcd answers the source's probe, as the apiserver's etcd check) and, per
// resource, "etcd/<resource>[.<group>]" (its first list completed while etcd answers).
func (f *etcdFeed) readyChecks() []namedCheck {
	out := []namedCheck{{"etcd", f.src.Health}}
	for _, r := range f.resources {
		name := r.Resource
		if r.Group != "" {
			name += "." + r.Group
		}
		_, custom := f.customs[cacheKey(r.Resource, r.Group)]
		out = append(out, namedCheck{"etcd/" + name, func() error {
			err := f.src.Ready(r.Prefix)
			if custom && errors.Is(err, etcdsource.ErrInvalidPrefix) {
				return nil // its CRD went: not served, so not waited for
			}
			return err
		}})
	}
	return out
}

// Run returns when ctx ends (the source then stops) or when the source stops by itself.
func (f *etcdFeed) Run(ctx context.Context, _ caches) error {
	f.mu.Lock()
	done := f.done
	f.mu.Unlock()
	if done == nil {
		return errors.New("etcd source: Run before Load")
	}
	select {
	case <-ctx.Done():
		return f.Close()
	case err := <-done:
		done <- err
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}

// Close stops the source started by Load, waits for it and closes the etcd client. It may be
// called more than once.
func (f *etcdFeed) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	cancel, done := f.cancel, f.done
	f.mu.Unlock()
	var err error
	if done != nil {
		cancel()
		f.wg.Wait()
		err = <-done
		done <- err
	}
	if cerr := f.cli.Close(); cerr != nil && err == nil && !errors.Is(cerr, context.Canceled) {
		err = cerr
	}
	st := f.src.Stats()
	f.log.Info("etcd source stopped", "lists", st.Lists, "events", st.Events, "bookmarks", st.Bookmarks,
		"reconnects", st.Reconnects, "compactions", st.Compactions, "progressRequests", st.ProgressRequests,
		"lost", st.Lost, "regained", st.Regained)
	return err
}

func (f *etcdFeed) pathPrefix() string { return f.prefix }

// revision is etcd's current revision, for the metrics' lag.
func (f *etcdFeed) revision(ctx context.Context) (uint64, error) {
	return f.src.CurrentResourceVersion(ctx)
}

// stats are the source's counters, for the metrics.
func (f *etcdFeed) stats() (string, any) { return "etcd", f.src.Stats() }

// sortedKeys returns the keys of m in order, for stable log lines.
func sortedKeys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}
