package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestServeEtcdBuiltinSubresources: serve --etcd-endpoints lists the status and scale
// subresources of built-in resources in their legacy discovery and answers their GETs as
// kube-apiserver 1.37.2 answered the same requests (testdata/etcd-builtin-subresources.json,
// objects stored as protobuf): the status is the object, the scale of deployments, replica sets,
// stateful sets and replication controllers an autoscaling/v1 Scale, a missing object the 404
// naming it, and a subresource the resource does not have the generic 404 of an unknown path.
// Each subresource entry of serve's /api/v1 and /apis/apps/v1 is the apiserver's byte for byte
// once its verbs are cut to get (serve reads only), and every status and scale entry the
// apiserver lists for a resource serve serves is there; writes get the 405 of every other write.
func TestServeEtcdBuiltinSubresources(t *testing.T) {
	rec := loadRecording(t, "testdata/etcd-builtin-subresources.json")
	base := rec.serveReplayed(t)
	for _, a := range rec.Answers {
		t.Run(a.Path, func(t *testing.T) {
			code, body := ask(t, base+a.Path, a.Accept)
			if code != a.Code {
				t.Fatalf("%d %.300s, apiserver %d %.300s", code, body, a.Code, a.Body)
			}
			if gjson.Get(a.Body, "kind").Str != "APIResourceList" {
				if withoutRVs(body) != withoutRVs(a.Body) {
					t.Errorf("\n ours      %s\n apiserver %s", withoutRVs(body), withoutRVs(a.Body))
				}
				return
			}
			sameSubresourceEntries(t, body, servedVerbsOnly(t, a.Body))
		})
	}
	t.Run("writes", func(t *testing.T) {
		for _, path := range []string{"/api/v1/namespaces/ns-s/pods/p/status", "/apis/apps/v1/namespaces/ns-s/deployments/d/scale"} {
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

// sameSubresourceEntries checks the subresource entries of two APIResourceLists: each of ours is
// the apiserver's of the same name, and each status and scale entry of the apiserver's whose
// resource ours lists is in ours.
func sameSubresourceEntries(t *testing.T, ours, apiserver string) {
	t.Helper()
	entries := func(doc string) map[string]string {
		m := map[string]string{}
		for _, r := range gjson.Get(doc, "resources").Array() {
			m[r.Get("name").Str] = r.Raw
		}
		return m
	}
	got, want := entries(ours), entries(apiserver)
	checked := 0
	for name, raw := range got {
		if !strings.Contains(name, "/") {
			continue
		}
		checked++
		if want[name] != raw {
			t.Errorf("%s:\n ours      %s\n apiserver %s", name, raw, want[name])
		}
	}
	for name := range want {
		resource, sub, ok := strings.Cut(name, "/")
		if _, served := got[resource]; ok && served && (sub == "status" || sub == "scale") && got[name] == "" {
			t.Errorf("%s: not listed; apiserver %s", name, want[name])
		}
	}
	if checked == 0 {
		t.Error("no subresource listed")
	}
}
