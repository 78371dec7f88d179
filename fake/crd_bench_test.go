package fake_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/watchcache/watchcache/fake"
)

// BenchmarkEnvironmentCRD is the time from Environment.Start (a CRD file in CRDDirectoryPaths)
// to the CRD Established and a custom resource created through a client, plus Stop: what an
// envtest suite waits for before its first test (envtest starts etcd and kube-apiserver and
// polls until the CRD is served).
func BenchmarkEnvironmentCRD(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), widgetYAML(b), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		env := &fake.Environment{CRDDirectoryPaths: []string{dir}, ErrorIfCRDPathMissing: true}
		cfg, err := env.Start()
		if err != nil {
			b.Fatal(err)
		}
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "env.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"color": "red"}}}
		if _, err := dynamic.NewForConfigOrDie(cfg).Resource(widgets).Namespace("default").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}
