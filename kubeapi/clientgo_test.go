package kubeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/pager"

	"github.com/watchcache/watchcache/watchcache"
)

// requestLog records the request URIs a server received.
type requestLog struct {
	mu   sync.Mutex
	uris []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.uris = append(l.uris, r.URL.RequestURI())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) matching(substr ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, u := range l.uris {
		ok := true
		for _, s := range substr {
			ok = ok && strings.Contains(u, s)
		}
		if ok {
			out = append(out, u)
		}
	}
	return out
}

// clientFor returns a clientset for the cluster, and the log of the requests it makes.
func clientFor(t testing.TB, cl *cluster) (*kubernetes.Clientset, *requestLog) {
	t.Helper()
	// No client-side rate limit (the default is 5 requests/s).
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: cl.http.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return cs, cl.requests
}

// keysOf returns "namespace/name@resourceVersion" of each stored object.
func keysOf(t testing.TB, items [][]byte) []string {
	t.Helper()
	out := make([]string, len(items))
	for i, it := range items {
		var o metav1.PartialObjectMetadata
		if err := json.Unmarshal(it, &o); err != nil {
			t.Fatal(err)
		}
		out[i] = key(&o.ObjectMeta)
	}
	return out
}

func key(m *metav1.ObjectMeta) string {
	if m.Namespace == "" {
		return m.Name + "@" + m.ResourceVersion
	}
	return m.Namespace + "/" + m.Name + "@" + m.ResourceVersion
}

func cacheKeys(t testing.TB, c *watchcache.Cache, o watchcache.ListOptions) []string {
	t.Helper()
	res, err := c.List(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return keysOf(t, res.Items)
}

// TestClientGoPaging lists with the clientset by Limit and Continue, while pods change, and gets
// the first page's snapshot exactly (rules 2.6, 2.8).
func TestClientGoPaging(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cs, _ := clientFor(t, cl)
	want := cacheKeys(t, cl.caches["pods"], watchcache.ListOptions{})
	ctx := t.Context()
	var got []string
	opts := metav1.ListOptions{Limit: 17}
	rv := ""
	for {
		l, err := cs.CoreV1().Pods("").List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rv == "" {
			rv = l.ResourceVersion
		} else if l.ResourceVersion != rv {
			t.Fatalf("page at RV %s, first at %s", l.ResourceVersion, rv)
		}
		for i := range l.Items {
			got = append(got, key(&l.Items[i].ObjectMeta))
		}
		if l.Continue == "" {
			break
		}
		if l.RemainingItemCount == nil || int(*l.RemainingItemCount) != len(want)-len(got) {
			t.Fatalf("remainingItemCount %v after %d of %d", l.RemainingItemCount, len(got), len(want))
		}
		opts.Continue = l.Continue
		cl.step(t, 2)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged %d pods, want %d", len(got), len(want))
	}
}

// TestClientGoPager runs client-go's ListPager with selectors: it gets what the cache answers.
func TestClientGoPager(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cs, _ := clientFor(t, cl)
	pods := cl.caches["pods"]
	for _, tt := range []struct {
		name string
		opts metav1.ListOptions
		ns   string
	}{
		{"all", metav1.ListOptions{}, ""},
		{"field selector, indexed", metav1.ListOptions{FieldSelector: "spec.nodeName=node-4"}, ""},
		{"field selector !=", metav1.ListOptions{FieldSelector: "spec.nodeName!=node-4,status.phase=Running"}, ""},
		{"label selector, indexed", metav1.ListOptions{LabelSelector: "app=web"}, ""},
		{"label set selector", metav1.ListOptions{LabelSelector: "tier in (cache,web),app!=web"}, ""},
		{"both, in a namespace", metav1.ListOptions{LabelSelector: "tier", FieldSelector: "status.phase=Running"}, "ns-2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := cacheKeys(t, pods, watchcache.ListOptions{Namespace: tt.ns, LabelSelector: tt.opts.LabelSelector, FieldSelector: tt.opts.FieldSelector})
			if len(want) == 0 {
				t.Fatal("selector selects nothing: pick another")
			}
			p := pager.New(pager.SimplePageFunc(func(o metav1.ListOptions) (runtime.Object, error) {
				return cs.CoreV1().Pods(tt.ns).List(t.Context(), o)
			}))
			p.PageSize = 10
			var got []string
			err := p.EachListItem(t.Context(), tt.opts, func(obj runtime.Object) error {
				got = append(got, key(&obj.(*corev1.Pod).ObjectMeta))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("pager: %d pods\ncache: %d pods", len(got), len(want))
			}
		})
	}
}

// TestClientGoWatch watches with the clientset and receives the cache's events, then a bookmark.
func TestClientGoWatch(t *testing.T) {
	cl := newCluster(t, clusterOptions{cache: watchcache.Options{BookmarkInterval: 50 * time.Millisecond}})
	cs, _ := clientFor(t, cl)
	w, err := cs.CoreV1().Pods("").Watch(t.Context(), metav1.ListOptions{
		ResourceVersion: fmt.Sprint(cl.rv), AllowWatchBookmarks: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ref, err := cl.caches["pods"].Watch(t.Context(), watchcache.WatchOptions{ResourceVersion: fmt.Sprint(cl.rv)})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Stop()
	cl.step(t, 20)
	for i := 0; i < 20; {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == watch.Bookmark {
				continue
			}
			want := <-ref.Events()
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || string(ev.Type) != string(want.Type) || p.ResourceVersion != fmt.Sprint(want.ResourceVersion) {
				t.Fatalf("event %d: %s %T, want %s at %d", i, ev.Type, ev.Object, want.Type, want.ResourceVersion)
			}
			i++
		case <-time.After(5 * time.Second):
			t.Fatal("no event in 5 s")
		}
	}
	for {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == watch.Bookmark {
				if p := ev.Object.(*corev1.Pod); p.ResourceVersion != fmt.Sprint(cl.rv) {
					t.Fatalf("bookmark at %s, want %d", p.ResourceVersion, cl.rv)
				}
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no bookmark in 5 s")
		}
	}
}

// TestClientGoInformer syncs a shared informer and follows churn, with the reflector's list+watch
// and with its watch-list (the WatchListClient feature, default on in client-go 0.37: a watch
// with sendInitialEvents that ends its initial events with the annotated bookmark, rule 5.8).
func TestClientGoInformer(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchListClient=%t", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			cl := newCluster(t, clusterOptions{})
			cs, log := clientFor(t, cl)
			factory := informers.NewSharedInformerFactory(cs, 0)
			podInformer := factory.Core().V1().Pods().Informer()
			nodeLister := factory.Core().V1().Nodes().Lister()
			stop := make(chan struct{})
			factory.Start(stop)
			defer factory.Shutdown()
			defer close(stop)
			for typ, ok := range factory.WaitForCacheSync(stop) {
				if !ok {
					t.Fatalf("%v did not sync", typ)
				}
			}
			if nodes, err := nodeLister.List(labels.Everything()); err != nil || len(nodes) != 10 {
				t.Fatalf("nodes: %d, %v", len(nodes), err)
			}
			if lists := log.matching("/api/v1/pods?", "limit="); watchList == (len(lists) > 0) {
				t.Errorf("watch-list %t, but lists: %v", watchList, lists)
			}
			if wl := log.matching("/api/v1/pods?", "sendInitialEvents=true"); watchList != (len(wl) > 0) {
				t.Errorf("watch-list %t, but watch-list requests: %v", watchList, wl)
			}

			cl.step(t, 100)
			want := cacheKeys(t, cl.caches["pods"], watchcache.ListOptions{})
			deadline := time.Now().Add(10 * time.Second)
			for {
				var got []string
				for _, o := range podInformer.GetStore().List() {
					got = append(got, key(&o.(*corev1.Pod).ObjectMeta))
				}
				slices.Sort(got)
				sorted := slices.Sorted(slices.Values(want))
				if slices.Equal(got, sorted) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("informer has %d pods, cache %d", len(got), len(want))
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// TestClientGoErrors checks that client-go's error predicates see what the rules say.
func TestClientGoErrors(t *testing.T) {
	cl := newCluster(t, clusterOptions{cache: watchcache.Options{WindowEvents: 5, WaitTimeout: 50 * time.Millisecond}})
	cs, _ := clientFor(t, cl)
	pods := cs.CoreV1().Pods("")
	ctx := t.Context()
	first, err := pods.List(ctx, metav1.ListOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	cl.step(t, 20)

	_, err = pods.List(ctx, metav1.ListOptions{Limit: 3, Continue: first.Continue})
	var st apierrors.APIStatus
	if !apierrors.IsResourceExpired(err) || !errors.As(err, &st) || st.Status().Continue == "" {
		t.Errorf("expired continue (rule 2.9): %v", err)
	}
	// client-go retries a 5xx or 429 with Retry-After up to 10 times, a second apart: ask once.
	once := func() *rest.Request { return cs.CoreV1().RESTClient().Get().Resource("pods").MaxRetries(0) }
	err = once().Param("resourceVersion", "999999999").Do(ctx).Error()
	if !apierrors.IsTimeout(err) || !apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		t.Errorf("too large RV (rule 3.4): %v", err)
	}
	if d, ok := apierrors.SuggestsClientDelay(err); !ok || d != 1 {
		t.Errorf("too large RV: retry after %d, %t", d, ok)
	}
	_, err = pods.List(ctx, metav1.ListOptions{Limit: 3, Continue: "not-a-valid-token"})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("bad token (rule 2.4): %v", err)
	}
	_, err = pods.List(ctx, metav1.ListOptions{FieldSelector: "spec.foo=bar"})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("unsupported field (rule 4.3): %v", err)
	}
	_, err = pods.List(ctx, metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsInvalid(err) {
		t.Errorf("Exact RV 0 (rule 0.4): %v", err)
	}
	_, err = cs.CoreV1().Pods("ns-0").Get(ctx, "nope", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("get: %v", err)
	}
	_, err = cs.CoreV1().Pods("ns-0").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsMethodNotSupported(err) {
		t.Errorf("create: %v", err)
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	w.Stop()
	if ev.Type != watch.Error || !apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
		t.Errorf("too old watch (rule 5.3): %v %v", ev.Type, ev.Object)
	}
	cl.caches["pods"].SetPending(errors.New("lost"))
	_, err = once().Param("watch", "true").Watch(ctx)
	if !apierrors.IsTooManyRequests(err) {
		t.Errorf("not ready (rule 3.7): %v", err)
	}
}

// TestClientGoDiscovery runs client-go's discovery against the server: with the aggregated
// document it makes two requests (/api, /apis) and learns what the legacy documents, one
// request per group-version, tell it.
func TestClientGoDiscovery(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	widgets(t, cl.server)
	cs, log := clientFor(t, cl)
	type found struct {
		groups    []string
		resources []string
		requests  int
	}
	discover := func(legacy bool) found {
		t.Helper()
		dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: cl.http.URL, QPS: -1})
		if err != nil {
			t.Fatal(err)
		}
		dc.UseLegacyDiscovery = legacy
		before := len(log.matching(""))
		groups, resources, err := dc.ServerGroupsAndResources()
		if err != nil {
			t.Fatal(err)
		}
		f := found{requests: len(log.matching("")) - before}
		for _, g := range groups {
			f.groups = append(f.groups, g.Name+"="+g.PreferredVersion.GroupVersion)
		}
		for _, l := range resources {
			for _, r := range l.APIResources {
				f.resources = append(f.resources, fmt.Sprintf("%s/%s %s namespaced=%t %v %v %v", l.GroupVersion, r.Name, r.Kind, r.Namespaced, r.Verbs, r.ShortNames, r.Categories))
			}
			sort.Strings(f.resources)
		}
		return f
	}
	agg, legacy := discover(false), discover(true)
	if agg.requests != 2 || legacy.requests != 4 {
		t.Errorf("requests: aggregated %d, legacy %d; want 2 and 4 (/api, /apis, /api/v1, /apis/example.com/v1)", agg.requests, legacy.requests)
	}
	if !slices.Equal(agg.groups, []string{"=v1", "example.com=example.com/v1"}) || !slices.Equal(agg.groups, legacy.groups) {
		t.Errorf("groups %v, legacy %v", agg.groups, legacy.groups)
	}
	if len(agg.resources) != 5 || !slices.Equal(agg.resources, legacy.resources) {
		t.Errorf("resources\n%v\nlegacy\n%v", agg.resources, legacy.resources)
	}

	v, err := cs.Discovery().ServerVersion()
	if err != nil || v.Minor != "37" {
		t.Errorf("version %+v %v", v, err)
	}
}
