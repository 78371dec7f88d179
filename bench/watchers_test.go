package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"

	"github.com/watchcache/watchcache/bench/peers"
	"github.com/watchcache/watchcache/watchcache"
)

// watchPool is one node-filtered watcher per node, each drained by its own goroutine, as kubelets
// watch their pods. received counts object events; ended counts watchers whose stream ended or
// sent an error (none should, while the pool is in use).
type watchPool struct {
	received, ended atomic.Int64
	stop            []func()
}

func (p *watchPool) Stop() {
	for _, s := range p.stop {
		s()
	}
}

// wait blocks until target events were received in total.
func (p *watchPool) wait(target int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for p.received.Load() < target {
		if e := p.ended.Load(); e > 0 {
			return fmt.Errorf("%d watchers ended; received %d of %d events", e, p.received.Load(), target)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timeout: received %d of %d events", p.received.Load(), target)
		}
		time.Sleep(20 * time.Microsecond)
	}
	return nil
}

// oursWatchers starts one watcher per node on c, from c's current RV (no initial events).
func oursWatchers(ctx context.Context, c *watchcache.Cache, nodes int) (*watchPool, error) {
	p := &watchPool{}
	rv := strconv.FormatUint(c.ResourceVersion(), 10)
	for j := range nodes {
		w, err := c.Watch(ctx, watchcache.WatchOptions{FieldSelector: "spec.nodeName=node-" + strconv.Itoa(j), ResourceVersion: rv})
		if err != nil {
			p.Stop()
			return nil, err
		}
		p.stop = append(p.stop, w.Stop)
		go func() {
			for ev := range w.Events() {
				if ev.Type == watchcache.Error {
					p.ended.Add(1)
					continue
				}
				p.received.Add(1)
			}
			p.ended.Add(1)
		}()
	}
	return p, nil
}

// cacherWatchers starts one watcher per node on the apiserver cache at rv, with the pod
// registry's predicate (spec.nodeName is the trigger, so each event reaches only its node's watchers).
func cacherWatchers(ctx context.Context, c *peers.Cacher, rv string, nodes int) (*watchPool, error) {
	p := &watchPool{}
	for j := range nodes {
		pred, err := peers.Predicate(peers.Query{FieldSelector: "spec.nodeName=node-" + strconv.Itoa(j)})
		if err != nil {
			return nil, err
		}
		w, err := c.Delegator.Watch(ctx, peers.ResourcePrefix, storage.ListOptions{ResourceVersion: rv, Predicate: pred, Recursive: true})
		if err != nil {
			p.Stop()
			return nil, err
		}
		p.stop = append(p.stop, w.Stop)
		go func() {
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					p.ended.Add(1)
					continue
				}
				p.received.Add(1)
			}
			p.ended.Add(1)
		}()
	}
	return p, nil
}
