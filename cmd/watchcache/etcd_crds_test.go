package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestServeEtcdCustomResources: serve --etcd-endpoints serves the custom resources of every
// Established CRD in etcd, from the values kube-apiserver 1.37.2 wrote (testdata, recorded from
// the oracle: reference/observed-etcd-layout.md, "Custom resources"): in every served version, with
// the CRD's scope, short names and categories in discovery, and its selectableFields as field
// selectors. A CRD whose names were not accepted (gizmos: "WidgetList" is already in use) is not
// served, as the apiserver serves it not.
func TestServeEtcdCustomResources(t *testing.T) {
	cli, endpoint := startEtcd(t)
	put := etcdPut(t, cli)
	for key, value := range recordedCustomResources(t) {
		put(key, value)
	}
	base, logs := startServe(t, "--etcd-endpoints", endpoint)

	names := func(path string) (int, string, []string) {
		t.Helper()
		var l struct {
			Kind  string
			Items []metav1.PartialObjectMetadata
		}
		code := getJSON(t, base+path, &l)
		var out []string
		for _, it := range l.Items {
			out = append(out, it.Namespace+"/"+it.Name)
		}
		return code, l.Kind, out
	}
	for _, tc := range []struct {
		path  string
		code  int
		kind  string
		items []string
	}{
		// The oracle's answers to the same requests.
		{"/apis/example.com/v1/namespaces/ns-a/widgets", 200, "WidgetList", []string{"ns-a/w1", "ns-a/w2"}},
		{"/apis/example.com/v1/widgets?fieldSelector=spec.color%3Dblue", 200, "WidgetList", []string{"ns-a/w2"}},
		{"/apis/example.com/v1/namespaces/ns-a/widgets?fieldSelector=spec.color%3Dred", 200, "WidgetList", []string{"ns-a/w1"}},
		{"/apis/example.com/v1/widgets?fieldSelector=spec.size%3D3", 400, "", nil},
		{"/apis/other.example.org/v1alpha1/clusterthings", 200, "ClusterThingList", []string{"/t1"}},
		{"/apis/example.com/v1/gizmos", 404, "", nil},
		{"/apis/example.com/v1beta1/widgets", 200, "WidgetList", []string{"ns-a/w1", "ns-a/w2"}}, // every served version
	} {
		code, kind, items := names(tc.path)
		if code != tc.code || kind != tc.kind || !slices.Equal(items, tc.items) {
			t.Errorf("GET %s: %d %s %v, want %d %s %v", tc.path, code, kind, items, tc.code, tc.kind, tc.items)
		}
	}
	resp, err := http.Get(base + "/apis/example.com/v1/widgets?fieldSelector=spec.size%3D3")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `"message":"field label not supported: spec.size","reason":"BadRequest","code":400`; !strings.Contains(string(body), want) {
		t.Errorf("unknown field label: %s, want the apiserver's %s", body, want)
	}

	var disc metav1.APIResourceList
	if code := getJSON(t, base+"/apis/example.com/v1", &disc); code != 200 {
		t.Fatalf("discovery of example.com/v1: %d", code)
	}
	i := slices.IndexFunc(disc.APIResources, func(r metav1.APIResource) bool { return r.Name == "widgets" })
	if i < 0 {
		t.Fatalf("example.com/v1 lacks widgets: %+v", disc.APIResources)
	}
	if w := disc.APIResources[i]; !w.Namespaced || w.Kind != "Widget" || !slices.Equal(w.ShortNames, []string{"wd"}) || !slices.Equal(w.Categories, []string{"all"}) {
		t.Errorf("widgets in discovery: %+v, want the CRD's names as the oracle's discovery shows them", w)
	}
	if kinds := aggregatedKinds(t, base); kinds["example.com/v1/widgets"] != "example.com/v1/Widget" || kinds["v1/pods"] != "//Pod" {
		t.Errorf("aggregated discovery kinds %v: want the custom resource's qualified, as the apiextensions apiserver names them, a built-in's not", kinds)
	}
	if !strings.Contains(logs.String(), "gizmos.example.com") || !strings.Contains(logs.String(), "not Established") {
		t.Errorf("the log does not say why gizmos is not served:\n%s", logs.String())
	}

	narrowed, _ := startServe(t, "--etcd-endpoints", endpoint, "--resources", "wd,pods")
	for path, want := range map[string]int{
		"/apis/example.com/v1/widgets":                   200,
		"/api/v1/pods":                                   200,
		"/apis/other.example.org/v1alpha1/clusterthings": 404,
	} {
		if code := getJSON(t, narrowed+path, nil); code != want {
			t.Errorf("--resources wd,pods: GET %s: %d, want %d", path, code, want)
		}
	}
}

// TestParseCRD pins what a stored CRD must hold to be served.
func TestParseCRD(t *testing.T) {
	const established = `"status":{"conditions":[{"type":"Established","status":"True"}]}`
	for _, tc := range []struct {
		name, value, err string
		prefix, version  string
		fields           []string
		served           []string // nil: the storage version alone
		columns          []string // "name jsonPath priority" of each served version's first column, if any
	}{
		{name: "v1beta1 with top-level selectableFields",
			value:  `{"spec":{"group":"g.io","names":{"plural":"things","kind":"Thing"},"scope":"Cluster","selectableFields":[{"jsonPath":".spec.a"}],"versions":[{"name":"v1","served":true,"storage":true}]},` + established + `}`,
			prefix: "g.io/things", version: "v1", fields: []string{"spec.a"}},
		{name: "storage version not first",
			value:  `{"spec":{"group":"g.io","names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v2","served":true},{"name":"v1","served":true,"storage":true,"selectableFields":[{"jsonPath":".status.b"}]}]},` + established + `}`,
			prefix: "g.io/things", version: "v1", fields: []string{"status.b"}, served: []string{"v2", "v1"}},
		{name: "not established", value: `{"metadata":{"name":"things.g.io"},"spec":{"group":"g.io","names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","served":true,"storage":true}]},"status":{"conditions":[{"type":"Established","status":"False"}]}}`, err: "not Established"},
		{name: "no storage version", value: `{"spec":{"group":"g.io","names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","served":true}]},` + established + `}`, err: "no storage version"},
		{name: "storage version not served",
			value:  `{"spec":{"group":"g.io","names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","storage":true},{"name":"v2","served":true}]},` + established + `}`,
			prefix: "g.io/things", version: "v1", served: []string{"v2"}},
		{name: "columns per version and shared",
			value: `{"spec":{"group":"g.io","names":{"plural":"things","kind":"Thing"},"additionalPrinterColumns":[{"name":"Shape","type":"string","JSONPath":".spec.shape"}],"versions":[` +
				`{"name":"v1","served":true,"storage":true,"additionalPrinterColumns":[{"name":"Size","type":"integer","priority":1,"JSONPath":".spec.size"}],"selectableFields":[{"jsonPath":".spec.a"}]},{"name":"v2","served":true}]},` + established + `}`,
			prefix: "g.io/things", version: "v1", fields: []string{"spec.a"}, served: []string{"v1", "v2"}, columns: []string{"Size .spec.size 1", "Shape .spec.shape 0"}},
		{name: "no served version", value: `{"spec":{"group":"g.io","names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","storage":true}]},` + established + `}`, err: "serves no version"},
		{name: "no names", value: `{"spec":{"group":"g.io","versions":[{"name":"v1","served":true,"storage":true}]},` + established + `}`, err: "no group, plural or kind"},
		{name: "protobuf", value: "k8s\x00\x0a\x0b", err: "not JSON"},
		{name: "truncated JSON", value: `{"spec":`, err: "decode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr, err := parseCRD([]byte(tc.value))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseCRD: %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil || cr.Prefix != tc.prefix || cr.Version != tc.version || !slices.Equal(cr.fields, tc.fields) {
				t.Fatalf("parseCRD: %+v %v, want prefix %s version %s fields %v", cr, err, tc.prefix, tc.version, tc.fields)
			}
			served, columns := []string(nil), []string(nil)
			for _, v := range cr.versions {
				served = append(served, v.name)
				if len(v.columns) > 0 {
					c := v.columns[0]
					columns = append(columns, fmt.Sprintf("%s %s %d", c.Name, c.JSONPath, c.Priority))
				}
			}
			if tc.served == nil {
				tc.served = []string{tc.version}
			}
			if !slices.Equal(served, tc.served) || !slices.Equal(columns, tc.columns) {
				t.Errorf("served versions %v, columns %v; want %v, %v", served, columns, tc.served, tc.columns)
			}
		})
	}
}

// TestServeFollowsCRDs: a CRD written to etcd while serve runs is served as soon as it is there
// Established (discovery, lists with its selectableFields, the objects' changes), a CRD whose
// names were not accepted is not, and a deleted CRD's resource answers 404 again, as the
// apiextensions apiserver starts and stops serving them. The values are the oracle's
// (testdata/etcd-custom-resources.json).
func TestServeFollowsCRDs(t *testing.T) {
	value := recordedCustomResources(t)
	const crdKey = "/registry/apiextensions.k8s.io/customresourcedefinitions/"
	cli, endpoint := startEtcd(t)
	put := etcdPut(t, cli)
	base, _ := startServe(t, "--etcd-endpoints", endpoint)
	widgets := base + "/apis/example.com/v1/namespaces/ns-a/widgets"
	if code := getJSON(t, widgets, nil); code != http.StatusNotFound {
		t.Fatalf("widgets before their CRD: %d", code)
	}

	put("/registry/example.com/widgets/ns-a/w1", value["/registry/example.com/widgets/ns-a/w1"])
	put(crdKey+"gizmos.example.com", value[crdKey+"gizmos.example.com"])
	put(crdKey+"widgets.example.com", value[crdKey+"widgets.example.com"])
	var l struct {
		Items []metav1.PartialObjectMetadata
	}
	waitUntil(t, "widgets served", func() bool { return getJSON(t, widgets, &l) == http.StatusOK && len(l.Items) == 1 })
	put("/registry/example.com/widgets/ns-a/w2", value["/registry/example.com/widgets/ns-a/w2"])
	waitUntil(t, "the new widget served", func() bool {
		return getJSON(t, widgets+"?fieldSelector=spec.color%3Dblue", &l) == http.StatusOK && len(l.Items) == 1 && l.Items[0].Name == "w2"
	})
	if code := getJSON(t, base+"/apis/example.com/v1/gizmos", nil); code != http.StatusNotFound {
		t.Errorf("gizmos, whose CRD is not Established: %d, want 404", code)
	}
	var disc metav1.APIResourceList
	if code := getJSON(t, base+"/apis/example.com/v1", &disc); code != http.StatusOK || !slices.ContainsFunc(disc.APIResources, func(r metav1.APIResource) bool { return r.Name == "widgets" }) {
		t.Fatalf("discovery of example.com/v1 after the CRD: %d %+v", code, disc.APIResources)
	}

	if kinds := aggregatedKinds(t, base); kinds["example.com/v1/widgets"] != "example.com/v1/Widget" {
		t.Errorf("aggregated discovery after the CRD: %v", kinds)
	}
	// The CRD's other served version, v1beta1, serves the same objects in its apiVersion.
	var w1 struct{ APIVersion string }
	v1beta1 := strings.Replace(widgets, "/v1/", "/v1beta1/", 1)
	if code := getJSON(t, v1beta1+"/w1", &w1); code != http.StatusOK || w1.APIVersion != "example.com/v1beta1" {
		t.Errorf("w1 at v1beta1 after the CRD: %d %q", code, w1.APIVersion)
	}

	if _, err := cli.Delete(t.Context(), crdKey+"widgets.example.com"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "widgets no longer served", func() bool { return getJSON(t, widgets, nil) == http.StatusNotFound })
	if code := getJSON(t, v1beta1, nil); code != http.StatusNotFound {
		t.Errorf("widgets at v1beta1 after the CRD went: %d, want 404", code)
	}
	if code := getJSON(t, base+"/apis/example.com/v1", nil); code != http.StatusNotFound {
		t.Errorf("discovery of example.com/v1 after the CRD went: %d, want 404", code)
	}
	if kinds := aggregatedKinds(t, base); kinds["example.com/v1/widgets"] != "" {
		t.Errorf("aggregated discovery after the CRD went: %v", kinds)
	}
}

// aggregatedKinds returns the responseKind ("group/version/kind") of every resource of serve's
// aggregated discovery (/api and /apis), by "group/version/resource" ("v1/pods" for the core group).
func aggregatedKinds(t *testing.T, base string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range []string{"/api", "/apis"} {
		resp := getAggregated(t, base+p)
		var l apidiscoveryv2.APIGroupDiscoveryList
		err := json.NewDecoder(resp.Body).Decode(&l)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		for _, g := range l.Items {
			for _, v := range g.Versions {
				for _, r := range v.Resources {
					k := strings.TrimPrefix(g.Name+"/"+v.Version+"/"+r.Resource, "/")
					out[k] = r.ResponseKind.Group + "/" + r.ResponseKind.Version + "/" + r.ResponseKind.Kind
				}
			}
		}
	}
	return out
}

// recordedCustomResources returns the etcd keys and values of the CRDs and custom resources
// recorded from the oracle (reference/observed-etcd-layout.md, "Custom resources").
func recordedCustomResources(t *testing.T) map[string]string {
	t.Helper()
	var rec struct {
		KVs []struct{ Key, Value string }
	}
	raw, err := os.ReadFile("testdata/etcd-custom-resources.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range rec.KVs {
		out[kv.Key] = kv.Value
	}
	return out
}

// TestServeEtcdUnservesStartCRDs: a custom resource served from start stops being served, in
// every version, when its CRD is deleted from etcd — 404, /readyz still ok — and is served again,
// with its objects, when the CRD is written back, as the resources of CRDs created later are.
func TestServeEtcdUnservesStartCRDs(t *testing.T) {
	cli, endpoint := startEtcd(t)
	put := etcdPut(t, cli)
	values := recordedCustomResources(t)
	for key, value := range values {
		put(key, value)
	}
	base, _ := startServe(t, "--etcd-endpoints", endpoint)
	const crd = "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com"
	v1, v1beta1 := base+"/apis/example.com/v1/namespaces/ns-a/widgets", base+"/apis/example.com/v1beta1/namespaces/ns-a/widgets"
	var l podList
	if code := getJSON(t, v1, &l); code != http.StatusOK || l.names() != "ns-a/w1 ns-a/w2" {
		t.Fatalf("widgets from start: %d %s", code, l.names())
	}
	if _, err := cli.Delete(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "widgets no longer served", func() bool { return getJSON(t, v1, nil) == http.StatusNotFound })
	if code := getJSON(t, v1beta1, nil); code != http.StatusNotFound {
		t.Errorf("widgets at v1beta1 after the CRD went: %d", code)
	}
	if code := getJSON(t, base+"/readyz", nil); code != http.StatusOK {
		t.Errorf("/readyz after the CRD went: %d", code)
	}
	if code := getJSON(t, base+"/apis/other.example.org/v1alpha1/clusterthings", nil); code != http.StatusOK {
		t.Errorf("clusterthings after widgets went: %d", code)
	}
	put(crd, values[crd])
	waitUntil(t, "widgets served again", func() bool { return getJSON(t, v1beta1, &l) == http.StatusOK && l.names() == "ns-a/w1 ns-a/w2" })
	if code := getJSON(t, base+"/readyz", nil); code != http.StatusOK {
		t.Errorf("/readyz with widgets back: %d", code)
	}
}
