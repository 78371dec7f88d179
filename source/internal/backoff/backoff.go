// Package backoff is the retry delay shared by the sources: doubling with ±50% jitter between a
// minimum and a maximum, reset after a success. Jitter spreads the reconnects of many feeds after
// their server (etcd, an apiserver) restarts.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is a doubling delay; not safe for concurrent use (one per retry loop).
type Backoff struct {
	min, max, next time.Duration
}

// New returns a Backoff starting at min and growing to max.
func New(min, max time.Duration) *Backoff { return &Backoff{min: min, max: max, next: min} }

// Reset starts the delays over from min, after a success.
func (b *Backoff) Reset() { b.next = b.min }

// Wait sleeps for the next delay or until ctx ends; it reports whether ctx is still alive.
func (b *Backoff) Wait(ctx context.Context) bool {
	d := b.next/2 + rand.N(b.next)
	b.next = min(2*b.next, b.max)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
