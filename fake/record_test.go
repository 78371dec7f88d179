package fake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/watchcache/watchcache/fake"
)

// writeCase is a sequence of requests in a namespace of its own.
type writeCase struct {
	Name  string
	Steps []writeStep
}

// writeStep is one request; ContentType "" means application/json.
type writeStep struct {
	Name, Method, Path, ContentType, Body string
	// Pause is waited before the request: the apiserver's authorizer reads RBAC objects through
	// informers, which see a write a moment after it is answered.
	Pause time.Duration
	// Header is sent with the request after the recorder's own (an Authorization here replaces
	// the admin's), each line of a value as a header of its own; values may name {token}, the
	// last token an answer carried.
	Header map[string]string
}

// observedStep is one request with the answer, normalized (normalizer).
type observedStep struct {
	Name        string            `json:"name"`
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	ContentType string            `json:"contentType,omitempty"`
	Body        string            `json:"body,omitempty"`
	Header      map[string]string `json:"header,omitempty"`
	Code        int               `json:"code"`
	Warnings    []string          `json:"warnings,omitempty"`
	Response    json.RawMessage   `json:"response"`
	// Reviews are the AdmissionReview requests a case's webhook server received during the step
	// (webhookServer), normalized as the answers are.
	Reviews []json.RawMessage `json:"reviews,omitempty"`
	// Events are the watch events of the case's objects that arrived during the step, when the
	// recording watches them (retryWatch), normalized as the answers are.
	Events []json.RawMessage `json:"events,omitempty"`
}

type observedCase struct {
	Name  string         `json:"name"`
	Steps []observedStep `json:"steps"`
}

const observedWritesFile = "testdata/observed-writes.json"

// server is where a case's requests go: the oracle (with a bearer token, over TLS) or the fake.
type server struct {
	base, token string
	client      *http.Client
	// vars are further placeholders of the steps' paths and bodies (a webhook server's URL and
	// CA bundle) with their values; an answer has each value put back as its placeholder.
	vars map[string]string
	// observe, when set, adds to a step's record what the step caused elsewhere (the reviews a
	// webhook server received).
	observe func(norm *normalizer, o *observedStep)
	// settle is how long a write of a webhook configuration takes to be seen (the apiserver's
	// webhooks are read through an informer, the fake's at once), and a new CRD to be served.
	settle time.Duration
}

// runCase sends a case's steps in order and returns the normalized answers.
func runCase(t *testing.T, srv server, c writeCase) observedCase {
	t.Helper()
	ns := "w-" + c.Name
	norm := newNormalizer()
	out := observedCase{Name: c.Name}
	var lastUID, lastRV, lastToken string
	for _, st := range c.Steps {
		subs := []string{"{ns}", ns, "{uid}", lastUID, "{rv}", lastRV, "{1MiB}", oneMiB, "{token}", lastToken}
		var unsubs []string
		for k, v := range srv.vars {
			subs, unsubs = append(subs, k, v), append(unsubs, v, k)
		}
		sub := func(s string) string { return strings.NewReplacer(subs...).Replace(s) }
		time.Sleep(st.Pause)
		var body io.Reader
		if st.Body != "" {
			body = strings.NewReader(sub(st.Body))
		}
		req, err := http.NewRequest(st.Method, srv.base+sub(st.Path), body)
		if err != nil {
			t.Fatalf("%s/%s: %v", c.Name, st.Name, err)
		}
		ct := st.ContentType
		if ct == "" {
			ct = "application/json"
		}
		if st.Body != "" {
			req.Header.Set("Content-Type", ct)
		}
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", "record-writes/v0.0.0")
		if srv.token != "" {
			req.Header.Set("Authorization", "Bearer "+srv.token)
		}
		for k, v := range st.Header {
			req.Header.Del(k)
			for _, line := range strings.Split(sub(v), "\n") {
				req.Header.Add(k, line) // one header a line: Impersonate-Group once per group
			}
		}
		resp, err := srv.client.Do(req)
		if err != nil {
			t.Fatalf("%s/%s: %v", c.Name, st.Name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(unsubs) > 0 {
			b = []byte(strings.NewReplacer(unsubs...).Replace(string(b)))
		}
		switch {
		case srv.settle == 0 || st.Method == "GET":
		case strings.Contains(st.Path, "webhookconfigurations") || strings.HasSuffix(st.Path, "/customresourcedefinitions"):
			time.Sleep(srv.settle) // and a CRD to be established
		default:
			// The next write's read of the object comes from the apiserver's watch cache; one
			// that has not seen this write yet makes the apiserver retry the update, calling
			// its webhooks twice.
			time.Sleep(srv.settle / 10)
		}
		var meta struct {
			Metadata struct{ UID, ResourceVersion string } `json:"metadata"`
		}
		if json.Unmarshal(b, &meta) == nil && meta.Metadata.UID != "" {
			lastUID, lastRV = meta.Metadata.UID, meta.Metadata.ResourceVersion
		}
		var token struct {
			Status struct{ Token string } `json:"status"`
		}
		if json.Unmarshal(b, &token) == nil && token.Status.Token != "" {
			lastToken = token.Status.Token
		}
		o := observedStep{
			Name: st.Name, Method: st.Method, Path: st.Path, ContentType: st.ContentType, Body: st.Body,
			Header: st.Header, Code: resp.StatusCode, Response: norm.normalize(b),
		}
		for _, w := range resp.Header.Values("Warning") {
			o.Warnings = append(o.Warnings, w)
		}
		if srv.observe != nil {
			srv.observe(norm, &o)
		}
		out.Steps = append(out.Steps, o)
	}
	return out
}

// oneMiB is what {1MiB} in a step's body stands for: 1 MiB of text, the size limit of a
// ConfigMap's or Secret's data, kept out of the recorded bodies.
var oneMiB = strings.Repeat("x", 1<<20)

// normalizer replaces what differs between two servers doing the same thing — uids (numbered in
// order of appearance within a case, so that the same uid twice is the same placeholder),
// resourceVersions (all one placeholder: the fake's counter and etcd's revision advance
// differently; the conformance suite checks RV relations), timestamps and generated name suffixes.
type normalizer struct {
	uids, rvs map[string]string
}

func newNormalizer() *normalizer {
	return &normalizer{uids: map[string]string{}, rvs: map[string]string{}}
}

// generatedName matches the names the cases generate (generateName "gen-" and "Bad_").
var generatedName = regexp.MustCompile(`\b(gen-|Bad_)[bcdfghjklmnpqrstvwxz2456789]{5}\b`)

func (n *normalizer) normalize(b []byte) json.RawMessage {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		s, _ := json.Marshal(string(b))
		return s
	}
	n.collect(v, "")
	v = n.replace(v, "")
	out, _ := json.Marshal(v)
	return out
}

// collect numbers the uids and resourceVersions of metadata in the order met.
func (n *normalizer) collect(v any, key string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			n.collect(x[k], k)
		}
	case []any:
		for _, e := range x {
			n.collect(e, key)
		}
	case string:
		switch key {
		case "uid":
			if _, ok := n.uids[x]; !ok {
				n.uids[x] = fmt.Sprintf("<uid-%d>", len(n.uids)+1)
			}
		case "resourceVersion":
			if x != "" {
				n.rvs[x] = "<rv>"
			}
		}
	}
}

func (n *normalizer) replace(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = n.replace(e, k)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = n.replace(e, key)
		}
		return x
	case string:
		switch key {
		case "creationTimestamp", "deletionTimestamp", "time":
			if x != "" {
				return "<time>"
			}
		case "uid":
			if to, ok := n.uids[x]; ok {
				return to
			}
		case "resourceVersion":
			if to, ok := n.rvs[x]; ok {
				return to
			}
		}
		for from, to := range n.uids {
			x = strings.ReplaceAll(x, from, to)
		}
		x = parenthesizedNumber.ReplaceAllStringFunc(x, func(m string) string {
			if _, ok := n.rvs[m[1:len(m)-1]]; ok {
				return "(<rv>)"
			}
			return m
		})
		return generatedName.ReplaceAllString(x, "${1}<random>")
	}
	return v
}

// parenthesizedNumber is how messages quote resourceVersions: "the ResourceVersion in the
// precondition (1) does not match the ResourceVersion in record (42)".
var parenthesizedNumber = regexp.MustCompile(`\([0-9]+\)`)

// TestRecordOracle records writeCases from a kube-apiserver (WATCHCACHE_ORACLE_URL, with the
// bearer token WATCHCACHE_ORACLE_TOKEN) into testdata/observed-writes.json and
// ../reference/observed-writes.md. The oracle must be fresh: the cases' namespaces must not exist.
func TestRecordOracle(t *testing.T) { writesRecording.record(t, oracleServer(t)) }

// writesRecording is where writeCases are recorded and replayed.
var writesRecording = recording{cases: writeCases, file: observedWritesFile, markdown: "observed-writes.md", indent: "  ",
	title: "writes", recorder: "TestRecordOracle", replayer: "TestObservedWrites", source: "observed_test.go"}

// renderObserved is the Markdown record of the observed answers.
func renderObserved(all []observedCase) []byte {
	var b bytes.Buffer
	b.WriteString(observedHeader)
	for _, c := range all {
		fmt.Fprintf(&b, "\n## %s\n", c.Name)
		for _, st := range c.Steps {
			fmt.Fprintf(&b, "\n### %s / %s\n\n```\n%s %s\n", c.Name, st.Name, st.Method, st.Path)
			if st.ContentType != "" {
				fmt.Fprintf(&b, "Content-Type: %s\n", st.ContentType)
			}
			for _, k := range slices.Sorted(maps.Keys(st.Header)) {
				for _, v := range strings.Split(st.Header[k], "\n") {
					fmt.Fprintf(&b, "%s: %s\n", k, v)
				}
			}
			if st.Body != "" {
				fmt.Fprintf(&b, "%s\n", st.Body)
			}
			for _, r := range st.Reviews {
				fmt.Fprintf(&b, "⇢ webhook %s\n", r)
			}
			fmt.Fprintf(&b, "→ %d\n", st.Code)
			for _, e := range st.Events {
				fmt.Fprintf(&b, "⇠ watch %s\n", e)
			}
			for _, w := range st.Warnings {
				fmt.Fprintf(&b, "Warning: %s\n", w)
			}
			var pretty bytes.Buffer
			if json.Indent(&pretty, st.Response, "", "  ") == nil {
				b.Write(pretty.Bytes())
			} else {
				b.Write(st.Response)
			}
			b.WriteString("\n```\n")
		}
	}
	return b.Bytes()
}

const observedHeader = `# Observed writes: kube-apiserver 1.37.2

Generated by ` + "`WATCHCACHE_ORACLE_URL=$KAS_URL WATCHCACHE_ORACLE_TOKEN=$TOKEN go test ./fake -run TestRecordOracle`" + `
against a fresh oracle (` + "`/work/shared/oracle/start.sh`" + `, etcd 3.7.3, no controller manager); do not edit by hand.
The same requests are replayed against the fake by ` + "`TestObservedWrites`" + ` (fake/observed_test.go) from
` + "`fake/testdata/observed-writes.json`" + `, which holds exactly what is below.

Each case runs in its own namespace ` + "`w-<case>`" + `. Answers are normalized: uids (numbered in order of
appearance within a case), resourceVersions, timestamps and generated name suffixes are placeholders;
everything else is verbatim.
`

var _ = fake.Options{}
