package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/watchcache/watchcache/fake"
)

// TestServeKubeconfigCustomResourceColumns: serve --kubeconfig prints a custom resource's Table
// with its CRD's additionalPrinterColumns, lists its items with their kind and apiVersion, and
// follows an edit of the columns, against the fake apiserver (TestOracleKube checks the same
// against kube-apiserver 1.37.2).
func TestServeKubeconfigCustomResourceColumns(t *testing.T) {
	up, err := fake.NewHandler(fake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	hs := httptest.NewServer(up)
	t.Cleanup(hs.Close)
	send := func(method, path, ctype string, body any) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, hs.URL+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
		}
	}
	send(http.MethodPost, "/api/v1/namespaces", "application/json", map[string]any{"metadata": map[string]any{"name": "ns-a"}})
	crd := knobsCRD("knob", 1)
	crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["subresources"] = map[string]any{
		"status": map[string]any{},
		"scale":  map[string]any{"specReplicasPath": ".spec.level", "statusReplicasPath": ".status.level"},
	}
	send(http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", crd)
	path := "/apis/example.net/v1/namespaces/ns-a/knob1s"
	waitUntil(t, "knob1s served by the fake", func() bool { return getJSON(t, hs.URL+path, nil) == http.StatusOK })
	send(http.MethodPost, path, "application/json", map[string]any{"apiVersion": "example.net/v1", "kind": "Knob1",
		"metadata": map[string]any{"name": "k0"}, "spec": map[string]any{"level": 3, "label": "x"}})

	base, _ := startServe(t, "--kubeconfig", writeKubeconfig(t, hs.URL), "--delegated-auth=false", "--rediscover-interval", "50ms")
	columns := func() string {
		_, body := ask(t, base+path, "application/json;as=Table;v=v1;g=meta.k8s.io")
		var names []string
		for _, c := range gjson.Get(body, "columnDefinitions.#.name").Array() {
			names = append(names, c.Str)
		}
		b, _ := json.Marshal(names)
		return string(b) + " " + gjson.Get(body, "rows.0.cells").Raw
	}
	waitUntil(t, "knob1s served", func() bool { return getJSON(t, base+path, nil) == http.StatusOK })
	if got, want := columns(), `["Name","Level","Label"] ["k0",3,"x"]`; got != want {
		t.Errorf("Table %s, want %s (the CRD's columns)", got, want)
	}
	if _, body := ask(t, base+path, "application/json"); gjson.Get(body, "items.0.kind").Str != "Knob1" {
		t.Errorf("list item without its kind: %.300s", body)
	}
	// The status and scale subresources the cluster's discovery lists answer as the cluster does;
	// one the CRD does not declare gets the apiextensions apiserver's 404 naming the object.
	for _, sub := range []string{"/k0/status", "/k0/scale", "/missing/status", "/k0/other"} {
		code, body := ask(t, base+path+sub, "application/json")
		wantCode, want := ask(t, hs.URL+path+sub, "application/json")
		if code != wantCode || strings.TrimSpace(body) != strings.TrimSpace(want) {
			t.Errorf("GET %s: %d %.300s\n upstream %d %.300s", sub, code, body, wantCode, want)
		}
	}
	send(http.MethodPatch, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/knob1s.example.net", "application/json-patch+json",
		[]map[string]any{{"op": "replace", "path": "/spec/versions/0/additionalPrinterColumns/0/name", "value": "Height"}})
	waitUntil(t, "the edited columns", func() bool { return columns() == `["Name","Height","Label"] ["k0",3,"x"]` })
}
