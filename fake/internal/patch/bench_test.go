package patch

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// BenchmarkPatch measures one patch of each type on a stored two-container Deployment with
// managedFields, the work a fake server does per PATCH request before storage.
func BenchmarkPatch(b *testing.B) {
	p := newPatcher(b)
	stored := created(b, p)
	for _, bc := range []struct {
		name string
		req  Request
	}{
		{"json", Request{Type: types.JSONPatchType, Patch: []byte(`[{"op":"replace","path":"/spec/replicas","value":3}]`)}},
		{"merge", Request{Type: types.MergePatchType, Patch: []byte(`{"metadata":{"labels":{"tier":"web"}}}`)}},
		{"strategic", Request{Type: types.StrategicMergePatchType, Patch: []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"c1","image":"nginx:2"}]}}}}`)}},
		{"apply", Request{Type: types.ApplyPatchType, Patch: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n      - name: c1\n        image: nginx:3\n"), Force: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := bc.req
			req.GVK, req.FieldManager, req.Namespace = deploymentGVK, "bench", "default"
			if _, err := p.Patch(stored, req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Patch(stored, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyCreate measures apply creating a Deployment.
func BenchmarkApplyCreate(b *testing.B) {
	p := newPatcher(b)
	req := Request{GVK: deploymentGVK, Type: types.ApplyPatchType, FieldManager: "bench", Name: "d", Namespace: "default",
		Patch: []byte(deploymentJSON)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Patch(nil, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdate measures recording an update's managedFields.
func BenchmarkUpdate(b *testing.B) {
	p := newPatcher(b)
	stored := created(b, p)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Update(stored, stored, deploymentGVK, "", "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
