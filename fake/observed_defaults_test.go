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

// recording is a list of cases recorded from the oracle into a JSON file the fake replays and a
// Markdown file of the reference.
type recording struct {
	cases          []writeCase
	file, markdown string
}

// defaultRecordings are the cases of defaults, of the scale subresource and of apply bodies.
var defaultRecordings = []recording{
	{defaultCases, "testdata/observed-defaults.json", "observed-defaults.md"},
	{scaleCases, "testdata/observed-scale.json", "observed-scale.md"},
	{applyBodyCases, "testdata/observed-apply-bodies.json", "observed-apply-bodies.md"},
}

// TestRecordOracleDefaults records defaultCases and scaleCases from a kube-apiserver as
// TestRecordOracle records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh
// oracle).
func TestRecordOracleDefaults(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-writes.md)")
	}
	srv := server{base: base, token: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), client: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the oracle's self-signed loopback certificate
	}}
	defer srv.client.CloseIdleConnections()
	for _, rec := range defaultRecordings {
		var all []observedCase
		for _, c := range rec.cases {
			all = append(all, runCase(t, srv, c))
		}
		b, err := json.MarshalIndent(all, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(rec.file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		md := strings.Replace(string(renderObserved(all)), "# Observed writes:", "# Observed "+strings.TrimSuffix(strings.TrimPrefix(rec.markdown, "observed-"), ".md")+":", 1)
		md = strings.ReplaceAll(md, "-run TestRecordOracle`", "-run TestRecordOracleDefaults`")
		md = strings.ReplaceAll(md, "`TestObservedWrites` (fake/observed_test.go)", "`TestObservedDefaults` (fake/observed_defaults_test.go)")
		md = strings.ReplaceAll(md, "`fake/testdata/observed-writes.json`", "`fake/"+rec.file+"`")
		if err := os.WriteFile(filepath.Join("..", "reference", rec.markdown), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestObservedDefaults replays the recorded defaults and scale cases against the fake: status
// code, warnings and the whole body must be the apiserver's, defaulted fields and managedFields
// included (compareStep).
func TestObservedDefaults(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	target := server{base: srv.URL(), client: &http.Client{Transport: &http.Transport{}}}
	defer target.client.CloseIdleConnections()
	for _, rec := range defaultRecordings {
		b, err := os.ReadFile(rec.file)
		if err != nil {
			t.Fatal(err)
		}
		var want []observedCase
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		byName := map[string]writeCase{}
		for _, c := range rec.cases {
			byName[c.Name] = c
		}
		for _, wc := range want {
			t.Run(wc.Name, func(t *testing.T) {
				c, ok := byName[wc.Name]
				if !ok {
					t.Fatalf("recorded case %s is not in the cases: re-record (TestRecordOracleDefaults)", wc.Name)
				}
				got := runCase(t, target, c)
				if len(got.Steps) != len(wc.Steps) {
					t.Fatalf("%d steps, recorded %d: re-record (TestRecordOracleDefaults)", len(got.Steps), len(wc.Steps))
				}
				for i, w := range wc.Steps {
					g := got.Steps[i]
					t.Run(w.Name, func(t *testing.T) {
						if g.Method != w.Method || g.Path != w.Path || g.Body != w.Body {
							t.Fatalf("step differs from the record: re-record (TestRecordOracleDefaults)")
						}
						compareStep(t, wc.Name+"/"+w.Name, g, w)
					})
				}
			})
		}
	}
}

// allocatedKeys are the fields whose values the apiserver allocates at random (or sets to the
// time of the write); compareStep compares them by presence: a recorded value the request did
// not ask for must be matched by one the fake allocated.
var allocatedKeys = map[string]bool{"clusterIP": true, "clusterIPs": true, "nodePort": true, "healthCheckNodePort": true, "lastPhaseTransitionTime": true}

// maskAllocated replaces, in an answer, the values of allocatedKeys that the request's body does
// not name with a placeholder.
func maskAllocated(resp json.RawMessage, body string) json.RawMessage {
	var v any
	if json.Unmarshal(resp, &v) != nil {
		return resp
	}
	var mask func(v any, key string) any
	mask = func(v any, key string) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = mask(e, k)
			}
		case []any:
			for i, e := range x {
				x[i] = mask(e, key)
			}
		case string:
			if allocatedKeys[key] && x != "None" && !strings.Contains(body, `"`+x+`"`) {
				return "<allocated>"
			}
		case float64:
			if allocatedKeys[key] && !strings.Contains(body, `:`+strings.TrimSuffix(strings.TrimSuffix(jsonNumber(x), ".0"), "")) {
				return "<allocated>"
			}
		}
		return v
	}
	out, _ := json.Marshal(mask(v, ""))
	return out
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// managedFieldsOf returns an answer's metadata.managedFields without their times.
func managedFieldsOf(resp json.RawMessage) []any {
	var v struct {
		Metadata struct {
			ManagedFields []map[string]any `json:"managedFields"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(resp, &v)
	var out []any
	for _, e := range v.Metadata.ManagedFields {
		delete(e, "time")
		out = append(out, e)
	}
	return out
}
