package crdcel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/fake/crdcel"
)

// benchSpec is a widget spec schema with three rules (a string's prefix, every item of a list, an
// object's two fields), and benchPlain the same schema without them.
const benchSpec = `{"type":"object",
 "x-kubernetes-validations":[{"rule":"!has(self.min) || !has(self.max) || self.min <= self.max","message":"min must not exceed max"}],
 "properties":{
  "name":{"type":"string","maxLength":32,"x-kubernetes-validations":[{"rule":"self.startsWith('w-')","message":"must start with w-"}]},
  "tags":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":64},"x-kubernetes-validations":[{"rule":"self.all(t, t.size() <= 5)","message":"tags must be at most 5 characters"}]},
  "min":{"type":"integer"},"max":{"type":"integer"}}}`

var benchPlain = strings.NewReplacer(
	`"x-kubernetes-validations":[{"rule":"!has(self.min) || !has(self.max) || self.min <= self.max","message":"min must not exceed max"}],`, "",
	`,"x-kubernetes-validations":[{"rule":"self.startsWith('w-')","message":"must start with w-"}]`, "",
	`,"x-kubernetes-validations":[{"rule":"self.all(t, t.size() <= 5)","message":"tags must be at most 5 characters"}]`, "",
).Replace(benchSpec)

func benchCRD(b *testing.B, spec string) *apiextensionsv1.CustomResourceDefinition {
	b.Helper()
	var out apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(strings.ReplaceAll(crd(spec, plainStatus), "{g}", "bench.example.com")), &out); err != nil {
		b.Fatal(err)
	}
	return &out
}

// BenchmarkCreate is a custom resource create through client-go's dynamic client: with the fake's
// own validation (rules not evaluated), and with crdcel's validator on the schema without rules
// and with three.
func BenchmarkCreate(b *testing.B) {
	if strings.Contains(benchPlain, "x-kubernetes-validations") {
		b.Fatal("benchPlain still has rules")
	}
	for _, bc := range []struct {
		name      string
		spec      string
		validator fake.CustomResourceValidator
	}{
		{"fake-own-validation", benchSpec, nil},
		{"crdcel-no-rules", benchPlain, crdcel.New()},
		{"crdcel-3-rules", benchSpec, crdcel.New()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := fake.NewTest(b, fake.Options{CRDs: []*apiextensionsv1.CustomResourceDefinition{benchCRD(b, bc.spec)}, CustomResourceValidator: bc.validator})
			ws := dynamic.NewForConfigOrDie(srv.Config()).Resource(schema.GroupVersionResource{Group: "bench.example.com", Version: "v1", Resource: "widgets"}).Namespace("default")
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				obj := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "bench.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": fmt.Sprintf("w%d", i)},
					"spec": map[string]any{"name": "w-x", "tags": []any{"a", "bb", "ccc"}, "min": int64(1), "max": int64(2)}}}
				i++
				if _, err := ws.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidate is crdcel's validation of one create alone, without and with the three rules.
func BenchmarkValidate(b *testing.B) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "bench.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec": map[string]any{"name": "w-x", "tags": []any{"a", "bb", "ccc"}, "min": int64(1), "max": int64(2)}}}
	for _, bc := range []struct{ name, spec string }{{"no-rules", benchPlain}, {"3-rules", benchSpec}} {
		b.Run(bc.name, func(b *testing.B) {
			crd := benchCRD(b, bc.spec)
			crd.Status.AcceptedNames = crd.Spec.Names
			v := crdcel.New().ForVersion(crd, "v1")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if errs := v.Validate(ctx, fake.CustomResourceWrite{Operation: fake.Create, Object: obj}); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
