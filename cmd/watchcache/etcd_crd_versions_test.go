package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestServeEtcdCustomResourceVersions: serve --etcd-endpoints serves a custom resource in every
// version its CRD serves, not only the storage one — the stored object with the requested
// version's apiVersion (conversion None), each version with its own additionalPrinterColumns in
// Tables (printed by fake.CustomResourcePrinter) and its own selectableFields — as kube-apiserver
// 1.37.2 answered the same requests (testdata/etcd-custom-resource-versions.json: widgets served
// at v1beta1 and v1, stored at v1, with different columns per version and selectableFields in v1
// only; gadgets at v1 and v2 sharing their columns, which v1beta1 stores once in the spec; a
// version not served answers 404). Objects and list items are compared byte for byte but for the
// revisions the replay into another etcd gives them.
func TestServeEtcdCustomResourceVersions(t *testing.T) {
	rec := loadRecording(t, "testdata/etcd-custom-resource-versions.json")
	base := rec.serveReplayed(t)
	for _, a := range rec.Answers {
		table := strings.Contains(a.Accept, "as=Table")
		name := a.Path
		if table {
			name += " as Table"
		}
		t.Run(name, func(t *testing.T) {
			code, body := ask(t, base+a.Path, a.Accept)
			if code != a.Code {
				t.Fatalf("%d %.300s, apiserver %d %.300s", code, body, a.Code, a.Body)
			}
			switch {
			case code == 404:
				// The apiserver's is a plain-text "404 page not found" for an unknown version of a
				// known group, serve's a Status.
			case code != 200:
				if m := gjson.Get(a.Body, "message").Str; m == "" || gjson.Get(body, "message").Str != m {
					t.Errorf("message %q, apiserver %q", gjson.Get(body, "message").Str, m)
				}
			case table:
				sameTable(t, a.Path, a.Body, body)
			case gjson.Get(a.Body, "kind").Str == "APIResourceList":
				sameDiscovery(t, a.Body, body)
			case gjson.Get(a.Body, "kind").Str == "APIGroup":
				if w, g := gjson.Get(a.Body, "versions").Raw, gjson.Get(body, "versions").Raw; w != g {
					t.Errorf("versions %s, apiserver %s", g, w)
				}
			case gjson.Get(a.Body, "items").Exists():
				wi, gi := gjson.Get(withoutRVs(a.Body), "items").Array(), gjson.Get(withoutRVs(body), "items").Array()
				if gjson.Get(body, "apiVersion").Str != gjson.Get(a.Body, "apiVersion").Str || len(wi) != len(gi) {
					t.Fatalf("%s with %d items, apiserver %s with %d", gjson.Get(body, "apiVersion").Str, len(gi), gjson.Get(a.Body, "apiVersion").Str, len(wi))
				}
				for i := range wi {
					if wi[i].Raw != gi[i].Raw {
						t.Errorf("item %d:\n ours      %s\n apiserver %s", i, gi[i].Raw, wi[i].Raw)
					}
				}
			default:
				if withoutRVs(body) != withoutRVs(a.Body) {
					t.Errorf("\n ours      %s\n apiserver %s", withoutRVs(body), withoutRVs(a.Body))
				}
			}
		})
	}
}

// sameDiscovery compares the resources of two APIResourceLists by what serve's read path tells
// of them: names, scope, kind, short names, categories and storage version hash (not the verbs:
// serve serves get, list and watch; nor subresources, which TestServeEtcdCustomResourceSubresources
// compares).
func sameDiscovery(t *testing.T, want, got string) {
	t.Helper()
	var w, g metav1.APIResourceList
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatal(err)
	}
	strip := func(l []metav1.APIResource) []metav1.APIResource {
		var out []metav1.APIResource
		for _, r := range l {
			if strings.Contains(r.Name, "/") {
				continue
			}
			r.Verbs = nil
			out = append(out, r)
		}
		return out
	}
	if wr, gr := strip(w.APIResources), strip(g.APIResources); !slices.EqualFunc(wr, gr, func(a, b metav1.APIResource) bool {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return string(ja) == string(jb)
	}) {
		t.Errorf("resources\n ours      %+v\n apiserver %+v", gr, wr)
	}
}
