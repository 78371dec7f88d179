package fake_test

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/watchcache/watchcache/fake"
)

// An envtest-shaped environment with one CRD: the resource is served when Start returns, and a
// custom resource gets its schema's defaults and loses the fields the schema does not know.
func ExampleEnvironment() {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Kind: "CronTab"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"cronSpec": {Type: "string"},
							"replicas": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
						}},
					},
				}},
			}},
		},
	}
	env := &fake.Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}}
	cfg, err := env.Start()
	if err != nil {
		panic(err)
	}
	defer env.Stop()

	crontabs := schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "nightly"},
		"spec":     map[string]any{"cronSpec": "0 3 * * *", "unknown": true},
	}}
	got, err := dynamic.NewForConfigOrDie(cfg).Resource(crontabs).Namespace("default").Create(context.Background(), obj, metav1.CreateOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(got.Object["spec"])
	// Output: map[cronSpec:0 3 * * * replicas:1]
}
