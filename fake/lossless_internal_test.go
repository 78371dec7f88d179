package fake

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/internal/wire"
)

// TestLosslessJSON pins losslessJSON on each thing encoding/json loses (and on objects it keeps
// whole): true must mean that both decoders of stored JSON give the object back and that the
// protobuf answer made from it is the one made from its JSON; a loss must give false.
func TestLosslessJSON(t *testing.T) {
	now := metav1.NewTime(time.Unix(1_700_000_000, 0).Local()) // as protobuf decodes a time
	micro := metav1.NewMicroTime(time.Unix(1_700_000_000, 123_456_000).Local())
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "u", ResourceVersion: "7", CreationTimestamp: now,
			Labels: map[string]string{"app": "<web&>"}, Annotations: map[string]string{"a": "\u2028é"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "ou"}},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				Time: &now, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:k":{}}}`)}}}}
	}
	cm := func(edit func(*corev1.ConfigMap)) runtime.Object {
		o := &corev1.ConfigMap{ObjectMeta: meta(), Data: map[string]string{"k": "v"}}
		if edit != nil {
			edit(o)
		}
		return o
	}
	pod := func(edit func(*corev1.Pod)) runtime.Object {
		o := &corev1.Pod{ObjectMeta: meta(), Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80)}}}}}}}
		if edit != nil {
			edit(o)
		}
		return o
	}
	crd := func(def *apiextensionsv1.JSON) runtime.Object {
		return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: meta(), Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Schema: &apiextensionsv1.CustomResourceValidation{
				OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Default: def}}}}}}
	}
	maxSurge := intstr.FromString("25%")
	for _, c := range []struct {
		name string
		obj  runtime.Object
		// want is losslessJSON's answer; lossy says the JSON does lose something (false without
		// it: a loss losslessJSON cannot rule out, which costs a decoding).
		want, lossy bool
	}{
		{name: "configmap", obj: cm(nil), want: true},
		{name: "configmap without data", obj: cm(func(o *corev1.ConfigMap) { o.Data = nil }), want: true},
		{name: "secret with an empty value", obj: &corev1.Secret{ObjectMeta: meta(), Data: map[string][]byte{"k": {}, "n": nil}}, want: true},
		{name: "pod", obj: pod(nil), want: true},
		{name: "deployment", obj: &appsv1.Deployment{ObjectMeta: meta(), Spec: appsv1.DeploymentSpec{Replicas: new(int32),
			Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge}}}}, want: true},
		{name: "lease in microseconds", obj: &coordinationv1.Lease{ObjectMeta: meta(), Spec: coordinationv1.LeaseSpec{RenewTime: &micro}}, want: true},
		{name: "custom resource definition", obj: crd(nil), want: true},
		{name: "controller revision", obj: &appsv1.ControllerRevision{ObjectMeta: meta(), Data: runtime.RawExtension{Raw: []byte(`{"spec":{"a":1}}`)}}, want: true},

		{name: "string not UTF-8", obj: cm(func(o *corev1.ConfigMap) { o.Data["k"] = "\xff" }), lossy: true},
		{name: "key not UTF-8", obj: cm(func(o *corev1.ConfigMap) { o.Labels["\xfe"] = "v" }), lossy: true},
		{name: "empty data map", obj: cm(func(o *corev1.ConfigMap) { o.Data = map[string]string{} }), lossy: true},
		{name: "empty finalizers", obj: cm(func(o *corev1.ConfigMap) { o.Finalizers = []string{} }), lossy: true},
		{name: "empty binary data value list", obj: cm(func(o *corev1.ConfigMap) { o.BinaryData = map[string][]byte{} }), lossy: true},
		{name: "time with nanoseconds", obj: cm(func(o *corev1.ConfigMap) { o.CreationTimestamp.Time = now.Add(5) }), lossy: true},
		{name: "time in UTC", obj: cm(func(o *corev1.ConfigMap) { o.CreationTimestamp.Time = now.UTC() }), lossy: true},
		{name: "time with a monotonic reading", obj: cm(func(o *corev1.ConfigMap) { o.CreationTimestamp = metav1.Now() }), lossy: true},
		{name: "zero time pointed to", obj: cm(func(o *corev1.ConfigMap) { o.DeletionTimestamp = &metav1.Time{} }), lossy: true},
		{name: "zero time in the local zone", obj: cm(func(o *corev1.ConfigMap) { o.CreationTimestamp.Time = time.Time{}.Local() }), lossy: true},
		{name: "year 10000", obj: cm(func(o *corev1.ConfigMap) { o.CreationTimestamp.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.Local) }), lossy: true},
		{name: "fields with a space", obj: cm(func(o *corev1.ConfigMap) { o.ManagedFields[0].FieldsV1.Raw = []byte(`{"f:data": {}}`) }), lossy: true},
		{name: "fields with <", obj: cm(func(o *corev1.ConfigMap) { o.ManagedFields[0].FieldsV1.Raw = []byte(`{"f:data":{"k:<":{}}}`) }), lossy: true},
		{name: "empty fields", obj: cm(func(o *corev1.ConfigMap) { o.ManagedFields[0].FieldsV1 = &metav1.FieldsV1{} }), lossy: true},
		{name: "lease in nanoseconds", obj: &coordinationv1.Lease{ObjectMeta: meta(), Spec: coordinationv1.LeaseSpec{
			RenewTime: &metav1.MicroTime{Time: micro.Add(1)}}}, lossy: true},
		{name: "int or string with both", obj: pod(func(o *corev1.Pod) {
			o.Spec.Containers[0].ReadinessProbe.HTTPGet.Port.StrVal = "http"
		}), lossy: true},
		{name: "raw extension with a space", obj: &appsv1.ControllerRevision{ObjectMeta: meta(), Data: runtime.RawExtension{Raw: []byte(`{"a": 1}`)}}, lossy: true},
		{name: "raw extension holding an object", obj: &appsv1.ControllerRevision{ObjectMeta: meta(), Data: runtime.RawExtension{Object: &corev1.ConfigMap{}}}, lossy: true},

		// Canonicalised, or encoded by a type's own methods: not kept, though these values come back.
		{name: "quantity", obj: pod(func(o *corev1.Pod) {
			o.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		})},
		{name: "custom resource definition with a default", obj: crd(&apiextensionsv1.JSON{Raw: []byte(`{"a":1}`)})},
	} {
		t.Run(c.name, func(t *testing.T) {
			gvks, _, err := scheme.Scheme.ObjectKinds(c.obj)
			if err != nil {
				t.Fatal(err)
			}
			c.obj.GetObjectKind().SetGroupVersionKind(gvks[0])
			b, err := json.Marshal(c.obj)
			if err != nil {
				t.Fatal(err)
			}
			before := c.obj.DeepCopyObject()
			got := losslessJSON(c.obj, b)
			if !reflect.DeepEqual(c.obj, before) {
				t.Fatal("losslessJSON changed the object")
			}
			if got != c.want {
				t.Fatalf("losslessJSON = %v, want %v; json %s", got, c.want, b)
			}
			back := reflect.New(reflect.TypeOf(c.obj).Elem()).Interface()
			jerr := json.Unmarshal(b, back)
			wback, werr := wire.Decode(gvks[0], b)
			same := jerr == nil && werr == nil && reflect.DeepEqual(back, c.obj) && reflect.DeepEqual(wback, c.obj)
			if got && !same {
				t.Fatalf("kept, but decoding gives another object (%v, %v):\n got %#v\nwire %#v\nwant %#v", jerr, werr, back, wback, c.obj)
			}
			if c.lossy && same {
				t.Fatal("the case loses nothing: it tests no loss")
			}
			if got {
				want, err := wire.AppendObject(nil, gvks[0], b)
				if err != nil {
					t.Fatal(err)
				}
				answer, err := wire.AppendDecoded(nil, gvks[0], c.obj)
				if err != nil || !bytes.Equal(answer, want) {
					t.Fatalf("protobuf answer from the object differs from the JSON's (%v)", err)
				}
			}
		})
	}
}

// TestEncodingTable pins the hand-over of encodeStored's object to the commit: it goes to the
// first caller with equal bytes, once.
func TestEncodingTable(t *testing.T) {
	et := newEncodingTable()
	raw := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}}`)
	obj := &corev1.ConfigMap{}
	et.put(raw, obj)
	other := append([]byte(nil), raw...)
	other[len(other)-3] = 'd'
	if got := et.take(other); got != nil {
		t.Fatal("other bytes took the object")
	}
	if got := et.take(append([]byte(nil), raw...)); got != obj {
		t.Fatalf("take = %v, want the object put for equal bytes", got)
	}
	if got := et.take(raw); got != nil {
		t.Fatal("a second take got the object too")
	}
}

// TestLosslessChecksOfScheme builds losslessJSON's check of every type in client-go's scheme (the
// fake's built-in kinds) and runs it on a zero object and on one with every field filled in: it
// must not panic (a commit runs it), and an object it keeps must come back from its JSON.
func TestLosslessChecksOfScheme(t *testing.T) {
	kept := map[bool]int{}
	for gvk, typ := range scheme.Scheme.AllKnownTypes() {
		for _, filled := range []bool{false, true} {
			v := reflect.New(typ)
			if filled {
				fillValue(v.Elem(), 0)
			}
			obj, ok := v.Interface().(runtime.Object)
			if !ok {
				continue
			}
			b, err := json.Marshal(obj)
			if err != nil {
				continue
			}
			if losslessJSON(obj, b) {
				kept[filled]++
				back := reflect.New(typ).Interface()
				if err := json.Unmarshal(b, back); err != nil || !reflect.DeepEqual(back, obj) {
					t.Errorf("%s (filled %v): kept, but its JSON decodes to another object (%v)\n got %#v\nwant %#v", gvk, filled, err, back, obj)
				}
				if wire.HasProtobuf(gvk) {
					if w, err := wire.Decode(gvk, b); err != nil || !reflect.DeepEqual(w, obj) {
						t.Errorf("%s (filled %v): kept, but wire.Decode gives another object (%v)", gvk, filled, err)
					}
				}
			}
		}
	}
	if kept[false] == 0 || kept[true] == 0 {
		t.Fatalf("kinds kept: %d zero, %d filled; want some of each", kept[false], kept[true])
	}
	t.Logf("kinds kept: %d zero, %d filled, of %d", kept[false], kept[true], len(scheme.Scheme.AllKnownTypes()))
}

// fillValue sets every settable field of v that JSON encodes to a value that is not zero, down to
// a depth of 8: strings, numbers, one-element slices and maps, pointers; times in whole local
// seconds, raw fields a small JSON object, IntOrStrings an integer, as stored objects hold them.
func fillValue(v reflect.Value, depth int) {
	if depth > 8 || !v.CanSet() {
		return
	}
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(metav1.NewTime(time.Unix(1_700_000_000, 0).Local())))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(metav1.NewMicroTime(time.Unix(1_700_000_000, 5_000).Local())))
		return
	case fieldsV1Type:
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: []byte(`{"f:a":{}}`)}))
		return
	case rawExtType:
		v.Set(reflect.ValueOf(runtime.RawExtension{Raw: []byte(`{"a":1}`)}))
		return
	case intOrStrType:
		v.Set(reflect.ValueOf(intstr.FromInt32(1)))
		return
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse("1")))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillValue(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillValue(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fillValue(e, depth+1)
		m.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				fillValue(v.Field(i), depth+1)
			}
		}
	}
}

// TestCheckOfCached checks that the check of a type once built is found without allocating: every
// commit of a built-in kind asks for its type's.
func TestCheckOfCached(t *testing.T) {
	typ := reflect.TypeFor[corev1.ConfigMap]()
	want := checkOf(typ)
	if n := testing.AllocsPerRun(100, func() {
		if got := checkOf(typ); reflect.ValueOf(got).Pointer() != reflect.ValueOf(want).Pointer() {
			t.Fatal("another check of the same type")
		}
	}); n != 0 {
		t.Errorf("checkOf of a built check allocates %v times", n)
	}
}
