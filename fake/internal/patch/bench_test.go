package patch

import (
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
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
		Patch: []byte(strings.Replace(deploymentJSON, `"uid":"u1","resourceVersion":"5",`, "", 1))}
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

// BenchmarkPeerClientGoApply is the same forced apply on client-go's field-managed fake tracker
// (testing.NewFieldManagedObjectTracker, what fake clientsets with apply support use), which
// keeps typed objects and so skips the JSON decode and encode that Patch does.
func BenchmarkPeerClientGoApply(b *testing.B) {
	tracker := clienttesting.NewFieldManagedObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder(), applyconfigurations.NewTypeConverter(scheme.Scheme))
	gvr := appsv1.SchemeGroupVersion.WithResource("deployments")
	var d appsv1.Deployment
	if err := json.Unmarshal([]byte(strings.Replace(deploymentJSON, `"uid":"u1","resourceVersion":"5",`, "", 1)), &d); err != nil {
		b.Fatal(err)
	}
	if err := tracker.Create(gvr, &d, "default", metav1.CreateOptions{FieldManager: "creator"}); err != nil {
		b.Fatal(err)
	}
	cfg := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: default\nspec:\n  template:\n    spec:\n      containers:\n      - name: c1\n        image: nginx:3\n"), &cfg.Object); err != nil {
		b.Fatal(err)
	}
	force := true
	opts := metav1.PatchOptions{FieldManager: "bench", Force: &force}
	b.ReportAllocs()
	for b.Loop() {
		if err := tracker.Apply(gvr, cfg.DeepCopy(), "default", opts); err != nil {
			b.Fatal(err)
		}
	}
}
