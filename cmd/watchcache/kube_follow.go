package main

import (
	"context"
	"slices"
	"time"

	"github.com/watchcache/watchcache/kubeapi"
	kubesource "github.com/watchcache/watchcache/source/kube"
	"github.com/watchcache/watchcache/watchcache"
)

// defaultRediscover is how often serve --kubeconfig reads the cluster's discovery again to follow
// CRDs and aggregated APIs. The apiserver lists a new CRD's resource about a second after it is
// Established; 5 s costs two requests (/api and /apis, aggregated discovery) every 5 s.
const defaultRediscover = 5 * time.Second

// kubeFollowed is a resource served since it appeared in discovery: its cache and its source.
type kubeFollowed struct {
	info  kubeapi.ResourceInfo
	src   *kubesource.Source
	cache *watchcache.Cache
	stop  context.CancelFunc
	done  chan struct{}
}

// kubeStatic is a resource served from start: its cache, fed by the source of its group and
// version, which ends the resource's feed when the cache stops.
type kubeStatic struct {
	info  kubeapi.ResourceInfo
	cache *watchcache.Cache
}

// follow reads the cluster's discovery again every f.rediscover and serves the resources that
// appeared in it (a CRD Established, an aggregated API registered), and stops serving those that
// left it or changed version or scope — served from start or found later alike, as the apiserver
// stops serving a deleted CRD's resource. A resource that comes back is served again as a new one.
// With --resources, discovery is not followed: the list names what is served.
func (f *kubeFeed) follow(ctx context.Context, reg registrar) {
	if f.narrowed {
		f.log.Info("discovery is not followed: --resources names what is served")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.runCtx == nil {
		return
	}
	fctx, cancel := context.WithCancel(f.runCtx)
	stop := context.AfterFunc(ctx, cancel)
	f.wg.Go(func() {
		defer stop()
		defer cancel()
		t := time.NewTicker(f.rediscover)
		defer t.Stop()
		for {
			select {
			case <-fctx.Done():
				f.unfollowAll(reg)
				return
			case <-t.C:
				f.rediscoverOnce(fctx, reg)
			}
		}
	})
}

// rediscoverOnce makes the served resources match discovery. An incomplete discovery (a group
// that did not answer) removes nothing: a resource missing from it may only be unreachable.
func (f *kubeFeed) rediscoverOnce(ctx context.Context, reg registrar) {
	lists, err := f.dc.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		f.log.Warn("discovery failed; the served resources stay as they are", "err", err)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	// The CRDs' columns come from their cache, which a watch keeps current; a custom resource
	// whose columns changed is served again with the new ones, as the apiextensions apiserver
	// serves a changed CRD anew.
	cols, ok := cachedCRDs(ctx, f.crds)
	if !ok {
		cols = f.columns
	}
	found := map[string]kubeapi.ResourceInfo{}
	for _, info := range withColumns(listable(lists), cols) {
		found[cacheKey(info.Resource, info.Group)] = info
	}
	gone := func(k string, served kubeapi.ResourceInfo) bool {
		info, ok := found[k]
		return !ok && err == nil || ok && (info.Version != served.Version || info.Namespaced != served.Namespaced ||
			columnsChanged(info, f.columns, cols))
	}
	for k, st := range f.static {
		if gone(k, st.info) {
			f.unserveStaticLocked(reg, k)
		}
	}
	for k, fl := range f.dynamic {
		if gone(k, fl.info) {
			f.unfollowLocked(reg, k)
		}
	}
	f.columns = cols
	for k, info := range found {
		if _, static := f.static[k]; !static && f.dynamic[k] == nil {
			f.followLocked(ctx, reg, k, info)
		}
	}
}

// unserveStaticLocked stops serving a resource served from start: its paths answer 404, its
// watches end, and stopping its cache ends its feed (the other resources of its group and version
// go on). The caller holds f.mu.
func (f *kubeFeed) unserveStaticLocked(reg registrar, key string) {
	st := f.static[key]
	delete(f.static, key)
	_ = reg.Unregister(st.info.Group, st.info.Version, st.info.Resource)
	st.cache.Stop()
	f.log.Info("no longer serving a resource that left discovery", "resource", st.info.Resource, "group", st.info.Group)
}

// followLocked starts serving info through a source of its own. The caller holds f.mu.
func (f *kubeFeed) followLocked(ctx context.Context, reg registrar, key string, info kubeapi.ResourceInfo) {
	rc, err := f.client(info)
	if err != nil {
		f.log.Warn("resource not served", "resource", info.Resource, "group", info.Group, "err", err)
		return
	}
	opts := watchcache.Options{Resource: watchcache.Resource{Name: info.Resource, Group: info.Group, Namespaced: info.Namespaced}}
	configureKube(&opts)
	c := watchcache.New(opts)
	src := kubesource.New(rc, kubesource.Options{Logger: f.log.With("groupVersion", info.GroupVersion())})
	if err := src.Add(info.Resource, c); err != nil {
		c.Stop()
		f.log.Warn("resource not served", "resource", info.Resource, "group", info.Group, "err", err)
		return
	}
	if err := reg.Register(info, c); err != nil {
		c.Stop()
		f.log.Warn("resource not served", "resource", info.Resource, "group", info.Group, "err", err)
		return
	}
	sctx, stop := context.WithCancel(ctx)
	fl := &kubeFollowed{info: info, src: src, cache: c, stop: stop, done: make(chan struct{})}
	f.wg.Go(func() {
		defer close(fl.done)
		if err := src.Run(sctx); err != nil {
			f.log.Error("source stopped", "resource", info.Resource, "group", info.Group, "err", err)
		}
	})
	if f.dynamic == nil {
		f.dynamic = map[string]*kubeFollowed{}
	}
	f.dynamic[key] = fl
	f.log.Info("serving a resource that appeared in discovery", "resource", info.Resource, "group", info.Group, "version", info.Version)
}

// unfollowLocked stops serving a followed resource. The caller holds f.mu.
func (f *kubeFeed) unfollowLocked(reg registrar, key string) {
	fl := f.dynamic[key]
	delete(f.dynamic, key)
	_ = reg.Unregister(fl.info.Group, fl.info.Version, fl.info.Resource)
	fl.stop()
	<-fl.done
	fl.cache.Stop()
	f.retired = addStats(f.retired, fl.src.Stats())
	f.log.Info("no longer serving a resource that left discovery", "resource", fl.info.Resource, "group", fl.info.Group)
}

// unfollowAll stops every followed resource when serve stops.
func (f *kubeFeed) unfollowAll(reg registrar) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k := range f.dynamic {
		f.unfollowLocked(reg, k)
	}
}

// stats sums the counters of the feed's sources, those of followed resources (gone ones included,
// so that the sums only grow, as counters do), for /metrics.
func (f *kubeFeed) stats() (string, any) {
	f.mu.Lock()
	sum := f.retired
	srcs := slices.Clone(f.srcs)
	for _, fl := range f.dynamic {
		srcs = append(srcs, fl.src)
	}
	f.mu.Unlock()
	for _, s := range srcs {
		sum = addStats(sum, s.Stats())
	}
	return "kube", sum
}

func addStats(a, b kubesource.Stats) kubesource.Stats {
	return kubesource.Stats{
		Lists: a.Lists + b.Lists, Events: a.Events + b.Events, Bookmarks: a.Bookmarks + b.Bookmarks,
		Skipped: a.Skipped + b.Skipped, Watches: a.Watches + b.Watches, Expired: a.Expired + b.Expired,
	}
}
