package patch

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// TestLiveNotChanged: PatchObject and UpdateObject use a live object that already says its kind
// without copying it, and leave it as it was, for every patch type, an apply with a conflict
// forced, and an update.
func TestLiveNotChanged(t *testing.T) {
	p := newPatcher(t)
	stored := created(t, p)
	decode := func() *appsv1.Deployment {
		obj, err := p.decode(kind{gvk: deploymentGVK, typed: true, new: func() runtime.Object { return &appsv1.Deployment{} }}, stored)
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*appsv1.Deployment)
	}
	cases := []struct {
		name  string
		typ   types.PatchType
		patch string
	}{
		{"json patch", types.JSONPatchType, `[{"op":"replace","path":"/spec/replicas","value":3},{"op":"add","path":"/metadata/labels/b","value":"c"}]`},
		{"merge patch", types.MergePatchType, `{"metadata":{"labels":{"app":null,"b":"c"}},"spec":{"replicas":3}}`},
		{"strategic patch", types.StrategicMergePatchType, `{"spec":{"template":{"spec":{"containers":[{"name":"c1","image":"nginx:2"},{"$patch":"delete","name":"c2"}]}}}}`},
		{"apply", types.ApplyPatchType, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"app":"b"}},"spec":{"replicas":4}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			live, want := decode(), decode()
			out, _, err := p.PatchObject(live, Request{GVK: deploymentGVK, Type: c.typ, Patch: []byte(c.patch),
				FieldManager: "patcher", Force: c.typ == types.ApplyPatchType, Name: "d", Namespace: "default"})
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(live, want) {
				t.Errorf("live changed by the patch")
			}
			if equality.Semantic.DeepEqual(out, want) {
				t.Errorf("the patch changed nothing")
			}
		})
	}
	t.Run("update", func(t *testing.T) {
		live, want := decode(), decode()
		next := decode()
		next.Spec.Replicas = new(int32)
		next.ManagedFields = nil
		if _, err := p.UpdateObject(live, next, deploymentGVK, "", "updater"); err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(live, want) {
			t.Errorf("live changed by the update")
		}
		if len(next.ManagedFields) < 2 {
			t.Errorf("managedFields of the update: %v", next.ManagedFields)
		}
	})
}
