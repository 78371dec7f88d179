package crdcel_test

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/fake/crdcel"
)

// observedFile holds the answers of celCases recorded from a kube-apiserver 1.37.2
// (TestRecordOracleCEL); ../../reference/observed-cel.md shows the same.
const observedFile = "testdata/observed-cel.json"

type observedCase struct {
	Name  string         `json:"name"`
	Steps []observedStep `json:"steps"`
}

// observedStep is a request and the apiserver's answer, trimmed to what the replay compares
// (trim).
type observedStep struct {
	Name        string          `json:"name"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	ContentType string          `json:"contentType,omitempty"`
	Body        string          `json:"body,omitempty"`
	Code        int             `json:"code"`
	Response    json.RawMessage `json:"response"`
	// Reviews are the AdmissionReviews the test's webhook server received during the step,
	// trimmed (matchconditions_observed_test.go).
	Reviews []json.RawMessage `json:"reviews,omitempty"`
}

// target is where a case's requests go. vars are further placeholders and their values; observe,
// when set, returns what the test's webhook server received since it was last called; settle is
// how long to wait after each step for the apiserver's informers and watch cache to catch up (the
// fake has before it answers): its webhook source sees a new configuration a moment after the
// write, and a patch that reads an object from a cache behind the previous write is tried again,
// calling the webhooks twice.
type target struct {
	base, token string
	client      *http.Client
	vars        []string
	observe     func() []json.RawMessage
	settle      time.Duration
}

// runCase sends a case's steps and returns the trimmed answers. A step with Until is repeated
// for up to wait.
func runCase(t *testing.T, srv target, c celCase, wait time.Duration) observedCase {
	t.Helper()
	ns, group := "c-"+c.Name, c.Name+".example.com"
	out := observedCase{Name: c.Name}
	var lastUID, lastRV string
	for _, st := range c.Steps {
		sub := strings.NewReplacer(append([]string{"{ns}", ns, "{g}", group, "{uid}", lastUID, "{rv}", lastRV}, srv.vars...)...).Replace
		var code int
		var b []byte
		deadline := time.Now().Add(wait)
		for {
			code, b = send(t, srv, st, sub)
			if st.Until == "" || bytes.Contains(b, []byte(st.Until)) || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(srv.settle)
		var reviews []json.RawMessage
		if srv.observe != nil {
			reviews = srv.observe()
		}
		var meta struct {
			Metadata struct{ UID, ResourceVersion string } `json:"metadata"`
		}
		if json.Unmarshal(b, &meta) == nil && meta.Metadata.UID != "" {
			lastUID, lastRV = meta.Metadata.UID, meta.Metadata.ResourceVersion
		}
		out.Steps = append(out.Steps, observedStep{Name: st.Name, Method: st.Method, Path: st.Path,
			ContentType: st.ContentType, Body: st.Body, Code: code, Response: trim(b), Reviews: reviews})
	}
	return out
}

func send(t *testing.T, srv target, st celStep, sub func(string) string) (int, []byte) {
	t.Helper()
	var body io.Reader
	if st.Body != "" {
		body = strings.NewReader(sub(st.Body))
	}
	req, err := http.NewRequest(st.Method, srv.base+sub(st.Path), body)
	if err != nil {
		t.Fatalf("%s: %v", st.Name, err)
	}
	if st.Body != "" {
		ct := st.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Accept", "application/json")
	// The field manager of the fake's CRD recording, which TestObservedCRDsWithValidator replays.
	req.Header.Set("User-Agent", "record-crds/v0.0.0")
	if srv.token != "" {
		req.Header.Set("Authorization", "Bearer "+srv.token)
	}
	resp, err := srv.client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", st.Name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// trim keeps what the replay compares of an answer: a Status whole but a deleted object's uid; a custom resource's kind,
// name, spec and status; a CRD's kind, name and condition types and statuses; a namespace's kind
// and name; a config map's kind, name and labels. Uids, resourceVersions, timestamps and
// managedFields are left out, and CRD bodies, which repeat the request's schema, are not kept.
func trim(b []byte) json.RawMessage {
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		out, _ := json.Marshal(map[string]any{"text": string(b)})
		return out
	}
	if v["kind"] == "Status" {
		if d, ok := v["details"].(map[string]any); ok {
			delete(d, "uid") // a deleted object's, random
		}
		out, _ := json.Marshal(v)
		return out
	}
	meta, _ := v["metadata"].(map[string]any)
	kept := map[string]any{"kind": v["kind"], "name": meta["name"]}
	switch v["kind"] {
	case "CustomResourceDefinition":
		st, _ := v["status"].(map[string]any)
		conds, _ := st["conditions"].([]any)
		var cs []string
		for _, c := range conds {
			m, _ := c.(map[string]any)
			cs = append(cs, fmt.Sprintf("%v=%v", m["type"], m["status"]))
		}
		kept["conditions"] = cs
	case "Namespace":
	case "ConfigMap":
		// The labels a mutating webhook added show that it was called.
		kept["labels"] = meta["labels"]
	default:
		kept["spec"], kept["status"] = v["spec"], v["status"]
	}
	out, _ := json.Marshal(kept)
	return out
}

// TestRecordOracleCEL records celCases from a kube-apiserver (WATCHCACHE_ORACLE_URL, with the
// bearer token WATCHCACHE_ORACLE_TOKEN; one without these CRDs) into testdata/observed-cel.json
// and ../../reference/observed-cel.md.
func TestRecordOracleCEL(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-cel.md)")
	}
	srv := target{base: base, token: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), client: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the oracle's self-signed loopback certificate
	}}
	defer srv.client.CloseIdleConnections()
	var all []observedCase
	for _, c := range celCases {
		all = append(all, runCase(t, srv, c, 20*time.Second))
	}
	b, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(observedFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "reference", "observed-cel.md"), render(all, celReport), 0o644); err != nil {
		t.Fatal(err)
	}
}

// report is what the header of a recording's markdown says: what was recorded, by which test,
// which test replays it with which options, from which file, and how to read it.
type report struct {
	title, recorder, replayer, options, file, source, note string
}

// celReport is the header of reference/observed-cel.md.
var celReport = report{title: "CEL validation and ratcheting", recorder: "TestRecordOracleCEL", replayer: "TestObservedCEL",
	options: "Options.CustomResourceValidator: crdcel.New()", file: observedFile, source: "observed_test.go",
	note: "Each case has its own group `<case>.example.com` and namespace `c-<case>`; the\n" +
		"requests are in fake/crdcel/cases_test.go. Answers are trimmed: a Status whole; of an object its\n" +
		"kind and name, a custom resource's spec and status, a CRD's conditions.\n"}

func render(all []observedCase, r report) []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# Observed %s: kube-apiserver 1.37.2\n\n", r.title)
	fmt.Fprintf(&w, "Generated by `WATCHCACHE_ORACLE_URL=$KAS_URL WATCHCACHE_ORACLE_TOKEN=$TOKEN go test -run %s` in\n", r.recorder)
	w.WriteString("fake/crdcel against a fresh oracle (`/work/shared/oracle/start.sh`, etcd 3.7.3); do not edit by hand.\n")
	fmt.Fprintf(&w, "`%s` (fake/crdcel/%s) replays the same requests against the fake with\n", r.replayer, r.source)
	fmt.Fprintf(&w, "`%s` from `fake/crdcel/%s`, which holds exactly\n", r.options, r.file)
	w.WriteString("what is below. " + r.note)
	for _, c := range all {
		fmt.Fprintf(&w, "\n## %s\n", c.Name)
		for _, s := range c.Steps {
			fmt.Fprintf(&w, "\n### %s / %s\n\n`%s %s`", c.Name, s.Name, s.Method, s.Path)
			if s.ContentType != "" {
				fmt.Fprintf(&w, " (`%s`)", s.ContentType)
			}
			w.WriteString("\n\n")
			if s.Body != "" && !strings.Contains(s.Body, "CustomResourceDefinition") {
				fmt.Fprintf(&w, "```\n%s\n```\n\n", s.Body)
			} else if s.Body != "" {
				w.WriteString("(the CRD of the case, in cases_test.go)\n\n")
			}
			var pretty bytes.Buffer
			_ = json.Indent(&pretty, s.Response, "", "  ")
			fmt.Fprintf(&w, "%d\n```json\n%s\n```\n", s.Code, pretty.String())
			for _, r := range s.Reviews {
				fmt.Fprintf(&w, "\n⇢ webhook `%s`\n", r)
			}
		}
	}
	return w.Bytes()
}

// readObserved reads a recording: observedFile, or matchFile.
func readObserved(t *testing.T, file string) []observedCase {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var all []observedCase
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	return all
}

// TestObservedCEL replays the recorded requests against the fake with crdcel's validator, one
// fake per case: every answer's code and trimmed body must be the apiserver's, a Status's
// message and causes in the same order.
func TestObservedCEL(t *testing.T) {
	byName := map[string]celCase{}
	for _, c := range celCases {
		byName[c.Name] = c
	}
	for _, wc := range readObserved(t, observedFile) {
		t.Run(wc.Name, func(t *testing.T) {
			c, ok := byName[wc.Name]
			if !ok {
				t.Fatalf("recorded case %s is not in celCases", wc.Name)
			}
			srv := fake.NewTest(t, fake.Options{CustomResourceValidator: crdcel.New()})
			tg := target{base: srv.URL(), client: &http.Client{Transport: srv.Transport()}}
			defer tg.client.CloseIdleConnections()
			got := runCase(t, tg, c, 0)
			if len(got.Steps) != len(wc.Steps) {
				t.Fatalf("%d steps, recorded %d: re-record (TestRecordOracleCEL)", len(got.Steps), len(wc.Steps))
			}
			for i, w := range wc.Steps {
				g := got.Steps[i]
				t.Run(w.Name, func(t *testing.T) {
					if g.Method != w.Method || g.Path != w.Path || g.Body != w.Body {
						t.Fatalf("step differs from the record: re-record (TestRecordOracleCEL)")
					}
					if _, ok := anyOrder[wc.Name+"/"+w.Name]; ok {
						if g.Code != w.Code || !reflect.DeepEqual(causes(g.Response), causes(w.Response)) || !sameJSON(withoutCauses(g.Response), withoutCauses(w.Response)) {
							t.Errorf("got %d %s\napiserver %d %s", g.Code, g.Response, w.Code, w.Response)
						}
						return
					}
					if g.Code != w.Code || !sameJSON(g.Response, w.Response) {
						t.Errorf("got %d %s\napiserver %d %s", g.Code, g.Response, w.Code, w.Response)
					}
				})
			}
		})
	}
}

// anyOrder are the steps whose causes come in any order, and why: their code, causes (as a set)
// and the rest of the Status are compared.
var anyOrder = map[string]string{
	"rules/create several rules fail": "the apiserver's CEL validator walks an object's properties in a Go map's order (random), there as here",
}

// withoutCauses drops a Status's causes and message, which lists them.
func withoutCauses(b []byte) []byte {
	var v map[string]any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	delete(v, "message")
	if d, ok := v["details"].(map[string]any); ok {
		delete(d, "causes")
	}
	out, _ := json.Marshal(v)
	return out
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
