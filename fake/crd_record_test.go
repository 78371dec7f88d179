package fake_test

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// crdCase is a sequence of requests with a group and a namespace of its own.
type crdCase struct {
	Name  string
	Steps []crdStep
}

// crdStep is one request. Accept "" means application/json. Until repeats the request (every
// 50 ms, up to 20 s against the apiserver) until the answer contains it: what a real apiserver's controllers do after
// a CRD write (naming, establishing, deleting) happens a moment later there. Pick keeps only the
// entries named Pick of a list answer's "groups" (the /apis discovery document).
type crdStep struct {
	Name, Method, Path, ContentType, Accept, Body, Until, Pick string
}

// crdObservedFile holds the recorded answers of crdCases, gzipped (the discovery and CRD bodies
// repeat a schema many times).
const crdObservedFile = "testdata/observed-crds.json.gz"

// runCRDCase sends a case's steps in order and returns the normalized answers. A step with
// Until is repeated for up to wait (the fake gets none: what the apiserver's controllers do
// later, it has done before it answers).
func runCRDCase(t *testing.T, srv server, c crdCase, wait time.Duration) observedCase {
	t.Helper()
	ns, group := "c-"+c.Name, c.Name+".example.com"
	norm := newNormalizer()
	out := observedCase{Name: c.Name}
	var lastUID, lastRV string
	for _, st := range c.Steps {
		sub := func(s string) string {
			return strings.NewReplacer("{ns}", ns, "{g}", group, "{uid}", lastUID, "{rv}", lastRV).Replace(s)
		}
		var code int
		var b []byte
		var warnings []string
		deadline := time.Now().Add(wait)
		for {
			code, b, warnings = sendCRDStep(t, srv, st, sub)
			if st.Until == "" || bytes.Contains(b, []byte(st.Until)) || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		var meta struct {
			Metadata struct{ UID, ResourceVersion string } `json:"metadata"`
		}
		if json.Unmarshal(b, &meta) == nil && meta.Metadata.UID != "" {
			lastUID, lastRV = meta.Metadata.UID, meta.Metadata.ResourceVersion
		}
		if st.Pick != "" {
			b = pickGroups(b, sub(st.Pick))
		}
		out.Steps = append(out.Steps, observedStep{
			Name: st.Name, Method: st.Method, Path: st.Path, ContentType: st.ContentType, Body: st.Body,
			Code: code, Warnings: warnings, Response: normalizeCRD(norm.normalize(b)),
		})
	}
	return out
}

func sendCRDStep(t *testing.T, srv server, st crdStep, sub func(string) string) (int, []byte, []string) {
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
	accept := st.Accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
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
	return resp.StatusCode, b, resp.Header.Values("Warning")
}

// pickGroups keeps the named group of an APIGroupList.
func pickGroups(b []byte, name string) []byte {
	var v map[string]any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	groups, _ := v["groups"].([]any)
	var kept []any
	for _, g := range groups {
		if m, ok := g.(map[string]any); ok && m["name"] == name {
			kept = append(kept, g)
		}
	}
	v["groups"] = kept
	out, _ := json.Marshal(v)
	return out
}

// lastTransitionTime is the one timestamp of CRD conditions, which the shared normalizer leaves.
var lastTransitionTime = regexp.MustCompile(`"lastTransitionTime":"[^"]+"`)

func normalizeCRD(b json.RawMessage) json.RawMessage {
	return lastTransitionTime.ReplaceAll(b, []byte(`"lastTransitionTime":"<time>"`))
}

// TestRecordOracleCRDs records crdCases from a kube-apiserver (WATCHCACHE_ORACLE_URL, with the
// bearer token WATCHCACHE_ORACLE_TOKEN) into testdata/observed-crds.json.gz and
// ../reference/observed-crds.md. The oracle must be fresh.
func TestRecordOracleCRDs(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-crds.md)")
	}
	srv := server{base: base, token: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), client: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the oracle's self-signed loopback certificate
	}}
	defer srv.client.CloseIdleConnections()
	var all []observedCase
	for _, c := range crdCases {
		all = append(all, runCRDCase(t, srv, c, 20*time.Second))
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	if err := os.WriteFile(crdObservedFile, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	md := renderObserved(all)
	md = bytes.Replace(md, []byte(observedHeader), []byte(crdObservedHeader), 1)
	if err := os.WriteFile(filepath.Join("..", "reference", "observed-crds.md"), md, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readObservedCRDs reads the recording.
func readObservedCRDs(t *testing.T) []observedCase {
	t.Helper()
	f, err := os.Open(crdObservedFile)
	if os.IsNotExist(err) {
		t.Skipf("%s is not recorded yet (TestRecordOracleCRDs)", crdObservedFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var all []observedCase
	if err := json.NewDecoder(zr).Decode(&all); err != nil {
		t.Fatal(err)
	}
	return all
}

var crdObservedHeader = fmt.Sprintf(`# Observed CRDs: kube-apiserver 1.37.2

Generated by `+"`WATCHCACHE_ORACLE_URL=$KAS_URL WATCHCACHE_ORACLE_TOKEN=$TOKEN go test ./fake -run TestRecordOracleCRDs`"+`
against a fresh oracle (`+"`/work/shared/oracle/start.sh`"+`, etcd 3.7.3, no controller manager); do not edit by hand.
The same requests are replayed against the fake by `+"`TestObservedCRDs`"+` (fake/crd_observed_test.go) from
`+"`%s`"+`, which holds exactly what is below.

Each case has its own API group `+"`<case>.example.com`"+` and namespace `+"`c-<case>`"+`. A step
marked "until" in fake/crd_cases_test.go was repeated until the answer showed what the apiserver's
CRD controllers do a moment after a write (names accepted, Established, deletion finished); the
last answer is the one recorded. Answers are normalized: uids, resourceVersions, timestamps
(lastTransitionTime too) and generated name suffixes are placeholders; everything else is verbatim.
`, "fake/"+crdObservedFile)
