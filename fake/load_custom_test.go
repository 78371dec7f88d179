package fake_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/watchcache/watchcache/fake"
)

func widgetObject(name string, spec map[string]any, extra map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "env.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name},
		"spec":     spec,
	}}
	for k, v := range extra {
		u.Object[k] = v
	}
	return u
}

// TestCustomResourcesInObjects: custom resources of Options.Objects whose kinds the CRDs define
// are stored at start, pruned, defaulted and validated as a create is, and kept as seeds are
// (uid, status); one that a create would refuse makes Start fail, naming it.
func TestCustomResourcesInObjects(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), widgetYAML(t), 0o644); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}
	tests := []struct {
		name    string
		objects []runtime.Object
		wantErr string // "" for a start that succeeds
		check   func(t *testing.T, dc *dynamic.DynamicClient)
	}{{
		name: "loaded, pruned, defaulted, seed fields kept",
		objects: []runtime.Object{cm, widgetObject("w1",
			map[string]any{"color": "red", "bogus": int64(1), "ports": []any{map[string]any{"name": "http"}}},
			map[string]any{"status": map[string]any{"replicas": int64(5)}, "top": true})},
		check: func(t *testing.T, dc *dynamic.DynamicClient) {
			ctx := context.Background()
			for _, v := range []string{"v1", "v1beta1"} {
				w, err := dc.Resource(schema.GroupVersionResource{Group: "env.example.com", Version: v, Resource: "widgets"}).
					Namespace("default").Get(ctx, "w1", metav1.GetOptions{})
				if err != nil {
					t.Fatalf("%s: %v", v, err)
				}
				for _, c := range []struct {
					path []string
					want any
				}{
					{[]string{"spec", "replicas"}, int64(1)},         // the schema's default
					{[]string{"spec", "bogus"}, nil},                 // pruned
					{[]string{"top"}, nil},                           // pruned
					{[]string{"status", "replicas"}, int64(5)},       // kept, as a seed's status
					{[]string{"metadata", "generation"}, int64(1)},   // as a create sets it
					{[]string{"metadata", "namespace"}, "default"},   // defaulted
					{[]string{"apiVersion"}, "env.example.com/" + v}, // served in each version
				} {
					got, _, _ := unstructured.NestedFieldNoCopy(w.Object, c.path...)
					if got != c.want {
						t.Errorf("%s %s = %v, want %v", v, strings.Join(c.path, "."), got, c.want)
					}
				}
				ports, _, _ := unstructured.NestedSlice(w.Object, "spec", "ports")
				if len(ports) != 1 || ports[0].(map[string]any)["port"] != int64(8080) {
					t.Errorf("%s ports %v, want the item's default port 8080", v, ports)
				}
				if w.GetUID() == "" || w.GetResourceVersion() == "" || w.GetCreationTimestamp().Time.IsZero() {
					t.Errorf("%s metadata %v: want uid, resourceVersion and creationTimestamp", v, w.Object["metadata"])
				}
			}
			list, err := dc.Resource(widgets).Namespace("default").List(ctx, metav1.ListOptions{FieldSelector: "spec.color=red"})
			if err != nil || len(list.Items) != 1 {
				t.Fatalf("field-selected list: %v, %v", list, err)
			}
		},
	}, {
		name:    "invalid",
		objects: []runtime.Object{cm, widgetObject("w1", map[string]any{"color": "pink"}, nil)},
		wantErr: `fake: Objects[1]: Widget w1: Widget.env.example.com "w1" is invalid: spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`,
	}, {
		name:    "required field missing",
		objects: []runtime.Object{widgetObject("w1", map[string]any{}, nil)},
		wantErr: `fake: Objects[0]: Widget w1: Widget.env.example.com "w1" is invalid: spec.color: Required value`,
	}, {
		name:    "no CRD defines the kind",
		objects: []runtime.Object{&unstructured.Unstructured{Object: map[string]any{"apiVersion": "other.example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}}}},
		wantErr: "fake: Objects[0]: Gadget g: no served resource of kind other.example.com/v1, Kind=Gadget",
	}, {
		name:    "twice",
		objects: []runtime.Object{widgetObject("w1", map[string]any{"color": "red"}, nil), widgetObject("w1", map[string]any{"color": "blue"}, nil)},
		wantErr: "fake: Objects[1]: Widget w1: widgets default/w1 twice",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := &fake.Environment{CRDDirectoryPaths: []string{dir}, Options: fake.Options{Objects: tc.objects}}
			cfg, err := env.Start()
			if tc.wantErr != "" {
				if err == nil {
					_ = env.Stop()
					t.Fatalf("Start succeeded, want %q", tc.wantErr)
				}
				if !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("Start: %v\nwant %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Stop() })
			tc.check(t, dynamic.NewForConfigOrDie(cfg))
		})
	}
}
