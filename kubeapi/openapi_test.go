package kubeapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/tidwall/gjson"
	"google.golang.org/protobuf/proto"

	"github.com/watchcache/watchcache/watchcache"
)

// openAPIServer registers the named core resources (empty caches).
func openAPIServer(t *testing.T, resources ...string) *httptest.Server {
	t.Helper()
	var infos []ResourceInfo
	for _, name := range resources {
		info, _ := CoreResource(name)
		infos = append(infos, info)
	}
	return serverOf(t, infos)
}

// serverOf serves empty caches of the resources.
func serverOf(t *testing.T, infos []ResourceInfo) *httptest.Server {
	t.Helper()
	s := NewServer(Options{})
	for _, info := range infos {
		name := info.Resource
		c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: name, Namespaced: info.Namespaced}})
		t.Cleanup(c.Stop)
		if err := s.Register(info, c); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// TestOpenAPI: the index lists the registered group/versions with the ETag of their documents
// (the SHA-512 of the JSON, as the apiserver's: the recorded api/v1 document's own ETag,
// testdata/oracle/openapi-v3-api_v1.headers, is its hash); a document keeps the paths of the
// registered resources only, and is otherwise the recorded one; stale hashes redirect; v2 is
// served as JSON and as its protobuf.
func TestOpenAPI(t *testing.T) {
	srv := openAPIServer(t, "pods", "configmaps")
	idx := do(t, "GET", srv.URL+"/openapi/v3")
	url := gjson.GetBytes(idx.body, `paths.api/v1.serverRelativeURL`).String()
	if idx.code != 200 || !strings.HasPrefix(url, "/openapi/v3/api/v1?hash=") || len(gjson.GetBytes(idx.body, "paths").Map()) != 1 {
		t.Fatalf("index: %d %s", idx.code, idx.body)
	}
	doc := do(t, "GET", srv.URL+url, "Accept", "application/json")
	if doc.code != 200 || doc.header.Get("Etag") != `"`+strings.TrimPrefix(url, "/openapi/v3/api/v1?hash=")+`"` ||
		doc.header.Get("Cache-Control") != "public, immutable" {
		t.Fatalf("api/v1: %d %v", doc.code, doc.header)
	}
	var paths []string
	for p := range gjson.GetBytes(doc.body, "paths").Map() {
		paths = append(paths, p)
	}
	for _, p := range paths {
		if !strings.Contains(p, "/pods") && !strings.Contains(p, "/configmaps") && p != "/api/v1/" {
			t.Errorf("path of a resource not registered: %s", p)
		}
	}
	for _, p := range []string{"/api/v1/namespaces/{namespace}/pods/{name}", "/api/v1/watch/configmaps", "/api/v1/namespaces/{namespace}/pods/{name}/log"} {
		if !gjson.GetBytes(doc.body, "paths").Get(gjsonKey(p)).Exists() {
			t.Errorf("missing path %s among %d", p, len(paths))
		}
	}
	if !gjson.GetBytes(doc.body, "components.schemas.io\\.k8s\\.api\\.core\\.v1\\.PodSpec").Exists() {
		t.Error("PodSpec schema missing")
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := noFollow.Get(srv.URL + "/openapi/v3/api/v1?hash=stale"); err != nil || resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != url {
		t.Errorf("stale hash: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if r := do(t, "GET", srv.URL+"/openapi/v3/apis/apps/v1"); r.code != http.StatusNotFound {
		t.Errorf("unregistered group/version: %d", r.code)
	}

	v2 := do(t, "GET", srv.URL+"/openapi/v2", "Accept", "application/json")
	if v2.code != 200 || !gjson.GetBytes(v2.body, "definitions.io\\.k8s\\.api\\.core\\.v1\\.Pod").Exists() ||
		gjson.GetBytes(v2.body, "paths").Get(gjsonKey("/api/v1/namespaces/{namespace}/services")).Exists() {
		t.Fatalf("v2 json: %d, %d bytes", v2.code, len(v2.body))
	}
	pb := do(t, "GET", srv.URL+"/openapi/v2", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	var d openapi_v2.Document
	if err := proto.Unmarshal(pb.body, &d); pb.code != 200 || err != nil || d.GetSwagger() != "2.0" {
		t.Fatalf("v2 protobuf: %d %v", pb.code, err)
	}
	if r := do(t, "GET", srv.URL+"/openapi/v2", "Accept", "application/xml"); r.code != http.StatusNotAcceptable {
		t.Errorf("xml: %d", r.code)
	}
}

// TestOpenAPIWholeGroupVersion: with every resource of a group/version registered, its document
// is the recorded one, byte for byte, with the recorded ETag.
func TestOpenAPIWholeGroupVersion(t *testing.T) {
	f, err := os.Open("openapi/v3_api_v1.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, _ := gzip.NewReader(f)
	recordedDoc, _ := io.ReadAll(zr)
	var names []string
	for p := range gjson.GetBytes(recordedDoc, "paths").Map() {
		rest := strings.TrimPrefix(strings.TrimPrefix(p, "/api/v1/"), "watch/")
		rest = strings.TrimPrefix(rest, "namespaces/{namespace}/")
		if name, _, _ := strings.Cut(rest, "/"); name != "" {
			names = append(names, name)
		}
	}
	seen := map[string]bool{}
	var infos []ResourceInfo
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		info := ResourceInfo{Version: "v1", Resource: name, Kind: "X" + name, Namespaced: true}
		if name == "namespaces" || name == "nodes" || name == "persistentvolumes" || name == "componentstatuses" {
			info.Namespaced = false
		}
		infos = append(infos, info)
	}
	srv := serverOf(t, infos)
	r := do(t, "GET", srv.URL+"/openapi/v3/api/v1")
	headers, _ := os.ReadFile("testdata/oracle/openapi-v3-api_v1.headers")
	if !bytes.Equal(r.body, recordedDoc) || !strings.Contains(strings.ToLower(string(headers)), "etag: "+strings.ToLower(r.header.Get("Etag"))) {
		t.Fatalf("%d bytes (recorded %d), ETag %s", len(r.body), len(recordedDoc), r.header.Get("Etag"))
	}
}

// gjsonKey escapes a map key for a gjson path.
func gjsonKey(k string) string {
	return strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`).Replace(k)
}
