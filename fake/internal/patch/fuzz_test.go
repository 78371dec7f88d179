package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

var fuzzTypes = []types.PatchType{types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType, types.ApplyPatchType}

// FuzzPatch sends arbitrary bodies of every patch type to a stored Deployment. Whatever the body,
// Patch must not panic, must answer a *StatusError with a 4xx/5xx code or a JSON object of the
// same name and kind, and must leave the stored bytes as they were.
func FuzzPatch(f *testing.F) {
	p := newPatcher(f)
	stored := created(f, p)
	for _, seed := range []struct {
		typ   uint8
		force bool
		body  string
	}{
		{0, false, `[{"op":"replace","path":"/spec/replicas","value":3}]`},
		{0, false, `[{"op":"test","path":"/metadata/name","value":"x"}]`},
		{1, false, `{"metadata":{"labels":{"a":null,"b":"c"}}}`},
		{2, false, `{"spec":{"template":{"spec":{"containers":[{"$patch":"delete","name":"c1"}]}}}}`},
		{3, true, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 4\n"},
	} {
		f.Add(seed.typ, seed.force, []byte(seed.body))
	}
	before := string(stored)
	f.Fuzz(func(t *testing.T, typ uint8, force bool, body []byte) {
		req := Request{GVK: deploymentGVK, Type: fuzzTypes[int(typ)%len(fuzzTypes)], Patch: body, FieldManager: "fuzz", Namespace: "default"}
		req.Force = force && req.Type == types.ApplyPatchType
		out, err := p.Patch(stored, req)
		if string(stored) != before {
			t.Fatal("Patch modified the stored object")
		}
		if errors.Is(err, ErrAborted) {
			return // the apiserver aborts such a request too
		}
		if err != nil {
			var se *apierrors.StatusError
			if !errors.As(err, &se) || se.ErrStatus.Code < 400 || se.ErrStatus.Code > 599 {
				t.Fatalf("error %T %v is not a 4xx/5xx StatusError", err, err)
			}
			return
		}
		var o struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatalf("result is not a JSON object: %v: %s", err, out)
		}
		if o.Kind != "Deployment" || o.Metadata.Name != "d" {
			t.Fatalf("result is %s %q, want Deployment \"d\"", o.Kind, o.Metadata.Name)
		}
	})
}

// FuzzFieldManagers applies two arbitrary configurations in turn, by the same manager, to a stored
// Deployment, through a Patcher and through one with only the apiserver's field managers: the
// answers must be the same, byte for byte but for managedFields times. The second apply is a
// re-apply (reapply) whenever the two configurations have the same fields.
func FuzzFieldManagers(f *testing.F) {
	ours, full := newPatcher(f), newPatcher(f)
	full.full = true
	stored := created(f, full)
	const d = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"%s},"spec":{%s}}`
	for _, seed := range []struct {
		first, second string
		force         bool
	}{
		{fmt.Sprintf(d, "", `"replicas":2`), fmt.Sprintf(d, "", `"replicas":3`), true},
		{fmt.Sprintf(d, `,"labels":{"x":"y"}`, `"replicas":2`), fmt.Sprintf(d, "", `"replicas":2`), false},
		{fmt.Sprintf(d, "", `"template":{"spec":{"containers":[{"name":"c1","image":"a"},{"name":"c3","image":"b"}]}}`),
			fmt.Sprintf(d, "", `"template":{"spec":{"containers":[{"name":"c1","image":"c"}]}}`), true},
		{fmt.Sprintf(d, `,"annotations":{}`, `"paused":true`), fmt.Sprintf(d, `,"annotations":{"a":"b"}`, `"paused":null`), true},
		{fmt.Sprintf(d, "", `"replicas":2},"status":{"replicas":3`), fmt.Sprintf(d, "", `"replicas":2},"status":{"replicas":4`), true},
	} {
		f.Add([]byte(seed.first), []byte(seed.second), seed.force)
	}
	apply := func(p *Patcher, cur, body []byte, force bool) ([]byte, error) {
		return p.Patch(cur, Request{GVK: deploymentGVK, Type: types.ApplyPatchType, Patch: body, FieldManager: "applier", Force: force,
			Name: "d", Namespace: "default"})
	}
	f.Fuzz(func(t *testing.T, first, second []byte, force bool) {
		cur := stored
		for _, body := range [][]byte{first, second} {
			var got, want []byte
			var gotErr, wantErr error
			for range 2 { // a write that straddles a second gets other times
				got, gotErr = apply(ours, cur, body, force)
				want, wantErr = apply(full, cur, body, force)
				if sameError(gotErr, wantErr) && withoutEntryTimes(t, got) == withoutEntryTimes(t, want) {
					break
				}
			}
			if !sameError(gotErr, wantErr) || withoutEntryTimes(t, got) != withoutEntryTimes(t, want) {
				t.Fatalf("apply %s:\n got %v %s\nwant %v %s", body, gotErr, got, wantErr, want)
			}
			if wantErr != nil {
				return
			}
			cur = want
		}
	})
}

// sameError reports whether two answers' errors are both nil or have the same code and reason:
// the field manager's message names the first of several invalid fields in map order, which
// varies from run to run.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return apierrors.ReasonForError(a) == apierrors.ReasonForError(b) && statusCode(a) == statusCode(b)
}

// statusCode is err's HTTP status code, 0 for an error that is not a StatusError.
func statusCode(err error) int32 {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se.ErrStatus.Code
	}
	return 0
}

// withoutEntryTimes is obj, a JSON object or nil, without its managedFields times.
func withoutEntryTimes(t *testing.T, obj []byte) string {
	t.Helper()
	if obj == nil {
		return ""
	}
	var o map[string]any
	if err := json.Unmarshal(obj, &o); err != nil {
		t.Fatalf("%v: %s", err, obj)
	}
	if m, ok := o["metadata"].(map[string]any); ok {
		if mf, ok := m["managedFields"].([]any); ok {
			for _, e := range mf {
				delete(e.(map[string]any), "time")
			}
		}
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
