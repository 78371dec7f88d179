package patch

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// recorded is one request sent to kube-apiserver 1.37.2 by testdata/record.sh and its answer;
// reference/observed-patch.md lists them all.
type recorded struct {
	Name        string          `json:"name"`
	Kind        string          `json:"kind"`
	Path        string          `json:"path"`
	Verb        string          `json:"verb"` // "" for patch, "create", "update"
	Subresource string          `json:"subresource"`
	ContentType string          `json:"contentType"`
	Query       string          `json:"query"`
	UserAgent   string          `json:"userAgent"`
	Patch       string          `json:"patch"`
	Current     json.RawMessage `json:"current"`
	Code        int             `json:"code"`
	Warnings    []string        `json:"warnings"` // raw Warning header values
	Response    json.RawMessage `json:"response"`
}

func loadRecorded(t testing.TB) []recorded {
	t.Helper()
	files, err := filepath.Glob("testdata/oracle/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded answers in testdata/oracle: run testdata/record.sh against the oracle")
	}
	out := make([]recorded, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r recorded
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, r)
	}
	return out
}

func (r recorded) gvk() schema.GroupVersionKind {
	parts := strings.Split(r.Kind, "/")
	return schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}
}

// request builds the Request a fake server would build from the recorded HTTP request.
func (r recorded) request() Request {
	q, _ := url.ParseQuery(r.Query)
	gvk := r.gvk()
	// .../namespaces/<ns>/<resource>/<name>
	seg := strings.Split(strings.Trim(r.Path, "/"), "/")
	req := Request{
		GVK:             gvk,
		Subresource:     r.Subresource,
		Type:            types.PatchType(r.ContentType),
		Patch:           []byte(r.Patch),
		FieldManager:    q.Get("fieldManager"),
		Force:           q.Get("force") == "true",
		FieldValidation: q.Get("fieldValidation"),
		Name:            seg[len(seg)-1],
		Namespace:       seg[len(seg)-3],
		Resource:        schema.GroupResource{Group: gvk.Group, Resource: seg[len(seg)-2]},
	}
	if req.FieldManager == "" && req.Type != types.ApplyPatchType {
		req.FieldManager = ManagerFromUserAgent(r.UserAgent)
	}
	return req
}

// warnings returns the texts of the recorded Warning headers (RFC 7234 form: 299 - "text").
func (r recorded) warnings(t *testing.T) []string {
	var out []string
	for _, h := range r.Warnings {
		text, err := strconv.Unquote(strings.TrimPrefix(h, "299 - "))
		if err != nil {
			t.Fatalf("warning header %q: %v", h, err)
		}
		out = append(out, text)
	}
	return out
}

func (r recorded) current() []byte {
	if len(r.Current) == 0 || string(r.Current) == "null" {
		return nil
	}
	return r.Current
}

// body is the recorded create or update body as the fake's create path hands it to Update: with
// the namespace of the URL set.
func (r recorded) body(t *testing.T) []byte {
	var o map[string]any
	if err := json.Unmarshal([]byte(r.Patch), &o); err != nil {
		t.Fatal(err)
	}
	seg := strings.Split(strings.Trim(r.Path, "/"), "/")
	for i := range seg[:len(seg)-1] {
		if seg[i] == "namespaces" {
			o["metadata"].(map[string]any)["namespace"] = seg[i+1]
		}
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// defaulted lists, for the recorded requests whose result the apiserver defaulted, the fields its
// defaulting functions set (k8s.io/kubernetes' pkg/apis/*/v1 defaults, which client-go's scheme
// lacks). Without them the answers are the same, managedFields included.
var defaulted = map[string][][]string{
	"dep-smp-add-container-defaults": {
		{"spec", "template", "spec", "containers", "0", "imagePullPolicy"},
		{"spec", "template", "spec", "containers", "0", "terminationMessagePath"},
		{"spec", "template", "spec", "containers", "0", "terminationMessagePolicy"},
		{"metadata", "managedFields", "1", "fieldsV1", "f:spec", "f:template", "f:spec", "f:containers", `k:{"name":"c3"}`, "f:imagePullPolicy"},
		{"metadata", "managedFields", "1", "fieldsV1", "f:spec", "f:template", "f:spec", "f:containers", `k:{"name":"c3"}`, "f:terminationMessagePath"},
		{"metadata", "managedFields", "1", "fieldsV1", "f:spec", "f:template", "f:spec", "f:containers", `k:{"name":"c3"}`, "f:terminationMessagePolicy"},
	},
	"dep-apply-create-minimal": {
		{"spec", "progressDeadlineSeconds"}, {"spec", "replicas"}, {"spec", "revisionHistoryLimit"},
		{"spec", "strategy", "rollingUpdate"}, {"spec", "strategy", "type"},
		{"spec", "template", "spec", "containers", "0", "imagePullPolicy"},
		{"spec", "template", "spec", "containers", "0", "terminationMessagePath"},
		{"spec", "template", "spec", "containers", "0", "terminationMessagePolicy"},
		{"spec", "template", "spec", "dnsPolicy"}, {"spec", "template", "spec", "restartPolicy"},
		{"spec", "template", "spec", "schedulerName"}, {"spec", "template", "spec", "securityContext"},
		{"spec", "template", "spec", "terminationGracePeriodSeconds"},
	},
}

// without returns the JSON object b with the fields at paths removed; every path must exist, so
// a recorded answer that stops having a defaulted field fails the test.
func without(t *testing.T, b []byte, paths [][]string) []byte {
	t.Helper()
	var o any
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		cur := o
		for i, key := range path {
			last := i == len(path)-1
			switch c := cur.(type) {
			case map[string]any:
				if _, ok := c[key]; !ok {
					t.Fatalf("no field %q in the recorded answer", path)
				}
				if last {
					delete(c, key)
				}
				cur = c[key]
			case []any:
				n, err := strconv.Atoi(key)
				if err != nil || n >= len(c) || last {
					t.Fatalf("bad path %q", path)
				}
				cur = c[n]
			default:
				t.Fatalf("no field %q in the recorded answer", path)
			}
		}
	}
	out, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// callerOwned are the recorded requests whose answer comes from the stage after Patch — the
// storage layer and the resource's strategy, which the fake server runs — with what Patch must
// hand that stage so it can answer as the apiserver did.
var callerOwned = map[string]func(t *testing.T, r recorded, out []byte){
	// 409 "the object has been modified": the stale resourceVersion from the body reaches storage.
	"cm-merge-stale-rv": wantMeta("resourceVersion", "1"),
	// uid and creationTimestamp are immutable metadata, checked by the update validation.
	"cm-merge-uid":                wantMeta("uid", "00000000-0000-0000-0000-000000000001"),
	"cm-merge-creation-timestamp": wantMeta("creationTimestamp", "2001-01-01T00:00:00Z"),
	"dep-json-uid":                wantMeta("uid", "00000000-0000-0000-0000-000000000002"),
	// Pod spec immutability is the pod strategy's validation.
	"pod-smp-immutable": func(t *testing.T, _ recorded, out []byte) {
		if !strings.Contains(string(out), `"workingDir":"/tmp"`) {
			t.Errorf("patched pod lost the change the caller must reject: %s", out)
		}
	},
}

func wantMeta(field, value string) func(t *testing.T, r recorded, out []byte) {
	return func(t *testing.T, _ recorded, out []byte) {
		t.Helper()
		var o struct {
			Metadata map[string]any `json:"metadata"`
		}
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatal(err)
		}
		if got := o.Metadata[field]; got != value {
			t.Errorf("metadata.%s = %v, want %q passed on to the caller's update checks", field, got, value)
		}
	}
}

// TestOracle replays every recorded request through the Patcher and compares the result with
// kube-apiserver's answer: the same status, reason, message and details for errors, the same
// object (after normalising what storage sets: resourceVersion, generation, managedFields times)
// for successes. For each resource the caller's strategy step is simulated: status kept on the
// main resource, spec on the status subresource.
func TestOracle(t *testing.T) {
	p, err := New(scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range loadRecorded(t) {
		t.Run(r.Name, func(t *testing.T) {
			var out []byte
			var warnings []string
			var err error
			switch r.Verb {
			case "create", "update":
				out, err = p.Update(r.current(), r.body(t), r.gvk(), r.Subresource, ManagerFromUserAgent(r.UserAgent))
			default:
				out, warnings, err = p.PatchWithWarnings(r.current(), r.request())
				if want := r.warnings(t); !reflect.DeepEqual(warnings, want) {
					t.Errorf("warnings = %q, the apiserver sent %q", warnings, want)
				}
			}
			if check, ok := callerOwned[r.Name]; ok {
				if err != nil {
					t.Fatalf("Patch: %v; want the patched object for the caller to reject with %d", err, r.Code)
				}
				check(t, r, out)
				return
			}
			if r.Code >= 300 {
				compareError(t, r, err)
				return
			}
			if err != nil {
				t.Fatalf("got error %v, the apiserver answered %d: %s", err, r.Code, r.Response)
			}
			if r.current() != nil {
				out = simulateStrategy(t, r, out)
				if unwritten(t, r) && !sameJSON(t, out, r.current()) {
					// The caller finds a no-op by comparing with the stored object, so even the
					// managedFields timestamps must stay as they were.
					t.Errorf("the apiserver wrote nothing, but the result differs from the stored object\ngot    %s\nstored %s", out, r.current())
				}
			}
			want := r.Response
			if paths, ok := defaulted[r.Name]; ok {
				want = without(t, want, paths)
			}
			if r.Verb == "create" && strings.Contains(string(want), `"status":`) {
				// Status on create is the strategy's (a Pod's phase and qosClass).
				out, want = without(t, out, [][]string{{"status"}}), without(t, want, [][]string{{"status"}})
			}
			compareObject(t, out, want)
		})
	}
}

func compareError(t *testing.T, r recorded, err error) {
	t.Helper()
	var want metav1.Status
	if jerr := json.Unmarshal(r.Response, &want); jerr != nil {
		t.Fatalf("recorded body is not a Status: %s", r.Response)
	}
	if err == nil {
		t.Fatalf("no error; the apiserver answered %d %s: %s", r.Code, want.Reason, want.Message)
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %T %v is not a *StatusError", err, err)
	}
	got := se.ErrStatus
	if int(got.Code) != r.Code || got.Reason != want.Reason || got.Message != want.Message {
		t.Errorf("got  %d %q %q\nwant %d %q %q", got.Code, got.Reason, got.Message, r.Code, want.Reason, want.Message)
	}
	if !reflect.DeepEqual(normaliseDetails(got.Details), normaliseDetails(want.Details)) {
		t.Errorf("details\ngot  %+v\nwant %+v", got.Details, want.Details)
	}
}

func normaliseDetails(d *metav1.StatusDetails) *metav1.StatusDetails {
	if d == nil || (d.Name == "" && d.Group == "" && d.Kind == "" && d.UID == "" && len(d.Causes) == 0 && d.RetryAfterSeconds == 0) {
		return nil
	}
	c := *d
	if len(c.Causes) == 0 {
		c.Causes = nil
	}
	// The apiserver lists apply conflicts in map order, which varies from run to run.
	c.Causes = slices.Clone(c.Causes)
	slices.SortFunc(c.Causes, func(a, b metav1.StatusCause) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Message, b.Message))
	})
	return &c
}

// simulateStrategy does what the apiserver's strategies do to a patched object before storing
// it, which the fake server does after Patch: the main resource keeps the stored status, the
// status subresource keeps the stored spec (and, for Deployments, labels). A patch that changes
// nothing is not written: the stored object is answered unchanged.
func simulateStrategy(t *testing.T, r recorded, out []byte) []byte {
	t.Helper()
	var cur, obj map[string]any
	if err := json.Unmarshal(r.current(), &cur); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &obj); err != nil {
		t.Fatal(err)
	}
	copyField := func(name string) {
		if v, ok := cur[name]; ok {
			obj[name] = v
		} else {
			delete(obj, name)
		}
	}
	switch r.Subresource {
	case "":
		if _, ok := cur["status"]; ok {
			copyField("status")
		}
	case "status":
		copyField("spec")
		if r.gvk().Kind == "Deployment" {
			m, _ := obj["metadata"].(map[string]any)
			cm, _ := cur["metadata"].(map[string]any)
			if l, ok := cm["labels"]; ok {
				m["labels"] = l
			} else {
				delete(m, "labels")
			}
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unwritten reports whether the apiserver answered the stored object without writing it.
func unwritten(t *testing.T, r recorded) bool {
	var before, after struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(r.current(), &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.Response, &after); err != nil {
		t.Fatal(err)
	}
	return before.Metadata.ResourceVersion == after.Metadata.ResourceVersion
}

func sameJSON(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func compareObject(t *testing.T, out, response []byte) {
	t.Helper()
	got, want := normalise(t, out), normalise(t, response)
	if got != want {
		t.Errorf("object differs from the apiserver's\ngot  %s\nwant %s", got, want)
	}
}

// normalise drops what storage sets (resourceVersion, generation, uid and creationTimestamp on
// create) and the managedFields timestamps, and prints the rest with sorted keys.
func normalise(t *testing.T, b []byte) string {
	t.Helper()
	var o map[string]any
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if m, ok := o["metadata"].(map[string]any); ok {
		for _, f := range []string{"resourceVersion", "generation", "uid", "creationTimestamp"} {
			delete(m, f)
		}
		if mf, ok := m["managedFields"].([]any); ok {
			for _, e := range mf {
				delete(e.(map[string]any), "time")
			}
		}
	}
	n, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(n)
}
