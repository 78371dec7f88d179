package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Defaults of the health probe (Options.HealthInterval, Options.HealthTimeout).
const (
	// DefaultHealthInterval is how often the running source checks that etcd answers. A watch
	// whose server went away neither fails nor closes (etcd's client re-dials and resumes it
	// silently), so without the probe an etcd outage is invisible to the source. One count-only
	// read of one key per second costs etcd nothing measurable.
	DefaultHealthInterval = time.Second
	// DefaultHealthTimeout bounds one probe: the apiserver's --etcd-healthcheck-timeout (2 s).
	DefaultHealthTimeout = 2 * time.Second
)

// errNeverListed: a resource whose first list has not completed.
var errNeverListed = errors.New("etcd: not listed yet")

// health is the source's view of whether etcd answers, kept by the probe loop (runHealth). Each
// transition is logged once and counted: lost (the first failed probe after a good one, or the
// first probe failing), retrying (the second failed probe of an outage: the source goes on trying,
// which is said once, not every second), regained (the first good probe after a loss).
type health struct {
	mu      sync.Mutex
	err     error     // the last probe's failure; nil while etcd answers
	since   time.Time // when err began
	retried bool      // the retrying transition of this outage was logged
}

// Health reports whether etcd answers the source: nil while the last probe succeeded (or no probe
// has run yet), else an error saying since when and why it does not. Stats counts the transitions
// (Lost, Regained). Health is safe for concurrent use.
func (s *Source) Health() error {
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	if s.health.err == nil {
		return nil
	}
	return fmt.Errorf("etcd unreachable since %s: %w", s.health.since.UTC().Format(time.RFC3339), s.health.err)
}

// Ready reports whether a resource (the resourcePrefix given to Add) is served from a working
// source: nil once its first list completed while etcd answers; else Health's error, or why its
// list has not completed. It is meant for a readiness check (serve's /readyz); reads from the cache
// go on meanwhile at what it holds. Ready is safe for concurrent use.
func (s *Source) Ready(resourcePrefix string) error {
	if err := s.Health(); err != nil {
		return err
	}
	f := s.feed(resourcePrefix)
	if f == nil {
		return fmt.Errorf("%w: %q was not added", ErrInvalidPrefix, resourcePrefix)
	}
	return f.listErr()
}

// feed returns the feed of a resource prefix, or nil.
func (s *Source) feed(resourcePrefix string) *feed {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.feeds {
		if f.resource == resourcePrefix {
			return f
		}
	}
	return nil
}

// setListErr records the outcome of a list: nil once one completed. Called by the feed's goroutine.
func (f *feed) setListErr(err error) {
	f.listMu.Lock()
	f.listed, f.lastListErr = f.listed || err == nil, err
	f.listMu.Unlock()
}

// listErr is nil once a list completed, else the last list's failure (errNeverListed before one).
func (f *feed) listErr() error {
	f.listMu.Lock()
	defer f.listMu.Unlock()
	switch {
	case f.listed:
		return nil
	case f.lastListErr != nil:
		return f.lastListErr
	}
	return errNeverListed
}

// runHealth probes etcd every Options.HealthInterval until ctx ends: a count-only Get of the path
// prefix key with Options.HealthTimeout, as the apiserver's etcd health check reads one key.
func (s *Source) runHealth(ctx context.Context) {
	t := time.NewTicker(s.opts.HealthInterval)
	defer t.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, s.opts.HealthTimeout)
		_, err := s.client.Get(pctx, s.revisionKey, clientv3.WithCountOnly())
		cancel()
		if ctx.Err() != nil {
			return
		}
		s.probed(err)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// probed records one probe's outcome, logging and counting a transition.
func (s *Source) probed(err error) {
	h := &s.health
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	switch {
	case err == nil && h.err != nil:
		s.stats.regained.Add(1)
		s.log.Info("etcd: connection regained", "endpoints", s.client.Endpoints(), "down", now.Sub(h.since).Round(time.Millisecond))
		h.err, h.retried = nil, false
	case err != nil && h.err == nil:
		s.stats.lost.Add(1)
		s.log.Warn("etcd: connection lost; consistent reads fail until it is back, reads at resourceVersion=0 serve what the caches hold",
			"endpoints", s.client.Endpoints(), "err", err)
		h.err, h.since = err, now
	case err != nil:
		h.err = err
		if !h.retried {
			h.retried = true
			s.log.Info("etcd: still unreachable; retrying", "every", s.opts.HealthInterval, "down", now.Sub(h.since).Round(time.Millisecond), "err", err)
		}
	}
}
