package fake_test

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/watchcache/watchcache/fake"
)

const (
	observedValidationWorkloadsFile     = "testdata/observed-validation-workloads.json"
	observedValidationWorkloadsMarkdown = "observed-validation-workloads.md"
)

// workloadKnownDifferences are the steps of validationWorkloadCases whose causes print a value
// the fake cannot print as the apiserver does, and why. Their bodies are compared with each
// cause's message cut before the value's text (relaxValues): the causes' fields, types and order
// must still be the apiserver's.
var workloadKnownDifferences = map[string]string{
	"wl-pod/update clears image and breaks a label": "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"wl-pod/merge patch bad env name":               "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"wl-pod/merge patch image":                      "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"wl-job/merge patch template":                   "the immutable template's value is its v1 JSON; the apiserver prints its internal type (Go field names)",
}

// relaxValues cuts, in a Status, the top message and each cause's message at the first
// newline (a diff) and replaces an Invalid value printed as a JSON object with "{…}".
func relaxValues(resp json.RawMessage) json.RawMessage {
	var st map[string]any
	if json.Unmarshal(resp, &st) != nil || st["kind"] != "Status" {
		return resp
	}
	delete(st, "message")
	if d, ok := st["details"].(map[string]any); ok {
		causes, _ := d["causes"].([]any)
		for _, c := range causes {
			c := c.(map[string]any)
			msg, _ := c["message"].(string)
			msg, _, _ = strings.Cut(msg, "\n")
			if rest, ok := strings.CutPrefix(msg, "Invalid value: {"); ok {
				if i := strings.LastIndex(rest, "}: "); i >= 0 {
					msg = "Invalid value: {…}: " + rest[i+3:]
				}
			}
			c["message"] = msg
		}
	}
	out, _ := json.Marshal(st)
	return out
}

// TestRecordValidationWorkloads records validationWorkloadCases from a kube-apiserver as
// TestRecordOracle records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh
// oracle) into testdata/observed-validation-workloads.json and
// ../reference/observed-validation-workloads.md.
func TestRecordValidationWorkloads(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-writes.md)")
	}
	srv := server{base: base, token: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), client: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the oracle's self-signed loopback certificate
	}}
	defer srv.client.CloseIdleConnections()
	var all []observedCase
	for _, c := range validationWorkloadCases {
		all = append(all, runCase(t, srv, c))
	}
	b, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(observedValidationWorkloadsFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	md := strings.Replace(string(renderObserved(all)), "# Observed writes:", "# Observed validation of workloads:", 1)
	md = strings.ReplaceAll(md, "-run TestRecordOracle`", "-run TestRecordValidationWorkloads`")
	md = strings.ReplaceAll(md, "`TestObservedWrites` (fake/observed_test.go)", "`TestObservedValidationWorkloads` (fake/observed_validation_workloads_test.go)")
	md = strings.ReplaceAll(md, "`fake/testdata/observed-writes.json`", "`fake/"+observedValidationWorkloadsFile+"`")
	if err := os.WriteFile(filepath.Join("..", "reference", observedValidationWorkloadsMarkdown), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestObservedValidationWorkloads replays the recorded validation of pods and workloads against
// the fake: status code, warnings and the whole body must be the apiserver's, the causes of a
// 422 and their order included (compareStep).
func TestObservedValidationWorkloads(t *testing.T) {
	b, err := os.ReadFile(observedValidationWorkloadsFile)
	if err != nil {
		t.Fatal(err)
	}
	var want []observedCase
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	// The record is of an apiserver without kube-controller-manager: no controllers.
	srv := fake.NewTest(t, fake.Options{Now: recordClock, NoGarbageCollector: true, NoNamespaceController: true})
	target := server{base: srv.URL(), client: &http.Client{Transport: &http.Transport{}}}
	defer target.client.CloseIdleConnections()
	byName := map[string]writeCase{}
	for _, c := range validationWorkloadCases {
		byName[c.Name] = c
	}
	for _, wc := range want {
		t.Run(wc.Name, func(t *testing.T) {
			c, ok := byName[wc.Name]
			if !ok {
				t.Fatalf("recorded case %s is not in validationWorkloadCases: re-record (TestRecordValidationWorkloads)", wc.Name)
			}
			got := runCase(t, target, c)
			if len(got.Steps) != len(wc.Steps) {
				t.Fatalf("%d steps, recorded %d: re-record (TestRecordValidationWorkloads)", len(got.Steps), len(wc.Steps))
			}
			for i, w := range wc.Steps {
				g := got.Steps[i]
				t.Run(w.Name, func(t *testing.T) {
					if g.Method != w.Method || g.Path != w.Path || g.Body != w.Body {
						t.Fatalf("step differs from the record: re-record (TestRecordValidationWorkloads)")
					}
					if reason, ok := workloadKnownDifferences[wc.Name+"/"+w.Name]; ok {
						t.Logf("known difference: %s", reason)
						g.Response, w.Response = relaxValues(g.Response), relaxValues(w.Response)
					}
					compareStep(t, wc.Name+"/"+w.Name, g, w)
				})
			}
		})
	}
}
