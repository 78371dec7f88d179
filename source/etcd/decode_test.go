package etcd

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

func TestStampRV(t *testing.T) {
	tests := []struct {
		name, value string
		rev         uint64
		want        string // "" means ErrUndecodable
	}{
		{"apiserver JSON: after uid", `{"kind":"Pod","metadata":{"name":"a","namespace":"n","uid":"u","creationTimestamp":null}}` + "\n", 42,
			`{"kind":"Pod","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"42","creationTimestamp":null}}`},
		{"struct order: before generation", `{"metadata":{"name":"a","generation":2,"labels":{"x":"y"}}}`, 3,
			`{"metadata":{"name":"a","resourceVersion":"3","generation":2,"labels":{"x":"y"}}}`},
		{"struct order: last", `{"metadata":{"name":"a","uid":"u"}}`, 3,
			`{"metadata":{"name":"a","uid":"u","resourceVersion":"3"}}`},
		{"struct order: last, spaces", `{"metadata":{"name":"a" } }`, 3,
			`{"metadata":{"name":"a","resourceVersion":"3" } }`},
		{"sorted keys (a custom resource): before uid", `{"metadata":{"creationTimestamp":"t","generation":1,"name":"a","namespace":"n","uid":"u"}}`, 5,
			`{"metadata":{"creationTimestamp":"t","generation":1,"name":"a","namespace":"n","resourceVersion":"5","uid":"u"}}`},
		{"sorted keys: last", `{"metadata":{"creationTimestamp":"t","name":"a"}}`, 5,
			`{"metadata":{"creationTimestamp":"t","name":"a","resourceVersion":"5"}}`},
		{"resourceVersion replaced", `{"metadata":{"name":"a","resourceVersion":"7"},"spec":{}}`, 9,
			`{"metadata":{"name":"a","resourceVersion":"9"},"spec":{}}`},
		{"empty metadata", `{"metadata":{}}`, 1, `{"metadata":{"resourceVersion":"1"}}`},
		{"blank metadata", `{"metadata":{ }}`, 1, `{"metadata":{"resourceVersion":"1" }}`},
		{"nested resourceVersion is not metadata's", `{"spec":{"metadata":{"resourceVersion":"3"}},"metadata":{"name":"a"}}`, 5,
			`{"spec":{"metadata":{"resourceVersion":"3"}},"metadata":{"name":"a","resourceVersion":"5"}}`},
		{"no metadata", `{"kind":"Pod"}`, 1, ""},
		{"metadata not an object", `{"metadata":"x"}`, 1, ""},
	}
	d := newDecoder(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.decode([]byte(tt.value), tt.rev)
			if tt.want == "" {
				if !errors.Is(err, ErrUndecodable) {
					t.Fatalf("decode = %q, %v; want ErrUndecodable", got, err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("decode = %s, %v\nwant     %s", got, err, tt.want)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid JSON %s", got)
			}
		})
	}
}

// TestDecodeUnreadable: values no decoder reads fail with ErrUndecodable, and values that fail the
// same way share a reason (the key of the once-per-reason warning) that says why.
func TestDecodeUnreadable(t *testing.T) {
	unknownKind := encodeProtobufUnknown(t, schema.GroupVersionKind{Group: "example.io", Version: "v1", Kind: "Widget"}, nil)
	tests := []struct {
		name, value, reason string
	}{
		{"encrypted", "k8s:enc:aescbc:v1:key1:\x01\x02", `encrypted at rest by provider "aescbc", key "key1"`},
		{"encrypted, kms", "k8s:enc:kms:v2:vault:\x0a\x0b", `encrypted at rest by provider "kms", key "vault"`},
		{"protobuf of a kind the scheme lacks", string(unknownKind), "protobuf value of example.io/v1, Kind=Widget, a kind the scheme lacks"},
		{"truncated protobuf", "k8s\x00\n\x02v1\x12\x03Pod\x1a\x09", "malformed protobuf value"},
		{"protobuf without kind", "k8s\x00\n\x02v1", "malformed protobuf value"},
		{"malformed CBOR", "\xd9\xd9\xf7\xa1", "malformed CBOR value"},
		{"empty", " \n", "empty value"},
		{"array", `[1]`, "neither JSON, protobuf nor CBOR"},
	}
	d := newDecoder(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.decode([]byte(tt.value), 1)
			if !errors.Is(err, ErrUndecodable) {
				t.Fatalf("decode = %q, %v; want ErrUndecodable", got, err)
			}
			if r := reasonOf(err); !strings.HasPrefix(r, tt.reason) {
				t.Fatalf("reason %q, want it to start with %q (err %v)", r, tt.reason, err)
			}
		})
	}
}

func TestDecodeDoesNotAlias(t *testing.T) {
	value := []byte(`{"metadata":{"name":"a","resourceVersion":"1"}}`)
	got, err := newDecoder(nil).decode(value, 1)
	if err != nil {
		t.Fatal(err)
	}
	value[2] = 'X'
	if got[2] == 'X' {
		t.Fatal("decode returned a slice of the etcd value")
	}
}

// storedObjects are objects of several built-in kinds with the fields whose encodings differ most
// between protobuf, CBOR and JSON: quantities, int-or-strings, times, bytes, maps, empty and nil
// slices, pointers.
func storedObjects() []runtime.Object {
	created := metav1.NewTime(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	meta := func(ns, name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name: name, Namespace: ns, UID: "2f0b6a4e-1c1a-4f60-9d3e-5b1f5d0e0a11", CreationTimestamp: created,
			Labels:      map[string]string{"app": "web", "tier": "front"},
			Annotations: map[string]string{"note": "ünïcode & <html>"},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1", Time: &created,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:app":{}}}}`)},
			}},
		}
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: meta("ns-1", "web-0"),
		Spec: corev1.PodSpec{
			NodeName: "node-7",
			Containers: []corev1.Container{{
				Name: "app", Image: "nginx:1.27", Args: []string{"-g", "daemon off;"},
				Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
				},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}},
			}},
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			Tolerations:                   []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](300)}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, PodIP: "10.0.0.7",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: created}},
			StartTime:  &created,
		},
	}
	deploy := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: meta("ns-1", "web"),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: pod.Spec},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr.To(intstr.FromString("25%")), MaxSurge: ptr.To(intstr.FromInt32(1)),
			}},
		},
	}
	event := &corev1.Event{
		TypeMeta:       metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta:     meta("ns-1", "web-0.18a2b3c4d5e6f708"),
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "ns-1", Name: "web-0", UID: "u", APIVersion: "v1"},
		Reason:         "Scheduled", Message: "Successfully assigned ns-1/web-0 to node-7", Type: corev1.EventTypeNormal,
		FirstTimestamp: created, LastTimestamp: created, Count: 1,
		EventTime: metav1.NewMicroTime(time.Date(2026, 11, 30, 12, 0, 0, 123456000, time.UTC)),
	}
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: meta("", "node-7"),
		Spec:       corev1.NodeSpec{PodCIDR: "10.0.7.0/24", Taints: []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{
			Capacity:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110")},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.168.0.7"}},
		},
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: meta("ns-1", "cfg"),
		Data:       map[string]string{"a.yaml": "x: 1\n", "b": ""},
		BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}},
	}
	secret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"},
		ObjectMeta: meta("ns-1", "tok"),
		Data:       map[string][]byte{"token": []byte("s3cr3t")},
		Type:       corev1.SecretTypeOpaque,
	}
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: meta("ns-1", "web"),
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}},
			Selector: map[string]string{"app": "web"},
		},
	}
	ns := &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
		ObjectMeta: meta("", "ns-1"),
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
	return []runtime.Object{pod, deploy, event, node, cm, secret, svc, ns}
}

// storageEncoders are the apiserver's storage encoders of each --storage-media-type, built from the
// serializers it uses: application/vnd.kubernetes.protobuf (the default), application/cbor and
// application/json.
func storageEncoders() map[string]runtime.Encoder {
	s := scheme.Scheme
	return map[string]runtime.Encoder{
		"protobuf": protobuf.NewSerializer(s, s),
		"cbor":     cbor.NewSerializer(s, s),
		"json":     kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{}),
	}
}

// TestDecodeEncodings: the same objects written by each of the apiserver's storage encoders
// (resourceVersion cleared, as its etcd3 store writes them) decode to the same bytes — the JSON the
// apiserver serves for them, encoding/json of the typed object with the revision set.
func TestDecodeEncodings(t *testing.T) {
	d := newDecoder(nil)
	const rev = 1234
	for _, obj := range storedObjects() {
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		served := obj.DeepCopyObject()
		mustAccessor(t, served).SetResourceVersion("1234")
		want, err := json.Marshal(served)
		if err != nil {
			t.Fatal(err)
		}
		for name, enc := range storageEncoders() {
			t.Run(kind+"/"+name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := enc.Encode(obj, &buf); err != nil {
					t.Fatal(err)
				}
				got, err := d.decode(buf.Bytes(), rev)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("decoded %s value\n got %s\nwant %s", name, got, want)
				}
			})
		}
	}
}

// TestDecodeCustomResource: a custom resource (a kind the scheme lacks) stored as CBOR or JSON
// decodes to the same bytes, keys in order as the apiserver writes unstructured content.
func TestDecodeCustomResource(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.io/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "n", "uid": "u", "creationTimestamp": "2026-11-30T12:00:00Z", "generation": int64(1)},
		"spec":     map[string]any{"size": int64(3), "ratio": 0.5, "tags": []any{"a", "b"}, "on": true},
	}}
	served := u.DeepCopy()
	served.SetResourceVersion("77")
	want, err := served.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want = bytes.TrimSpace(want)
	d := newDecoder(nil)
	for name, enc := range map[string]runtime.Encoder{
		"cbor": cbor.NewSerializer(scheme.Scheme, scheme.Scheme),
		"json": unstructured.UnstructuredJSONScheme,
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := enc.Encode(u, &buf); err != nil {
				t.Fatal(err)
			}
			got, err := d.decode(buf.Bytes(), 77)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("decoded %s value\n got %s\nwant %s", name, got, want)
			}
		})
	}
}

func mustAccessor(t testing.TB, obj runtime.Object) metav1.Object {
	t.Helper()
	m, ok := obj.(metav1.Object)
	if !ok {
		t.Fatalf("%T has no metadata", obj)
	}
	return m
}

// encodeProtobufUnknown writes a protobuf value (the "k8s\x00" prefix and a runtime.Unknown) of
// any kind, as the apiserver writes one of a type this scheme may lack.
func encodeProtobufUnknown(t testing.TB, gvk schema.GroupVersionKind, raw []byte) []byte {
	t.Helper()
	unk := runtime.Unknown{Raw: raw}
	unk.APIVersion, unk.Kind = gvk.GroupVersion().String(), gvk.Kind
	b, err := unk.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte("k8s\x00"), b...)
}
