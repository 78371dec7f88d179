package wire

import (
	"bytes"
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

var serializer = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

func pod(name string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", ResourceVersion: "12", Labels: map[string]string{"app": "web"},
			CreationTimestamp: metav1.Unix(1700000000, 0)},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

// encodeWithSerializer is apimachinery's protobuf encoding of obj, what the apiserver sends.
func encodeWithSerializer(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := serializer.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAppendObjectIsTheSerializers(t *testing.T) {
	dep := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)}}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"b": "2", "a": "1"}, BinaryData: map[string][]byte{"x": {0, 1}}}
	for _, obj := range []runtime.Object{pod("p"), dep, cm} {
		gvk := obj.GetObjectKind().GroupVersionKind()
		t.Run(gvk.Kind, func(t *testing.T) {
			got, err := AppendObject(nil, gvk, mustJSON(t, obj))
			if err != nil {
				t.Fatal(err)
			}
			if want := encodeWithSerializer(t, obj); !bytes.Equal(got, want) {
				t.Errorf("AppendObject:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestListIsTheSerializers(t *testing.T) {
	remaining := int64(3)
	for _, tc := range []struct {
		name  string
		items int
		meta  metav1.ListMeta
	}{
		{"empty", 0, metav1.ListMeta{ResourceVersion: "5"}},
		{"one", 1, metav1.ListMeta{ResourceVersion: "5"}},
		{"page", 3, metav1.ListMeta{ResourceVersion: "77", Continue: "eyJ2Ijoi", RemainingItemCount: &remaining}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: tc.meta}
			l := NewList(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "PodList")
			defer l.Release()
			for i := range tc.items {
				p := pod("p" + string(rune('a'+i)))
				if err := l.Add(mustJSON(t, p)); err != nil {
					t.Fatal(err)
				}
				p.TypeMeta = metav1.TypeMeta{}
				want.Items = append(want.Items, *p)
			}
			var got bytes.Buffer
			if _, err := l.WriteTo(&got, &tc.meta); err != nil {
				t.Fatal(err)
			}
			wantBytes := encodeWithSerializer(t, want)
			if !bytes.Equal(got.Bytes(), wantBytes) {
				t.Errorf("List:\n got %q\nwant %q", got.Bytes(), wantBytes)
			}
			if n := l.Size(&tc.meta); n != got.Len() {
				t.Errorf("Size = %d, wrote %d", n, got.Len())
			}
		})
	}
}

func TestWatchFrameIsTheStreamEncoders(t *testing.T) {
	// The apiserver's watch: each event a metav1.WatchEvent encoded by the raw (envelope-less)
	// serializer, length-delimited; the object inside encoded by the enveloping one.
	var want bytes.Buffer
	enc := streaming.NewEncoder(protobuf.LengthDelimitedFramer.NewFrameWriter(&want), protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme))
	var got []byte
	for _, ev := range []watch.EventType{watch.Added, watch.Bookmark} {
		obj := encodeWithSerializer(t, pod("p"))
		if err := enc.Encode(&metav1.WatchEvent{Type: string(ev), Object: runtime.RawExtension{Raw: obj}}); err != nil {
			t.Fatal(err)
		}
		got = AppendWatchFrame(got, string(ev), obj)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("frames:\n got %q\nwant %q", got, want.Bytes())
	}
}

func TestStatusIsTheSerializers(t *testing.T) {
	st := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: `configmaps "x" not found`, Reason: metav1.StatusReasonNotFound, Code: 404,
		Details: &metav1.StatusDetails{Name: "x", Kind: "configmaps"}}
	if got, want := Status(st), encodeWithSerializer(t, st); !bytes.Equal(got, want) {
		t.Errorf("Status:\n got %q\nwant %q", got, want)
	}
}

func TestPartialIsTheSerializers(t *testing.T) {
	p := pod("p")
	md := mustJSON(t, p.ObjectMeta)
	for _, v := range []string{"v1", "v1beta1"} {
		t.Run(v, func(t *testing.T) {
			got, err := AppendPartial(nil, v, md)
			if err != nil {
				t.Fatal(err)
			}
			one := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/" + v}, ObjectMeta: p.ObjectMeta}
			if want := encodeWithSerializer(t, one); !bytes.Equal(got, want) {
				t.Errorf("AppendPartial:\n got %q\nwant %q", got, want)
			}
			meta := metav1.ListMeta{ResourceVersion: "9"}
			gotList, err := PartialList(v, meta, [][]byte{md, md})
			if err != nil {
				t.Fatal(err)
			}
			one.TypeMeta = metav1.TypeMeta{}
			items := []metav1.PartialObjectMetadata{*one, *one}
			var list runtime.Object = &metav1.PartialObjectMetadataList{ListMeta: meta, Items: items}
			if v == "v1beta1" {
				list = &metav1beta1.PartialObjectMetadataList{ListMeta: meta, Items: items}
			}
			list.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Group: "meta.k8s.io", Version: v, Kind: "PartialObjectMetadataList"})
			if want := encodeWithSerializer(t, list); !bytes.Equal(gotList, want) {
				t.Errorf("PartialList:\n got %q\nwant %q", gotList, want)
			}
		})
	}
}
