package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/watchcache/watchcache/kubeapi"
	kubesource "github.com/watchcache/watchcache/source/kube"
	"github.com/watchcache/watchcache/watchcache"
)

// kubeFeed is the source of serve --kubeconfig: a live cluster read through its apiserver by
// source/kube (a reflector per resource: paged lists, then watches with bookmarks). It serves every
// resource discovery lists as listable and watchable at its group's preferred version — built-in
// and custom, aggregated APIs included — or those --resources names.
//
// Consistent reads are answered from what the caches hold: a client of the apiserver cannot ask it
// for a progress notification, so a cache can learn that it is current only from its watch.
type kubeFeed struct {
	cfg       *rest.Config
	http      *http.Client // shared by every resource's REST client
	resources []kubeapi.ResourceInfo
	log       *slog.Logger

	// dc is the discovery client; narrowed says --resources was given (then no new resource is
	// followed); rediscover is how often follow reads discovery again.
	dc         discovery.DiscoveryInterface
	narrowed   bool
	rediscover time.Duration

	mu      sync.Mutex
	cancel  context.CancelFunc
	runCtx  context.Context // the sources' context, which Close ends
	wg      sync.WaitGroup
	srcs    []*kubesource.Source
	static  map[string]kubeStatic    // resources served from start and still served, by cacheKey; set by Load
	dynamic map[string]*kubeFollowed // resources that appeared in discovery while serving, by cacheKey
	retired kubesource.Stats         // the counters of followed resources that went
	// columns are the CRDs' printer columns the served custom resources print; crds is the
	// served CRDs' cache (nil when --resources leaves them out), set by Load.
	columns crColumns
	crds    *watchcache.Cache
	closed  bool
}

// newKubeFeed reads the kubeconfig ("" or "in-cluster": the pod's service account) and the
// cluster's discovery.
func newKubeFeed(kubeconfig, resources string, rediscover time.Duration, log *slog.Logger) (*kubeFeed, error) {
	if rediscover <= 0 {
		return nil, fmt.Errorf("--rediscover-interval %v: want a positive duration", rediscover)
	}
	var cfg *rest.Config
	var err error
	if kubeconfig == "in-cluster" {
		cfg, err = rest.InClusterConfig()
	} else {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	// One list and one watch per resource at start: client-go's default 5 QPS would take a minute
	// for the ~60 resources of a cluster; the apiserver's own priority and fairness limits us.
	cfg.QPS, cfg.Burst = 50, 100
	log = log.With("source", "kube", "server", cfg.Host)
	// One HTTP client for discovery and every resource: one connection pool (HTTP/2: one
	// connection), closed with the feed.
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	defer func() {
		if err != nil {
			utilnet.CloseIdleConnectionsFor(hc.Transport)
		}
	}()
	lists, derr := dc.ServerPreferredResources()
	if derr != nil {
		if len(lists) == 0 {
			err = fmt.Errorf("discovery of %s: %w", cfg.Host, derr)
			return nil, err
		}
		log.Warn("discovery incomplete; serving the groups it answered", "err", derr)
	}
	infos := listable(lists)
	if infos, err = narrow(infos, resources); err != nil {
		return nil, err
	}
	f := &kubeFeed{cfg: cfg, http: hc, log: log, dc: dc,
		narrowed: strings.TrimSpace(resources) != "", rediscover: rediscover}
	ctx, cancel := context.WithTimeout(context.Background(), crdListTimeout)
	defer cancel()
	if f.columns, err = f.listCRDs(ctx); err != nil {
		// Without the CRDs (no permission to list them), custom resources get the default
		// columns (Name, Age), as before the CRDs could be read.
		log.Warn("custom resources' Tables get the default columns", "err", err)
		f.columns, err = crColumns{}, nil
	}
	f.resources = withColumns(infos, f.columns)
	log.Info("discovered", "resources", len(infos))
	return f, nil
}

// crdListTimeout bounds the list of the CRDs at start, as a request to the cluster: the
// apiserver's own default request timeout.
const crdListTimeout = time.Minute

// listable returns the resources of discovery lists that can be listed and watched (no
// subresources), as kubeapi serves them, in both discovery forms.
func listable(lists []*metav1.APIResourceList) []kubeapi.ResourceInfo {
	var out []kubeapi.ResourceInfo
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "watch") {
				continue
			}
			info := kubeapi.ResourceInfo{
				Group: gv.Group, Version: gv.Version, Resource: r.Name, SingularName: r.SingularName, Kind: r.Kind,
				Namespaced: r.Namespaced, ShortNames: r.ShortNames, Categories: r.Categories,
				// client-go fills a resource's group and version from the aggregated document's
				// responseKind, which names them for a custom resource only: serve names them
				// where the cluster does.
				QualifiedKinds: r.Group != "" || r.Version != "",
			}
			info.Printer, _ = kubeapi.PrinterFor(gv.Group, r.Name)
			out = append(out, info)
		}
	}
	return out
}

// narrow keeps the resources a --resources list names (all for ""), as pick matches them.
func narrow(all []kubeapi.ResourceInfo, list string) ([]kubeapi.ResourceInfo, error) {
	return pick(all, list, "is not a listable resource of the cluster",
		func(r kubeapi.ResourceInfo) (string, string, string, []string) {
			return r.Resource, r.Group, r.Kind, r.ShortNames
		})
}

func (f *kubeFeed) Resources() []kubeapi.ResourceInfo { return slices.Clone(f.resources) }

// Load starts a source per resource and returns once every cache has its first list, logging
// progress while they load.
func (f *kubeFeed) Load(ctx context.Context, c caches) error {
	start := time.Now()
	rctx, cancel := context.WithCancel(context.Background())
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		cancel()
		return errors.New("kube source closed")
	}
	f.cancel, f.runCtx = cancel, rctx
	f.crds = c[crdsKey]
	// One source per group and version, feeding each of its resources.
	byGV := map[string]*kubesource.Source{}
	for _, info := range f.resources {
		gv := info.GroupVersion()
		src := byGV[gv]
		if src == nil {
			rc, err := f.client(info)
			if err != nil {
				f.mu.Unlock()
				return err
			}
			src = kubesource.New(rc, kubesource.Options{Logger: f.log.With("groupVersion", gv)})
			byGV[gv] = src
			f.srcs = append(f.srcs, src)
		}
		cache := c[cacheKey(info.Resource, info.Group)]
		if err := src.Add(info.Resource, cache); err != nil {
			f.mu.Unlock()
			return fmt.Errorf("feed %s of %s: %w", info.Resource, gv, err)
		}
		if f.static == nil {
			f.static = map[string]kubeStatic{}
		}
		f.static[cacheKey(info.Resource, info.Group)] = kubeStatic{info: info, cache: cache}
	}
	for gv, src := range byGV {
		f.wg.Go(func() {
			if err := src.Run(rctx); err != nil {
				f.log.Error("source stopped", "groupVersion", gv, "err", err)
			}
		})
	}
	f.mu.Unlock()

	poll := time.NewTicker(readyPoll)
	defer poll.Stop()
	lastLog := time.Now()
	for {
		var pending []string
		objects := 0
		for _, info := range f.resources {
			cache := c[cacheKey(info.Resource, info.Group)]
			if cache.Ready() != nil {
				pending = append(pending, cacheKey(info.Resource, info.Group))
			}
			objects += cache.Len()
		}
		if len(pending) == 0 {
			f.log.Info("kube caches ready", "resources", len(f.resources), "objects", objects, "took", time.Since(start).Round(time.Millisecond))
			return nil
		}
		if time.Since(lastLog) >= loadLogEvery {
			lastLog = time.Now()
			rate := float64(objects) / time.Since(start).Seconds()
			f.log.Info("waiting for the first lists", "pending", len(pending), "first", pending[:min(5, len(pending))],
				"objects", objects, "objectsPerSecond", int(rate), "after", time.Since(start).Round(time.Second))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-poll.C:
		}
	}
}

// client returns a REST client for the resource's group and version.
func (f *kubeFeed) client(info kubeapi.ResourceInfo) (rest.Interface, error) {
	cfg := rest.CopyConfig(f.cfg)
	cfg.GroupVersion = &schema.GroupVersion{Group: info.Group, Version: info.Version}
	cfg.APIPath = "/apis"
	if info.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientForConfigAndClient(cfg, f.http)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", info.GroupVersion(), err)
	}
	return rc, nil
}

// Run returns when ctx ends; the sources then stop.
func (f *kubeFeed) Run(ctx context.Context, _ caches) error {
	<-ctx.Done()
	return f.Close()
}

// Close stops the sources and waits for them. It may be called more than once.
func (f *kubeFeed) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	cancel := f.cancel
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	f.wg.Wait()
	utilnet.CloseIdleConnectionsFor(f.http.Transport)
	var lists, events, expired uint64
	for _, s := range f.srcs {
		st := s.Stats()
		lists, events, expired = lists+st.Lists, events+st.Events, expired+st.Expired
	}
	f.log.Info("kube sources stopped", "lists", lists, "events", events, "expired", expired)
	return nil
}
