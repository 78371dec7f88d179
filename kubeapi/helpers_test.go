package kubeapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// cluster is a test fixture: caches for pods, nodes and namespaces filled from the generator, a
// Server serving them, and an httptest server in front of it.
type cluster struct {
	gen    *testdata.Generator
	churn  *testdata.Churn
	rv     uint64
	caches map[string]*watchcache.Cache
	server *Server
	http   *httptest.Server
	// requests logs the request URIs the server received.
	requests *requestLog
}

type clusterOptions struct {
	cfg   testdata.Config
	cache watchcache.Options // template for every cache (Resource is set per cache)
	now   time.Time
}

// newCluster builds the fixture; everything is torn down at the end of the test.
func newCluster(t testing.TB, o clusterOptions) *cluster {
	t.Helper()
	if o.cfg.Pods == 0 {
		o.cfg = testdata.Config{Pods: 200, Nodes: 10, Namespaces: 4, Seed: 1}
	}
	g := testdata.New(o.cfg)
	cfg := g.Config()
	cl := &cluster{gen: g, caches: map[string]*watchcache.Cache{}}
	opts := Options{}
	if !o.now.IsZero() {
		opts.Now = func() time.Time { return o.now }
	}
	cl.server = NewServer(opts)
	var nsObjs, nodeObjs, podObjs [][]byte
	for k := range cfg.Namespaces {
		cl.rv++
		nsObjs = append(nsObjs, g.Namespace(k, cl.rv))
	}
	for j := range cfg.Nodes {
		cl.rv++
		nodeObjs = append(nodeObjs, g.Node(j, cl.rv))
	}
	for i := range cfg.Pods {
		cl.rv++
		podObjs = append(podObjs, g.Pod(i, cl.rv))
	}
	for _, name := range []string{"namespaces", "nodes", "pods", "configmaps"} {
		info, _ := CoreResource(name)
		co := o.cache
		co.Resource = watchcache.Resource{Name: name, Namespaced: info.Namespaced}
		c := watchcache.New(co)
		objs := map[string][][]byte{"namespaces": nsObjs, "nodes": nodeObjs, "pods": podObjs}[name]
		if err := c.Replace(objs, cl.rv); err != nil {
			t.Fatalf("replace %s: %v", name, err)
		}
		if err := cl.server.Register(info, c); err != nil {
			t.Fatal(err)
		}
		cl.caches[name] = c
		t.Cleanup(c.Stop)
	}
	pods := cl.caches["pods"]
	if err := pods.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"}); err != nil {
		t.Fatal(err)
	}
	if err := pods.AddIndex(index.Spec{Kind: index.Label, Name: "app"}); err != nil {
		t.Fatal(err)
	}
	cl.churn = g.NewChurn(7)
	cl.requests = &requestLog{}
	cl.http = httptest.NewServer(cl.requests.wrap(cl.server))
	t.Cleanup(cl.http.Close)
	// Stop the caches before the server closes, so open watches end and Close does not wait.
	t.Cleanup(func() {
		for _, c := range cl.caches {
			c.Stop()
		}
	})
	return cl
}

// step applies n churn events to the pods cache.
func (cl *cluster) step(t testing.TB, n int) {
	t.Helper()
	for range n {
		cl.rv++
		ch := cl.churn.Next(cl.rv)
		typ := map[testdata.ChangeType]watchcache.EventType{
			testdata.Added: watchcache.Added, testdata.Modified: watchcache.Modified, testdata.Deleted: watchcache.Deleted,
		}[ch.Type]
		if err := cl.caches["pods"].Apply(watchcache.Event{Type: typ, Object: ch.Object, ResourceVersion: cl.rv}); err != nil {
			t.Fatalf("apply: %v", err)
		}
	}
}

// response is an HTTP answer read whole.
type response struct {
	code   int
	header http.Header
	body   []byte
}

func (cl *cluster) get(t testing.TB, path string, header ...string) response {
	t.Helper()
	return do(t, http.MethodGet, cl.http.URL+path, header...)
}

func do(t testing.TB, method, url string, header ...string) response {
	t.Helper()
	resp := send(t, method, url, header...)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: body}
}

// send sends a request with the header given as name, value pairs and fails the test on a
// transport error; the caller closes the body.
func send(t testing.TB, method, url string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// status decodes a Status body.
func (r response) status(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("status body %q: %v", r.body, err)
	}
	if m["kind"] != "Status" || m["apiVersion"] != "v1" {
		t.Fatalf("not a Status: %s", r.body)
	}
	return m
}

// wireListMeta is the metadata of a list or a Table as a client decodes it.
type wireListMeta struct {
	ResourceVersion    string `json:"resourceVersion"`
	Continue           string `json:"continue"`
	RemainingItemCount *int64 `json:"remainingItemCount"`
}

// rawList is a list whose items are kept as bytes.
type rawList struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   wireListMeta      `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

func (r response) list(t testing.TB) rawList {
	t.Helper()
	if r.code != http.StatusOK {
		t.Fatalf("code %d: %s", r.code, r.body)
	}
	var l rawList
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatalf("list body: %v", err)
	}
	return l
}

// watchStream is an open watch read line by line.
type watchStream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

type wireEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

func (cl *cluster) watch(t testing.TB, path string, header ...string) *watchStream {
	t.Helper()
	return openWatch(t, cl.http.URL+path, header...)
}

// openWatch starts a watch request and returns its stream, closed at the end of the test.
func openWatch(t testing.TB, url string, header ...string) *watchStream {
	t.Helper()
	resp := send(t, http.MethodGet, url, header...)
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	return &watchStream{resp: resp, sc: sc}
}

// next reads one event; ok is false at the end of the stream.
func (w *watchStream) next(t testing.TB) (wireEvent, bool) {
	t.Helper()
	if !w.sc.Scan() {
		return wireEvent{}, false
	}
	var ev wireEvent
	if err := json.Unmarshal(w.sc.Bytes(), &ev); err != nil {
		t.Fatalf("event %q: %v", w.sc.Text(), err)
	}
	return ev, true
}

// rest reads events until the stream ends.
func (w *watchStream) rest(t testing.TB) []wireEvent {
	t.Helper()
	var out []wireEvent
	for {
		ev, ok := w.next(t)
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

func metaName(t testing.TB, obj []byte) string {
	t.Helper()
	var o struct {
		Metadata struct{ Name, Namespace string } `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &o); err != nil {
		t.Fatal(err)
	}
	if o.Metadata.Namespace == "" {
		return o.Metadata.Name
	}
	return o.Metadata.Namespace + "/" + o.Metadata.Name
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
