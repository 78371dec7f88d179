package kubeapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/watchcache"
)

// widgets registers a namespaced custom resource whose objects are stored without kind and
// apiVersion, next to the core resources.
func widgets(t testing.TB, s *Server) *watchcache.Cache {
	t.Helper()
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "widgets", Group: "example.com", Namespaced: true}})
	t.Cleanup(c.Stop)
	objs := [][]byte{
		[]byte(`{"metadata":{"name":"w1","namespace":"a","resourceVersion":"2","creationTimestamp":"2026-01-10T11:00:00Z"},"spec":{"size":1}}`),
		[]byte(`{"metadata":{"name":"w2","namespace":"b","resourceVersion":"3"},"spec":{"size":2}}`),
	}
	if err := c.Replace(objs, 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Register(ResourceInfo{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true, ShortNames: []string{"wd"}}, c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDiscovery pins the legacy discovery documents client-go and kubectl read when the
// aggregated one is not asked for.
func TestDiscovery(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	widgets(t, cl.server)
	decode := func(path string, v any) {
		t.Helper()
		// client-go's Accept with UseLegacyDiscovery (aggregated_test.go has the aggregated form).
		r := cl.get(t, path, "Accept", "application/json")
		if r.code != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %v %s", path, r.code, r.header, r.body)
		}
		if err := json.Unmarshal(r.body, v); err != nil {
			t.Fatal(err)
		}
	}

	var versions metav1.APIVersions
	decode("/api", &versions)
	if versions.Kind != "APIVersions" || !reflect.DeepEqual(versions.Versions, []string{"v1"}) || len(versions.ServerAddressByClientCIDRs) != 1 {
		t.Errorf("/api: %+v", versions)
	}

	var core metav1.APIResourceList
	decode("/api/v1", &core)
	if core.Kind != "APIResourceList" || core.GroupVersion != "v1" || len(core.APIResources) != 4 {
		t.Fatalf("/api/v1: %+v", core)
	}
	want := metav1.APIResource{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod",
		Verbs: metav1.Verbs{"get", "list", "watch"}, ShortNames: []string{"po"}, Categories: []string{"all"}}
	if got := core.APIResources[2]; !reflect.DeepEqual(got, want) {
		t.Errorf("pods: %+v\nwant  %+v", got, want)
	}

	var groups metav1.APIGroupList
	decode("/apis", &groups)
	wantGV := metav1.GroupVersionForDiscovery{GroupVersion: "example.com/v1", Version: "v1"}
	if groups.Kind != "APIGroupList" || len(groups.Groups) != 1 || groups.Groups[0].Name != "example.com" ||
		groups.Groups[0].PreferredVersion != wantGV || !reflect.DeepEqual(groups.Groups[0].Versions, []metav1.GroupVersionForDiscovery{wantGV}) {
		t.Errorf("/apis: %+v", groups)
	}
	var group metav1.APIGroup
	decode("/apis/example.com", &group)
	if group.Kind != "APIGroup" || group.Name != "example.com" || group.PreferredVersion != wantGV {
		t.Errorf("/apis/example.com: %+v", group)
	}
	var gv metav1.APIResourceList
	decode("/apis/example.com/v1", &gv)
	if gv.GroupVersion != "example.com/v1" || len(gv.APIResources) != 1 || gv.APIResources[0].Name != "widgets" ||
		gv.APIResources[0].Kind != "Widget" || gv.APIResources[0].SingularName != "widget" {
		t.Errorf("/apis/example.com/v1: %+v", gv)
	}
	// The fields kube-apiserver 1.37.2 answers (reference/observed-version.md); gitVersion names
	// this server.
	var v map[string]string
	decode("/version", &v)
	for k, want := range map[string]string{"major": "1", "minor": "37", "emulationMajor": "1", "emulationMinor": "37",
		"minCompatibilityMajor": "1", "minCompatibilityMinor": "36", "gitVersion": "v1.37.2+watchcache", "gitTreeState": "clean", "compiler": "gc"} {
		if v[k] != want {
			t.Errorf("/version %s = %q, want %q (%v)", k, v[k], want, v)
		}
	}
	var root struct{ Paths []string }
	decode("/", &root)
	if !reflect.DeepEqual(root.Paths, []string{"/api", "/api/v1", "/apis", "/apis/example.com", "/apis/example.com/v1", "/healthz", "/livez", "/readyz", "/version"}) {
		t.Errorf("/: %v", root.Paths)
	}
	for _, p := range []string{"/apis/example.org", "/apis/example.com/v2", "/api/v2"} {
		if r := cl.get(t, p); r.code != http.StatusNotFound {
			t.Errorf("%s: %d", p, r.code)
		}
	}
}

// TestGroupResource serves a resource of a named group under /apis/{group}/{version}, with kind
// and apiVersion added to single objects stored without them, and NotFound naming the group.
func TestGroupResource(t *testing.T) {
	s := NewServer(Options{})
	widgets(t, s)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)

	l := do(t, "GET", srv.URL+"/apis/example.com/v1/widgets").list(t)
	if l.Kind != "WidgetList" || l.APIVersion != "example.com/v1" || len(l.Items) != 2 {
		t.Fatalf("list: %+v", l)
	}
	// List items are spliced as stored (the apiserver's list items carry no kind either).
	if string(l.Items[0][:12]) != `{"metadata":` {
		t.Errorf("item %s", l.Items[0])
	}
	r := do(t, "GET", srv.URL+"/apis/example.com/v1/namespaces/a/widgets/w1")
	if want := `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w1","namespace":"a","resourceVersion":"2","creationTimestamp":"2026-01-10T11:00:00Z"},"spec":{"size":1}}` + "\n"; r.code != 200 || string(r.body) != want {
		t.Errorf("get: %d %s", r.code, r.body)
	}
	w := openWatch(t, srv.URL+"/apis/example.com/v1/namespaces/b/widgets?watch=1")
	if ev, ok := w.next(t); !ok || ev.Type != "ADDED" || string(ev.Object[:37]) != `{"kind":"Widget","apiVersion":"exampl` {
		t.Errorf("watch: %v %s", ok, ev.Object)
	}
	r = do(t, "GET", srv.URL+"/apis/example.com/v1/namespaces/a/widgets/nope")
	if m := r.status(t); r.code != 404 || m["message"] != `widgets.example.com "nope" not found` {
		t.Errorf("404: %s", r.body)
	}
	// The apiserver's default table convertor: Name, Created At (the zero time when unset).
	r = do(t, "GET", srv.URL+"/apis/example.com/v1/widgets", "Accept", kubectlAccept)
	var tb tableResponse
	if err := json.Unmarshal(r.body, &tb); err != nil || len(tb.ColumnDefinitions) != 2 || tb.ColumnDefinitions[1].Name != "Created At" ||
		len(tb.Rows) != 2 || tb.Rows[0].Cells[1] != "2026-01-10T11:00:00Z" || tb.Rows[1].Cells[1] != "0001-01-01T00:00:00Z" {
		t.Errorf("table: %v %s", err, r.body)
	}
}

// TestRegister rejects registrations that cannot be served.
func TestRegister(t *testing.T) {
	s := NewServer(Options{})
	pods := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	t.Cleanup(pods.Stop)
	info, _ := CoreResource("pods")
	if err := s.Register(info, pods); err != nil {
		t.Fatal(err)
	}
	nodes, _ := CoreResource("nodes")
	for name, tt := range map[string]struct {
		info ResourceInfo
		c    *watchcache.Cache
	}{
		"twice":            {info, pods},
		"nil cache":        {info, nil},
		"scope mismatch":   {nodes, pods},
		"no kind":          {ResourceInfo{Version: "v1", Resource: "pods", Namespaced: true}, pods},
		"no version":       {ResourceInfo{Resource: "pods", Kind: "Pod", Namespaced: true}, pods},
		"slash in name":    {ResourceInfo{Version: "v1", Resource: "a/b", Kind: "Pod", Namespaced: true}, pods},
		"group mismatch":   {ResourceInfo{Group: "x", Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}, pods},
		"resource differs": {ResourceInfo{Version: "v1", Resource: "pod", Kind: "Pod", Namespaced: true}, pods},
	} {
		if err := s.Register(tt.info, tt.c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
