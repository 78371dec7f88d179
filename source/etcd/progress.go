package etcd

import (
	"context"
	"fmt"
	"path"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// CurrentResourceVersion returns etcd's current revision: the header revision of a Get on the path
// prefix key, as the apiserver's GetCurrentResourceVersion does (rule 1.8). It is meant for
// watchcache.Options.CurrentResourceVersion, so that a List with resourceVersion "" waits until the
// cache has seen every write made before the list started:
//
//	src := etcd.New(client, etcd.Options{})
//	pods := watchcache.New(watchcache.Options{
//		Resource:               watchcache.Resource{Name: "pods", Namespaced: true},
//		CurrentResourceVersion: src.CurrentResourceVersion,
//	})
//	src.Add("pods", pods)
//
// The revision is etcd-global: the last write may belong to another resource, and the cache would
// then only reach it with etcd's next progress notification (by default every 10 minutes). So each
// call also asks the running source to request progress from etcd every Options.ProgressInterval
// until every cache has reached the revision or Options.ProgressTimeout has passed (rule 3.3, the
// apiserver's ConditionalProgressRequester). The Get is linearizable: it costs one etcd round trip
// through the leader.
func (s *Source) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	resp, err := s.client.Get(ctx, path.Join("/", s.opts.PathPrefix), clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("etcd: current revision: %w", err)
	}
	if resp.Header.Revision <= 0 {
		return 0, ErrZeroRevision
	}
	rev := uint64(resp.Header.Revision)
	s.progress.want(rev)
	return rev, nil
}

// RequestProgress asks etcd once for a progress notification on the source's watches. Each watch
// that has delivered every event up to etcd's current revision receives one and applies it to its
// cache as a bookmark. CurrentResourceVersion already arranges this for consistent reads; call it
// directly to bring the caches' clocks forward for another reason (e.g. before comparing a cache
// with etcd in a test).
func (s *Source) RequestProgress(ctx context.Context) error {
	s.stats.progressRequests.Add(1)
	if err := s.client.RequestProgress(watchContext(ctx)); err != nil {
		return fmt.Errorf("etcd: request progress: %w", err)
	}
	return nil
}

// progressRequester requests progress notifications while a consistent read waits for a revision
// some cache has not reached. Waits are merged into one target (the highest revision wanted) and one
// deadline (the latest): requests stop once every ready cache reached the target or the deadline
// passed, so any number of concurrent reads cost one request per interval.
type progressRequester struct {
	s    *Source
	wake chan struct{}

	mu       sync.Mutex
	target   uint64
	deadline time.Time
}

func newProgressRequester(s *Source) *progressRequester {
	return &progressRequester{s: s, wake: make(chan struct{}, 1)}
}

// want registers a read waiting for rev.
func (p *progressRequester) want(rev uint64) {
	p.mu.Lock()
	p.target = max(p.target, rev)
	p.deadline = time.Now().Add(p.s.opts.ProgressTimeout)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// behind reports whether a ready cache is still below the target, and forgets the target once all
// reached it or its deadline passed.
func (p *progressRequester) behind() bool {
	p.mu.Lock()
	target, deadline := p.target, p.deadline
	p.mu.Unlock()
	if target == 0 {
		return false
	}
	lagging := false
	if time.Now().Before(deadline) {
		for _, c := range p.s.caches() {
			if c.Ready() == nil && c.ResourceVersion() < target {
				lagging = true
				break
			}
		}
	}
	if !lagging {
		p.mu.Lock()
		if p.target == target { // no newer want in between
			p.target = 0
		}
		p.mu.Unlock()
	}
	return lagging
}

// run requests progress every interval while some cache is behind, and sleeps otherwise.
func (p *progressRequester) run(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		if !p.behind() {
			select {
			case <-ctx.Done():
				return
			case <-p.wake:
				continue
			}
		}
		if err := p.s.RequestProgress(ctx); err != nil && ctx.Err() == nil {
			p.s.log.Debug("etcd: progress request failed", "err", err)
		}
		t.Reset(p.s.opts.ProgressInterval)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
