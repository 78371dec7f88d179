package informer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/informer"
	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// cluster is a pods cache served by kubeapi, changed by a deterministic churn.
type cluster struct {
	pods  *watchcache.Cache
	churn *testdata.Churn
	rv    uint64
	cfg   *rest.Config
	gate  *gate
	srv   *httptest.Server
}

func newCluster(t *testing.T, pods int, opts watchcache.Options) *cluster {
	t.Helper()
	gen := testdata.New(testdata.Config{Pods: pods, Namespaces: 4, Nodes: 10, Seed: 7})
	opts.Resource = watchcache.Resource{Name: "pods", Namespaced: true}
	c := &cluster{pods: watchcache.New(opts), churn: gen.NewChurn(3), rv: 1000}
	objs := make([][]byte, pods)
	for i := range objs {
		objs[i] = gen.Pod(i, uint64(1+i))
	}
	if err := c.pods.Replace(objs, c.rv); err != nil {
		t.Fatal(err)
	}
	api := kubeapi.NewServer(kubeapi.Options{})
	info, _ := kubeapi.CoreResource("pods")
	if err := api.Register(info, c.pods); err != nil {
		t.Fatal(err)
	}
	c.gate = &gate{next: api}
	srv := httptest.NewServer(c.gate)
	c.srv = srv
	transport := &http.Transport{}
	c.cfg = &rest.Config{Host: srv.URL, QPS: -1, Transport: transport}
	t.Cleanup(func() {
		c.pods.Stop()
		srv.CloseClientConnections()
		srv.Close()
		transport.CloseIdleConnections()
	})
	return c
}

// step makes n changes, with RV gaps as etcd's revisions have.
func (c *cluster) step(t *testing.T, n int) {
	t.Helper()
	for range n {
		c.rv += 1 + c.rv%3
		ch := c.churn.Next(c.rv)
		typ := []watchcache.EventType{watchcache.Added, watchcache.Modified, watchcache.Deleted}[ch.Type]
		if err := c.pods.Apply(watchcache.Event{Type: typ, Object: ch.Object, ResourceVersion: c.rv}); err != nil {
			t.Fatal(err)
		}
	}
}

// state is "ns/name@rv" of every pod the cluster holds.
func (c *cluster) state(t *testing.T) []string {
	t.Helper()
	res, err := c.pods.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res.Items))
	for i, raw := range res.Items {
		p, err := informer.Typed(func() runtime.Object { return &corev1.Pod{} })(raw)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = keyRV(p)
	}
	sort.Strings(out)
	return out
}

func keyRV(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("not an object: %T", obj)
	}
	return m.GetNamespace() + "/" + m.GetName() + "@" + m.GetResourceVersion()
}

// gate holds watch requests while closed, in front of the façade, so that a client's resourceVersion
// can be made to leave the window.
type gate struct {
	next http.Handler
	mu   sync.Mutex
	ch   chan struct{}
	held int
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("watch") == "true" {
		g.mu.Lock()
		ch := g.ch
		if ch != nil {
			g.held++
		}
		g.mu.Unlock()
		if ch != nil {
			select {
			case <-ch:
			case <-r.Context().Done():
				return
			}
		}
	}
	g.next.ServeHTTP(w, r)
}

func (g *gate) close() {
	g.mu.Lock()
	g.ch, g.held = make(chan struct{}), 0
	g.mu.Unlock()
}

func (g *gate) open() {
	g.mu.Lock()
	close(g.ch)
	g.ch = nil
	g.mu.Unlock()
}

func (g *gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// recorder is a handler that keeps what it was told, as a model store.
type recorder struct {
	mu       sync.Mutex
	store    map[string]string // ns/name → rv
	initial  int
	adds     int
	updates  int
	deletes  int
	unknown  int // DeletedFinalStateUnknown
	problems []string
}

func newRecorder() *recorder { return &recorder{store: map[string]string{}} }

func (r *recorder) OnAdd(obj any, initial bool) {
	p := obj.(*corev1.Pod)
	r.mu.Lock()
	defer r.mu.Unlock()
	k := p.Namespace + "/" + p.Name
	if _, ok := r.store[k]; ok {
		r.problems = append(r.problems, "add of a held key "+k)
	}
	r.store[k] = p.ResourceVersion
	r.adds++
	if initial {
		r.initial++
	}
}

func (r *recorder) OnUpdate(old, obj any) {
	o, p := old.(*corev1.Pod), obj.(*corev1.Pod)
	r.mu.Lock()
	defer r.mu.Unlock()
	k := p.Namespace + "/" + p.Name
	if r.store[k] != o.ResourceVersion {
		r.problems = append(r.problems, fmt.Sprintf("update of %s from %s, held %s", k, o.ResourceVersion, r.store[k]))
	}
	r.store[k] = p.ResourceVersion
	r.updates++
}

func (r *recorder) OnDelete(obj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var k string
	switch o := obj.(type) {
	case *corev1.Pod:
		k = o.Namespace + "/" + o.Name
	case cache.DeletedFinalStateUnknown:
		k = o.Key
		r.unknown++
		if p, ok := o.Obj.(*corev1.Pod); !ok || p.Namespace+"/"+p.Name != k {
			r.problems = append(r.problems, fmt.Sprintf("tombstone %s with %T", k, o.Obj))
		}
	default:
		r.problems = append(r.problems, fmt.Sprintf("delete of %T", obj))
		return
	}
	if _, ok := r.store[k]; !ok {
		r.problems = append(r.problems, "delete of an unknown key "+k)
	}
	delete(r.store, k)
	r.deletes++
}

func (r *recorder) keys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.store))
	for k, rv := range r.store {
		out = append(out, k+"@"+rv)
	}
	sort.Strings(out)
	return out
}

// waitFor polls cond. The bound is generous because the race build on two shared cores runs the
// thousand-event tests in ≈25 s (5 s without -race).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func listerState(t *testing.T, l corelisters.PodLister) []string {
	t.Helper()
	pods, err := l.List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = keyRV(p)
	}
	sort.Strings(out)
	return out
}

// TestListersAndHandlers: a factory informer syncs (cache.WaitForCacheSync), client-go's typed
// PodLister reads it, its handlers get the initial list with isInInitialList and then every change
// of the server once, in order, and a handler added late first gets the objects held.
func TestListersAndHandlers(t *testing.T) {
	c := newCluster(t, 200, watchcache.Options{})
	f := informer.NewFactory(c.cfg, informer.FactoryOptions{})
	inf, err := f.InformerFor(&corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	byNode := func(obj any) ([]string, error) { return []string{obj.(*corev1.Pod).Spec.NodeName}, nil }
	if err := inf.AddIndexers(cache.Indexers{"node": byNode, cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}); err != nil {
		t.Fatal(err)
	}
	early := newRecorder()
	reg, err := inf.AddEventHandler(early)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	defer f.Shutdown()
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced, reg.HasSynced) {
		t.Fatal("not synced")
	}
	lister := corelisters.NewPodLister(inf.GetIndexer())
	want := c.state(t)
	if got := listerState(t, lister); !slices.Equal(got, want) {
		t.Fatalf("lister has %d pods, server %d", len(got), len(want))
	}
	if got := early.keys(); !slices.Equal(got, want) || early.initial != len(want) {
		t.Fatalf("handler got %d objects (%d initial), want %d", len(got), early.initial, len(want))
	}

	c.step(t, 300)
	waitFor(t, "the informer at the server's RV", func() bool { return inf.LastSyncResourceVersion() == fmt.Sprint(c.rv) })
	want = c.state(t)
	waitFor(t, "the handler to get every change", func() bool { return slices.Equal(early.keys(), want) })
	if got := listerState(t, lister); !slices.Equal(got, want) {
		t.Fatalf("lister has %d pods, server %d", len(got), len(want))
	}
	if early.updates == 0 || early.deletes == 0 || len(early.problems) > 0 || early.unknown > 0 {
		t.Fatalf("handler: %d updates, %d deletes, %d tombstones, problems %v", early.updates, early.deletes, early.unknown, early.problems)
	}

	// A namespace lister and the node index agree with a filter of the full list.
	all, _ := lister.List(labels.Everything())
	ns := all[0].Namespace
	inNS, err := lister.Pods(ns).List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	node := all[0].Spec.NodeName
	onNode, err := inf.GetIndexer().ByIndex("node", node)
	if err != nil {
		t.Fatal(err)
	}
	var wantNS, wantNode int
	for _, p := range all {
		if p.Namespace == ns {
			wantNS++
		}
		if p.Spec.NodeName == node {
			wantNode++
		}
	}
	if len(inNS) != wantNS || len(onNode) != wantNode || wantNode == 0 {
		t.Fatalf("namespace %s: %d pods, want %d; node %s: %d, want %d", ns, len(inNS), wantNS, node, len(onNode), wantNode)
	}
	got, err := lister.Pods(ns).Get(inNS[0].Name)
	if err != nil || got.Name != inNS[0].Name {
		t.Fatalf("Get: %v, %v", got, err)
	}
	got.Labels["mutated"] = "yes" // the caller's own copy
	again, _ := lister.Pods(ns).Get(inNS[0].Name)
	if again.Labels["mutated"] != "" {
		t.Fatal("a mutation of a returned object reached the store")
	}

	late := newRecorder()
	lreg, err := inf.AddEventHandler(late)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the late handler to sync", lreg.HasSynced)
	c.step(t, 50)
	waitFor(t, "both handlers to follow", func() bool {
		w := c.state(t)
		return slices.Equal(late.keys(), w) && slices.Equal(early.keys(), w)
	})
	if late.initial != len(want) || len(late.problems) > 0 {
		t.Fatalf("late handler: %d initial adds, want %d; problems %v", late.initial, len(want), late.problems)
	}
	if err := inf.RemoveEventHandler(lreg); err != nil {
		t.Fatal(err)
	}
	if err := inf.SetTransform(nil); err == nil {
		t.Fatal("SetTransform after start succeeded")
	}
}

// TestRelistTombstones: the informer's source loses its watch for longer than the server's
// window; the source re-lists (reads keep answering meanwhile), and the informer delivers the
// difference: updates, adds, and the pods deleted meanwhile as DeletedFinalStateUnknown.
func TestRelistTombstones(t *testing.T) {
	c := newCluster(t, 100, watchcache.Options{WindowEvents: 30})
	f := informer.NewFactory(c.cfg, informer.FactoryOptions{})
	inf, _ := f.InformerFor(&corev1.Pod{})
	rec := newRecorder()
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	defer f.Shutdown()
	defer cancel()
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	c.step(t, 10)
	waitFor(t, "the informer to follow", func() bool { return slices.Equal(rec.keys(), c.state(t)) })

	before := inf.Feed().Stats()
	c.gate.close()
	c.srv.CloseClientConnections() // the running watch breaks; the next one waits at the gate
	waitFor(t, "the source's watch to wait at the gate", func() bool { return c.gate.waiting() > 0 })
	c.step(t, 200)
	c.gate.open()
	waitFor(t, "the source to re-list", func() bool { return inf.Feed().Stats().Lists > before.Lists })
	waitFor(t, "the handler to converge", func() bool { return slices.Equal(rec.keys(), c.state(t)) })
	if rec.unknown == 0 || len(rec.problems) > 0 {
		t.Fatalf("%d tombstones (want some), problems %v", rec.unknown, rec.problems)
	}
	if got := listerState(t, corelisters.NewPodLister(inf.GetIndexer())); !slices.Equal(got, c.state(t)) {
		t.Fatal("lister differs from the server after the re-list")
	}
}
