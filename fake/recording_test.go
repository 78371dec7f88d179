package fake_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/watchcache/watchcache/fake"
)

// recording is a list of cases recorded from the oracle into a JSON file the fake replays and a
// Markdown file of the reference, and the tests that record and replay it (which the Markdown
// names).
type recording struct {
	cases []writeCase
	// file is the JSON record, under testdata; markdown the page's file name under ../reference.
	file, markdown string
	// title follows "Observed " in the page's heading; recorder and replayer are the test names
	// and source the replayer's file.
	title, recorder, replayer, source string
	// indent is the JSON record's indentation (one space when empty).
	indent string
	// setup, when set, prepares the server the cases are sent to, recording or replaying (a
	// webhook server's placeholders and reviews).
	setup func(t *testing.T, srv *server)
	// note, when set, is a paragraph the page adds after its header.
	note string
	// oracle replaces the page's "/work/shared/oracle/start.sh" when the oracle was started
	// otherwise; intro is Markdown the page has before its first case.
	oracle, intro string
}

// oracleServer is the oracle the environment names (WATCHCACHE_ORACLE_URL, with the bearer token
// WATCHCACHE_ORACLE_TOKEN, over TLS); the test is skipped without one.
func oracleServer(t *testing.T) server {
	t.Helper()
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-writes.md)")
	}
	srv := server{base: base, token: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), client: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the oracle's self-signed loopback certificate
	}}
	t.Cleanup(srv.client.CloseIdleConnections)
	return srv
}

// get GETs a path of srv with application/json; the answer's body is the caller's to close.
func (srv server) get(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", srv.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if srv.token != "" {
		req.Header.Set("Authorization", "Bearer "+srv.token)
	}
	return srv.client.Do(req)
}

// record sends the cases to srv (a fresh oracle: the cases' namespaces must not exist) and writes
// the JSON record and the Markdown page.
func (r recording) record(t *testing.T, srv server) {
	t.Helper()
	if r.setup != nil {
		r.setup(t, &srv)
	}
	var all []observedCase
	for _, c := range r.cases {
		all = append(all, runCase(t, srv, c))
	}
	r.write(t, all)
}

// write writes the JSON record of the observed cases and its Markdown page.
func (r recording) write(t *testing.T, all []observedCase) {
	t.Helper()
	indent := r.indent
	if indent == "" {
		indent = " "
	}
	b, err := json.MarshalIndent(all, "", indent)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.file, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	md := strings.Replace(string(renderObserved(all)), "# Observed writes:", "# Observed "+r.title+":", 1)
	md = strings.ReplaceAll(md, "-run TestRecordOracle`", "-run "+r.recorder+"`")
	md = strings.ReplaceAll(md, "`TestObservedWrites` (fake/observed_test.go)", "`"+r.replayer+"` (fake/"+r.source+")")
	md = strings.ReplaceAll(md, "`fake/testdata/observed-writes.json`", "`fake/"+r.file+"`")
	if r.note != "" {
		md = strings.Replace(md, "everything else is verbatim.\n", "everything else is verbatim.\n\n"+r.note+"\n", 1)
	}
	if r.oracle != "" {
		md = strings.Replace(md, "`/work/shared/oracle/start.sh`", r.oracle, 1)
	}
	if r.intro != "" {
		md = strings.Replace(md, "\n## ", "\n"+r.intro+"\n## ", 1)
	}
	if err := os.WriteFile(filepath.Join("..", "reference", r.markdown), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replay sends the recorded cases to a fake started with opts and compares each answer with the
// record (compareStep), after adjust (when not nil) has seen both, keyed "case/step".
func (r recording) replay(t *testing.T, opts fake.Options, adjust func(step string, got, want *observedStep)) {
	t.Helper()
	want := r.observed(t)
	srv := fake.NewTest(t, opts)
	target := server{base: srv.URL(), client: &http.Client{Transport: srv.Transport()}}
	defer target.client.CloseIdleConnections()
	if r.setup != nil {
		r.setup(t, &target)
		target.settle = 0
	}
	byName := map[string]writeCase{}
	for _, c := range r.cases {
		byName[c.Name] = c
	}
	for _, wc := range want {
		t.Run(wc.Name, func(t *testing.T) {
			c, ok := byName[wc.Name]
			if !ok {
				t.Fatalf("recorded case %s is not among the cases: re-record (%s)", wc.Name, r.recorder)
			}
			got := runCase(t, target, c)
			if len(got.Steps) != len(wc.Steps) {
				t.Fatalf("%d steps, recorded %d: re-record (%s)", len(got.Steps), len(wc.Steps), r.recorder)
			}
			for i, w := range wc.Steps {
				g := got.Steps[i]
				t.Run(w.Name, func(t *testing.T) {
					if g.Method != w.Method || g.Path != w.Path || g.Body != w.Body {
						t.Fatalf("step differs from the record: re-record (%s)", r.recorder)
					}
					if adjust != nil {
						adjust(wc.Name+"/"+w.Name, &g, &w)
					}
					compareStep(t, wc.Name+"/"+w.Name, g, w)
					if !reflect.DeepEqual(rawStrings(g.Reviews), rawStrings(w.Reviews)) {
						t.Errorf("webhook reviews differ from the apiserver's:\n got: %s\nwant: %s", rawStrings(g.Reviews), rawStrings(w.Reviews))
					}
					if !reflect.DeepEqual(rawStrings(g.Events), rawStrings(w.Events)) {
						t.Errorf("watch events differ from the apiserver's:\n got: %s\nwant: %s", rawStrings(g.Events), rawStrings(w.Events))
					}
				})
			}
		})
	}
}

// rawStrings is a list of JSON documents as compact strings, compared and printed as such.
func rawStrings(raw []json.RawMessage) []string {
	out := make([]string, len(raw))
	for i, r := range raw {
		var b bytes.Buffer
		if json.Compact(&b, r) != nil {
			b.Reset()
			b.Write(r)
		}
		out[i] = b.String()
	}
	return out
}

// noControllers are the options of a fake replaying a record of an apiserver without
// kube-controller-manager: the record's clock, no garbage collector, no namespace controller.
var noControllers = fake.Options{Now: recordClock, NoGarbageCollector: true, NoNamespaceController: true}

// mapLeaves decodes an answer, replaces each scalar by what leaf returns for it — given the key it
// stands under (an array's elements under the array's key) and the key of the object holding it —
// and encodes it again. An answer that is not JSON is returned as it is.
func mapLeaves(resp json.RawMessage, leaf func(v any, key, parent string) any) json.RawMessage {
	var v any
	if json.Unmarshal(resp, &v) != nil {
		return resp
	}
	var walk func(v any, key, parent string) any
	walk = func(v any, key, parent string) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e, k, key)
			}
			return x
		case []any:
			for i, e := range x {
				x[i] = walk(e, key, parent)
			}
			return x
		}
		return leaf(v, key, parent)
	}
	out, _ := json.Marshal(walk(v, "", ""))
	return out
}

// observed reads the JSON record.
func (r recording) observed(t *testing.T) []observedCase {
	t.Helper()
	b, err := os.ReadFile(r.file)
	if err != nil {
		t.Fatal(err)
	}
	var out []observedCase
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
