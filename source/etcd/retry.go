package etcd

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff is a doubling delay with ±50% jitter between min and max, reset after a success.
// Jitter spreads the reconnects of many feeds (and many apiserver-less caches) after an etcd restart.
type backoff struct {
	min, max, next time.Duration
}

func newBackoff(min, max time.Duration) *backoff { return &backoff{min: min, max: max, next: min} }

func (b *backoff) reset() { b.next = b.min }

// wait sleeps for the next delay or until ctx ends; it reports whether ctx is still alive.
func (b *backoff) wait(ctx context.Context) bool {
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
