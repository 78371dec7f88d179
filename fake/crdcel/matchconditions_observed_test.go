package crdcel_test

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/fake/crdcel"
)

// matchFile holds the answers of matchCases, and the reviews the test's webhook server received,
// recorded from a kube-apiserver 1.37.2 (TestRecordOracleMatchConditions);
// ../../reference/observed-matchconditions.md shows the same.
const matchFile = "testdata/observed-matchconditions.json"

// matchCases are admission webhooks with matchConditions: each case has a mutating webhook (at
// /mutate, which labels the config map it is sent mutated=yes) and a validating one (at /allow)
// of config maps in the case's namespace, with the same conditions unless said otherwise;
// mcinvalid writes configurations whose conditions do not compile.
var matchCases = []celCase{
	{Name: "mcselect", Steps: []celStep{
		{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: namespaceBody},
		mcConfig("Mutating", mcHook("m.mcselect.example.com", "/mutate", selectConditions)),
		mcConfig("Validating", mcHook("v.mcselect.example.com", "/allow", selectConditions)),
		{Name: "create called", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c1"}}`},
		{Name: "create skipped", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c2","labels":{"skip":"1"}}}`},
		{Name: "update called with oldObject", Method: "PUT", Path: cmPath + "/c1", Body: `{"metadata":{"name":"c1","labels":{"mutated":"yes","a":"b"}}}`},
		{Name: "patch freezes", Method: "PATCH", Path: cmPath + "/c1", ContentType: mergePatch, Body: `{"metadata":{"labels":{"frozen":"1"}}}`},
		{Name: "update of frozen skipped", Method: "PATCH", Path: cmPath + "/c1", ContentType: mergePatch, Body: `{"data":{"k":"v"}}`},
		{Name: "delete of frozen skipped", Method: "DELETE", Path: cmPath + "/c1"},
		{Name: "delete called without object", Method: "DELETE", Path: cmPath + "/c2"},
		{Name: "dry run called", Method: "POST", Path: cmPath + "?dryRun=All", Body: `{"metadata":{"name":"c3"}}`},
	}},
	{Name: "mcerror", Steps: []celStep{
		{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: namespaceBody},
		mcConfig("Mutating",
			mcHook("m-fail.mcerror.example.com", "/mutate", errorConditions, selectLabel("m-fail")),
			mcHook("m-ignore.mcerror.example.com", "/mutate", errorConditions, selectLabel("m-ignore"), `"failurePolicy":"Ignore"`),
			mcHook("m-false.mcerror.example.com", "/mutate", errorConditions[:len(errorConditions)-1]+`,{"name":"never","expression":"request.name == 'never'"}]`, selectLabel("m-false"))),
		mcConfig("Validating",
			mcHook("v-fail.mcerror.example.com", "/allow", errorConditions, selectLabel("v-fail")),
			mcHook("v-ignore.mcerror.example.com", "/allow", errorConditions, selectLabel("v-ignore"), `"failurePolicy":"Ignore"`)),
		{Name: "mutating fails", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c1","labels":{"hook":"m-fail"}}}`},
		{Name: "mutating holds", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c2","labels":{"hook":"m-fail"},"annotations":{"x":"y"}}}`},
		{Name: "mutating ignores", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c3","labels":{"hook":"m-ignore"}}}`},
		{Name: "false wins over an error", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c4","labels":{"hook":"m-false"}}}`},
		{Name: "validating fails", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c5","labels":{"hook":"v-fail"}}}`},
		{Name: "validating fails on update", Method: "PATCH", Path: cmPath + "/c3", ContentType: mergePatch, Body: `{"metadata":{"labels":{"hook":"v-fail"}}}`},
		{Name: "validating ignores", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c6","labels":{"hook":"v-ignore"}}}`},
	}},
	{Name: "mcauthz", Steps: []celStep{
		{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: namespaceBody},
		mcConfig("Mutating", mcHook("m.mcauthz.example.com", "/mutate",
			`[{"name":"may-create","expression":"authorizer.requestResource.check('create').allowed()"},`+
				`{"name":"may-healthz","expression":"authorizer.path('/healthz').check('get').allowed()"}]`)),
		mcConfig("Validating",
			mcHook("v-list.mcauthz.example.com", "/allow", `[{"name":"may-list-pods","expression":"authorizer.group('').resource('pods').namespace(request.namespace).check('list').allowed()"}]`),
			mcHook("v-not.mcauthz.example.com", "/allow", `[{"name":"may-not-list-pods","expression":"!authorizer.group('').resource('pods').check('list').allowed()"}]`)),
		{Name: "create", Method: "POST", Path: cmPath, Body: `{"metadata":{"name":"c1"}}`},
	}},
	{Name: "mcinvalid", Steps: []celStep{
		mcNamedConfig("Validating", "syntax", mcHook("syntax.mcinvalid.example.com", "/allow", `[{"name":"syntax","expression":"object.nope("}]`)),
		mcNamedConfig("Validating", "not-bool", mcHook("not-bool.mcinvalid.example.com", "/allow", `[{"name":"not-bool","expression":"'x'"}]`)),
		mcNamedConfig("Validating", "params", mcHook("params.mcinvalid.example.com", "/allow", `[{"name":"params","expression":"params.x == 1"}]`)),
		mcNamedConfig("Mutating", "order", mcHook("order.mcinvalid.example.com", "/mutate",
			`[{"name":"bad name!","expression":"nope"},{"name":"ok","expression":"true"},{"name":"ok","expression":"object.metadata.name.size()"}]`)),
		mcNamedConfig("Mutating", "valid", mcHook("valid.mcinvalid.example.com", "/mutate", `[{"name":"ok","expression":"object != null"}]`)),
		{Name: "update with a bad condition", Method: "PATCH", Path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/{ns}-valid", ContentType: jsonPatch,
			Body: `[{"op":"add","path":"/webhooks/0/matchConditions/-","value":{"name":"bad","expression":"object.nope("}}]`},
	}},
}

const cmPath = "/api/v1/namespaces/{ns}/configmaps"

// selectConditions: oldObject is null on a create and set on an update or a delete; object is
// null on a delete; the user is an admin (the oracle's token's and the fake's are both in
// system:masters); an object labelled skip, or an update or delete of one labelled frozen, is not
// sent.
const selectConditions = `[` +
	`{"name":"old-on-create","expression":"request.operation != 'CREATE' || oldObject == null"},` +
	`{"name":"old-otherwise","expression":"request.operation == 'CREATE' || (oldObject != null && oldObject.metadata.name == request.name)"},` +
	`{"name":"user","expression":"!request.userInfo.username.startsWith('system:serviceaccount:') && 'system:masters' in request.userInfo.groups"},` +
	`{"name":"not-skipped","expression":"object == null || !has(object.metadata.labels) || !('skip' in object.metadata.labels)"},` +
	`{"name":"old-not-frozen","expression":"oldObject == null || !has(oldObject.metadata.labels) || !('frozen' in oldObject.metadata.labels)"}]`

// errorConditions fail to evaluate on an object without annotations (no such key), after one
// that holds.
const errorConditions = `[{"name":"holds","expression":"object != null"},{"name":"annotated","expression":"object.metadata.annotations['x'] == 'y'"}]`

// mcHook is a webhook of the case's config maps at path of the test's webhook server, with
// conditions and further fields.
func mcHook(name, path, conditions string, fields ...string) string {
	s := `{"name":"` + name + `","clientConfig":{"url":"{hook}` + path + `","caBundle":"{ca}"},` +
		`"rules":[{"operations":["CREATE","UPDATE","DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}],` +
		`"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"{ns}"}},"sideEffects":"None","admissionReviewVersions":["v1"],` +
		`"matchConditions":` + conditions
	for _, f := range fields {
		s += "," + f
	}
	return s + "}"
}

// selectLabel is the object selector of config maps labelled hook=v.
func selectLabel(v string) string {
	return `"objectSelector":{"matchLabels":{"hook":"` + v + `"}}`
}

// mcConfig creates the case's Mutating or Validating webhook configuration.
func mcConfig(kind string, hooks ...string) celStep {
	return celStep{Name: kind + " configuration", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/" + strings.ToLower(kind) + "webhookconfigurations",
		Body: `{"metadata":{"name":"{ns}"},"webhooks":[` + strings.Join(hooks, ",") + `]}`}
}

// mcNamedConfig creates a Mutating or Validating webhook configuration {ns}-name.
func mcNamedConfig(kind, name string, hooks ...string) celStep {
	st := mcConfig(kind, hooks...)
	st.Name = name
	st.Body = strings.Replace(st.Body, `"name":"{ns}"`, `"name":"{ns}-`+name+`"`, 1)
	return st
}

// hookServer is an admission webhook server over TLS: /mutate labels the object mutated=yes,
// any other path allows. It keeps what it received until observe takes it.
type hookServer struct {
	*httptest.Server
	caBundle string

	mu      sync.Mutex
	reviews []json.RawMessage
}

func startHookServer(t *testing.T) *hookServer {
	t.Helper()
	hs := &hookServer{}
	hs.Server = httptest.NewTLSServer(http.HandlerFunc(hs.serve))
	t.Cleanup(hs.Close)
	hs.caBundle = base64.StdEncoding.EncodeToString(caBundle(hs.Server))
	return hs
}

// caBundle is the PEM certificate a webhook's clientConfig trusts to call the TLS server.
func caBundle(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// vars are the placeholders of the server's URL and CA bundle.
func (hs *hookServer) vars() []string { return []string{"{hook}", hs.URL, "{ca}", hs.caBundle} }

// observe returns the reviews received since it was last called, ordered by path (validating
// webhooks are called in parallel), each trimmed to what the replay compares: the path, the
// request's operation, resource, name, namespace and dryRun, and the objects' names and labels.
func (hs *hookServer) observe() []json.RawMessage {
	hs.mu.Lock()
	got := hs.reviews
	hs.reviews = nil
	hs.mu.Unlock()
	slices.SortStableFunc(got, func(a, b json.RawMessage) int { return strings.Compare(string(a), string(b)) })
	return got
}

func (hs *hookServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "not a review", http.StatusBadRequest)
		return
	}
	req := review.Request
	meta := func(raw []byte) any {
		var o struct {
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels,omitempty"`
			} `json:"metadata"`
		}
		if len(raw) == 0 || json.Unmarshal(raw, &o) != nil {
			return nil
		}
		return o.Metadata
	}
	kept, _ := json.Marshal(map[string]any{"path": r.URL.Path, "operation": req.Operation, "resource": req.Resource.Resource,
		"name": req.Name, "namespace": req.Namespace, "dryRun": req.DryRun, "object": meta(req.Object.Raw), "oldObject": meta(req.OldObject.Raw)})
	hs.mu.Lock()
	hs.reviews = append(hs.reviews, kept)
	hs.mu.Unlock()
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if r.URL.Path == "/mutate" && len(req.Object.Raw) > 0 {
		var o struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		_ = json.Unmarshal(req.Object.Raw, &o)
		op := map[string]any{"op": "add", "path": "/metadata/labels/mutated", "value": "yes"}
		if o.Metadata.Labels == nil {
			op = map[string]any{"op": "add", "path": "/metadata/labels", "value": map[string]string{"mutated": "yes"}}
		}
		pt := admissionv1.PatchTypeJSONPatch
		resp.Patch, _ = json.Marshal([]any{op})
		resp.PatchType = &pt
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
}

// TestRecordOracleMatchConditions records matchCases from a kube-apiserver (WATCHCACHE_ORACLE_URL,
// with the bearer token WATCHCACHE_ORACLE_TOKEN), which calls the test's webhook server on
// loopback, into testdata/observed-matchconditions.json and
// ../../reference/observed-matchconditions.md.
func TestRecordOracleMatchConditions(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set (see reference/observed-matchconditions.md)")
	}
	hs := startHookServer(t)
	srv := target{base: base, token: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), client: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the oracle's self-signed loopback certificate
	}, vars: hs.vars(), observe: hs.observe, settle: time.Second}
	defer srv.client.CloseIdleConnections()
	var all []observedCase
	for _, c := range matchCases {
		all = append(all, runCase(t, srv, c, 0))
	}
	b, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(matchFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	md := render(all, report{title: "admission webhooks' matchConditions", recorder: "TestRecordOracleMatchConditions",
		replayer: "TestObservedMatchConditions", options: "Options.WebhookMatchConditions: crdcel.WebhookMatchConditions()",
		file: matchFile, source: "matchconditions_observed_test.go",
		note: "Each case has its namespace `c-<case>`; the requests are in\n" +
			"fake/crdcel/matchconditions_observed_test.go. The test runs a webhook server over TLS (`{hook}`, `{ca}`):\n" +
			"/mutate labels the config map mutated=yes, /allow allows. Answers are trimmed (a Status whole, a config\n" +
			"map's kind, name and labels), and so is each review the server received during the step (`⇢ webhook`).\n"})
	if err := os.WriteFile(filepath.Join("..", "..", "reference", "observed-matchconditions.md"), md, 0o644); err != nil {
		t.Fatal(err)
	}
}

// replayMatch replays the recorded matchCases against a fake with opts, each case on a fake of
// its own, and calls differ for each step whose answer or reviews are not the apiserver's.
func replayMatch(t *testing.T, opts fake.Options, differ func(t *testing.T, step string, got, want observedStep)) {
	byName := map[string]celCase{}
	for _, c := range matchCases {
		byName[c.Name] = c
	}
	for _, wc := range readObserved(t, matchFile) {
		c, ok := byName[wc.Name]
		if !ok {
			t.Fatalf("recorded case %s is not in matchCases", wc.Name)
		}
		hs := startHookServer(t)
		srv := fake.NewTest(t, opts)
		tg := target{base: srv.URL(), client: &http.Client{Transport: srv.Transport()}, vars: hs.vars(), observe: hs.observe}
		got := runCase(t, tg, c, 0)
		tg.client.CloseIdleConnections()
		if len(got.Steps) != len(wc.Steps) {
			t.Fatalf("%s: %d steps, recorded %d: re-record (TestRecordOracleMatchConditions)", wc.Name, len(got.Steps), len(wc.Steps))
		}
		for i, w := range wc.Steps {
			g := got.Steps[i]
			if g.Method != w.Method || g.Path != w.Path || g.Body != w.Body {
				t.Fatalf("%s/%s differs from the record: re-record (TestRecordOracleMatchConditions)", wc.Name, w.Name)
			}
			if g.Code != w.Code || !sameJSON(g.Response, w.Response) || !sameReviews(g.Reviews, w.Reviews) {
				differ(t, wc.Name+"/"+w.Name, g, w)
			}
		}
	}
}

// sameReviews reports whether two steps' trimmed reviews are the same, in order.
func sameReviews(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameJSON(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestObservedMatchConditions replays the recorded requests against the fake with crdcel's
// matchConditions: every answer's code and trimmed body, and the reviews each webhook received,
// must be the apiserver's.
func TestObservedMatchConditions(t *testing.T) {
	replayMatch(t, fake.Options{WebhookMatchConditions: crdcel.WebhookMatchConditions()}, func(t *testing.T, step string, got, want observedStep) {
		t.Errorf("%s: got %d %s %s\napiserver %d %s %s", step, got.Code, got.Response, got.Reviews, want.Code, want.Response, want.Reviews)
	})
}

// TestObservedMatchConditionsWithoutHook shows that the replay tells: without the hook the fake
// calls every webhook as if its conditions held, and differs from the apiserver on exactly the
// steps where a condition is false or fails to evaluate, on the delete of the config map that
// the mutating webhook then labelled at its create, and where a condition does not compile.
func TestObservedMatchConditionsWithoutHook(t *testing.T) {
	want := []string{
		"mcselect/create skipped", "mcselect/update of frozen skipped", "mcselect/delete of frozen skipped", "mcselect/delete called without object",
		"mcerror/mutating fails", "mcerror/mutating ignores", "mcerror/false wins over an error",
		"mcerror/validating fails", "mcerror/validating fails on update", "mcerror/validating ignores",
		"mcauthz/create",
		"mcinvalid/syntax", "mcinvalid/not-bool", "mcinvalid/params", "mcinvalid/order", "mcinvalid/update with a bad condition",
	}
	var got []string
	replayMatch(t, fake.Options{}, func(_ *testing.T, step string, _, _ observedStep) { got = append(got, step) })
	if !slices.Equal(got, want) {
		t.Errorf("steps that differ without the hook:\n got %q\nwant %q", got, want)
	}
}
