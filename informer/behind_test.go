package informer_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/informer"
	"github.com/watchcache/watchcache/watchcache"
)

// countingHandler counts log records whose message contains a substring.
type countingHandler struct {
	slog.Handler
	substr string
	n      *atomic.Int64
}

func (h countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countingHandler) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.substr) {
		h.n.Add(1)
	}
	return nil
}
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }

// pointers records the objects each OnUpdate got, by resourceVersion.
type pointers struct {
	mu  sync.Mutex
	got map[string]any
}

func (p *pointers) OnAdd(any, bool) {}
func (p *pointers) OnUpdate(_, obj any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got[obj.(*corev1.Pod).ResourceVersion] = obj
}
func (p *pointers) OnDelete(any) {}

// TestFallingBehindLosesNothing: the informer's watch of its cache has a queue of two events, so
// under a burst it falls behind and is closed (watchcache.ErrWatcherBehind); it watches again from
// its last resourceVersion, and its handler still ends with exactly the server's state, without a
// lost or repeated call. Two handlers get the same decoded object for each event.
func TestFallingBehindLosesNothing(t *testing.T) {
	c := newCluster(t, 100, watchcache.Options{})
	cs, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var behind atomic.Int64
	log := slog.New(countingHandler{substr: "fell behind", n: &behind})
	inf := informer.New(cs.CoreV1().RESTClient(),
		informer.FeedOptions{Resource: "pods", Namespaced: true, Cache: watchcache.Options{WatchBuffer: 2}},
		informer.Options{Decode: informer.Typed(func() runtime.Object { return &corev1.Pod{} }), Logger: log})
	rec := newRecorder()
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	p1, p2 := &pointers{got: map[string]any{}}, &pointers{got: map[string]any{}}
	for _, h := range []cache.ResourceEventHandler{p1, p2} {
		if _, err := inf.AddEventHandler(h); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	for range 20 {
		c.step(t, 50)
	}
	waitFor(t, "the handler to converge", func() bool { return slices.Equal(rec.keys(), c.state(t)) })
	if len(rec.problems) > 0 {
		t.Fatalf("problems: %v", rec.problems)
	}
	if behind.Load() == 0 {
		t.Fatal("the informer never fell behind: the test did not exercise the re-watch")
	}
	p1.mu.Lock()
	p2.mu.Lock()
	defer p1.mu.Unlock()
	defer p2.mu.Unlock()
	shared := 0
	for rv, o := range p1.got {
		if p2.got[rv] != o {
			t.Fatalf("event at %s: the handlers got different objects", rv)
		}
		shared++
	}
	if shared == 0 {
		t.Fatal("no updates")
	}
	t.Logf("fell behind %d times; %d updates shared by both handlers", behind.Load(), shared)
}
