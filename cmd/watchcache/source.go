package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// caches are the caches being served, by cacheKey: the plural resource name, with ".<group>"
// outside the core group.
type caches map[string]*watchcache.Cache

// source fills the caches of the resources it feeds and keeps them current, as a reflector feeds
// the apiserver's cache from etcd: Load lists (Cache.Replace), Run watches (Cache.Apply, with
// BOOKMARK events for progress).
//
// Two sources exist: a generated cluster (the default) and etcd (--etcd-endpoints, --etcd-prefix:
// a range read of each resource's prefix, then a watch from its revision with progress notifies
// as bookmarks). newSource chooses one from the flags; serve does not change. A source may also
// implement cacheConfigurer (to set the options of the caches it feeds) and io.Closer (to release
// what Load started, also when serve fails before Run).
type source interface {
	// Resources lists the resources the source feeds.
	Resources() []kubeapi.ResourceInfo
	// Load fills every cache with the initial state. The caches answer reads once it returns.
	Load(ctx context.Context, c caches) error
	// Run applies changes until ctx ends, then returns nil (or the error that stopped it).
	Run(ctx context.Context, c caches) error
}

// cacheConfigurer is implemented by sources that need options on the caches they feed, e.g. how a
// consistent read learns the source's current resourceVersion.
type cacheConfigurer interface {
	configure(o *watchcache.Options)
}

// sourceFlags are the flags of every source.
type sourceFlags struct {
	gen   testdata.Config
	churn float64

	etcdEndpoints string // comma-separated; "" means the generated cluster
	etcdPrefix    string
	etcd          etcdFlags // TLS and the other etcd options, etcd.go

	set map[string]bool // the flags given on the command line
}

// generatedFlags are the flags that only the generated cluster reads.
var generatedFlags = []string{"pods", "nodes", "namespaces", "seed", "churn"}

// newSource returns the source the flags choose.
func newSource(f sourceFlags, log *slog.Logger) (source, error) {
	if f.etcd.kubeconfig != "" {
		if f.etcdEndpoints != "" {
			return nil, errors.New("--kubeconfig and --etcd-endpoints are two sources; give one")
		}
		for _, name := range append(generatedFlags, "etcd-prefix", "etcd-cafile", "etcd-certfile", "etcd-keyfile") {
			if f.set[name] {
				return nil, fmt.Errorf("--%s has no effect with --kubeconfig", name)
			}
		}
		return newKubeFeed(f.etcd.kubeconfig, f.etcd.resources, f.etcd.rediscover, log)
	}
	if f.etcdEndpoints != "" {
		for _, name := range generatedFlags {
			if f.set[name] {
				return nil, fmt.Errorf("--%s configures the generated cluster; it has no effect with --etcd-endpoints", name)
			}
		}
		return newEtcdFeed(f.etcdEndpoints, f.etcdPrefix, f.etcd, log)
	}
	for _, name := range append([]string{"etcd-prefix"}, etcdOnlyFlags...) {
		if f.set[name] {
			return nil, fmt.Errorf("--%s needs --etcd-endpoints", name)
		}
	}
	if f.churn < 0 {
		return nil, fmt.Errorf("--churn must be ≥ 0, not %v", f.churn)
	}
	// --pods 0 (without --nodes or --namespaces): an empty cluster (the generator reads a zero
	// as its default size).
	empty := f.set["pods"] && f.gen.Pods == 0 && !f.set["nodes"] && !f.set["namespaces"]
	return &generated{gen: testdata.New(f.gen), rate: f.churn, log: log, empty: empty}, nil
}

// generated is a cluster from internal/testdata: namespaces, nodes and pods (and empty configmaps
// and services), whose pods then change at a steady rate. Resource versions come from one counter
// shared by all resources, like etcd's global revision: every change gets the next one, and the
// caches that did not change get a bookmark at it (etcd's progress notify), so a resourceVersion
// read from one resource is valid for all.
type generated struct {
	gen  *testdata.Generator
	rate float64 // pod changes per second
	log  *slog.Logger
	rv   uint64 // the last revision; owned by Load, then by Run
	// store, when set, is the writable fake the cluster is stored through: each object then gets
	// the fake's next resourceVersion, and users' writes interleave with the churn.
	store *fake.Server
	// empty says the cluster has no generated objects at all (--pods 0).
	empty bool
}

// podsGVR and the others name the generated resources for the fake.
var (
	podsGVR       = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodesGVR      = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

func (g *generated) Resources() []kubeapi.ResourceInfo {
	var out []kubeapi.ResourceInfo
	for _, name := range []string{"pods", "nodes", "namespaces", "configmaps", "services"} {
		info, _ := kubeapi.CoreResource(name)
		out = append(out, info)
	}
	return out
}

func (g *generated) Load(ctx context.Context, c caches) error {
	if g.empty {
		if g.store != nil {
			return nil // the fake's own default namespaces only
		}
		for _, cache := range c {
			if err := cache.Replace(nil, 1); err != nil {
				return err
			}
		}
		return nil
	}
	cfg := g.gen.Config()
	start := time.Now()
	ns := make([][]byte, cfg.Namespaces)
	for k := range ns {
		g.rv++
		ns[k] = g.gen.Namespace(k, g.rv)
	}
	nodes := make([][]byte, cfg.Nodes)
	for j := range nodes {
		g.rv++
		nodes[j] = g.gen.Node(j, g.rv)
	}
	pods, err := g.pods(ctx, cfg.Pods)
	if err != nil {
		return err
	}
	g.rv += uint64(cfg.Pods)
	if g.store != nil {
		for _, l := range []struct {
			gvr  schema.GroupVersionResource
			objs [][]byte
		}{{namespacesGVR, ns}, {nodesGVR, nodes}, {podsGVR, pods}} {
			if err := g.store.Store(l.gvr, l.objs...); err != nil {
				return err
			}
		}
		g.log.Info("generated cluster ready", "pods", cfg.Pods, "nodes", cfg.Nodes, "namespaces", cfg.Namespaces,
			"resourceVersion", g.store.ResourceVersion(), "took", time.Since(start).Round(time.Millisecond))
		return nil
	}
	for _, l := range []struct {
		resource string
		objs     [][]byte
	}{{"namespaces", ns}, {"nodes", nodes}, {"pods", pods}, {"configmaps", nil}, {"services", nil}} {
		t := time.Now()
		if err := c[l.resource].Replace(l.objs, g.rv); err != nil {
			return fmt.Errorf("load %s: %w", l.resource, err)
		}
		g.log.Info("loaded", "resource", l.resource, "objects", len(l.objs), "resourceVersion", g.rv, "took", time.Since(t).Round(time.Millisecond))
	}
	g.log.Info("generated cluster ready", "pods", cfg.Pods, "nodes", cfg.Nodes, "namespaces", cfg.Namespaces,
		"resourceVersion", g.rv, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// pods generates pods 0..n-1 on all cores; pod i gets revision rv+1+i. Progress is logged every
// two seconds.
func (g *generated) pods(ctx context.Context, n int) ([][]byte, error) {
	out := make([][]byte, n)
	base := g.rv
	workers := runtime.GOMAXPROCS(0)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	stopLog := make(chan struct{})
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopLog:
				return
			case <-t.C:
				mu.Lock()
				d := done
				mu.Unlock()
				g.log.Info("generating pods", "done", d, "of", n)
			}
		}
	}()
	const chunk = 1024
	for w := range workers {
		wg.Go(func() {
			for lo := w * chunk; lo < n; lo += workers * chunk {
				if ctx.Err() != nil {
					return
				}
				hi := min(lo+chunk, n)
				for i := lo; i < hi; i++ {
					out[i] = g.gen.Pod(i, base+1+uint64(i))
				}
				mu.Lock()
				done += hi - lo
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stopLog)
	<-logDone
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Run changes pods at g.rate per second from the testdata churn stream (about 80% updates, 10%
// deletes, 10% creates) until ctx ends.
func (g *generated) Run(ctx context.Context, c caches) error {
	if g.rate == 0 || g.empty {
		<-ctx.Done()
		return nil
	}
	churn := g.gen.NewChurn(1)
	pods := c["pods"]
	// Tick at most every 10 ms and apply the changes due since the start: the rate holds at any
	// value, without a timer per change.
	interval := max(10*time.Millisecond, time.Duration(float64(time.Second)/g.rate))
	t := time.NewTicker(interval)
	defer t.Stop()
	start, applied := time.Now(), 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			due := int(now.Sub(start).Seconds() * g.rate)
			if due <= applied {
				continue
			}
			if g.store != nil {
				for ; applied < due; applied++ {
					if err := g.storeChange(churn.Next(g.store.ResourceVersion() + 1)); err != nil {
						return fmt.Errorf("churn: %w", err)
					}
				}
				continue
			}
			for ; applied < due; applied++ {
				g.rv++
				ch := churn.Next(g.rv)
				if err := pods.Apply(watchcache.Event{Type: eventType(ch.Type), Object: ch.Object, ResourceVersion: g.rv}); err != nil {
					return fmt.Errorf("churn: %w", err)
				}
			}
			for name, other := range c {
				if name == "pods" {
					continue
				}
				if err := other.Apply(watchcache.Event{Type: watchcache.Bookmark, ResourceVersion: g.rv}); err != nil {
					return fmt.Errorf("progress of %s: %w", name, err)
				}
			}
		}
	}
}

// storeChange applies one churn change through the fake: a user may have deleted or changed the
// pod meanwhile, and the churn's change then simply wins.
func (g *generated) storeChange(ch testdata.Change) error {
	if ch.Type == testdata.Deleted {
		return g.store.Remove(podsGVR, ch.Namespace, ch.Name)
	}
	return g.store.Store(podsGVR, ch.Object)
}

func eventType(t testdata.ChangeType) watchcache.EventType {
	switch t {
	case testdata.Added:
		return watchcache.Added
	case testdata.Deleted:
		return watchcache.Deleted
	}
	return watchcache.Modified
}
