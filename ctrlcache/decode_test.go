package ctrlcache

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/watchcache/watchcache/internal/testdata"
)

// edgeDocs are documents on which a reflective decoder other than sigs.k8s.io/json may differ:
// names in another case, repeated keys and objects, nulls, escapes and surrogates, numbers a field
// cannot hold, values of the wrong JSON type, unknown members.
var edgeDocs = []string{
	`{"metadata":{"name":"a","labels":{"x":null}}}`,
	`{"metadata":{"name":"a","Labels":{"x":"y"}}}`,
	`{"Metadata":{"name":"a"},"SPEC":{"nodeName":"n"}}`,
	`{"metadata":{"name":"\ud800x"}}`,
	`{"metadata":{"name":"\ud83d\ude00 \u00e9\n\t\"\\\/"}}`,
	`{"metadata":{"generation":1.0}}`,
	`{"metadata":{"generation":1e2}}`,
	`{"metadata":{"generation":99999999999999999999}}`,
	`{"spec":{"priority":3000000000}}`,
	`{"spec":{"priority":-1}}`,
	`{"spec":{"containers":null}}`,
	`{"spec":{"containers":[null]}}`,
	`{"metadata":{"creationTimestamp":null,"name":"a"}}`,
	`{"metadata":{"name":"a"},"metadata":{"namespace":"b"}}`,
	`{"spec":{"nodeName":"a","nodeName":"b"}}`,
	`{"metadata":{"labels":{"a":"1"},"labels":{"b":"2"}}}`,
	`{"spec":{"overhead":{"cpu":"1m"}}}`,
	`{"spec":{"overhead":{"cpu":1}}}`,
	`{"spec":{"overhead":{"cpu":"x"}}}`,
	`{"spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}}`,
	`{"spec":{"containers":[{"resources":{"limits":{"cpu":"1.5"}}}]}}`,
	`{"status":{"podIP":null,"phase":"Running"}}`,
	`{"spec":{"activeDeadlineSeconds":null}}`,
	`{"spec":{"hostNetwork":"true"}}`,
	`{"unknown":{"deep":[1,2,{"x":[]}]},"metadata":{"name":"x"}}`,
	`{"metadata":{"managedFields":[{"manager":"x","fieldsV1":{"f:a":{}},"time":"2024-01-01T00:00:00Z"}]}}`,
	`{"metadata":{"creationTimestamp":"not a time"}}`,
	`{"metadata":{"ownerReferences":[{"controller":true,"uid":"u"}]}}`,
	`{"spec":{"securityContext":{"sysctls":[]}},"status":{"conditions":[{"type":"Ready","lastTransitionTime":"2024-01-01T00:00:00Z"}]}}`,
	`{"spec":{"nodeSelector":{}}} `,
}

// TestFastDecodeAgrees: the decode of reads gives sigs.k8s.io/json's object (reflect.DeepEqual) and
// its error, for generated pods, nodes and namespaces and for edgeDocs, into the kinds' types.
func TestFastDecodeAgrees(t *testing.T) {
	gen := testdata.New(testdata.Config{Pods: 300, Namespaces: 7, Nodes: 20, Seed: 5})
	type doc struct {
		name string
		raw  []byte
		new  func() any
	}
	var docs []doc
	for i := range 300 {
		docs = append(docs, doc{"pod", gen.Pod(i, uint64(i+1)), func() any { return &corev1.Pod{} }})
	}
	for j := range 20 {
		docs = append(docs, doc{"node", gen.Node(j, uint64(j+1)), func() any { return &corev1.Node{} }})
	}
	for k := range 7 {
		docs = append(docs, doc{"namespace", gen.Namespace(k, uint64(k+1)), func() any { return &corev1.Namespace{} }})
	}
	for _, d := range edgeDocs {
		docs = append(docs, doc{d, []byte(d), func() any { return &corev1.Pod{} }},
			doc{d, []byte(d), func() any { return &metav1.PartialObjectMetadata{} }})
	}
	docs = append(docs,
		doc{"secret", []byte(`{"data":{"a":"aGVsbG8="},"stringData":{"b":"c"},"immutable":true}`), func() any { return &corev1.Secret{} }},
		doc{"secret bad base64", []byte(`{"data":{"a":"!!"}}`), func() any { return &corev1.Secret{} }},
		doc{"deployment", []byte(`{"spec":{"replicas":3,"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},"template":{"metadata":{"creationTimestamp":null}}}}`), func() any { return &appsv1.Deployment{} }},
		doc{"crd", []byte(`{"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","default":{"a":1,"b":[1.5,"x",null]}}}}]}}`), func() any { return &apiextensionsv1.CustomResourceDefinition{} }},
	)
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			want, got := d.new(), d.new()
			wantErr := sigsjson.UnmarshalCaseSensitivePreserveInts(d.raw, want)
			gotErr := targetOf(reflect.TypeOf(got).Elem()).into(d.raw, got)
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && !strings.HasSuffix(gotErr.Error(), wantErr.Error()) {
				t.Fatalf("error %v, want sigs.k8s.io/json's %v", gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// withUntyped has a field that sigs.k8s.io/json fills with int64 for integers (jsoniter would
// store float64).
type withUntyped struct {
	Spec struct {
		Values map[string]any `json:"values"`
	} `json:"spec"`
}

// TestDecodeTarget: types with interface fields reachable without a type that decodes itself are
// decoded by sigs.k8s.io/json, and so keep integers as int64.
func TestDecodeTarget(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		fast bool
	}{
		{"pod", reflect.TypeFor[corev1.Pod](), true},
		{"deployment", reflect.TypeFor[appsv1.Deployment](), true},
		{"metadata", reflect.TypeFor[metav1.PartialObjectMetadata](), true},
		// apiextensionsv1.JSON and runtime.RawExtension decode themselves.
		{"crd", reflect.TypeFor[apiextensionsv1.CustomResourceDefinition](), true},
		{"map of any", reflect.TypeFor[withUntyped](), false},
		{"slice of any", reflect.TypeFor[struct{ X []any }](), false},
		{"unexported any", reflect.TypeFor[struct{ x any }](), true},
		{"skipped any", reflect.TypeFor[struct {
			X any `json:"-"`
		}](), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := targetOf(tt.typ).fast; got != tt.fast {
				t.Errorf("fast = %v, want %v", got, tt.fast)
			}
		})
	}
	var u withUntyped
	if err := targetOf(reflect.TypeFor[withUntyped]()).into([]byte(`{"spec":{"values":{"n":3,"f":1.5}}}`), &u); err != nil {
		t.Fatal(err)
	}
	if n, ok := u.Spec.Values["n"].(int64); !ok || n != 3 {
		t.Errorf("values.n = %#v, want int64(3)", u.Spec.Values["n"])
	}
}

// BenchmarkDecode compares a pod's decode by the reads' decoder with sigs.k8s.io/json's and with
// the DeepCopy that a read of controller-runtime's cache costs.
func BenchmarkDecode(b *testing.B) {
	gen := testdata.New(testdata.Config{Pods: 1000, Namespaces: 100, Nodes: 100, Seed: 11})
	raws := make([][]byte, 1000)
	pods := make([]*corev1.Pod, len(raws))
	for i := range raws {
		raws[i] = gen.Pod(i, uint64(1+i))
		pods[i] = &corev1.Pod{}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raws[i], pods[i]); err != nil {
			b.Fatal(err)
		}
	}
	d := targetOf(reflect.TypeFor[corev1.Pod]())
	b.Run("ctrlcache", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			var p corev1.Pod
			if err := d.into(raws[i%len(raws)], &p); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("sigs.k8s.io-json", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			var p corev1.Pod
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raws[i%len(raws)], &p); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("DeepCopy", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			runtime.KeepAlive(pods[i%len(pods)].DeepCopy())
			i++
		}
	})
}
