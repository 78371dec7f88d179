package fake_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// TestConcurrentWrites runs 16 writers at once against one server: merge patches of one shared
// object (each adds a key of its own: a patch is an atomic read-modify-write, so none may be lost
// or refused), get-and-update of one shared counter with optimistic concurrency (a stale
// resourceVersion is a 409 and the writer retries, so the counter ends at the number of
// increments), and creates and updates of objects of their own. A watch from before the first
// write must see every write once, in resourceVersion order.
func TestConcurrentWrites(t *testing.T) {
	const writers, perWriter = 16, 5
	srv := fake.NewTest(t, fake.Options{})
	cs, err := kubernetes.NewForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps("default")
	for _, name := range []string{"shared", "counter"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"n": "0"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	start := strconv.FormatUint(srv.ResourceVersion(), 10)
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: start})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	var wg sync.WaitGroup
	errs := make(chan error, writers*4)
	for i := range writers {
		wg.Go(func() { // patches of the shared object
			for j := range perWriter {
				p := fmt.Sprintf(`{"data":{"w%d-%d":"x"}}`, i, j)
				if _, err := cms.Patch(ctx, "shared", types.MergePatchType, []byte(p), metav1.PatchOptions{}); err != nil {
					errs <- fmt.Errorf("patch %d/%d: %w", i, j, err)
					return
				}
			}
		})
		wg.Go(func() { // optimistic increments of the counter
			for range perWriter {
				for {
					cm, err := cms.Get(ctx, "counter", metav1.GetOptions{})
					if err != nil {
						errs <- err
						return
					}
					n, _ := strconv.Atoi(cm.Data["n"])
					cm.Data["n"] = strconv.Itoa(n + 1)
					if _, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err == nil {
						break
					}
					if !apierrors.IsConflict(err) {
						errs <- err
						return
					}
				}
			}
		})
		wg.Go(func() { // an object of its own
			name := fmt.Sprint("own-", i)
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
				errs <- err
				return
			}
			for j := range perWriter {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"j": strconv.Itoa(j)}}
				if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	shared, err := cms.Get(ctx, "shared", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(shared.Data)-1, writers*perWriter; got != want {
		t.Errorf("shared object keeps %d of %d patches", got, want)
	}
	counter, err := cms.Get(ctx, "counter", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := counter.Data["n"], strconv.Itoa(writers*perWriter); got != want {
		t.Errorf("counter is %s after %s increments", got, want)
	}

	// Every write is one event: patches, increments, creates and updates of own objects.
	want := writers*perWriter*2 + writers*(perWriter+1)
	if got := srv.ResourceVersion() - mustUint(t, start); got != uint64(want) {
		t.Errorf("%d resourceVersions given out for %d writes", got, want)
	}
	var last uint64
	for n := 0; n < want; n++ {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch ended after %d of %d events", n, want)
			}
			if ev.Type != watch.Added && ev.Type != watch.Modified {
				t.Fatalf("event %d: %s %v", n, ev.Type, ev.Object)
			}
			rv := mustUint(t, ev.Object.(*corev1.ConfigMap).ResourceVersion)
			if rv <= last {
				t.Fatalf("event %d at resourceVersion %d after %d", n, rv, last)
			}
			last = rv
		case <-ctx.Done():
			t.Fatalf("%d of %d events seen", n, want)
		}
	}
	if last != srv.ResourceVersion() {
		t.Errorf("last event at %d, server at %d", last, srv.ResourceVersion())
	}
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
