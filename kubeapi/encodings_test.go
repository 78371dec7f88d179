package kubeapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/watchcache/watchcache/watchcache"
)

// The encodings recordings: kube-apiserver 1.37.2's answers in protobuf and YAML, recorded by
// reference/record-encodings.sh into testdata/encodings/*.jsonl.gz (reference/observed-encodings.md).
// Each answer is served here from the objects of the recorded JSON answers, at the recorded
// resourceVersion, so the bytes compare as they are.

// encAnswer is one recorded answer.
type encAnswer struct {
	Name, Method, Path, Accept string
	Status                     int
	Headers                    []string
	Body                       string
	Base64                     string
}

func (a encAnswer) body(t testing.TB) []byte {
	t.Helper()
	if a.Base64 == "" {
		return []byte(a.Body)
	}
	b, err := base64.StdEncoding.DecodeString(a.Base64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (a encAnswer) header(name string) string {
	for _, h := range a.Headers {
		if k, v, _ := strings.Cut(h, ": "); strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// readEncodings returns the answers of a recording by name.
func readEncodings(t testing.TB, file string) map[string]encAnswer {
	t.Helper()
	f, err := os.Open("testdata/encodings/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]encAnswer{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var a encAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		out[a.Name] = a
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// encResources are the recorded resources: the info, and the recorded JSON list the cache is
// filled from.
var encResources = map[string]struct {
	info ResourceInfo
	list string
}{
	"configmaps":  {mustCore("configmaps"), "list-configmaps-json"},
	"pods":        {mustCore("pods"), "list-pods-json"},
	"nodes":       {mustCore("nodes"), ""},
	"deployments": {ResourceInfo{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}, "list-deployments-json"},
	"widgets":     {ResourceInfo{Group: "enc.example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true, Unstructured: true}, "cr-list-json"},
}

func mustCore(r string) ResourceInfo {
	info, ok := CoreResource(r)
	if !ok {
		panic(r)
	}
	return info
}

// encObjects returns the objects of a recorded JSON list as the apiserver writes each alone.
func encObjects(t testing.TB, answers map[string]encAnswer, resource string) [][]byte {
	t.Helper()
	if resource == "pods+w" {
		// pod-w was created, then deleted with a grace period (no kubelet finishes it): the
		// later recordings list it; its last state is the delete's answer.
		obj, _, err := pbCodec.Decode(answers["delete-pod-pb"].body(t), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		return append(encObjects(t, answers, "pods"), b)
	}
	r := encResources[resource]
	if resource == "nodes" {
		return [][]byte{[]byte(strings.TrimSpace(answers["get-node-yaml"].jsonBody(t)))}
	}
	l := gjson.Parse(answers[r.list].Body)
	var objs [][]byte
	for _, it := range l.Get("items").Array() {
		if r.info.Unstructured {
			objs = append(objs, []byte(it.Raw))
			continue
		}
		prefix := typePrefix(r.info.Kind, r.info.GroupVersion())
		objs = append(objs, append(append([]byte(nil), prefix...), it.Raw[1:]...))
	}
	return objs
}

// jsonBody converts a recorded YAML body to JSON.
func (a encAnswer) jsonBody(t testing.TB) string {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(a.Body))
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

// encServer serves one recorded resource at resourceVersion rv.
func encServer(t testing.TB, resource string, objs [][]byte, rv uint64, now time.Time) (*httptest.Server, *watchcache.Cache) {
	t.Helper()
	resource = strings.TrimSuffix(resource, "+w")
	r := encResources[resource]
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: resource, Group: r.info.Group, Namespaced: r.info.Namespaced}})
	t.Cleanup(c.Stop)
	if err := c.Replace(objs, rv); err != nil {
		t.Fatal(err)
	}
	s := NewServer(Options{Now: func() time.Time { return now }})
	if err := s.Register(r.info, c); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv, c
}

// pbCodec decodes recorded protobuf bodies: client-go's kinds and meta.k8s.io's.
var pbCodec = func() *protobuf.Serializer {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	metav1.AddMetaToScheme(s)
	metav1beta1.AddMetaToScheme(s)
	return protobuf.NewSerializer(s, s)
}()

// describe renders a body for a failure message: protobuf decoded (to JSON) when it decodes.
func describe(b []byte) string {
	if bytes.HasPrefix(b, []byte("k8s\x00")) {
		if obj, _, err := pbCodec.Decode(b, nil, nil); err == nil {
			j, _ := json.Marshal(obj)
			return "protobuf " + string(j)
		}
		return strconv.Quote(string(b))
	}
	return string(b)
}

// listRV is the resourceVersion of a recorded list (JSON, YAML or protobuf).
func listRV(t testing.TB, a encAnswer) uint64 {
	t.Helper()
	b := a.body(t)
	var rv string
	if bytes.HasPrefix(b, []byte("k8s\x00")) {
		obj, _, err := pbCodec.Decode(b, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		l, ok := obj.(metav1.ListInterface)
		if !ok {
			return 0
		}
		rv = l.GetResourceVersion()
	} else {
		j := string(b)
		if !strings.HasPrefix(j, "{") {
			j = a.jsonBody(t)
		}
		rv = gjson.Get(j, "metadata.resourceVersion").String()
	}
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}

// TestRecordedEncodings: gets, lists with limit and continue, metadata-only answers, Tables and
// error Statuses in protobuf and YAML, for the Accept headers client-go and kubectl send,
// byte for byte with the apiserver's, status and Content-Type included.
func TestRecordedEncodings(t *testing.T) {
	answers := readEncodings(t, "recorded.jsonl.gz")
	tests := []struct {
		name, resource string
		rv             string // the answer whose list resourceVersion the cache is at; "" the list's
	}{
		{"get-configmap-application_vnd_kubernetes_protobuf_", "configmaps", ""},
		{"get-configmap-application_yaml_", "configmaps", ""},
		{"get-configmap-application_vnd_kubernetes_protobuf______", "configmaps", ""},
		{"get-configmap-application_json_q_0_5__application_vnd_kubernetes_protobuf_q_0_9_", "configmaps", ""},
		{"get-configmap-application_yaml_q_0_9__application_json_q_0_8_", "configmaps", ""},
		{"get-configmap-application_vnd_kubernetes_protobuf_q_0_5__application_json_", "configmaps", ""},
		{"get-configmap-____", "configmaps", ""},
		{"get-configmap-application___", "configmaps", ""},
		{"get-configmap-application_vnd_kubernetes_protobuf_q_0_", "configmaps", ""},
		{"get-pod-pb", "pods", ""},
		{"get-pod-yaml", "pods", ""},
		{"get-deployment-pb", "deployments", ""},
		{"get-deployment-yaml", "deployments", ""},
		{"get-node-pb", "nodes", ""},
		{"get-node-yaml", "nodes", ""},
		{"list-configmaps-pb", "configmaps", "list-configmaps-pb"},
		{"list-configmaps-yaml", "configmaps", "list-configmaps-yaml"},
		{"list-configmaps-limit1-pb", "configmaps", "list-configmaps-limit1-pb"},
		{"list-configmaps-limit1-yaml", "configmaps", "list-configmaps-limit1-yaml"},
		{"list-configmaps-continue-pb", "configmaps", "list-configmaps-continue-pb"},
		{"list-pods-pb", "pods", "list-pods-pb"},
		{"list-pods-yaml", "pods", "list-pods-yaml"},
		{"list-pods-limit1-pb", "pods", "list-pods-limit1-pb"},
		{"list-pods-continue-pb", "pods", "list-pods-continue-pb"},
		{"list-deployments-pb", "deployments", "list-deployments-pb"},
		{"list-deployments-yaml", "deployments", "list-deployments-yaml"},
		{"list-deployments-limit1-pb", "deployments", "list-deployments-limit1-pb"},
		{"list-configmaps-empty-pb", "configmaps", "list-configmaps-empty-pb"},
		{"list-configmaps-empty-yaml", "configmaps", "list-configmaps-empty-yaml"},
		{"list-nodes-pb", "nodes", "list-nodes-pb"},
		{"error-404-pb", "configmaps", ""},
		{"error-404-yaml", "configmaps", ""},
		{"error-404-mixed", "configmaps", ""},
		{"error-400-pb", "configmaps", ""},
		{"error-xml-406", "configmaps", ""},
		{"error-xml-406-get", "configmaps", ""},
		{"watch-configmaps-yaml", "configmaps", ""},
		{"watch-configmaps-yaml-json", "configmaps", ""},
		{"cr-get-pb", "widgets", ""},
		{"cr-get-yaml", "widgets", ""},
		{"cr-get-mixed", "widgets", ""},
		{"cr-list-pb", "widgets", ""},
		{"cr-list-yaml", "widgets", "cr-list-yaml"},
		{"cr-watch-pb", "widgets", ""},
		{"cr-watch-yaml", "widgets", ""},
		{"cr-error-404-pb", "widgets", ""},
		{"cr-meta-get-pb", "widgets", ""},
		{"cr-meta-list-pb", "widgets", "cr-meta-list-pb"},
		{"table-pb", "configmaps", ""},
		{"table-pb-json", "configmaps", "table-pb-json"},
		{"table-yaml", "configmaps", "table-yaml"},
		{"table-get-yaml", "configmaps", ""},
		{"meta-get-pb", "pods", ""},
		{"meta-get-yaml", "pods", ""},
		{"meta-list-pb", "pods+w", "meta-list-pb"},
		{"meta-list-v1beta1-pb", "pods+w", "meta-list-v1beta1-pb"},
		{"meta-list-clientgo", "pods+w", "meta-list-clientgo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, ok := answers[tt.name]
			if !ok {
				t.Fatalf("no recorded answer %s", tt.name)
			}
			objs := encObjects(t, answers, tt.resource)
			rv := uint64(1000)
			if tt.rv != "" {
				rv = listRV(t, answers[tt.rv])
			}
			now := time.Now()
			if strings.HasPrefix(tt.name, "table-") {
				body := want.Body
				if !strings.HasPrefix(body, "{") {
					body = want.jsonBody(t)
				}
				now = recordedNow(t, []byte(body), objs)
			}
			srv, _ := encServer(t, tt.resource, objs, rv, now)
			r := do(t, want.Method, srv.URL+want.Path, "Accept", want.Accept, "User-Agent", "kubectl/v1.37.2 (linux/amd64) kubernetes/record")
			exp := want.body(t)
			got := r.body
			indented := want.header("Content-Type") == "application/json" && want.Status == 406
			if indented {
				// The router's and the conversion's 406 are written indented for this user agent by
				// the apiserver and compactly here: compared as Statuses.
				got, exp = compactJSON(t, got), compactJSON(t, exp)
			}
			if r.code != want.Status || r.header.Get("Content-Type") != want.header("Content-Type") || !bytes.Equal(got, exp) {
				t.Fatalf("%d %s\n%s\nwant %d %s\n%s", r.code, r.header.Get("Content-Type"), describe(got), want.Status, want.header("Content-Type"), describe(exp))
			}
			if cl := want.header("Content-Length"); !indented && cl != "" && r.header.Get("Content-Length") != "" && r.header.Get("Content-Length") != cl {
				t.Errorf("Content-Length %s, recorded %s", r.header.Get("Content-Length"), cl)
			}
		})
	}
}

// compactJSON re-encodes a JSON body without indentation or a final newline.
func compactJSON(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, bytes.TrimSpace(b)); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return buf.Bytes()
}

// TestRecordedProtobufWatches: watches in protobuf — a replay of ADDED, MODIFIED and DELETED
// events, a watch-list's initial events and its bookmark, metadata-only events, a watch of one
// name — frame for frame with the apiserver's, Content-Type `…protobuf;stream=watch` included.
func TestRecordedProtobufWatches(t *testing.T) {
	answers := readEncodings(t, "recorded.jsonl.gz")
	tests := []struct {
		name, resource string
		events         string // the recorded JSON watch whose events the cache is given
		list           bool   // a watch-list: the cache holds the list's objects at the bookmark's RV
		// bookmarkMeta compares a bookmark's metadata only: the apiserver's empty Deployment is
		// converted from its internal type, which sets spec.replicas to 0; this server's is
		// k8s.io/api's zero value (reference/observed-encodings.md, "Known differences").
		bookmarkMeta bool
	}{
		{"watch-configmaps-pb", "configmaps", "watch-configmaps-json", false, false},
		{"watch-configmaps-mixed", "configmaps", "watch-configmaps-json", false, false},
		{"watch-named-pb", "configmaps", "watch-configmaps-json", false, false},
		{"meta-watch-pb", "configmaps", "watch-configmaps-json", false, false},
		{"watchlist-pods-pb", "pods", "watchlist-pods-json", true, false},
		{"meta-watchlist-pb", "pods+w", "", true, false},
		{"watchlist-deployments-pb", "deployments", "", true, true},
		{"watchlist-nodes-pb", "nodes", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := answers[tt.name]
			frames := splitFrames(t, want.body(t))
			var objs [][]byte
			var rv uint64
			var replay []string
			if tt.list {
				objs = encObjects(t, answers, tt.resource)
				rv = frameRV(t, frames[len(frames)-1])
			} else {
				start, _ := strconv.ParseUint(queryParam(want.Path, "resourceVersion"), 10, 64)
				rv = start
				replay = strings.Split(strings.TrimSpace(answers[tt.events].Body), "\n")
			}
			srv, c := encServer(t, tt.resource, objs, rv, time.Now())
			for _, line := range replay {
				e := gjson.Parse(line)
				if err := c.Apply(watchcache.Event{Type: watchcache.EventType(e.Get("type").String()), Object: []byte(e.Get("object").Raw)}); err != nil {
					t.Fatal(err)
				}
			}
			req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+want.Path, nil)
			req.Header.Set("Accept", want.Accept)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != want.Status || resp.Header.Get("Content-Type") != want.header("Content-Type") {
				t.Fatalf("%d %s, recorded %d %s", resp.StatusCode, resp.Header.Get("Content-Type"), want.Status, want.header("Content-Type"))
			}
			br := bufio.NewReader(resp.Body)
			if !tt.list && len(frames) > len(replay) {
				// Recorded later than the JSON watch, it has the events of later writes too.
				frames = frames[:len(replay)]
			}
			for i, exp := range frames {
				got := readFrame(t, br)
				if tt.bookmarkMeta && i == len(frames)-1 {
					typ, obj := decodeFrame(t, got)
					wtyp, wobj := decodeFrame(t, exp)
					gm, wm := obj.(metav1.Object), wobj.(metav1.Object)
					if typ != wtyp || gm.GetResourceVersion() != wm.GetResourceVersion() || !reflect.DeepEqual(gm.GetAnnotations(), wm.GetAnnotations()) {
						t.Fatalf("bookmark:\n%s\nwant\n%s", describeFrame(got), describeFrame(exp))
					}
					continue
				}
				if !bytes.Equal(got, exp) {
					t.Fatalf("frame %d:\n%s\nwant\n%s", i, describeFrame(got), describeFrame(exp))
				}
			}
		})
	}
}

// TestRecordedGone: a list at a compacted resourceVersion (410 Status in protobuf and YAML) and a
// watch from one (an ERROR frame carrying the 410), as the apiserver restarted on compacted data
// answers them (testdata/encodings/gone.jsonl.gz).
func TestRecordedGone(t *testing.T) {
	answers := readEncodings(t, "gone.jsonl.gz")
	all := readEncodings(t, "recorded.jsonl.gz")
	for _, name := range []string{
		"gone-list-application_vnd_kubernetes_protobuf_", "gone-list-application_yaml_",
		"gone-watch-application_vnd_kubernetes_protobuf_", "gone-watch-application_yaml_",
	} {
		t.Run(name, func(t *testing.T) {
			want := answers[name]
			// The restarted apiserver's watch cache began at 110, the RV its message names.
			srv, _ := encServer(t, "configmaps", encObjects(t, all, "configmaps"), 110, time.Now())
			r := do(t, "GET", srv.URL+want.Path, "Accept", want.Accept)
			if r.code != want.Status || r.header.Get("Content-Type") != want.header("Content-Type") || !bytes.Equal(r.body, want.body(t)) {
				t.Fatalf("%d %s\n%s\nwant %d %s\n%s", r.code, r.header.Get("Content-Type"), describeFrameOrBody(r.body),
					want.Status, want.header("Content-Type"), describeFrameOrBody(want.body(t)))
			}
		})
	}
}

func describeFrameOrBody(b []byte) string {
	if len(b) > 4 && b[0] == 0 {
		return describeFrame(b[4:])
	}
	return describe(b)
}

func queryParam(path, name string) string {
	_, q, _ := strings.Cut(path, "?")
	for kv := range strings.SplitSeq(q, "&") {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

// splitFrames splits a protobuf watch body into its frames (without their length prefixes).
func splitFrames(t testing.TB, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	br := bufio.NewReader(bytes.NewReader(b))
	for {
		f := readFrame(t, br)
		if f == nil {
			return out
		}
		out = append(out, f)
	}
}

// readFrame reads one length-prefixed frame; nil at the end of the stream.
func readFrame(t testing.TB, r io.Reader) []byte {
	t.Helper()
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil
	}
	size := int(n[0])<<24 | int(n[1])<<16 | int(n[2])<<8 | int(n[3])
	f := make([]byte, size)
	if _, err := io.ReadFull(r, f); err != nil {
		t.Fatalf("frame of %d bytes: %v", size, err)
	}
	return f
}

// decodeFrame decodes a frame's WatchEvent and its object.
func decodeFrame(t testing.TB, f []byte) (string, runtime.Object) {
	t.Helper()
	var ev metav1.WatchEvent
	if err := ev.Unmarshal(f); err != nil {
		t.Fatal(err)
	}
	obj, _, err := pbCodec.Decode(ev.Object.Raw, nil, nil)
	if err != nil {
		t.Fatalf("%s event: %v", ev.Type, err)
	}
	return ev.Type, obj
}

func describeFrame(f []byte) string {
	var ev metav1.WatchEvent
	if err := ev.Unmarshal(f); err != nil {
		return strconv.Quote(string(f))
	}
	return ev.Type + " " + describe(ev.Object.Raw)
}

// frameRV is the resourceVersion of a frame's object.
func frameRV(t testing.TB, f []byte) uint64 {
	t.Helper()
	_, obj := decodeFrame(t, f)
	m, ok := obj.(metav1.Object)
	if !ok {
		t.Fatalf("%T has no metadata", obj)
	}
	rv, _ := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	return rv
}
