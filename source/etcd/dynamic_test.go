package etcd

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/watchcache/watchcache/watchcache"
)

// TestAddAndRemoveWhileRunning: a resource added while Run runs (a CRD created while serving) is
// listed and then watched like the others, consistent reads of its cache work (the progress
// requester knows it), and a removed one is no longer written, while the other feeds go on; the
// prefix may then be added again with a new cache.
func TestAddAndRemoveWhileRunning(t *testing.T) {
	cli := startEtcd(t)
	h := newFeed(t, cli, Options{})
	putWidget := func(name string) {
		t.Helper()
		obj := fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":%q,"namespace":"ns-a"}}`, name)
		if _, err := cli.Put(context.Background(), "/registry/example.com/widgets/ns-a/"+name, obj); err != nil {
			t.Fatal(err)
		}
	}
	widgets := func() *watchcache.Cache {
		return watchcache.New(watchcache.Options{
			Resource:               watchcache.Resource{Name: "widgets", Group: "example.com", Namespaced: true},
			CurrentResourceVersion: h.src.CurrentResourceVersion,
		})
	}
	for _, n := range []string{"w1", "w2", "w3"} {
		putWidget(n)
	}
	put(t, h.cli, h.gen, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.src.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	waitFor(t, "pods ready", func() bool { return h.cache.Ready() == nil })

	w := widgets()
	defer w.Stop()
	if err := h.src.Add("example.com/widgets", w); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "widgets listed", func() bool { return w.Ready() == nil && w.Len() == 3 })
	putWidget("w4")
	// A consistent read waits for etcd's current revision: the new cache must get there.
	res, err := w.List(context.Background(), watchcache.ListOptions{})
	if err != nil || len(res.Items) != 4 {
		t.Fatalf("consistent list of the added resource: %v items, %v; want 4", len(res.Items), err)
	}

	if err := h.src.Remove("example.com/widgets"); err != nil {
		t.Fatal(err)
	}
	putWidget("w5")
	rev := put(t, h.cli, h.gen, 1, 0)
	waitFor(t, "pods past the widget's write", func() bool { return h.cache.ResourceVersion() >= uint64(rev) })
	if w.Len() != 4 || w.ResourceVersion() >= uint64(rev) {
		t.Fatalf("removed feed still written: %d widgets at %d", w.Len(), w.ResourceVersion())
	}
	if err := h.src.Remove("example.com/widgets"); !errors.Is(err, ErrInvalidPrefix) {
		t.Fatalf("second Remove: %v, want ErrInvalidPrefix", err)
	}

	w2 := widgets()
	defer w2.Stop()
	if err := h.src.Add("example.com/widgets", w2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "widgets listed again", func() bool { return w2.Ready() == nil && w2.Len() == 5 })
	if res, err := h.cache.List(context.Background(), watchcache.ListOptions{}); err != nil || len(res.Items) != 2 {
		t.Fatalf("pods after the widget feeds came and went: %v, %v", res, err)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	done <- nil
	if err := h.src.Add("example.com/gadgets", widgets()); !errors.Is(err, ErrRunning) {
		t.Fatalf("Add after Run ended: %v, want ErrRunning", err)
	}
}
