package rvclock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/watchcache/watchcache/rvclock"
)

func Example() {
	ctx := context.Background()
	c := rvclock.New(rvclock.Options{WaitTimeout: 10 * time.Millisecond})
	fmt.Println(c.State(), c.Ready())

	// The feeder's first list completed at RV 100.
	c.Reset(100)
	fmt.Println(c.State(), c.Current())

	// A reader asks for RV 105, which the feeder applies a moment later.
	done := make(chan uint64)
	go func() {
		rv, _ := c.WaitFor(ctx, 105)
		done <- rv
	}()
	_ = c.Advance(105)
	fmt.Println(<-done)

	// Nobody produces RV 200: the wait times out (rule 3.4).
	_, err := c.WaitFor(ctx, 200)
	fmt.Println(err)

	// The etcd watch ends: reads must wait for the re-list (rule 3.6).
	c.SetPending(errors.New("watch closed"))
	fmt.Println(c.Ready())

	c.Stop()
	_, err = c.WaitFor(ctx, 1)
	fmt.Println(err)

	// Output:
	// Pending storage is (re)initializing
	// Ready 100
	// 105
	// Too large resource version: 200, current: 105
	// storage is (re)initializing: watch closed
	// apiserver cacher is stopped
}
