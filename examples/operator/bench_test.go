package operator_test

import (
	"context"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/watchcache/watchcache/fake"
)

// environment is what a suite starts: envtest's or the fake's, with the same CRD files.
type environment interface {
	Start() (*rest.Config, error)
	Stop() error
}

// BenchmarkStartCRD measures what a suite pays before its first test: start the environment with
// the operator's CRD (config/crd), create a Widget (the CRD is usable), stop. The envtest peer runs
// a real kube-apiserver and etcd from KUBEBUILDER_ASSETS (e.g. the oracle's binaries:
// KUBEBUILDER_ASSETS=$HOME/.cache/kube-oracle/bin) and is skipped without it.
func BenchmarkStartCRD(b *testing.B) {
	peers := []struct {
		name string
		env  func() environment
	}{
		{"fake", func() environment {
			return &fake.Environment{CRDDirectoryPaths: []string{"config/crd"}, ErrorIfCRDPathMissing: true}
		}},
		{"envtest", func() environment {
			return &envtest.Environment{CRDDirectoryPaths: []string{"config/crd"}, ErrorIfCRDPathMissing: true}
		}},
	}
	for _, p := range peers {
		b.Run(p.name, func(b *testing.B) {
			if p.name == "envtest" && os.Getenv("KUBEBUILDER_ASSETS") == "" {
				b.Skip("KUBEBUILDER_ASSETS names no kube-apiserver and etcd")
			}
			for b.Loop() {
				env := p.env()
				cfg, err := env.Start()
				if err != nil {
					b.Fatal(err)
				}
				w := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "example.com/v1", "kind": "Widget",
					"metadata": map[string]any{"name": "w1", "namespace": "default"},
					"spec":     map[string]any{"image": "nginx"},
				}}
				gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
				if _, err := dynamic.NewForConfigOrDie(cfg).Resource(gvr).Namespace("default").Create(context.Background(), w, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
				if err := env.Stop(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
