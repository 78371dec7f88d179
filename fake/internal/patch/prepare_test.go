package patch

import (
	"sync"
	"testing"
	"time"
)

// TestPrepare checks that WaitPrepared does not block a Patcher that was never prepared, and that
// after Prepare it returns once the background build has ended, with the converter in place for
// a managedFields update, however many goroutines prepare and wait at once.
func TestPrepare(t *testing.T) {
	p := newPatcher(t)
	done := make(chan struct{})
	go func() { p.WaitPrepared(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("WaitPrepared blocked on a Patcher that was never prepared")
	}

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			p.Prepare()
			p.WaitPrepared()
		})
	}
	wg.Wait()
	select {
	case <-p.prepared:
	default:
		t.Fatal("WaitPrepared returned before the build Prepare started ended")
	}
	stored := created(t, p)
	if _, err := p.Update(stored, stored, deploymentGVK, "", "test"); err != nil {
		t.Fatal(err)
	}
}
