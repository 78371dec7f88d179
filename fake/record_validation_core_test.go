package fake_test

import (
	"crypto/tls"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/watchcache/watchcache/fake"
)

const observedValidationCoreFile = "testdata/observed-validation-core.json"

// knownValidationCoreDifferences are the steps of validationCoreCases whose answers differ from
// the record, and why. As knownDifferences, a listed step still must match in status code and
// reason.
var knownValidationCoreDifferences = map[string]string{
	"core-secret/tls not PEM": "the secret strategy's warning for a TLS pair that does not parse is not emitted: validateKind returns causes, not warnings",
}

// The cases' names are prefixed "core-", so the two lists never name one step.
func init() { maps.Copy(knownDifferences, knownValidationCoreDifferences) }

// TestRecordValidationCore records validationCoreCases from a kube-apiserver as TestRecordOracle
// records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh oracle).
func TestRecordValidationCore(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-writes.md)")
	}
	srv := server{base: base, token: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), client: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the oracle's self-signed loopback certificate
	}}
	defer srv.client.CloseIdleConnections()
	var all []observedCase
	for _, c := range validationCoreCases {
		all = append(all, runCase(t, srv, c))
	}
	b, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(observedValidationCoreFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	md := strings.Replace(string(renderObserved(all)), "# Observed writes:", "# Observed validation of core kinds:", 1)
	md = strings.ReplaceAll(md, "-run TestRecordOracle`", "-run TestRecordValidationCore`")
	md = strings.ReplaceAll(md, "`TestObservedWrites` (fake/observed_test.go)", "`TestObservedValidationCore` (fake/record_validation_core_test.go)")
	md = strings.ReplaceAll(md, "`fake/testdata/observed-writes.json`", "`fake/"+observedValidationCoreFile+"`")
	if err := os.WriteFile(filepath.Join("..", "reference", "observed-validation-core.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestObservedValidationCore replays the recorded validation cases against the fake without its
// controllers (the record is of an apiserver without kube-controller-manager) and compares the
// answers as TestObservedWrites does: status code, warnings and the whole body.
func TestObservedValidationCore(t *testing.T) {
	b, err := os.ReadFile(observedValidationCoreFile)
	if err != nil {
		t.Fatal(err)
	}
	var want []observedCase
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	srv := fake.NewTest(t, fake.Options{Now: recordClock, NoGarbageCollector: true, NoNamespaceController: true})
	target := server{base: srv.URL(), client: &http.Client{Transport: &http.Transport{}}}
	defer target.client.CloseIdleConnections()
	byName := map[string]writeCase{}
	for _, c := range validationCoreCases {
		byName[c.Name] = c
	}
	for _, wc := range want {
		t.Run(wc.Name, func(t *testing.T) {
			c, ok := byName[wc.Name]
			if !ok {
				t.Fatalf("recorded case %s is not in validationCoreCases: re-record (TestRecordValidationCore)", wc.Name)
			}
			got := runCase(t, target, c)
			if len(got.Steps) != len(wc.Steps) {
				t.Fatalf("%d steps, recorded %d: re-record (TestRecordValidationCore)", len(got.Steps), len(wc.Steps))
			}
			for i, w := range wc.Steps {
				g := got.Steps[i]
				t.Run(w.Name, func(t *testing.T) {
					if g.Method != w.Method || g.Path != w.Path || g.Body != w.Body {
						t.Fatalf("step differs from the record: re-record (TestRecordValidationCore)")
					}
					compareStep(t, wc.Name+"/"+w.Name, g, w)
				})
			}
		})
	}
}
