package patch

import (
	"encoding/json"
	"errors"
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
