package fake_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/watchcache/watchcache/fake"
)

// The OpenAPI documents of two CRDs — the Widget CRD of crd_cases_test.go (group
// env.example.com) and a cluster-scoped gadgetCRD (cluster.example.com) — recorded
// from a kube-apiserver 1.37.2 by TestRecordOracleCRDOpenAPI and compared with the fake's by
// TestCRDOpenAPIAsRecorded. Nothing in them varies between runs: the index's hashes are the
// SHA-512 of the documents, which hold no times or uids.

const crdOpenAPIFile = "testdata/observed-crd-openapi.json.gz"

// openAPICase is a CRD whose OpenAPI is recorded.
type openAPICase struct {
	Name    string
	Group   string // {g} in Body
	Body    string
	CRDName string
	// DefPrefix begins the names of the CRD's definitions ("com.example.env.").
	DefPrefix string
	// Versions and V2Paths are how many group/versions and /openapi/v2 paths the CRD publishes
	// (its /openapi/v3 documents have as many paths).
	Versions, V2Paths int
	// Also are more CRDs created after Body and deleted with it, by name (their group/versions
	// merge with Body's).
	Also map[string]string
	// Update, when set, replaces the CRD after the first observation ({rv} is its
	// resourceVersion), and UpdatedVersions is how many group/versions it then publishes.
	Update          string
	UpdatedVersions int
}

// gadgetCRD is cluster-scoped, without subresources, with a root that keeps unknown fields
// (published in v2 as a bare object) and an embedded resource (given apiVersion, kind and metadata
// in v3).
const gadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.{g}"},"spec":{"group":"{g}","scope":"Cluster",` +
	`"names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},` +
	`"versions":[{"name":"v1alpha1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{` +
	`"spec":{"type":"object","description":"what the gadget does","properties":{` +
	`"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},` +
	`"level":{"x-kubernetes-int-or-string":true,"default":3},` +
	`"tags":{"type":"array","items":{"type":"string"},"nullable":true}}}}}}}]}}`

// gizmoCRD shares gadgetCRD's group and version: their documents are merged into one.
const gizmoCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.{g}"},"spec":{"group":"{g}","scope":"Namespaced",` +
	`"names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo","listKind":"GizmoList"},` +
	`"versions":[{"name":"v1alpha1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","properties":{` +
	`"spec":{"type":"object","properties":{"size":{"type":"integer","format":"int32"}}},"status":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}}}]}}`

var openAPICases = []openAPICase{
	{Name: "widgets", Group: "env.example.com", Body: widgetCRD, CRDName: "widgets.env.example.com", DefPrefix: "com.example.env.", Versions: 2, V2Paths: 10,
		Update: widgetCRDv2, UpdatedVersions: 3},
	{Name: "gadgets", Group: "cluster.example.com", Body: gadgetCRD, CRDName: "gadgets.cluster.example.com", DefPrefix: "com.example.cluster.", Versions: 1, V2Paths: 2},
	{Name: "merged", Group: "merged.example.com", Body: gadgetCRD, CRDName: "gadgets.merged.example.com", DefPrefix: "com.example.merged.", Versions: 1, V2Paths: 6,
		Also: map[string]string{"gizmos.merged.example.com": gizmoCRD}},
}

// observedOpenAPI is what one server published while a CRD existed, and after its deletion.
type observedOpenAPI struct {
	Name string `json:"name"`
	// Index is the /openapi/v3 entries of the group ("apis/env.example.com/v1": serverRelativeURL).
	Index map[string]string `json:"index"`
	// IndexContentType is the index's Content-Type.
	IndexContentType string `json:"indexContentType"`
	// V3 is each group/version's document, verbatim, and its ETag header.
	V3     map[string]string `json:"v3"`
	V3ETag map[string]string `json:"v3ETag"`
	// V2Paths and V2Definitions are the members of /openapi/v2 that the CRD added, verbatim
	// (a path of the group, a definition of its kinds); V2Parameters the shared parameters it added.
	V2Paths       map[string]string `json:"v2Paths"`
	V2Definitions map[string]string `json:"v2Definitions"`
	V2Parameters  []string          `json:"v2Parameters"`
	// UpdatedIndex and UpdatedV3 are the index entries and documents after the case's Update.
	UpdatedIndex map[string]string `json:"updatedIndex,omitempty"`
	UpdatedV3    map[string]string `json:"updatedV3,omitempty"`
	// After is what the server published once the CRD was deleted: the group's index entries,
	// the status code of a document's GET, and the group's /openapi/v2 paths.
	AfterIndex   map[string]string `json:"afterIndex"`
	AfterV3Code  map[string]int    `json:"afterV3Code"`
	AfterV2Paths []string          `json:"afterV2Paths"`
}

// fetch GETs a path of srv with application/json.
func fetch(t *testing.T, srv server, path string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := srv.get(context.Background(), path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, resp.Header, b
}

// groupIndex is the /openapi/v3 entries of a group.
func groupIndex(t *testing.T, srv server, group string) (map[string]string, string) {
	t.Helper()
	code, h, b := fetch(t, srv, "/openapi/v3")
	if code != http.StatusOK {
		t.Fatalf("/openapi/v3: %d %s", code, b)
	}
	out := map[string]string{}
	gjson.GetBytes(b, "paths").ForEach(func(k, v gjson.Result) bool {
		if strings.HasPrefix(k.Str, "apis/"+group+"/") {
			out[k.Str] = v.Get("serverRelativeURL").Str
		}
		return true
	})
	return out, h.Get("Content-Type")
}

// v2Members are the raw members of one top-level object of /openapi/v2 that keep admits.
func v2Members(doc []byte, key string, keep func(string) bool) map[string]string {
	out := map[string]string{}
	gjson.GetBytes(doc, key).ForEach(func(k, v gjson.Result) bool {
		if keep(k.Str) {
			out[k.Str] = v.Raw
		}
		return true
	})
	return out
}

// observeOpenAPI creates a case's CRD on srv, waits (up to wait) until /openapi/v3 lists its
// versions, reads what is published, deletes the CRD and waits until they are gone. before is
// /openapi/v2 before the CRD, to find the shared parameters it added.
func observeOpenAPI(t *testing.T, srv server, c openAPICase, wait time.Duration) observedOpenAPI {
	t.Helper()
	isGroupPath := func(p string) bool { return strings.HasPrefix(p, "/apis/"+c.Group+"/") }
	isGroupDefinition := func(d string) bool { return strings.HasPrefix(d, c.DefPrefix) }
	_, _, before := fetch(t, srv, "/openapi/v2")
	step := func(method, path, body string) int {
		t.Helper()
		code, _, _ := sendCRDStep(t, srv, crdStep{Name: method + " " + path, Method: method, Path: path, Body: body},
			func(s string) string { return strings.ReplaceAll(s, "{g}", c.Group) })
		return code
	}
	if code := step("POST", crdPath, c.Body); code != http.StatusCreated {
		t.Fatalf("create CRD %s: %d", c.CRDName, code)
	}
	for _, name := range sortedMapKeys(c.Also) {
		if code := step("POST", crdPath, c.Also[name]); code != http.StatusCreated {
			t.Fatalf("create CRD %s: %d", name, code)
		}
	}
	obs := observedOpenAPI{Name: c.Name}
	until := func(what string, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(wait)
		for !done() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after %s", what, wait)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// The apiserver's OpenAPI controllers publish each CRD a moment after it is Established, one
	// at a time: the observation is taken once the index lists every version, their documents
	// hold every path, and the index did not change while they were read.
	until("index and documents complete and stable", func() bool {
		var idx map[string]string
		idx, obs.IndexContentType = groupIndex(t, srv, c.Group)
		if len(idx) != c.Versions {
			return false
		}
		obs.V3, obs.V3ETag = map[string]string{}, map[string]string{}
		paths := 0
		for gv, u := range idx {
			code, h, b := fetch(t, srv, u)
			if code != http.StatusOK {
				return false
			}
			obs.V3[gv], obs.V3ETag[gv] = string(b), h.Get("Etag")
			paths += len(gjson.GetBytes(b, "paths").Map())
		}
		again, _ := groupIndex(t, srv, c.Group)
		obs.Index = idx
		return paths == c.V2Paths && maps.Equal(idx, again)
	})
	until("/openapi/v2 has the CRD's paths", func() bool {
		_, _, after := fetch(t, srv, "/openapi/v2")
		obs.V2Paths = v2Members(after, "paths", isGroupPath)
		obs.V2Definitions = v2Members(after, "definitions", isGroupDefinition)
		had := v2Members(before, "parameters", func(string) bool { return true })
		obs.V2Parameters = nil
		for k := range v2Members(after, "parameters", func(string) bool { return true }) {
			if _, ok := had[k]; !ok {
				obs.V2Parameters = append(obs.V2Parameters, k)
			}
		}
		return len(obs.V2Paths) == c.V2Paths
	})
	if c.Update != "" {
		_, _, cur := fetch(t, srv, crdPath+"/"+c.CRDName)
		rv := gjson.GetBytes(cur, "metadata.resourceVersion").Str
		code, _, _ := sendCRDStep(t, srv, crdStep{Name: "update CRD", Method: "PUT", Path: crdPath + "/" + c.CRDName, Body: c.Update},
			func(s string) string { return strings.NewReplacer("{g}", c.Group, "{rv}", rv).Replace(s) })
		if code != http.StatusOK {
			t.Fatalf("update CRD %s: %d", c.CRDName, code)
		}
		until("index lists the updated CRD's versions", func() bool {
			obs.UpdatedIndex, _ = groupIndex(t, srv, c.Group)
			return len(obs.UpdatedIndex) == c.UpdatedVersions
		})
		obs.UpdatedV3 = map[string]string{}
		for gv, u := range obs.UpdatedIndex {
			code, _, b := fetch(t, srv, u)
			if code != http.StatusOK {
				t.Fatalf("%s: %d %s", u, code, b)
			}
			obs.UpdatedV3[gv] = string(b)
		}
	}
	for _, name := range append([]string{c.CRDName}, sortedMapKeys(c.Also)...) {
		if code := step("DELETE", crdPath+"/"+name, ""); code != http.StatusOK {
			t.Fatalf("delete CRD %s: %d", name, code)
		}
	}
	until("index drops the group", func() bool {
		obs.AfterIndex, _ = groupIndex(t, srv, c.Group)
		return len(obs.AfterIndex) == 0
	})
	obs.AfterV3Code = map[string]int{}
	for gv := range obs.Index {
		code, _, _ := fetch(t, srv, "/openapi/v3/"+gv)
		obs.AfterV3Code[gv] = code
	}
	until("/openapi/v2 drops the group", func() bool {
		_, _, after := fetch(t, srv, "/openapi/v2")
		obs.AfterV2Paths = sortedMapKeys(v2Members(after, "paths", isGroupPath))
		return len(obs.AfterV2Paths) == 0
	})
	return obs
}

func sortedMapKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestRecordOracleCRDOpenAPI records the Widget CRD's OpenAPI from a kube-apiserver
// (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN) into testdata/observed-crd-openapi.json.gz.
// The oracle must not have the CRDs.
func TestRecordOracleCRDOpenAPI(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-crd-openapi.md)")
	}
	srv := server{base: base, token: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), client: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the oracle's self-signed loopback certificate
	}}
	defer srv.client.CloseIdleConnections()
	var all []observedOpenAPI
	for _, c := range openAPICases {
		all = append(all, observeOpenAPI(t, srv, c, 60*time.Second))
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	if err := os.WriteFile(crdOpenAPIFile, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s (%d bytes)", filepath.Base(crdOpenAPIFile), gz.Len())
}

func readObservedOpenAPI(t *testing.T) []observedOpenAPI {
	t.Helper()
	f, err := os.Open(crdOpenAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var all []observedOpenAPI
	if err := json.NewDecoder(zr).Decode(&all); err != nil {
		t.Fatal(err)
	}
	return all
}

// TestCRDOpenAPIAsRecorded: a CRD's versions are in /openapi/v3 with the apiserver's hashes, their
// documents and the members /openapi/v2 gains are the apiserver's byte for byte, and all of it
// goes with the CRD.
func TestCRDOpenAPIAsRecorded(t *testing.T) {
	recorded := readObservedOpenAPI(t)
	if len(recorded) != len(openAPICases) {
		t.Fatalf("%d cases recorded, %d defined: record again (TestRecordOracleCRDOpenAPI)", len(recorded), len(openAPICases))
	}
	s := fake.NewTest(t, fake.Options{})
	srv := server{base: s.URL(), client: &http.Client{Transport: s.Transport()}}
	for i, c := range openAPICases {
		t.Run(c.Name, func(t *testing.T) {
			want := recorded[i]
			got := observeOpenAPI(t, srv, c, time.Second)
			check := func(what string, g, w any) {
				t.Helper()
				gb, _ := json.Marshal(g)
				wb, _ := json.Marshal(w)
				if !bytes.Equal(gb, wb) {
					t.Errorf("%s:\n got %.600s\nwant %.600s", what, firstDiff(gb, wb), firstDiff(wb, gb))
				}
			}
			check("index", got.Index, want.Index)
			check("index Content-Type", got.IndexContentType, want.IndexContentType)
			for gv := range want.V3 {
				check("document "+gv, got.V3[gv], want.V3[gv])
			}
			check("ETags", got.V3ETag, want.V3ETag)
			check("v2 paths", got.V2Paths, want.V2Paths)
			check("v2 definitions", got.V2Definitions, want.V2Definitions)
			check("v2 new shared parameters", got.V2Parameters, want.V2Parameters)
			check("index after update", got.UpdatedIndex, want.UpdatedIndex)
			for gv := range want.UpdatedV3 {
				check("document after update "+gv, got.UpdatedV3[gv], want.UpdatedV3[gv])
			}
			check("index after delete", got.AfterIndex, want.AfterIndex)
			check("document codes after delete", got.AfterV3Code, want.AfterV3Code)
			check("v2 paths after delete", got.AfterV2Paths, want.AfterV2Paths)
		})
	}
}

// firstDiff is a from shortly before where it first differs from b.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("…%s", a[max(0, i-200):])
}
