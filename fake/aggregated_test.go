package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/watchcache/watchcache/fake"
)

// clientGoAccept is the Accept header of client-go v0.37.2's discovery client (and kubectl's).
const clientGoAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// aggregatedDoc fetches an aggregated document with client-go's Accept header.
func aggregatedDoc(t *testing.T, url string) (apidiscoveryv2.APIGroupDiscoveryList, http.Header) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", clientGoAccept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		t.Fatalf("%s: %d %s %s", url, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var l apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return l, resp.Header
}

func readAggregated(t *testing.T, file string) apidiscoveryv2.APIGroupDiscoveryList {
	t.Helper()
	b, err := os.ReadFile("testdata/discovery/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var l apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// servedOnly returns the recorded document narrowed to the group-versions, resources and
// subresources the fake's document names, keeping the recorded order and entries; and the names
// the fake lists that the recording has not.
func servedOnly(recorded, fake apidiscoveryv2.APIGroupDiscoveryList) (apidiscoveryv2.APIGroupDiscoveryList, []string) {
	names := map[string]bool{}
	for _, g := range fake.Items {
		for _, v := range g.Versions {
			names[g.Name+"/"+v.Version] = true
			for _, r := range v.Resources {
				names[g.Name+"/"+v.Version+"/"+r.Resource] = true
				for _, s := range r.Subresources {
					names[g.Name+"/"+v.Version+"/"+r.Resource+"/"+s.Subresource] = true
				}
			}
		}
	}
	out := apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: recorded.TypeMeta}
	for _, g := range recorded.Items {
		var versions []apidiscoveryv2.APIVersionDiscovery
		for _, v := range g.Versions {
			gv := g.Name + "/" + v.Version
			if !names[gv] {
				continue
			}
			delete(names, gv)
			var resources []apidiscoveryv2.APIResourceDiscovery
			for _, r := range v.Resources {
				if !names[gv+"/"+r.Resource] {
					continue
				}
				delete(names, gv+"/"+r.Resource)
				var subs []apidiscoveryv2.APISubresourceDiscovery
				for _, s := range r.Subresources {
					if k := gv + "/" + r.Resource + "/" + s.Subresource; names[k] {
						delete(names, k)
						subs = append(subs, s)
					}
				}
				r.Subresources = subs
				resources = append(resources, r)
			}
			v.Resources = resources
			versions = append(versions, v)
		}
		if versions != nil {
			g.Versions = versions
			out.Items = append(out.Items, g)
		}
	}
	var extra []string
	for k := range names {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	return out, extra
}

// compareAggregated compares the fake's document with kube-apiserver 1.37.2's, narrowed to what
// the fake serves (one version per built-in group, stored resources, the status and scale
// subresources): every entry the fake lists is the recorded one, in the recorded order.
func compareAggregated(t *testing.T, recorded, got apidiscoveryv2.APIGroupDiscoveryList) {
	t.Helper()
	want, extra := servedOnly(recorded, got)
	if len(extra) > 0 {
		t.Errorf("the fake lists what kube-apiserver does not: %v", extra)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("document\n%s\nrecorded (narrowed)\n%s", g, w)
	}
}

// TestAggregatedDiscovery compares the fake's aggregated documents at /api and /apis with
// kube-apiserver 1.37.2's (testdata/discovery/aggregated-*.json, aggdisc-apis-crds.json): before
// CRDs, with two CRDs in one group (two served versions, status and scale, shortNames and
// categories, a cluster-scoped one), and after they are deleted — at once, without waiting, and
// back to the first document and ETag.
func TestAggregatedDiscovery(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	api, _ := aggregatedDoc(t, srv.URL()+"/api")
	compareAggregated(t, readAggregated(t, "aggregated-api.json"), api)
	if n := len(api.Items[0].Versions[0].Resources); n < 15 {
		t.Errorf("/api lists %d resources", n)
	}
	// The bindings collection is computed, not stored, and listed all the same (create only).
	if !slices.ContainsFunc(api.Items[0].Versions[0].Resources, func(r apidiscoveryv2.APIResourceDiscovery) bool { return r.Resource == "bindings" }) {
		t.Error("/api does not list bindings")
	}
	before, h := aggregatedDoc(t, srv.URL()+"/apis")
	etag := h.Get("Etag")
	compareAggregated(t, readAggregated(t, "aggregated-apis.json"), before)

	dc := dynamic.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	for _, f := range []string{"crd-widgets.json", "crd-gizmos.json"} {
		b, err := os.ReadFile("testdata/discovery/" + f)
		if err != nil {
			t.Fatal(err)
		}
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		if _, err := dc.Resource(crds).Create(ctx, &u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	with, h := aggregatedDoc(t, srv.URL()+"/apis")
	compareAggregated(t, readAggregated(t, "aggdisc-apis-crds.json"), with)
	if last := with.Items[len(with.Items)-1]; last.Name != "disc.example.com" || len(last.Versions) != 2 {
		t.Errorf("the CRDs' group: %+v, want it last (priority 1000) with v1 and v1beta1", last)
	}
	if h.Get("Etag") == etag {
		t.Error("the ETag did not change with the CRDs")
	}

	for _, name := range []string{"widgets.disc.example.com", "gizmos.disc.example.com"} {
		if err := dc.Resource(crds).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	after, h := aggregatedDoc(t, srv.URL()+"/apis")
	if !reflect.DeepEqual(after, before) || h.Get("Etag") != etag {
		t.Errorf("after the CRDs were deleted: ETag %s, want %s; same document: %t", h.Get("Etag"), etag, reflect.DeepEqual(after, before))
	}
}

// countingConfig returns the fake's client config with a RoundTripper counting the requests.
func countingConfig(srv *fake.Server, n *atomic.Int64) *rest.Config {
	cfg := rest.CopyConfig(srv.Config())
	cfg.QPS = -1
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			n.Add(1)
			return rt.RoundTrip(r)
		})
	}
	return cfg
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// discovered is what a discovery client learned, comparable between the two forms: client-go
// fills a custom resource's group and version from the aggregated document's responseKind and a
// subresource's singular name from its parent's, and the aggregated form has no
// storageVersionHash; those are left out.
func discovered(t *testing.T, groups []*metav1.APIGroup, lists []*metav1.APIResourceList) []string {
	t.Helper()
	var out []string
	for _, g := range groups {
		out = append(out, fmt.Sprintf("group %s preferred=%s versions=%v", g.Name, g.PreferredVersion.GroupVersion, g.Versions))
	}
	for _, l := range lists {
		for _, r := range l.APIResources {
			group, version := r.Group, r.Version
			if gv, _ := schema.ParseGroupVersion(l.GroupVersion); gv.Group == group && gv.Version == version {
				group, version = "", ""
			}
			singular := r.SingularName
			if strings.Contains(r.Name, "/") {
				singular = ""
			}
			out = append(out, fmt.Sprintf("%s %s singular=%s namespaced=%t kind=%s/%s/%s verbs=%v short=%v categories=%v",
				l.GroupVersion, r.Name, singular, r.Namespaced, group, version, r.Kind, r.Verbs, r.ShortNames, r.Categories))
		}
	}
	sort.Strings(out)
	return out
}

// TestAggregatedDiscoveryClientGo: client-go's discovery client learns every group and resource of
// the fake in two requests (/api, /apis), the same as from the legacy documents it would
// otherwise read one group-version at a time; a memory-cached client and a deferred REST mapper
// on top of it resolve a custom resource's kind and short name, and find a new CRD after an
// invalidation, again in two requests.
func TestAggregatedDiscoveryClientGo(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	b, err := os.ReadFile("testdata/discovery/crd-widgets.json")
	if err != nil {
		t.Fatal(err)
	}
	var crd unstructured.Unstructured
	if err := crd.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if _, err := dynamic.NewForConfigOrDie(srv.Config()).Resource(crds).Create(context.Background(), &crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	var aggN, legacyN atomic.Int64
	agg := discovery.NewDiscoveryClientForConfigOrDie(countingConfig(srv, &aggN))
	groups, lists, err := agg.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	legacy := discovery.NewDiscoveryClientForConfigOrDie(countingConfig(srv, &legacyN))
	legacy.UseLegacyDiscovery = true
	lgroups, llists, err := legacy.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	if aggN.Load() != 2 {
		t.Errorf("aggregated discovery made %d requests, want 2", aggN.Load())
	}
	gvs := 0
	for _, g := range lgroups {
		gvs += len(g.Versions)
	}
	if legacyN.Load() != int64(2+gvs) {
		t.Errorf("legacy discovery made %d requests, want %d (2 + one per group-version)", legacyN.Load(), 2+gvs)
	}
	t.Logf("requests: aggregated %d, legacy %d", aggN.Load(), legacyN.Load())
	got, want := discovered(t, groups, lists), discovered(t, lgroups, llists)
	if !slices.Equal(got, want) {
		t.Errorf("aggregated and legacy discovery differ:\n%s\nlegacy\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "disc.example.com/v1 widgets/scale ") }) {
		t.Errorf("no widgets/scale in %v", got)
	}

	var cachedN atomic.Int64
	mc := memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(countingConfig(srv, &cachedN)))
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(mc)
	m, err := mapper.RESTMapping(schema.GroupKind{Group: "disc.example.com", Kind: "Widget"})
	if err != nil || m.Resource != (schema.GroupVersionResource{Group: "disc.example.com", Version: "v1", Resource: "widgets"}) || m.Scope.Name() != "namespace" {
		t.Fatalf("RESTMapping of Widget: %+v %v", m, err)
	}
	expander := restmapper.NewShortcutExpander(mapper, mc, nil)
	if gvr, err := expander.ResourceFor(schema.GroupVersionResource{Resource: "wdg"}); err != nil || gvr.Resource != "widgets" || gvr.Group != "disc.example.com" {
		t.Errorf("short name wdg: %v %v", gvr, err)
	}
	if gvr, err := expander.ResourceFor(schema.GroupVersionResource{Resource: "deploy"}); err != nil || gvr != (schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}) {
		t.Errorf("short name deploy: %v %v", gvr, err)
	}
	if cachedN.Load() != 2 {
		t.Errorf("the cached client made %d requests, want 2", cachedN.Load())
	}

	b, err = os.ReadFile("testdata/discovery/crd-gizmos.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if _, err := dynamic.NewForConfigOrDie(srv.Config()).Resource(crds).Create(context.Background(), &crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mapper.Reset()
	if m, err := mapper.RESTMapping(schema.GroupKind{Group: "disc.example.com", Kind: "Gizmo"}); err != nil || m.Scope.Name() != "root" {
		t.Fatalf("RESTMapping of Gizmo after Reset: %+v %v", m, err)
	}
	if cachedN.Load() != 4 {
		t.Errorf("the cached client made %d requests, want 4 (2 again after the reset)", cachedN.Load())
	}
	if !mc.Fresh() {
		t.Error("the memory cache is not fresh after a re-read")
	}
}

// TestAggregatedDiscoveryOracle runs client-go's aggregated discovery against a kube-apiserver
// (WATCHCACHE_ORACLE_URL, bearer token WATCHCACHE_ORACLE_TOKEN; a fresh one, without CRDs) and
// the fake: two requests each, and every group-version and resource the fake lists is listed the
// same by the apiserver.
func TestAggregatedDiscoveryOracle(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-discovery.md)")
	}
	var oracleN, fakeN atomic.Int64
	ocfg := &rest.Config{Host: base, BearerToken: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), QPS: -1,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) { oracleN.Add(1); return rt.RoundTrip(r) })
		}}
	_, olists, err := discovery.NewDiscoveryClientForConfigOrDie(ocfg).ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.NewTest(t, fake.Options{})
	_, flists, err := discovery.NewDiscoveryClientForConfigOrDie(countingConfig(srv, &fakeN)).ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	if oracleN.Load() != 2 || fakeN.Load() != 2 {
		t.Errorf("requests: oracle %d, fake %d; want 2 each", oracleN.Load(), fakeN.Load())
	}
	oracle := discovered(t, nil, olists)
	for _, r := range discovered(t, nil, flists) {
		if !slices.Contains(oracle, r) {
			t.Errorf("the oracle does not list %s", r)
		}
	}
}

// BenchmarkAggregatedDiscovery serves the fake's aggregated /apis (every built-in group) from its
// built document, next to the legacy /apis and one legacy group-version document (apps/v1), which
// are encoded per request: a client needs one of the latter per group-version.
func BenchmarkAggregatedDiscovery(b *testing.B) {
	srv := fake.NewTest(b, fake.Options{})
	for _, bm := range []struct{ name, path, accept string }{
		{"aggregated", "/apis", clientGoAccept},
		{"legacy", "/apis", "application/json"},
		{"legacy-apps-v1", "/apis/apps/v1", "application/json"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", bm.path, nil)
			req.Header.Set("Accept", bm.accept)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
