package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// TestServeKubeconfig: serve --kubeconfig discovers every listable resource of the cluster it
// points at (here another kubeapi server, with a core and a grouped resource), serves each from a
// cache fed through source/kube, follows changes, and --resources narrows the set.
func TestServeKubeconfig(t *testing.T) {
	upstream := kubeapi.NewServer(kubeapi.Options{})
	pods := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	deploys := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "deployments", Group: "apps", Namespaced: true}})
	podInfo, _ := kubeapi.CoreResource("pods")
	for _, r := range []struct {
		info kubeapi.ResourceInfo
		c    *watchcache.Cache
	}{
		{podInfo, pods},
		{kubeapi.ResourceInfo{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}}, deploys},
	} {
		if err := upstream.Register(r.info, r.c); err != nil {
			t.Fatal(err)
		}
	}
	if err := pods.Replace([][]byte{[]byte(podJSON("ns-a", "p1", "node-1")), []byte(podJSON("ns-b", "p2", "node-2"))}, 10); err != nil {
		t.Fatal(err)
	}
	if err := deploys.Replace([][]byte{[]byte(`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"ns-a"}}`)}, 10); err != nil {
		t.Fatal(err)
	}
	// Cleanups run last first: serve stops (startServe's), then the caches (ending the watches
	// serve's sources held), then the upstream server.
	hs := httptest.NewServer(upstream)
	t.Cleanup(hs.Close)
	t.Cleanup(pods.Stop)
	t.Cleanup(deploys.Stop)
	kubeconfig := writeKubeconfig(t, hs.URL)
	// Before serve runs: run sets klog's global logger, which a running serve's rediscovery
	// reads.
	for _, args := range [][]string{
		{"--kubeconfig", kubeconfig, "--etcd-endpoints", "http://127.0.0.1:1"},
		{"--kubeconfig", kubeconfig, "--resources", "gadgets"},
		{"--kubeconfig", filepath.Join(t.TempDir(), "missing")},
	} {
		err := run(t.Context(), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), io.Discard, io.Discard)
		if err == nil {
			t.Errorf("%q: no error", args)
		} else if strings.Contains(strings.Join(args, " "), "gadgets") && !strings.Contains(err.Error(), `"gadgets"`) {
			t.Errorf("%q: %v", args, err)
		}
	}

	base, _ := startServe(t, "--kubeconfig", kubeconfig, "--delegated-auth=false")
	var l podList
	if code := getJSON(t, base+"/api/v1/pods", &l); code != http.StatusOK || l.names() != "ns-a/p1 ns-b/p2" {
		t.Fatalf("pods through serve: %d %s", code, l.names())
	}
	if code := getJSON(t, base+"/apis/apps/v1/namespaces/ns-a/deployments", &l); code != http.StatusOK || l.names() != "ns-a/web" {
		t.Fatalf("deployments through serve: %d %s", code, l.names())
	}
	// A change upstream reaches serve's cache through the watch.
	if err := pods.Apply(watchcache.Event{Type: watchcache.Added, Object: []byte(podJSON("ns-a", "p3", "node-1")), ResourceVersion: 11}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the new pod served", func() bool {
		getJSON(t, base+"/api/v1/pods?resourceVersion=0", &l)
		return l.names() == "ns-a/p1 ns-a/p3 ns-b/p2"
	})

	// The kube sources' counters: one list per resource, the new pod's event (counted just after
	// the cache applied it, hence the wait).
	waitUntil(t, "the kube sources' counters in /metrics", func() bool {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		metrics, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return strings.Contains(string(metrics), `watchcache_source_lists_total{source="kube"} 2`) &&
			strings.Contains(string(metrics), `watchcache_source_events_total{source="kube"} 1`)
	})

	narrowed, _ := startServe(t, "--kubeconfig", kubeconfig, "--delegated-auth=false", "--resources", "deploy")
	if code := getJSON(t, narrowed+"/api/v1/pods", nil); code != http.StatusNotFound {
		t.Fatalf("pods with --resources deploy: %d", code)
	}
}

// waitUntil polls cond for up to 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeKubeconfigFollowsDiscovery: a resource that appears in the cluster's discovery while
// serve runs (a CRD Established) is served at the next rediscovery, with its objects and their
// changes, and stops being served when it leaves discovery (the CRD deleted).
func TestServeKubeconfigFollowsDiscovery(t *testing.T) {
	upstream := kubeapi.NewServer(kubeapi.Options{})
	pods := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	widgets := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "widgets", Group: "example.com", Namespaced: true}})
	podInfo, _ := kubeapi.CoreResource("pods")
	if err := upstream.Register(podInfo, pods); err != nil {
		t.Fatal(err)
	}
	if err := pods.Replace(nil, 10); err != nil {
		t.Fatal(err)
	}
	if err := widgets.Replace([][]byte{[]byte(`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w1","namespace":"ns-a"}}`)}, 10); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(upstream)
	t.Cleanup(hs.Close)
	t.Cleanup(pods.Stop)
	t.Cleanup(widgets.Stop)
	kubeconfig := writeKubeconfig(t, hs.URL)
	// Before serve runs: run sets klog's global logger, which a running serve's rediscovery
	// reads.
	if err := run(t.Context(), []string{"serve", "--listen", "127.0.0.1:0", "--kubeconfig", kubeconfig, "--rediscover-interval", "0s"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "--rediscover-interval") {
		t.Fatalf("--rediscover-interval 0s: %v", err)
	}
	base, _ := startServe(t, "--kubeconfig", kubeconfig, "--delegated-auth=false", "--rediscover-interval", "20ms")
	path := base + "/apis/example.com/v1/namespaces/ns-a/widgets"
	if code := getJSON(t, path, nil); code != http.StatusNotFound {
		t.Fatalf("widgets before they are in discovery: %d", code)
	}

	info := kubeapi.ResourceInfo{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	if err := upstream.Register(info, widgets); err != nil {
		t.Fatal(err)
	}
	var l podList
	waitUntil(t, "widgets served", func() bool { return getJSON(t, path, &l) == http.StatusOK && l.names() == "ns-a/w1" })
	if err := widgets.Apply(watchcache.Event{Type: watchcache.Added, Object: []byte(`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w2","namespace":"ns-a","resourceVersion":"11"}}`), ResourceVersion: 11}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the new widget served", func() bool {
		getJSON(t, path+"?resourceVersion=0", &l)
		return l.names() == "ns-a/w1 ns-a/w2"
	})

	if err := upstream.Unregister("example.com", "v1", "widgets"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "widgets no longer served", func() bool { return getJSON(t, path, nil) == http.StatusNotFound })
	if code := getJSON(t, base+"/api/v1/pods", nil); code != http.StatusOK {
		t.Fatalf("pods after widgets went: %d", code)
	}
}

// writeKubeconfig writes a kubeconfig for the server at url, without credentials.
func writeKubeconfig(t *testing.T, url string) string {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, url)), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// getAggregated sends GET url asking for the aggregated discovery document as client-go does,
// and fails the test unless it is answered with one; the caller closes the body.
func getAggregated(t *testing.T, url string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "as=APIGroupDiscoveryList") {
		resp.Body.Close()
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp
}

// aggregatedETag returns the ETag of the aggregated document at url.
func aggregatedETag(t *testing.T, url string) string {
	t.Helper()
	resp := getAggregated(t, url)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Header.Get("Etag")
}

// TestServeKubeconfigAggregatedDiscovery: serve --kubeconfig learns the cluster's resources from
// its aggregated discovery and serves the same aggregated documents — the same ETag, so the same
// bytes — for what it serves (here all of it: a kubeapi server whose resources list get, list and
// watch), a custom resource's qualified kinds included; client-go discovers serve in two requests
// with the result of the legacy documents; a resource that appears upstream appears in serve's
// document at the next rediscovery.
func TestServeKubeconfigAggregatedDiscovery(t *testing.T) {
	upstream := kubeapi.NewServer(kubeapi.Options{})
	pods := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	widgets := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "widgets", Group: "example.com", Namespaced: true}})
	gizmos := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "gizmos", Group: "example.com"}})
	podInfo, _ := kubeapi.CoreResource("pods")
	for _, r := range []struct {
		info kubeapi.ResourceInfo
		c    *watchcache.Cache
	}{
		{podInfo, pods},
		{kubeapi.ResourceInfo{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true,
			ShortNames: []string{"wd"}, Categories: []string{"all"}, QualifiedKinds: true}, widgets},
	} {
		if err := upstream.Register(r.info, r.c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*watchcache.Cache{pods, widgets, gizmos} {
		if err := c.Replace(nil, 10); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(upstream)
	t.Cleanup(hs.Close)
	t.Cleanup(pods.Stop)
	t.Cleanup(widgets.Stop)
	t.Cleanup(gizmos.Stop)
	base, _ := startServe(t, "--kubeconfig", writeKubeconfig(t, hs.URL), "--delegated-auth=false", "--rediscover-interval", "20ms")
	for _, p := range []string{"/api", "/apis"} {
		if got, want := aggregatedETag(t, base+p), aggregatedETag(t, hs.URL+p); got != want {
			t.Errorf("%s: serve's ETag %s, upstream's %s", p, got, want)
		}
	}

	var n atomic.Int64
	cfg := &rest.Config{Host: base, QPS: -1, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) { n.Add(1); return rt.RoundTrip(r) })
	}}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, agg, err := dc.ServerGroupsAndResources()
	if err != nil || n.Load() != 2 {
		t.Fatalf("aggregated discovery of serve: %d requests, %v", n.Load(), err)
	}
	dc.UseLegacyDiscovery = true
	_, legacy, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	flat := func(lists []*metav1.APIResourceList) []string {
		var out []string
		for _, l := range lists {
			for _, r := range l.APIResources {
				out = append(out, fmt.Sprintf("%s %s %s %t %v %v %v", l.GroupVersion, r.Name, r.Kind, r.Namespaced, r.Verbs, r.ShortNames, r.Categories))
			}
		}
		slices.Sort(out)
		return out
	}
	if a, l := flat(agg), flat(legacy); !slices.Equal(a, l) || len(a) != 2 {
		t.Errorf("aggregated %v\nlegacy %v", a, l)
	}

	if err := upstream.Register(kubeapi.ResourceInfo{Group: "example.com", Version: "v1", Resource: "gizmos", Kind: "Gizmo", QualifiedKinds: true}, gizmos); err != nil {
		t.Fatal(err)
	}
	want := aggregatedETag(t, hs.URL+"/apis")
	waitUntil(t, "gizmos in serve's aggregated discovery", func() bool { return aggregatedETag(t, base+"/apis") == want })
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestServeKubeconfigUnservesStartResources: a resource served from start that leaves the
// cluster's discovery (its CRD deleted) stops being served at the next rediscovery — its paths
// answer 404 and its watches end — while the others of its group and version go on; when it comes
// back it is served again, as a resource that appeared.
func TestServeKubeconfigUnservesStartResources(t *testing.T) {
	upstream := kubeapi.NewServer(kubeapi.Options{})
	newCache := func(name string) *watchcache.Cache {
		c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: name, Group: "example.com", Namespaced: true}})
		t.Cleanup(c.Stop)
		return c
	}
	widgets, gadgets := newCache("widgets"), newCache("gadgets")
	widgetInfo := kubeapi.ResourceInfo{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	gadgetInfo := kubeapi.ResourceInfo{Group: "example.com", Version: "v1", Resource: "gadgets", Kind: "Gadget", Namespaced: true}
	for _, r := range []struct {
		info kubeapi.ResourceInfo
		c    *watchcache.Cache
		obj  string
	}{
		{widgetInfo, widgets, `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w1","namespace":"ns-a"}}`},
		{gadgetInfo, gadgets, `{"kind":"Gadget","apiVersion":"example.com/v1","metadata":{"name":"g1","namespace":"ns-a"}}`},
	} {
		if err := upstream.Register(r.info, r.c); err != nil {
			t.Fatal(err)
		}
		if err := r.c.Replace([][]byte{[]byte(r.obj)}, 10); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(upstream)
	t.Cleanup(hs.Close)
	base, logs := startServe(t, "--kubeconfig", writeKubeconfig(t, hs.URL), "--delegated-auth=false", "--rediscover-interval", "20ms")
	widgetsPath, gadgetsPath := base+"/apis/example.com/v1/namespaces/ns-a/widgets", base+"/apis/example.com/v1/namespaces/ns-a/gadgets"
	var l podList
	if code := getJSON(t, widgetsPath, &l); code != http.StatusOK || l.names() != "ns-a/w1" {
		t.Fatalf("widgets from start: %d %s", code, l.names())
	}
	watch, err := http.Get(widgetsPath + "?watch=1&resourceVersion=0")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	watchEnd := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, watch.Body)
		close(watchEnd)
	}()

	if err := upstream.Unregister("example.com", "v1", "widgets"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "widgets no longer served", func() bool { return getJSON(t, widgetsPath, nil) == http.StatusNotFound })
	select {
	case <-watchEnd:
	case <-time.After(5 * time.Second):
		t.Fatal("the watch of widgets did not end")
	}
	if code := getJSON(t, gadgetsPath, &l); code != http.StatusOK || l.names() != "ns-a/g1" {
		t.Errorf("gadgets after widgets went: %d %s", code, l.names())
	}
	if code := getJSON(t, base+"/readyz", nil); code != http.StatusOK {
		t.Errorf("/readyz after widgets went: %d", code)
	}
	if !strings.Contains(logs.String(), "no longer serving a resource that left discovery") {
		t.Errorf("log: %s", logs.String())
	}

	if err := upstream.Register(widgetInfo, widgets); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "widgets served again", func() bool { return getJSON(t, widgetsPath, &l) == http.StatusOK && l.names() == "ns-a/w1" })
}
