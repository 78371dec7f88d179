package fake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/fake"
)

// TestDiscoverySubresources compares the status and scale subresources of the fake's discovery
// documents (/api/v1, /apis/{group}/{version}) with those of a kube-apiserver 1.37.2
// (testdata/discovery): each of the oracle's entries for a resource the fake serves must be listed
// the same (scope, group, version, kind, verbs), and the fake lists no other. kubectl scale finds
// the Scale's version there.
func TestDiscoverySubresources(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	files, err := filepath.Glob("testdata/discovery/api*-v*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded discovery documents: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var want metav1.APIResourceList
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		path := "/apis/" + want.GroupVersion
		if !strings.Contains(want.GroupVersion, "/") {
			path = "/api/" + want.GroupVersion
		}
		t.Run(want.GroupVersion, func(t *testing.T) {
			got := discoveryDoc(t, srv.URL()+path)
			if got == nil {
				t.Skipf("%s is not served", path)
			}
			served := map[string]bool{}
			for _, r := range got.APIResources {
				served[r.Name] = true
			}
			wantSubs := subresourceEntries(want, served)
			gotSubs := subresourceEntries(*got, served)
			if !reflect.DeepEqual(gotSubs, wantSubs) {
				t.Errorf("subresources\n got: %+v\nwant: %+v", gotSubs, wantSubs)
			}
		})
	}
}

// subresourceEntries returns the status and scale entries of a document whose resource is served.
func subresourceEntries(l metav1.APIResourceList, served map[string]bool) map[string]metav1.APIResource {
	out := map[string]metav1.APIResource{}
	for _, r := range l.APIResources {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok || (sub != "status" && sub != "scale") || !served[parent] {
			continue
		}
		out[r.Name] = metav1.APIResource{Name: r.Name, Namespaced: r.Namespaced, Group: r.Group, Version: r.Version, Kind: r.Kind, Verbs: r.Verbs}
	}
	return out
}

func discoveryDoc(t *testing.T, url string) *metav1.APIResourceList {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	b, _ := io.ReadAll(resp.Body)
	var l metav1.APIResourceList
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("%s: %v: %s", url, err, b)
	}
	return &l
}
