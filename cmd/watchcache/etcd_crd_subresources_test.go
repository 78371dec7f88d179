package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestServeEtcdCustomResourceSubresources: serve --etcd-endpoints lists a CRD's status and scale
// subresources in its legacy and aggregated discovery and answers their GETs as kube-apiserver
// 1.37.2 answered the same requests (testdata/etcd-custom-resource-subresources.json: dials with
// both subresources, d1 with a status and d2 without): the status is the object, the scale an
// autoscaling/v1 Scale of the CRD's paths (a zero spec.replicas and a missing selector omitted),
// an unknown object or subresource the apiserver's 404. The discovery documents are the
// apiserver's byte for byte once each verb list is cut to the verbs serve serves (get, list,
// watch: it reads only); writes to a subresource get the 405 of every other write. The CRD
// itself, stored at apiextensions.k8s.io/v1beta1, is served at v1 as the apiserver serves it.
func TestServeEtcdCustomResourceSubresources(t *testing.T) {
	rec := loadRecording(t, "testdata/etcd-custom-resource-subresources.json")
	base := rec.serveReplayed(t)
	for _, a := range rec.Answers {
		name := a.Path
		table := strings.Contains(a.Accept, "as=Table")
		aggregated := strings.Contains(a.Accept, "APIGroupDiscoveryList")
		if table {
			name += " as Table"
		}
		t.Run(name, func(t *testing.T) {
			code, body := ask(t, base+a.Path, a.Accept)
			if code != a.Code {
				t.Fatalf("%d %.300s, apiserver %d %.300s", code, body, a.Code, a.Body)
			}
			switch {
			case table:
				sameTable(t, a.Path, a.Body, body)
			case aggregated:
				// The recording keeps only the example.org group of the apiserver's document.
				group := gjson.Get(body, `items.#(metadata.name=="example.org")`).Raw
				got := `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[` + group + `]}`
				if want := servedVerbsOnly(t, a.Body); got != want {
					t.Errorf("\n ours      %s\n apiserver %s", got, want)
				}
			case gjson.Get(a.Body, "items").Exists():
				// Items byte for byte; the list's own keys are in serve's order, not apiextensions'.
				wi, gi := gjson.Get(withoutRVs(a.Body), "items").Array(), gjson.Get(withoutRVs(body), "items").Array()
				if len(wi) != len(gi) {
					t.Fatalf("%d items, apiserver %d", len(gi), len(wi))
				}
				for i := range wi {
					if wi[i].Raw != gi[i].Raw {
						t.Errorf("item %d:\n ours      %s\n apiserver %s", i, gi[i].Raw, wi[i].Raw)
					}
				}
			case gjson.Get(a.Body, "kind").Str == "APIResourceList":
				if want := servedVerbsOnly(t, a.Body); strings.TrimSpace(body) != want {
					t.Errorf("\n ours      %s\n apiserver %s", body, want)
				}
			default:
				if withoutRVs(body) != withoutRVs(a.Body) {
					t.Errorf("\n ours      %s\n apiserver %s", withoutRVs(body), withoutRVs(a.Body))
				}
			}
		})
	}
	t.Run("writes", func(t *testing.T) {
		for _, path := range []string{"/apis/example.org/v1/namespaces/ns-d/dials/d1/status", "/apis/example.org/v1/namespaces/ns-d/dials/d1/scale"} {
			req, _ := http.NewRequest(http.MethodPut, base+path, strings.NewReader("{}"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("PUT %s: %d, want 405 as for every write", path, resp.StatusCode)
			}
		}
	})
}

// servedVerbsOnly returns a recorded discovery document with every "verbs" list cut to get, list
// and watch, in the apiserver's order, and no other change (key order and spacing kept).
func servedVerbsOnly(t *testing.T, doc string) string {
	t.Helper()
	const key = `"verbs":[`
	out := strings.TrimSpace(doc)
	for from := 0; ; {
		i := strings.Index(out[from:], key)
		if i < 0 {
			return out
		}
		start := from + i + len(key)
		end := start + strings.IndexByte(out[start:], ']')
		var kept []string
		for _, v := range strings.Split(out[start:end], ",") {
			if v == `"get"` || v == `"list"` || v == `"watch"` {
				kept = append(kept, v)
			}
		}
		list := strings.Join(kept, ",")
		out = out[:start] + list + out[end:]
		from = start + len(list)
	}
}
