package crdcel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/fake/crdcel"
)

// A CRD whose spec.name must start with "w-": with crdcel's validator the fake refuses a widget
// that breaks the rule with the apiserver's 422.
func Example() {
	var crdObj apiextensionsv1.CustomResourceDefinition
	spec := `{"type":"object","properties":{"name":{"type":"string","maxLength":32,"x-kubernetes-validations":[{"rule":"self.startsWith('w-')","message":"must start with w-"}]}}}`
	if err := json.Unmarshal([]byte(strings.ReplaceAll(crd(spec, plainStatus), "{g}", "example.com")), &crdObj); err != nil {
		panic(err)
	}
	srv, err := fake.NewServer(fake.Options{
		CRDs:                    []*apiextensionsv1.CustomResourceDefinition{&crdObj},
		CustomResourceValidator: crdcel.New(),
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	widgets := dynamic.NewForConfigOrDie(srv.Config()).Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"})
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "one"},
		"spec": map[string]any{"name": "one"},
	}}
	_, err = widgets.Namespace("default").Create(context.Background(), w, metav1.CreateOptions{})
	fmt.Println(err)
	// Output: Widget.example.com "one" is invalid: spec.name: Invalid value: "one": must start with w-
}
