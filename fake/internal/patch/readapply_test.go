package patch

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
)

// readApplyBodyCases are apply bodies and whether readApplyBody reads them.
var readApplyBodyCases = []readCase{
	{"client-go JSON", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},"data":{"n":"1"}}`, true},
	{"JSON with a fraction", `{"spec":{"replicas":1.0,"f":1.5,"e":1e3}}`, true},
	{"JSON with escapes", `{"data":{"k":"a\"b\u00e9"}}`, true},
	{"kubectl YAML", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: c\n        image: nginx:1\n        args: [sleep, 1d]\n", true},
	{"YAML scalars", "a: yes\nb: no\nc: ~\nd: 0x1f\ne: 1.0\nf: 1e3\ng: 9223372036854775808\nh: '007'\ni: 2024-01-01\n", true},
	{"YAML infinity", "a: .inf\n", false},
	{"JSON slash escape", `{"a":"\/"}`, false},
	{"YAML non-string keys", "1: a\ntrue: b\n1.5: c\n", true},
	{"YAML anchors", "a: &x {b: 1}\nc: *x\n", true},
	{"YAML two documents", "a: 1\n---\nb: 2\n", true},
	{"empty", "", true},
	{"YAML duplicate", "a: 1\na: 2\n", false},
	{"JSON duplicate", `{"a":1,"a":2}`, false},
	{"YAML list", "- a\n- b\n", false},
	{"YAML scalar", "a\n", false},
	{"YAML error", "a: [1\n", false},
	{"YAML tab", "a:\n\tb: 1\n", false},
	{"malformed JSON", `{"a":}`, false},
	{"null key", "~: a\n", false},
	{"keys alike in JSON", `{"0":.7,00}`, true},
}

// TestReadApplyBody checks readApplyBody against the reading apply makes without it: what it
// reads must pass validateBody, decode to the same object, and raise no strict error.
func TestReadApplyBody(t *testing.T) {
	testReads(t, readApplyBodyCases, func(b []byte) bool { _, ok := readApplyBody(b); return ok }, checkReadApplyBody)
}

// FuzzReadApplyBody checks readApplyBody against apply's own reading on any body.
func FuzzReadApplyBody(f *testing.F) {
	fuzzReads(f, readApplyBodyCases, checkReadApplyBody)
}

// checkReadApplyBody fails t when readApplyBody reads body and apply's own reading (validateBody,
// then JSON or YAML, then the strict YAML reading) errs, warns or reads another object.
//
// sigs.k8s.io/yaml converts keys that YAML tells apart but JSON spells alike (0 and "0") to one
// key with the value of either, as map iteration picks: both readings then vary from run to run,
// and are compared again until they agree, up to a bound.
func checkReadApplyBody(t *testing.T, body []byte) {
	if _, ok := readApplyBody(body); !ok {
		return
	}
	var got, want map[string]any
	for range 32 {
		got, _ = readApplyBody(body)
		want = applyReads(t, body)
		if reflect.DeepEqual(got, want) {
			return
		}
	}
	t.Fatalf("readApplyBody reads %q as %#v, apply as %#v", body, got, want)
}

// applyReads returns body as apply reads it without readApplyBody, and fails t when that reading
// errs or warns.
func applyReads(t *testing.T, body []byte) map[string]any {
	if err := validateBody(types.ApplyPatchType, body); err != nil {
		t.Fatalf("readApplyBody reads %q, which validateBody refuses: %v", body, err)
	}
	want := map[string]any{}
	strictChecked := false
	if jsonReadsAsYAML(body) {
		if dups, err := sigsjson.UnmarshalStrict(body, &want, sigsjson.DisallowDuplicateFields); err == nil && len(dups) == 0 {
			strictChecked = true
		} else {
			want = map[string]any{}
		}
	}
	if !strictChecked {
		if err := yaml.Unmarshal(body, &want); err != nil {
			t.Fatalf("readApplyBody reads %q, which apply does not decode: %v", body, err)
		}
		if err := yaml.UnmarshalStrict(body, &map[string]any{}); err != nil {
			t.Fatalf("readApplyBody reads %q, which strictly has %v", body, err)
		}
	}
	return want
}
