package kubeapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/watchcache"
)

// exchange is one request and answer recorded by reference/record-discovery.sh.
type exchange struct {
	path   string
	req    http.Header
	code   int
	header http.Header
	body   []byte
}

// readExchange reads testdata/oracle/aggdisc-<name>.http, resolving a body stored as "=<file>"
// (the same bytes as that file's) or as "base64:<data>".
func readExchange(t testing.TB, name string) exchange {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/oracle", "aggdisc-"+name+".http"))
	if err != nil {
		t.Fatal(err)
	}
	req, rest, ok1 := bytes.Cut(b, []byte("\n\n"))
	head, body, ok2 := bytes.Cut(rest, []byte("\n\n"))
	if !ok1 || !ok2 {
		t.Fatalf("%s: not request, blank line, answer, blank line, body", name)
	}
	ex := exchange{req: http.Header{}, header: http.Header{}}
	for i, line := range strings.Split(string(req), "\n") {
		if i == 0 {
			ex.path = strings.TrimPrefix(line, "GET ")
			continue
		}
		k, v, _ := strings.Cut(line, ": ")
		ex.req.Set(k, v)
	}
	for i, line := range strings.Split(string(head), "\n") {
		if i == 0 {
			if ex.code, err = strconv.Atoi(strings.Fields(line)[1]); err != nil {
				t.Fatalf("%s: status line %q", name, line)
			}
			continue
		}
		k, v, _ := strings.Cut(line, ": ")
		ex.header.Set(k, v)
	}
	switch {
	case bytes.HasPrefix(body, []byte("=aggdisc-")):
		other := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(string(body)), "=aggdisc-"), ".http")
		ex.body = readExchange(t, other).body
	case bytes.HasPrefix(body, []byte("base64:")):
		if ex.body, err = base64.StdEncoding.DecodeString(strings.TrimSpace(string(body[len("base64:"):]))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	default:
		ex.body = body
	}
	return ex
}

// TestAggregatedEncodings: the documents kube-apiserver 1.37.2 served at /api and /apis, built
// again from their groups, are the same bytes in JSON, YAML and protobuf, with the same ETag —
// so a Server with the apiserver's registrations answers exactly what the apiserver answers.
func TestAggregatedEncodings(t *testing.T) {
	for _, p := range []string{"api", "apis", "apis-crds"} {
		t.Run(p, func(t *testing.T) {
			name := p + "-v2"
			if p == "apis-crds" {
				name = p
			}
			rec := readExchange(t, name)
			var l apidiscoveryv2.APIGroupDiscoveryList
			if err := json.Unmarshal(rec.body, &l); err != nil {
				t.Fatal(err)
			}
			d, err := newAggregatedDoc(l.Items)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(d.json, rec.body) {
				t.Errorf("JSON differs:\n%s\nrecorded\n%s", d.json, rec.body)
			}
			if d.etag != rec.header.Get("Etag") {
				t.Errorf("ETag %s, recorded %s", d.etag, rec.header.Get("Etag"))
			}
			if p == "apis-crds" {
				return
			}
			for _, form := range []struct{ name, mediaType string }{
				{"yaml", "application/yaml"}, {"protobuf", "application/vnd.kubernetes.protobuf"},
			} {
				want := readExchange(t, p+"-"+form.name)
				got, err := d.encoded(form.mediaType)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want.body) {
					t.Errorf("%s differs (%d bytes, recorded %d)", form.name, len(got), len(want.body))
				}
				if ct := form.mediaType + aggregatedParams; ct != want.header.Get("Content-Type") {
					t.Errorf("%s Content-Type %q, recorded %q", form.name, ct, want.header.Get("Content-Type"))
				}
			}
		})
	}
}

// TestWantsAggregated pins which Accept headers get the aggregated document, each as recorded
// (testdata/oracle/aggdisc-<name>.http): the first clause asking for the v2 kind in a served
// media type decides, whatever plain JSON comes before it and whatever its q.
func TestWantsAggregated(t *testing.T) {
	const v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	tests := []struct {
		accept string
		want   string // media type, "" for the legacy document
	}{
		{v2 + ",application/json", "application/json"},
		{"application/json," + v2, "application/json"},
		{"application/json;q=0.9," + v2, "application/json"},
		{v2 + ";q=0,application/json", "application/json"},
		{v2 + ";profile=nopeer," + v2 + ",application/json", "application/json"},
		{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList," + v2, "application/json"},
		{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", ""},
		{"application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", ""},
		{"*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "application/json"},
		{"application/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "application/json"},
		{"application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "application/yaml"},
		{"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," + v2, "application/vnd.kubernetes.protobuf"},
		{"application/xml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", ""},
		{v2 + ";sv=v1", ""},
		{v2 + ";stream=watch", "application/json"},
		{"application/json", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := wantsAggregated(tt.accept)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%q: %q %v, want %q", tt.accept, got, ok, tt.want)
		}
	}
}

// TestAggregatedReplay sends every recorded request to /api, /apis and the paths below them to a
// Server and compares the status, the Content-Type and, for an aggregated answer, its caching
// headers; a 406's words; a legacy answer's kind. An If-None-Match naming the oracle's ETag
// names the Server's instead (the documents differ: the Server serves other resources).
func TestAggregatedReplay(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	widgets(t, cl.server)
	files, err := filepath.Glob("testdata/oracle/aggdisc-*.http")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	etags := map[string]string{} // recorded ETag -> this server's, by path
	for _, p := range []string{"/api", "/apis"} {
		rec := readExchange(t, strings.TrimPrefix(p, "/")+"-v2")
		etags[rec.header.Get("Etag")] = cl.get(t, p, "Accept", rec.req.Get("Accept")).header.Get("Etag")
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "aggdisc-"), ".http")
		if strings.Contains(name, "crd") {
			continue // the CRDs' documents are the fake's (fake/discovery_test.go)
		}
		t.Run(name, func(t *testing.T) {
			rec := readExchange(t, name)
			var h []string
			for k := range rec.req {
				v := rec.req.Get(k)
				if k == "If-None-Match" && etags[v] != "" {
					v = etags[v]
				}
				h = append(h, k, v)
			}
			// The Server's group is example.com; the oracle's was apps.
			got := cl.get(t, strings.Replace(rec.path, "/apis/apps", "/apis/example.com", 1), h...)
			if got.code != rec.code {
				t.Fatalf("%d, recorded %d: %s", got.code, rec.code, got.body)
			}
			if g, w := got.header.Get("Content-Type"), rec.header.Get("Content-Type"); g != w {
				t.Errorf("Content-Type %q, recorded %q", g, w)
			}
			if rec.header.Get("Etag") != "" {
				for _, k := range []string{"Cache-Control", "Vary"} {
					if g, w := got.header.Get(k), rec.header.Get(k); g != w {
						t.Errorf("%s %q, recorded %q", k, g, w)
					}
				}
				if !strings.HasPrefix(got.header.Get("Etag"), `"`) || len(got.header.Get("Etag")) != 130 {
					t.Errorf("ETag %q", got.header.Get("Etag"))
				}
			} else if got.header.Get("Etag") != "" {
				t.Errorf("ETag %q on a legacy answer", got.header.Get("Etag"))
			}
			if rec.code == http.StatusNotModified {
				if len(got.body) != 0 {
					t.Errorf("304 with a body: %s", got.body)
				}
				return
			}
			var g, w struct{ Kind, Message string }
			if !strings.HasPrefix(rec.header.Get("Content-Type"), "application/json") {
				return
			}
			if err := json.Unmarshal(got.body, &g); err != nil {
				t.Fatalf("%v: %s", err, got.body)
			}
			if err := json.Unmarshal(rec.body, &w); err != nil {
				t.Fatal(err)
			}
			if g.Kind != w.Kind {
				t.Errorf("kind %q, recorded %q", g.Kind, w.Kind)
			}
			// The Server names the media types it writes legacy documents in (JSON), the
			// apiserver YAML and protobuf too.
			if prefix, _, _ := strings.Cut(w.Message, ": "); !strings.HasPrefix(g.Message, prefix) {
				t.Errorf("message %q, recorded %q", g.Message, w.Message)
			}
		})
	}
}

// TestAggregatedDocument: the documents list what the legacy ones list — groups in the
// apiserver's order, versions by priority, resources by name, subresources in registration order
// with their kinds, the custom resource's kinds qualified — and follow registrations at once.
func TestAggregatedDocument(t *testing.T) {
	s := NewServer(Options{})
	reg := func(info ResourceInfo) {
		t.Helper()
		c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: info.Resource, Group: info.Group, Namespaced: info.Namespaced}})
		t.Cleanup(c.Stop)
		if err := s.Register(info, c); err != nil {
			t.Fatal(err)
		}
	}
	status := func(res, kind string) metav1.APIResource {
		return metav1.APIResource{Name: res + "/status", Kind: kind, Namespaced: true, Verbs: []string{"get", "patch", "update"}}
	}
	scale := metav1.APIResource{Name: "widgets/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Namespaced: true, Verbs: []string{"get", "patch", "update"}}
	reg(ResourceInfo{Group: "zeta.example.com", Version: "v1", Resource: "things", Kind: "Thing"})
	reg(ResourceInfo{Group: "alpha.example.com", Version: "v1beta1", Resource: "widgets", Kind: "Widget", Namespaced: true, QualifiedKinds: true,
		ShortNames: []string{"wd"}, Categories: []string{"all"}, Subresources: []metav1.APIResource{status("widgets", "Widget"), scale}})
	reg(ResourceInfo{Group: "alpha.example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true, QualifiedKinds: true})
	reg(ResourceInfo{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true, Subresources: []metav1.APIResource{status("jobs", "Job")}})
	reg(ResourceInfo{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true})
	reg(ResourceInfo{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

	r := do(t, "GET", srv.URL+"/apis", "Accept", accept)
	var got apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(r.body, &got); err != nil || r.code != http.StatusOK {
		t.Fatalf("%d %v %s", r.code, err, r.body)
	}
	want := `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[` +
		`{"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[` +
		`{"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["get","list","watch"]},` +
		`{"resource":"replicasets","responseKind":{"group":"","version":"","kind":"ReplicaSet"},"scope":"Namespaced","singularResource":"replicaset","verbs":["get","list","watch"]}],"freshness":"Current"}]},` +
		`{"metadata":{"name":"batch"},"versions":[{"version":"v1","resources":[` +
		`{"resource":"jobs","responseKind":{"group":"","version":"","kind":"Job"},"scope":"Namespaced","singularResource":"job","verbs":["get","list","watch"],` +
		`"subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"Job"},"verbs":["get","patch","update"]}]}],"freshness":"Current"}]},` +
		`{"metadata":{"name":"alpha.example.com"},"versions":[` +
		`{"version":"v1","resources":[{"resource":"widgets","responseKind":{"group":"alpha.example.com","version":"v1","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["get","list","watch"]}],"freshness":"Current"},` +
		`{"version":"v1beta1","resources":[{"resource":"widgets","responseKind":{"group":"alpha.example.com","version":"v1beta1","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["get","list","watch"],"shortNames":["wd"],"categories":["all"],` +
		`"subresources":[{"subresource":"status","responseKind":{"group":"alpha.example.com","version":"v1beta1","kind":"Widget"},"verbs":["get","patch","update"]},` +
		`{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]}]}],"freshness":"Current"}]},` +
		`{"metadata":{"name":"zeta.example.com"},"versions":[{"version":"v1","resources":[{"resource":"things","responseKind":{"group":"","version":"","kind":"Thing"},"scope":"Cluster","singularResource":"thing","verbs":["get","list","watch"]}],"freshness":"Current"}]}]}` + "\n"
	if string(r.body) != want {
		t.Errorf("/apis\n%s\nwant\n%s", r.body, want)
	}
	// The legacy /apis lists the same groups and versions in the same order.
	var legacy metav1.APIGroupList
	if err := json.Unmarshal(do(t, "GET", srv.URL+"/apis").body, &legacy); err != nil {
		t.Fatal(err)
	}
	var lg, ag []string
	for _, g := range legacy.Groups {
		for _, v := range g.Versions {
			lg = append(lg, v.GroupVersion)
		}
	}
	for _, g := range got.Items {
		for _, v := range g.Versions {
			ag = append(ag, g.Name+"/"+v.Version)
		}
	}
	if !slices.Equal(lg, ag) {
		t.Errorf("legacy %v, aggregated %v", lg, ag)
	}
	// No core resources: /api lists no group.
	if r := do(t, "GET", srv.URL+"/api", "Accept", accept); string(r.body) != `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[]}`+"\n" {
		t.Errorf("/api %s", r.body)
	}

	// The document is built once per change of the registrations, and changes with them.
	set1, _ := s.aggregated()
	if set2, _ := s.aggregated(); set1 != set2 {
		t.Error("the document was built again without a change")
	}
	etag := do(t, "GET", srv.URL+"/apis", "Accept", accept).header.Get("Etag")
	if r := do(t, "GET", srv.URL+"/apis", "Accept", accept, "If-None-Match", etag); r.code != http.StatusNotModified || len(r.body) != 0 {
		t.Errorf("If-None-Match: %d %s", r.code, r.body)
	}
	if r := do(t, "GET", srv.URL+"/api", "Accept", accept, "If-None-Match", etag); r.code != http.StatusOK {
		t.Errorf("/api with the ETag of /apis: %d", r.code)
	}
	if err := s.Unregister("zeta.example.com", "v1", "things"); err != nil {
		t.Fatal(err)
	}
	r = do(t, "GET", srv.URL+"/apis", "Accept", accept, "If-None-Match", etag)
	if r.code != http.StatusOK || r.header.Get("Etag") == etag || bytes.Contains(r.body, []byte("zeta")) {
		t.Errorf("after Unregister: %d %s %s", r.code, r.header.Get("Etag"), r.body)
	}
	reg(ResourceInfo{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true})
	if r := do(t, "GET", srv.URL+"/apis", "Accept", accept); !bytes.Contains(r.body, []byte(`"resource":"statefulsets"`)) {
		t.Errorf("after Register: %s", r.body)
	}
}

// TestCompareGroups pins the apiserver's order of groups: by priority (apiregistration.k8s.io
// first, the built-in groups as kube-apiserver 1.37.2 ranks them), then by name, which is how a
// CRD's group (priority 1000) is placed.
func TestCompareGroups(t *testing.T) {
	got := []string{"zeta.example.com", "storagemigration.k8s.io", "resource.k8s.io", "discovery.k8s.io", "apps",
		"alpha.example.com", "apiextensions.k8s.io", "admissionregistration.k8s.io", "apiregistration.k8s.io", "events.k8s.io"}
	slices.SortStableFunc(got, compareGroups)
	want := []string{"apiregistration.k8s.io", "apps", "events.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io",
		"discovery.k8s.io", "resource.k8s.io", "storagemigration.k8s.io", "alpha.example.com", "zeta.example.com"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v\nwant %v", got, want)
	}
}

// BenchmarkAggregated measures serving /apis from the built document (no encoding per request),
// next to the legacy /apis, which is encoded per request.
func BenchmarkAggregated(b *testing.B) {
	cl := newCluster(b, clusterOptions{})
	widgets(b, cl.server)
	for _, bm := range []struct{ name, accept string }{
		{"aggregated", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"},
		{"legacy", "application/json"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/apis", nil)
			req.Header.Set("Accept", bm.accept)
			b.ReportAllocs()
			for b.Loop() {
				cl.server.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}

// TestAggregatedConcurrent serves /apis while resources are registered and unregistered (run
// under -race): every answer is a whole document whose ETag is its own, and the last answer lists
// what is registered at the end.
func TestAggregatedConcurrent(t *testing.T) {
	s := NewServer(Options{})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for {
			select {
			case <-done:
				return
			default:
			}
			// Not do: t.Fatal must not be called from this goroutine.
			req, _ := http.NewRequest("GET", srv.URL+"/apis", nil)
			req.Header.Set("Accept", accept)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			var l apidiscoveryv2.APIGroupDiscoveryList
			if err == nil {
				err = json.Unmarshal(body, &l)
			}
			if err != nil {
				errs <- err
				return
			}
			d, err := newAggregatedDoc(l.Items)
			if err != nil || d.etag != resp.Header.Get("Etag") || !bytes.Equal(d.json, body) {
				errs <- fmt.Errorf("ETag %s does not match its document %s", resp.Header.Get("Etag"), body)
				return
			}
		}
	}()
	for i := range 50 {
		c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "things", Group: fmt.Sprintf("g%d.example.com", i)}})
		t.Cleanup(c.Stop)
		if err := s.Register(ResourceInfo{Group: fmt.Sprintf("g%d.example.com", i), Version: "v1", Resource: "things", Kind: "Thing"}, c); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if err := s.Unregister(fmt.Sprintf("g%d.example.com", i), "v1", "things"); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	var l apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(do(t, "GET", srv.URL+"/apis", "Accept", accept).body, &l); err != nil || len(l.Items) != 25 {
		t.Errorf("%d groups at the end, want 25: %v", len(l.Items), err)
	}
}
