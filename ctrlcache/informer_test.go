package ctrlcache_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// counter is an event handler that counts its calls by kind, and the updates that are resyncs
// (the same resourceVersion before and after).
type counter struct {
	mu                                      sync.Mutex
	adds, initial, updates, resyncs, delete int
	untyped                                 int // objects that were not *corev1.Pod
}

func (c *counter) OnAdd(o any, initial bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := o.(*corev1.Pod); !ok {
		c.untyped++
	}
	c.adds++
	if initial {
		c.initial++
	}
}

func (c *counter) OnUpdate(old, o any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates++
	if old.(*corev1.Pod).ResourceVersion == o.(*corev1.Pod).ResourceVersion {
		c.resyncs++
	}
}

func (c *counter) OnDelete(any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.delete++
}

func (c *counter) get() (adds, initial, updates, resyncs, deletes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.adds, c.initial, c.updates, c.resyncs, c.delete
}

// typedPods reports whether every object c was given was a *corev1.Pod.
func typedPods(c *counter) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.untyped == 0
}

// waitFor polls cond until it holds or d has passed, and reports whether it held.
func waitFor(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// TestInformerAgainstControllerRuntime runs the informer calls of cache.Informer against
// controller-runtime's informer cache and this one on the same server, and requires the same
// outcome: AddEventHandlerWithOptions delivers the initial list and its registration's
// HasSyncedChecker closes; HasSyncedChecker and IsStopped follow the informer's life;
// RemoveEventHandler stops the calls of the removed handler only; cache.Options.SyncPeriod makes the
// handlers' resync updates; GetInformerForKind gives the kind's typed informer; AddIndexers after
// the informer started is accepted (client-go allows it); objects a read returns are the caller's
// to mutate.
func TestInformerAgainstControllerRuntime(t *testing.T) {
	const pods = 60
	cl := newCluster(t, pods)
	cases := []struct {
		name string
		opts cache.Options
		// check exercises the informer of pods of a started and synced cache and returns its
		// outcome, which must be the same for both caches. stop stops the cache.
		check func(t *testing.T, c cache.Cache, inf cache.Informer, stop func()) string
	}{
		{name: "AddEventHandlerWithOptions and its registration's HasSyncedChecker", check: func(t *testing.T, _ cache.Cache, inf cache.Informer, _ func()) string {
			h := &counter{}
			reg, err := inf.AddEventHandlerWithOptions(h, toolscache.HandlerOptions{ResyncPeriod: ptr.To(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-reg.HasSyncedChecker().Done():
			case <-time.After(20 * time.Second):
				t.Fatal("the registration's HasSyncedChecker did not close")
			}
			adds, initial, updates, _, deletes := h.get()
			return fmt.Sprintf("synced=%v adds=%d initial=%d updates=%d deletes=%d", reg.HasSynced(), adds, initial, updates, deletes)
		}},
		{name: "HasSyncedChecker and IsStopped", check: func(t *testing.T, _ cache.Cache, inf cache.Informer, stop func()) string {
			ch := inf.HasSyncedChecker()
			closed := false
			select {
			case <-ch.Done():
				closed = true
			case <-time.After(20 * time.Second):
			}
			running := !inf.IsStopped()
			stop()
			stopped := waitFor(20*time.Second, inf.IsStopped)
			return fmt.Sprintf("synced checker closed=%v, running=%v, stopped after the cache stops=%v", closed, running, stopped)
		}},
		{name: "RemoveEventHandler", check: func(t *testing.T, _ cache.Cache, inf cache.Informer, _ func()) string {
			removed, kept := &counter{}, &counter{}
			reg, err := inf.AddEventHandler(removed)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := inf.AddEventHandler(kept); err != nil {
				t.Fatal(err)
			}
			if !toolscache.WaitForCacheSync(t.Context().Done(), reg.HasSynced) {
				t.Fatal("handler not synced")
			}
			if err := inf.RemoveEventHandler(reg); err != nil {
				t.Fatal(err)
			}
			a0, _, u0, _, d0 := removed.get()
			_, listed, _, _, _ := kept.get()
			cl.step(t, 20) // one call per change for a handler that is registered
			if !waitFor(20*time.Second, func() bool { a, _, u, _, d := kept.get(); return a+u+d >= listed+20 }) {
				a, _, u, _, d := kept.get()
				t.Fatalf("the kept handler saw %d calls, want %d", a+u+d, listed+20)
			}
			a1, _, u1, _, d1 := removed.get()
			return fmt.Sprintf("removed handler's calls after removal: %d", a1+u1+d1-(a0+u0+d0))
		}},
		{name: "SyncPeriod", opts: cache.Options{SyncPeriod: ptr.To(time.Second)}, check: func(t *testing.T, _ cache.Cache, inf cache.Informer, _ func()) string {
			h := &counter{}
			reg, err := inf.AddEventHandler(h)
			if err != nil {
				t.Fatal(err)
			}
			if !toolscache.WaitForCacheSync(t.Context().Done(), reg.HasSynced) {
				t.Fatal("handler not synced")
			}
			_, listed, _, _, _ := h.get()
			// client-go's minimum resync period is 1 s, and controller-runtime adds up to 10% jitter.
			got := waitFor(10*time.Second, func() bool { _, _, _, r, _ := h.get(); return r >= listed })
			return fmt.Sprintf("a resync update of every pod within 10 s: %v", got)
		}},
		{name: "GetInformerForKind", check: func(t *testing.T, c cache.Cache, _ cache.Informer, _ func()) string {
			inf, err := c.GetInformerForKind(context.Background(), corev1.SchemeGroupVersion.WithKind("Pod"))
			if err != nil {
				t.Fatal(err)
			}
			h := &counter{}
			reg, err := inf.AddEventHandler(h)
			if err != nil {
				t.Fatal(err)
			}
			if !toolscache.WaitForCacheSync(t.Context().Done(), reg.HasSynced) {
				t.Fatal("handler not synced")
			}
			adds, initial, _, _, _ := h.get()
			return fmt.Sprintf("typed pods: %v, adds=%d initial=%d", typedPods(h), adds, initial)
		}},
		{name: "AddIndexers after start", check: func(t *testing.T, _ cache.Cache, inf cache.Informer, _ func()) string {
			err := inf.AddIndexers(toolscache.Indexers{"by-node": func(o any) ([]string, error) { return []string{o.(*corev1.Pod).Spec.NodeName}, nil }})
			return fmt.Sprintf("error: %v", err)
		}},
		{name: "returned objects are the caller's", check: func(t *testing.T, c cache.Cache, _ cache.Informer, _ func()) string {
			return mutateAndRead(t, c, cl)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var outcomes [2]string
			for i, im := range impls {
				opts := tc.opts
				opts.Scheme = scheme.Scheme
				c := im.make(t, cl, opts)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- c.Start(ctx) }()
				var once sync.Once
				stop := func() {
					once.Do(func() {
						cancel()
						if err := <-done; err != nil {
							t.Errorf("%s: Start: %v", im.name, err)
						}
					})
				}
				t.Cleanup(stop)
				if !c.WaitForCacheSync(ctx) {
					t.Fatalf("%s: cache did not sync", im.name)
				}
				inf, err := c.GetInformer(ctx, &corev1.Pod{})
				if err != nil {
					t.Fatal(err)
				}
				outcomes[i] = tc.check(t, c, inf, stop)
			}
			if outcomes[0] != outcomes[1] {
				t.Fatalf("differ:\ncontroller-runtime %s\nctrlcache          %s", outcomes[0], outcomes[1])
			}
			t.Log(outcomes[1])
		})
	}
}

// mutateAndRead changes the labels of the pod a Get returned and of the items a List returned,
// then reads them again: the cache must answer what the server holds.
func mutateAndRead(t *testing.T, c cache.Cache, cl *cluster) string {
	ctx := context.Background()
	key := client.ObjectKey{Namespace: cl.gen.PodNamespace(0), Name: cl.gen.PodName(0)}
	p := &corev1.Pod{}
	if err := c.Get(ctx, key, p); err != nil {
		t.Fatal(err)
	}
	if p.Labels == nil {
		t.Fatal("pod 0 has no labels")
	}
	p.Labels["mutated"] = "by-get"
	l := &corev1.PodList{}
	if err := c.List(ctx, l, client.InNamespace(key.Namespace)); err != nil {
		t.Fatal(err)
	}
	for i := range l.Items {
		l.Items[i].Labels["mutated"] = "by-list"
		l.Items[i].Spec.NodeName = "mutated"
	}
	again := &corev1.Pod{}
	if err := c.Get(ctx, key, again); err != nil {
		t.Fatal(err)
	}
	l2 := &corev1.PodList{}
	if err := c.List(ctx, l2, client.InNamespace(key.Namespace)); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, it := range l2.Items {
		if it.Labels["mutated"] != "" || it.Spec.NodeName == "mutated" {
			seen++
		}
	}
	return fmt.Sprintf("mutation seen by a later Get: %q; by a later List: %d of %d items", again.Labels["mutated"], seen, len(l2.Items))
}

// TestUnsafeDisableDeepCopy: with cache.Options.DefaultUnsafeDisableDeepCopy, controller-runtime's
// cache hands out its own objects, so a caller's change to a returned pod's labels is seen by the
// next read; this cache decodes every read from the stored JSON, so it never is (there is no copy
// to disable, and nothing a caller does reaches the cache).
func TestUnsafeDisableDeepCopy(t *testing.T) {
	cl := newCluster(t, 40)
	var got [2]string
	for i, im := range impls {
		c := im.make(t, cl, cache.Options{Scheme: scheme.Scheme, DefaultUnsafeDisableDeepCopy: ptr.To(true)})
		run(t, c.Start, c.WaitForCacheSync)
		got[i] = mutateAndRead(t, c, cl)
		t.Logf("%s: %s", im.name, got[i])
	}
	const isolated = `mutation seen by a later Get: ""; by a later List: 0 of `
	if len(got[1]) < len(isolated) || got[1][:len(isolated)] != isolated {
		t.Fatalf("ctrlcache: %s; want no mutation seen", got[1])
	}
	if got[0] == got[1] {
		t.Fatalf("controller-runtime with DefaultUnsafeDisableDeepCopy: %s; want its shared objects' mutation seen (the difference this test documents)", got[0])
	}
}
