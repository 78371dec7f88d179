package kubeapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tidwall/gjson"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/watchcache/watchcache/watchcache"
)

// TestListSplicesItems pins the list body: the envelope the apiserver writes, and items that are
// byte for byte the cache's (no decode/re-encode), with continue and remainingItemCount (rules
// 2.1, 2.7) and `items: []` for an empty list (rule 6.5).
func TestListSplicesItems(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	pods := cl.caches["pods"]
	tests := []struct {
		name, path string
		opts       watchcache.ListOptions
		kind       string
		cache      *watchcache.Cache
	}{
		{"first page, all namespaces", "/api/v1/pods?limit=3", watchcache.ListOptions{Limit: 3}, "PodList", pods},
		{"namespaced page", "/api/v1/namespaces/ns-1/pods?limit=5", watchcache.ListOptions{Namespace: "ns-1", Limit: 5}, "PodList", pods},
		{"field selector (rule 4.7, indexed)", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-3",
			watchcache.ListOptions{FieldSelector: "spec.nodeName=node-3"}, "PodList", pods},
		{"label selector, limit", "/api/v1/pods?labelSelector=app%3Dweb&limit=2",
			watchcache.ListOptions{LabelSelector: "app=web", Limit: 2}, "PodList", pods},
		{"cluster-scoped", "/api/v1/nodes", watchcache.ListOptions{}, "NodeList", cl.caches["nodes"]},
		{"resourceVersion=0", "/api/v1/namespaces?resourceVersion=0", watchcache.ListOptions{ResourceVersion: "0"}, "NamespaceList", cl.caches["namespaces"]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := tt.cache.List(context.Background(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			r := cl.get(t, tt.path)
			if got := r.header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			// The body's size is sent up front (no chunked encoding), and it is exact.
			if n, err := strconv.Atoi(r.header.Get("Content-Length")); err != nil || n != len(r.body) {
				t.Errorf("Content-Length %q for a body of %d bytes", r.header.Get("Content-Length"), len(r.body))
			}
			l := r.list(t)
			if l.Kind != tt.kind || l.APIVersion != "v1" {
				t.Errorf("kind %q apiVersion %q", l.Kind, l.APIVersion)
			}
			if l.Metadata.ResourceVersion != strconv.FormatUint(want.ResourceVersion, 10) {
				t.Errorf("resourceVersion %s, want %d", l.Metadata.ResourceVersion, want.ResourceVersion)
			}
			if l.Metadata.Continue != want.Continue {
				t.Errorf("continue %q, want %q", l.Metadata.Continue, want.Continue)
			}
			if (l.Metadata.RemainingItemCount == nil) != (want.RemainingItemCount == nil) ||
				(want.RemainingItemCount != nil && *l.Metadata.RemainingItemCount != *want.RemainingItemCount) {
				t.Errorf("remainingItemCount %v, want %v", l.Metadata.RemainingItemCount, want.RemainingItemCount)
			}
			if len(l.Items) != len(want.Items) || len(want.Items) == 0 {
				t.Fatalf("%d items, want %d (> 0)", len(l.Items), len(want.Items))
			}
			for i := range want.Items {
				// An item is the cache's object without its leading kind and apiVersion, as the
				// apiserver writes list items (testdata/oracle/list-pods-fid.http).
				if !bytes.Equal(l.Items[i], asListItem(t, want.Items[i])) {
					t.Fatalf("item %d differs from the cache's bytes: %.80s", i, l.Items[i])
				}
				// The body holds the very bytes after the type fields, not a re-encoding.
				if !bytes.Contains(r.body, want.Items[i][bytes.Index(want.Items[i], []byte(`"metadata"`)):]) {
					t.Fatalf("item %d is not spliced verbatim", i)
				}
			}
		})
	}

	t.Run("empty list is items: [] (rule 6.5)", func(t *testing.T) {
		r := cl.get(t, "/api/v1/namespaces/ns-0/configmaps")
		want := fmt.Sprintf(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[]}`+"\n", cl.rv)
		if r.code != http.StatusOK || string(r.body) != want {
			t.Fatalf("got %d %s, want %s", r.code, r.body, want)
		}
	})
	t.Run("empty selection is items: [] (rule 6.5)", func(t *testing.T) {
		r := cl.get(t, "/api/v1/pods?labelSelector=app%3D%3D&limit=3")
		if l := r.list(t); l.Items == nil || len(l.Items) != 0 || !bytes.Contains(r.body, []byte(`"items":[]`)) {
			t.Fatalf("body %s", r.body)
		}
	})
}

// TestListPagesThroughEverything walks every page of a list by its continue tokens (rule 2.6: pages
// are full except the last; 2.8: every page carries the first page's RV) while pods change, and
// gets exactly the snapshot of the first page.
func TestListPagesThroughEverything(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	snap, err := cl.caches["pods"].List(context.Background(), watchcache.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	cont, rv := "", ""
	for page := 0; ; page++ {
		path := "/api/v1/pods?limit=7"
		if cont != "" {
			path += "&continue=" + cont
		}
		l := cl.get(t, path).list(t)
		if rv == "" {
			rv = l.Metadata.ResourceVersion
		} else if l.Metadata.ResourceVersion != rv {
			t.Fatalf("page %d at RV %s, first page at %s (rule 2.8)", page, l.Metadata.ResourceVersion, rv)
		}
		for _, it := range l.Items {
			got = append(got, it)
		}
		if l.Metadata.Continue == "" {
			break
		}
		if len(l.Items) != 7 {
			t.Fatalf("page %d has %d items and a continue token (rule 2.6)", page, len(l.Items))
		}
		cont = l.Metadata.Continue
		cl.step(t, 3) // the pages still read the first page's snapshot
	}
	if len(got) != len(snap.Items) {
		t.Fatalf("%d items over all pages, want %d", len(got), len(snap.Items))
	}
	for i := range got {
		if !bytes.Equal(got[i], asListItem(t, snap.Items[i])) {
			t.Fatalf("item %d differs", i)
		}
	}
}

// asListItem is a stored object as a list item: without the leading kind and apiVersion the
// test fixtures' objects (and the apiserver's) begin with.
func asListItem(t testing.TB, obj []byte) []byte {
	t.Helper()
	kind := gjson.GetBytes(obj, "kind").String()
	prefix := typePrefix(kind, gjson.GetBytes(obj, "apiVersion").String())
	if kind == "" || !bytes.HasPrefix(obj, prefix) {
		t.Fatalf("fixture object does not begin with kind and apiVersion: %.60s", obj)
	}
	return append([]byte("{"), obj[len(prefix):]...)
}

// TestGet pins a get: the object's bytes as stored, for namespaced and cluster-scoped resources.
func TestGet(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	for _, tt := range []struct {
		path, ns, name string
		cache          *watchcache.Cache
	}{
		{"/api/v1/namespaces/ns-1/pods/pod-000001", "ns-1", "pod-000001", cl.caches["pods"]},
		{"/api/v1/nodes/node-2", "", "node-2", cl.caches["nodes"]},
		{"/api/v1/namespaces/ns-3", "", "ns-3", cl.caches["namespaces"]},
		{"/api/v1/namespaces/ns-1/pods/pod-000001?resourceVersion=0", "ns-1", "pod-000001", cl.caches["pods"]},
		{"/api/v1/namespaces/ns-1/pods/pod-000001?fieldSelector=metadata.name%3Dpod-000001", "ns-1", "pod-000001", cl.caches["pods"]},
		// A get decodes GetOptions only: list parameters are ignored.
		{"/api/v1/namespaces/ns-1/pods/pod-000001?limit=abc", "ns-1", "pod-000001", cl.caches["pods"]},
	} {
		t.Run(tt.path, func(t *testing.T) {
			want, _, err := tt.cache.Get(context.Background(), tt.ns, tt.name, "")
			if err != nil {
				t.Fatal(err)
			}
			r := cl.get(t, tt.path)
			if r.code != http.StatusOK || !bytes.Equal(bytes.TrimSuffix(r.body, []byte("\n")), want) {
				t.Fatalf("code %d, body differs from the cache's bytes", r.code)
			}
		})
	}
}

// TestWithKind pins the kind and apiVersion added to single objects stored without them.
func TestWithKind(t *testing.T) {
	res := &resource{info: ResourceInfo{Kind: "Widget"}, gv: "example.com/v1"}
	for _, tt := range []struct{ in, want string }{
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{}}`, `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{}}`},
		{`{"metadata":{"name":"a"}}`, `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"}}`},
		{`{"metadata":{},"apiVersion":"example.com/v1"}`, `{"kind":"Widget","metadata":{},"apiVersion":"example.com/v1"}`},
		{`{}`, `{"kind":"Widget","apiVersion":"example.com/v1"}`},
	} {
		if got := string(res.withKind([]byte(tt.in))); got != tt.want {
			t.Errorf("withKind(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if !json.Valid(res.withKind([]byte(tt.in))) {
			t.Errorf("withKind(%s) is not JSON", tt.in)
		}
	}
}

// TestErrors pins status codes, reasons and the apiserver's exact messages
// (reference/observed-kube-apiserver.md), one case per rule.
func TestErrors(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	tok := cl.get(t, "/api/v1/pods?limit=3").list(t).Metadata.Continue
	tests := []struct {
		name, method, path, accept string
		code                       int
		reason, message            string
	}{
		{"bad limit", "GET", "/api/v1/pods?limit=abc", "", 400, "BadRequest", `strconv.ParseInt: parsing "abc": invalid syntax`},
		{"bad timeoutSeconds", "GET", "/api/v1/pods?watch=1&timeoutSeconds=x", "", 400, "BadRequest", `strconv.ParseInt: parsing "x": invalid syntax`},
		{"bad continue token (rule 2.4)", "GET", "/api/v1/pods?limit=3&continue=not-a-valid-token", "", 400, "BadRequest",
			"invalid continue token: continue key is not valid: illegal base64 data at input byte 16"},
		{"token without start (rule 2.3)", "GET", "/api/v1/pods?limit=3&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NX0", "", 400, "BadRequest",
			"invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"},
		{"continue with resourceVersion (rule 2.5)", "GET", "/api/v1/pods?limit=3&resourceVersion=5&continue=" + tok, "", 400, "BadRequest",
			"specifying resource version is not allowed when using continue"},
		{"bad resourceVersion (rule 0.8)", "GET", "/api/v1/pods?resourceVersion=abc&limit=3", "", 400, "BadRequest",
			`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"unsupported field (rule 4.3)", "GET", "/api/v1/pods?fieldSelector=spec.foo%3Dbar", "", 400, "BadRequest", "field label not supported: spec.foo"},
		{"malformed field selector (rule 4.2)", "GET", "/api/v1/pods?fieldSelector=spec.nodeName&limit=3", "", 400, "BadRequest",
			"invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'"},
		{"malformed label selector (rule 4.1)", "GET", "/api/v1/pods?labelSelector=app%20in%20(", "", 400, "BadRequest", ""},
		{"named watch, other name in fieldSelector (rule 4.5)", "GET", "/api/v1/namespaces/ns-0/pods/pod-000000?watch=1&fieldSelector=metadata.name%3Dpod-000004", "", 400, "BadRequest",
			"fieldSelector metadata.name doesn't match requested name"},
		{"named watch, fieldSelector without the name (rule 4.5)", "GET", "/api/v1/namespaces/ns-0/pods/pod-000000?watch=1&fieldSelector=spec.nodeName%3Dnode-1", "", 400, "BadRequest",
			"fieldSelector metadata.name doesn't match requested name"},
		{"resourceVersionMatch without resourceVersion (rule 0.1)", "GET", "/api/v1/pods?resourceVersionMatch=NotOlderThan&limit=3", "", 422, "Invalid",
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{"sendInitialEvents on a list (rule 0.5)", "GET", "/api/v1/namespaces?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0", "", 422, "Invalid",
			`ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`},
		{"Exact with RV 0 (rule 0.4)", "GET", "/api/v1/pods?resourceVersion=0&resourceVersionMatch=Exact", "", 422, "Invalid",
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"unknown name", "GET", "/api/v1/namespaces/ns-0/pods/nope", "", 404, "NotFound", `pods "nope" not found`},
		{"unknown node", "GET", "/api/v1/nodes/nope", "", 404, "NotFound", `nodes "nope" not found`},
		{"unknown resource", "GET", "/api/v1/foos", "", 404, "NotFound", "the server could not find the requested resource"},
		{"unknown group", "GET", "/apis/example.com/v1/widgets", "", 404, "NotFound", "the server could not find the requested resource"},
		{"unknown version", "GET", "/api/v2/pods", "", 404, "NotFound", "the server could not find the requested resource"},
		{"namespaced resource without namespace", "GET", "/api/v1/pods/pod-000000", "", 404, "NotFound", "the server could not find the requested resource"},
		{"cluster-scoped resource in a namespace", "GET", "/api/v1/namespaces/ns-0/nodes", "", 404, "NotFound", "the server could not find the requested resource"},
		{"subresource", "GET", "/api/v1/namespaces/ns-0/pods/pod-000000/status", "", 404, "NotFound", "the server could not find the requested resource"},
		{"unknown path", "GET", "/foo", "", 404, "NotFound", "the server could not find the requested resource"},
		{"create", "POST", "/api/v1/namespaces/ns-0/pods", "", 405, "MethodNotAllowed", `create is not supported on resources of kind "pods"`},
		{"delete", "DELETE", "/api/v1/namespaces/ns-0/pods/pod-000000", "", 405, "MethodNotAllowed", `delete is not supported on resources of kind "pods"`},
		{"deletecollection", "DELETE", "/api/v1/namespaces/ns-0/pods", "", 405, "MethodNotAllowed", `deletecollection is not supported on resources of kind "pods"`},
		{"update", "PUT", "/api/v1/nodes/node-1", "", 405, "MethodNotAllowed", `update is not supported on resources of kind "nodes"`},
		{"patch", "PATCH", "/api/v1/nodes/node-1", "", 405, "MethodNotAllowed", `patch is not supported on resources of kind "nodes"`},
		{"post to discovery", "POST", "/api/v1", "", 405, "MethodNotAllowed", "the server does not allow this method on the requested resource"},
		{"aggregated discovery v2beta1 only", "GET", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", 406, "NotAcceptable", ""}, // testdata/oracle/aggdisc-apis-v2beta1-only.http
		{"xml only", "GET", "/api/v1/pods", "application/xml", 406, "NotAcceptable", ""},
		{"bad includeObject", "GET", "/api/v1/pods?includeObject=All", "application/json;as=Table;v=v1;g=meta.k8s.io", 400, "BadRequest", `unrecognized includeObject value: "All"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h []string
			if tt.accept != "" {
				h = []string{"Accept", tt.accept}
			}
			r := do(t, tt.method, cl.http.URL+tt.path, h...)
			if r.code != tt.code {
				t.Fatalf("code %d, want %d: %s", r.code, tt.code, r.body)
			}
			st := r.status(t)
			if st["reason"] != tt.reason || st["code"] != float64(tt.code) || st["status"] != "Failure" {
				t.Errorf("status %v", st)
			}
			if tt.message != "" && st["message"] != tt.message {
				t.Errorf("message %q\nwant    %q", st["message"], tt.message)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}

	t.Run("404 details name the resource", func(t *testing.T) {
		st := cl.get(t, "/api/v1/namespaces/ns-0/pods/nope").status(t)
		d, _ := st["details"].(map[string]any)
		if d["name"] != "nope" || d["kind"] != "pods" {
			t.Errorf("details %v", d)
		}
	})
	t.Run("405 says what is allowed", func(t *testing.T) {
		if a := do(t, "POST", cl.http.URL+"/api/v1/pods").header.Get("Allow"); a != "GET, HEAD" {
			t.Errorf("Allow %q", a)
		}
	})
}

// TestTooLargeResourceVersion pins rule 3.4: a list at an RV the cache does not reach within its
// wait is a 504 with cause ResourceVersionTooLarge and `Retry-After: 1`.
func TestTooLargeResourceVersion(t *testing.T) {
	cl := newCluster(t, clusterOptions{cache: watchcache.Options{WaitTimeout: 50 * time.Millisecond}})
	for _, path := range []string{
		"/api/v1/pods?resourceVersion=999999999",
		"/api/v1/pods?resourceVersion=999999999&limit=3",
		"/api/v1/pods?resourceVersion=999999999&resourceVersionMatch=Exact&limit=3",
		"/api/v1/namespaces/ns-0/pods/pod-000000?resourceVersion=999999999",
	} {
		t.Run(path, func(t *testing.T) {
			r := cl.get(t, path)
			if r.code != http.StatusGatewayTimeout || r.header.Get("Retry-After") != "1" {
				t.Fatalf("code %d, Retry-After %q: %s", r.code, r.header.Get("Retry-After"), r.body)
			}
			var st struct {
				Reason  string
				Message string
				Details struct {
					Causes            []struct{ Reason, Message string }
					RetryAfterSeconds int
				}
			}
			if err := json.Unmarshal(r.body, &st); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("Timeout: Too large resource version: 999999999, current: %d", cl.rv)
			if st.Reason != "Timeout" || st.Message != want || st.Details.RetryAfterSeconds != 1 ||
				len(st.Details.Causes) != 1 || st.Details.Causes[0].Reason != "ResourceVersionTooLarge" ||
				st.Details.Causes[0].Message != "Too large resource version" {
				t.Fatalf("status %+v", st)
			}
		})
	}
}

// TestExpired pins the 410s: a continue token whose snapshot left the window carries the long
// message and an rv -1 token that resumes at the latest state (rule 2.9); an Exact list below the
// window has the list message (rule 1.18).
func TestExpired(t *testing.T) {
	cl := newCluster(t, clusterOptions{cache: watchcache.Options{WindowEvents: 5}})
	first := cl.get(t, "/api/v1/pods?limit=3").list(t)
	rv := first.Metadata.ResourceVersion
	cl.step(t, 20)

	r := cl.get(t, "/api/v1/pods?limit=3&continue="+first.Metadata.Continue)
	if r.code != http.StatusGone {
		t.Fatalf("code %d: %s", r.code, r.body)
	}
	var st struct {
		Metadata struct{ Continue string }
		Reason   string
		Message  string
	}
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatal(err)
	}
	if st.Reason != "Expired" || st.Message != "The provided continue parameter is too old to display a consistent list result. "+
		"You can start a new list without the continue parameter, or use the continue token in this response to retrieve the "+
		"remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were "+
		"created, modified, or deleted between the time the first chunk was returned and now may show up in the list." {
		t.Fatalf("status %+v", st)
	}
	oldTok, newTok := decodeToken(t, first.Metadata.Continue), decodeToken(t, st.Metadata.Continue)
	if newTok.RV != -1 || newTok.Start == "" || oldTok.RV == -1 || trimSlash(newTok.Start) != trimSlash(oldTok.Start) {
		t.Fatalf("token %+v after %+v", newTok, oldTok)
	}
	next := cl.get(t, "/api/v1/pods?limit=3&continue="+st.Metadata.Continue).list(t)
	if len(next.Items) != 3 || next.Metadata.ResourceVersion == rv {
		t.Fatalf("rv -1 token: %d items at RV %s", len(next.Items), next.Metadata.ResourceVersion)
	}

	r = cl.get(t, "/api/v1/pods?limit=3&resourceVersionMatch=Exact&resourceVersion="+rv)
	if m := r.status(t); r.code != http.StatusGone || m["reason"] != "Expired" || m["message"] != "The resourceVersion for the provided list is too old." {
		t.Fatalf("exact: %d %s", r.code, r.body)
	}
}

type token struct {
	V     string `json:"v"`
	RV    int64  `json:"rv"`
	Start string `json:"start"`
}

func decodeToken(t testing.TB, s string) token {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("token %q: %v", s, err)
	}
	var tok token
	if err := json.Unmarshal(b, &tok); err != nil {
		t.Fatalf("token %s: %v", b, err)
	}
	return tok
}

func trimSlash(s string) string {
	if len(s) > 0 && s[0] == '/' {
		return s[1:]
	}
	return s
}

// TestNotReady pins rule 3.7: while the cache waits for a re-list, lists and watches get 429 with
// a Retry-After header.
func TestNotReady(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.caches["pods"].SetPending(errors.New("watch lost"))
	for _, path := range []string{"/api/v1/pods", "/api/v1/pods?watch=1", "/api/v1/namespaces/ns-0/pods?labelSelector=app%3Dweb"} {
		r := cl.get(t, path)
		if r.code != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
			t.Errorf("%s: code %d, Retry-After %q: %s", path, r.code, r.header.Get("Retry-After"), r.body)
		}
		if m := r.status(t); m["reason"] != "TooManyRequests" {
			t.Errorf("%s: %v", path, m)
		}
	}
	if r := cl.get(t, "/readyz"); r.code != http.StatusInternalServerError || !contains(string(r.body), "pods") {
		t.Errorf("readyz: %d %s", r.code, r.body)
	}
}

// TestHead answers HEAD like GET without a body.
func TestHead(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	for _, path := range []string{"/api/v1/pods?limit=1", "/api/v1/pods?watch=1", "/api/v1/nodes/node-1"} {
		r := do(t, http.MethodHead, cl.http.URL+path)
		if r.code != http.StatusOK || len(r.body) != 0 {
			t.Fatalf("HEAD %s: %d, %d bytes", path, r.code, len(r.body))
		}
	}
}

// Rule 4.5 applies to named lists and watches only: a plain get ignores its field selector, as the
// apiserver's get handler does.
func TestNamedGetIgnoresFieldSelector(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	r := cl.get(t, "/api/v1/namespaces/ns-0/pods/pod-000000?fieldSelector=metadata.name%3Dpod-000004")
	if r.code != 200 || gjson.GetBytes(r.body, "metadata.name").String() != "pod-000000" {
		t.Fatalf("get with another name in fieldSelector: %d %s", r.code, r.body)
	}
}

// TestWriteSpliced: items are joined with commas between head and tail whatever their sizes
// relative to the write buffer (items larger than it are written on their own).
func TestWriteSpliced(t *testing.T) {
	big := bytes.Repeat([]byte("x"), largeWrite+10)
	mid := bytes.Repeat([]byte("y"), largeWrite/2+1)
	for _, items := range [][][]byte{
		nil,
		{[]byte(`1`)},
		{[]byte(`1`), []byte(`2`), []byte(`3`)},
		{mid, mid, mid},
		{[]byte(`a`), big, []byte(`b`), big, big},
		{big},
	} {
		var out bytes.Buffer
		writeSpliced(&out, []byte("["), items, "]", func(b []byte) ([]byte, bool) { return b, false })
		want := "[" + string(bytes.Join(items, []byte(","))) + "]"
		if out.String() != want {
			t.Fatalf("%d items: got %d bytes, want %d", len(items), out.Len(), len(want))
		}
		// Sliced items: each is written as '{' and its rest.
		out.Reset()
		writeSpliced(&out, []byte("["), items, "]", func(b []byte) ([]byte, bool) { return b[min(1, len(b)):], true })
		var parts [][]byte
		for _, it := range items {
			parts = append(parts, append([]byte("{"), it[1:]...))
		}
		if want := "[" + string(bytes.Join(parts, []byte(","))) + "]"; out.String() != want {
			t.Fatalf("%d sliced items: got %d bytes, want %d", len(items), out.Len(), len(want))
		}
	}
}

// TestListItem: a list item is the object without its leading kind and apiVersion, sliced from
// the stored bytes when they lead (as the apiserver and source/etcd store objects), copied
// without them otherwise.
func TestListItem(t *testing.T) {
	res := &resource{typePrefix: typePrefix("Pod", "v1")}
	tests := []struct {
		name, obj, want string
		sliced          bool
	}{
		{"apiserver form", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`, `{"metadata":{"name":"a"}}`, true},
		{"apiVersion first", `{"apiVersion":"v1","kind":"Pod","metadata":{}}`, `{"metadata":{}}`, true},
		{"another version", `{"kind":"Pod","apiVersion":"v2","spec":{}}`, `{"spec":{}}`, true},
		{"no type fields", `{"metadata":{"name":"a"}}`, `{"metadata":{"name":"a"}}`, false},
		{"kind elsewhere", `{"metadata":{"name":"a"},"kind":"Pod","spec":{"kind":"x"}}`, `{"metadata":{"name":"a"},"spec":{"kind":"x"}}`, false},
		{"only type fields", `{"kind":"Pod","apiVersion":"v1"}`, `{}`, false},
		{"escaped kind", `{"kind":"P\u006fd","apiVersion":"v1","a":1}`, `{"a":1}`, false},
		{"kind twice", `{"kind":"Pod","kind":"Pod","a":1}`, `{"a":1}`, false},
		{"space after brace", `{ "kind":"Pod","apiVersion":"v1","a":1}`, `{"a":1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest, sliced := res.listItem([]byte(tt.obj))
			got := string(rest)
			if sliced {
				got = "{" + got
			}
			if got != tt.want || sliced != tt.sliced {
				t.Fatalf("listItem = %s (sliced %t), want %s (sliced %t)", got, sliced, tt.want, tt.sliced)
			}
		})
	}
}
