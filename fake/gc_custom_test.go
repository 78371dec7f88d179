package fake_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestGarbageCollectorCustomResources: custom resources take part in garbage collection as the
// built-in ones do, as owners (deleting a widget collects the ConfigMap it owns) and as dependents
// (deleting a ConfigMap collects the widget it owns), as kube-controller-manager's collector,
// which follows every resource discovery lists, does.
func TestGarbageCollectorCustomResources(t *testing.T) {
	ctx := context.Background()
	_, dc := startEnvironment(t)
	cms := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	ws := dc.Resource(widgets).Namespace("default")
	create := func(r interface {
		Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error)
	}, obj map[string]any) *unstructured.Unstructured {
		t.Helper()
		out, err := r.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	ownedBy := func(o *unstructured.Unstructured) []any {
		return []any{map[string]any{"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(), "name": o.GetName(), "uid": string(o.GetUID())}}
	}
	gone := func(what string, get func() error) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for err := get(); !apierrors.IsNotFound(err); err = get() {
			if time.Now().After(deadline) {
				t.Fatalf("%s was not collected: %v", what, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	owner := create(ws, map[string]any{"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "owner"}, "spec": map[string]any{"color": "red"}})
	create(cms, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "dependent", "ownerReferences": ownedBy(owner)}})
	if err := ws.Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	gone("the ConfigMap owned by a widget", func() error { _, err := cms.Get(ctx, "dependent", metav1.GetOptions{}); return err })

	cm := create(cms, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "owner"}})
	create(ws, map[string]any{"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "dependent", "ownerReferences": ownedBy(cm)}, "spec": map[string]any{"color": "blue"}})
	if err := cms.Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	gone("the widget owned by a ConfigMap", func() error { _, err := ws.Get(ctx, "dependent", metav1.GetOptions{}); return err })
}
