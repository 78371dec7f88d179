package main

import (
	"context"
	"path"
	"reflect"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// registrar serves and stops serving resources while serve runs: kubeapi.Server does both.
type registrar interface {
	Register(info kubeapi.ResourceInfo, c *watchcache.Cache) error
	Unregister(group, version, resource string) error
}

// follower is implemented by sources that follow the resources they serve while serving (CRDs
// created and deleted).
type follower interface {
	follow(ctx context.Context, reg registrar)
}

// followed is a custom resource served since a CRD appeared after start.
type followed struct {
	cr    customResource
	cache *watchcache.Cache
}

// crdRetry is the pause before the CRD watch starts again after it failed (etcd unreachable, or
// the watch's revision compacted: the state is then read again in full).
const crdRetry = time.Second

// follow watches the CRDs in etcd from the revision they were read at, and serves the custom
// resources of CRDs that become Established, stops serving those of CRDs deleted or no longer
// Established, and serves again those whose versions, columns or selectableFields changed — as the
// apiextensions apiserver starts and stops serving them, those served from start included. With
// --resources, no CRD is followed (the list names what to serve).
func (f *etcdFeed) follow(ctx context.Context, reg registrar) {
	if f.narrowed {
		f.log.Info("CRDs are not followed: --resources names what is served")
		return
	}
	f.mu.Lock()
	if f.closed || f.cancel == nil {
		f.mu.Unlock()
		return
	}
	// The watch ends with serve's context or with Close, whichever comes first.
	fctx, cancel := context.WithCancel(f.runCtx)
	stop := context.AfterFunc(ctx, cancel)
	f.wg.Go(func() {
		defer stop()
		defer cancel()
		f.runFollow(fctx, reg)
		f.unfollowAll(reg)
	})
	f.mu.Unlock()
}

func (f *etcdFeed) runFollow(ctx context.Context, reg registrar) {
	key := path.Join(f.prefix, crdPrefix) + "/"
	rev := f.crdRev
	for ctx.Err() == nil {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		ch := f.cli.Watch(wctx, key, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
		for resp := range ch {
			if err := resp.Err(); err != nil {
				f.log.Warn("CRD watch ended; reading the CRDs again", "err", err)
				break
			}
			if len(resp.Events) > 0 {
				rev = resp.Header.Revision
				f.reconcile(ctx, reg)
			}
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(crdRetry):
		}
		// Whatever was missed while the watch was down: read the whole state, watch from it.
		if r, ok := f.reconcile(ctx, reg); ok {
			rev = r
		}
	}
}

// reconcile reads every CRD and makes the followed resources match them. It returns the revision
// of the read, and false when etcd could not be read.
func (f *etcdFeed) reconcile(ctx context.Context, reg registrar) (int64, bool) {
	rctx, cancel := context.WithTimeout(ctx, etcdCheckTimeout)
	crs, rev, err := customResources(rctx, f.cli, f.prefix, f.transform, f.log)
	cancel()
	if err != nil {
		f.log.Warn("cannot read the CRDs", "err", err)
		return 0, false
	}
	static := map[string]bool{} // the built-in resources; custom ones are all followed
	for _, r := range f.resources {
		k := cacheKey(r.Resource, r.Group)
		if _, custom := f.customs[k]; !custom {
			static[k] = true
		}
	}
	want := map[string]customResource{}
	for _, cr := range crs {
		if k := cacheKey(cr.Resource.Resource, cr.Group); !static[k] {
			want[k] = cr
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return rev, true
	}
	for k, fl := range f.dynamic {
		if cr, ok := want[k]; !ok || cr.Version != fl.cr.Version || cr.Namespaced != fl.cr.Namespaced || !reflect.DeepEqual(cr.versions, fl.cr.versions) {
			f.unfollowLocked(reg, k)
		}
	}
	for k, cr := range want {
		if f.dynamic[k] == nil {
			f.followLocked(reg, k, cr)
		}
	}
	return rev, true
}

// followLocked starts serving cr. The caller holds f.mu.
func (f *etcdFeed) followLocked(reg registrar, key string, cr customResource) {
	s, err := cr.schema()
	if err != nil {
		f.log.Warn("custom resource not served", "resource", cr.Resource.Resource, "group", cr.Group, "err", err)
		return
	}
	infos, err := cr.infos()
	if err != nil {
		f.log.Warn("custom resource not served", "resource", cr.Resource.Resource, "group", cr.Group, "err", err)
		return
	}
	opts := watchcache.Options{Resource: watchcache.Resource{Name: cr.Resource.Resource, Group: cr.Group, Namespaced: cr.Namespaced}}
	f.feedOptions(&opts, cr.Prefix, s)
	c := watchcache.New(opts)
	for i, info := range infos {
		if err := reg.Register(info, c); err != nil {
			for _, done := range infos[:i] {
				_ = reg.Unregister(done.Group, done.Version, done.Resource)
			}
			c.Stop()
			f.log.Warn("custom resource not served", "resource", cr.Resource.Resource, "group", cr.Group, "version", info.Version, "err", err)
			return
		}
	}
	if err := f.src.Add(cr.Prefix, c); err != nil {
		for _, info := range infos {
			_ = reg.Unregister(info.Group, info.Version, info.Resource)
		}
		c.Stop()
		f.log.Warn("custom resource not served", "resource", cr.Resource.Resource, "group", cr.Group, "err", err)
		return
	}
	if f.dynamic == nil {
		f.dynamic = map[string]*followed{}
	}
	f.dynamic[key] = &followed{cr: cr, cache: c}
	f.log.Info("serving a custom resource of a new CRD", "resource", cr.Resource.Resource, "group", cr.Group, "storageVersion", cr.Version, "versions", len(cr.versions))
}

// unfollowLocked stops serving a followed resource: its paths answer 404 and its watches end. The
// caller holds f.mu.
func (f *etcdFeed) unfollowLocked(reg registrar, key string) {
	fl := f.dynamic[key]
	delete(f.dynamic, key)
	for _, v := range fl.cr.versions {
		_ = reg.Unregister(fl.cr.Group, v.name, fl.cr.Resource.Resource)
	}
	_ = f.src.Remove(fl.cr.Prefix)
	fl.cache.Stop()
	f.log.Info("no longer serving a custom resource: its CRD was deleted or changed", "resource", fl.cr.Resource.Resource, "group", fl.cr.Group)
}

// unfollowAll stops every followed resource's cache when serve stops.
func (f *etcdFeed) unfollowAll(reg registrar) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k := range f.dynamic {
		f.unfollowLocked(reg, k)
	}
}
