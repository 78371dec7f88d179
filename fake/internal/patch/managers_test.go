package patch

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

var configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// injectedManagedFields is an update body whose managedFields give manager "injected" the path
// metadata.managedFields, which no field manager records but a client may write.
const injectedManagedFields = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","labels":{"app":"a"},` +
	`"managedFields":[{"manager":"creator","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},` +
	`{"manager":"injected","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:managedFields":{}},"f:spec":{"f:paused":{}}}}]},` +
	`"spec":{"replicas":4,"paused":true,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},` +
	`"spec":{"containers":[{"name":"c1","image":"nginx:1"}]}}}}`

// TestLeanFieldManager runs writes of every kind through a Patcher's field managers and through
// one that only has the apiserver's (full): the lean ones must give the same objects, the same
// managedFields (times aside: both are the clock's second; normalise) and the same errors, step after step
// on the object the previous step stored.
func TestLeanFieldManager(t *testing.T) {
	lean, full := newPatcher(t), newPatcher(t)
	full.full = true
	apply := func(manager, body string, force bool) func(*Patcher, []byte) ([]byte, error) {
		return func(p *Patcher, cur []byte) ([]byte, error) {
			return p.Patch(cur, Request{GVK: deploymentGVK, Type: types.ApplyPatchType, Patch: []byte(body), FieldManager: manager, Force: force,
				Name: "d", Namespace: "default"})
		}
	}
	patch := func(pt types.PatchType, manager, body string) func(*Patcher, []byte) ([]byte, error) {
		return func(p *Patcher, cur []byte) ([]byte, error) {
			return p.Patch(cur, Request{GVK: deploymentGVK, Type: pt, Patch: []byte(body), FieldManager: manager, Name: "d", Namespace: "default"})
		}
	}
	update := func(subresource, manager, body string) func(*Patcher, []byte) ([]byte, error) {
		return func(p *Patcher, cur []byte) ([]byte, error) {
			return p.Update(cur, []byte(body), deploymentGVK, subresource, manager)
		}
	}
	const applied = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"spec":{"template":{"spec":{"containers":[{"name":"c1","image":"nginx:%d"}]}}}}`
	lastApplied := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","annotations":{"kubectl.kubernetes.io/last-applied-configuration":` +
		`"{\"spec\":{\"replicas\":2}}"},"labels":{"app":"a"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},` +
		`"spec":{"containers":[{"name":"c1","image":"nginx:3"}]}}}}`
	steps := []struct {
		name string
		do   func(*Patcher, []byte) ([]byte, error)
	}{
		{"create", update("", "creator", deploymentJSON)},
		{"update", update("", "editor", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","labels":{"app":"a"}},`+
			`"spec":{"replicas":2,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c1","image":"nginx:1"}]}}}}`)},
		{"merge patch", patch(types.MergePatchType, "merger", `{"metadata":{"labels":{"tier":"web"}}}`)},
		{"strategic patch", patch(types.StrategicMergePatchType, "strategic", `{"spec":{"template":{"spec":{"containers":[{"name":"c1","image":"nginx:2"}]}}}}`)},
		{"json patch", patch(types.JSONPatchType, "jsonpatch", `[{"op":"replace","path":"/spec/replicas","value":3}]`)},
		{"apply conflict", apply("applier", fmt.Sprintf(applied, 3), false)},
		{"apply forced", apply("applier", fmt.Sprintf(applied, 3), true)},
		{"apply again", apply("applier", fmt.Sprintf(applied, 3), true)},
		{"apply prunes", apply("applier", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","labels":{"x":"y"}}}`, true)},
		{"apply managedFields", apply("applier", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","managedFields":[]}}`, true)},
		{"status", update("status", "kubelet", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"status":{"replicas":3}}`)},
		{"injected managedFields", update("", "editor", injectedManagedFields)},
		{"after injection", update("", "editor", deploymentJSON)},
		{"json patch resets managedFields", patch(types.JSONPatchType, "jsonpatch", `[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]`)},
		{"last applied", update("", "kubectl-client-side-apply", lastApplied)},
		{"kubectl apply conflict", apply("kubectl", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"spec":{"replicas":5}}`, false)},
		{"kubectl apply", apply("kubectl", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"spec":{"replicas":5}}`, true)},
	}
	var cur []byte
	for _, s := range steps {
		var got, want []byte
		var gotErr, wantErr error
		// Both run within the clock's second but for a step that straddles one, which a second
		// run does not.
		for range 2 {
			got, gotErr = s.do(lean, cur)
			want, wantErr = s.do(full, cur)
			if fmt.Sprint(gotErr) == fmt.Sprint(wantErr) && (wantErr != nil || normalise(t, got) == normalise(t, want)) {
				break
			}
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: error %v, the apiserver's field manager's %v", s.name, gotErr, wantErr)
		}
		if wantErr == nil && normalise(t, got) != normalise(t, want) {
			t.Fatalf("%s:\n got %s\nwant %s", s.name, got, want)
		}
		if wantErr == nil {
			cur = want
		}
	}
	if e, ok := entryOf(managersOf(t, cur), "kubectl"); !ok || e.Operation != "Apply" {
		t.Fatalf("the steps did not end with kubectl's apply: %s", cur)
	}
}

// TestLeanFieldManagerObjects is TestLeanFieldManager on decoded objects (UpdateObject, PatchObject),
// the server's way, which must leave the objects it is given as they were.
func TestLeanFieldManagerObjects(t *testing.T) {
	lean, full := newPatcher(t), newPatcher(t)
	full.full = true
	cm := func(data string, mf ...metav1.ManagedFieldsEntry) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", UID: "u1", ManagedFields: mf}, Data: map[string]string{"k": data}}
	}
	created, err := full.UpdateObject(nil, cm("1"), configMapGVK, "", "creator")
	if err != nil {
		t.Fatal(err)
	}
	live := created.(*corev1.ConfigMap)
	keep := live.DeepCopy()
	for _, p := range []*Patcher{lean, full} {
		out, err := p.UpdateObject(live, cm("2"), configMapGVK, "", "editor")
		if err != nil {
			t.Fatal(err)
		}
		applied, _, err := p.PatchObject(live, Request{GVK: configMapGVK, Type: types.ApplyPatchType, FieldManager: "applier", Force: true, Name: "c", Namespace: "default",
			Patch: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"3"}}`)})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []*corev1.ConfigMap{out.(*corev1.ConfigMap), applied.(*corev1.ConfigMap)} {
			for i := range o.ManagedFields {
				o.ManagedFields[i].Time = nil
			}
		}
		if p == lean {
			defer func(update, apply *corev1.ConfigMap) {
				if !reflect.DeepEqual(update, out) || !reflect.DeepEqual(apply, applied) {
					t.Errorf("lean: update %+v apply %+v\nfull: update %+v apply %+v", update, apply, out, applied)
				}
			}(out.(*corev1.ConfigMap), applied.(*corev1.ConfigMap))
		}
		if !reflect.DeepEqual(live, keep) {
			t.Fatalf("the live object changed: %+v", live)
		}
	}
}

// TestLeanFieldManagerPick pins why the lean field manager is not used for an object whose field
// sets name metadata.managedFields or whose fieldsV1 is not an object: on these updates it
// answers otherwise than the apiserver's. An update removes the live object's managedFields, which
// takes the path from "injected"; a fieldsV1 that is a string fails the full conversion of the
// live object, so that the field manager keeps the live managedFields. The lean conversion sees
// no managedFields in either case.
func TestLeanFieldManagerPick(t *testing.T) {
	p := newPatcher(t)
	k, fm := fieldManagerOf(t, p, deploymentGVK)
	for _, tc := range []struct{ name, live, obj string }{
		{"injected path", string(created(t, p)), injectedManagedFields},
		{"fieldsV1 a string", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","uid":"u1","managedFields":[` +
			`{"manager":"bad","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":"f:spec"}]},"spec":{"replicas":1}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","managedFields":[` +
				`{"manager":"creator","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},"spec":{"replicas":2}}`},
	} {
		live, err := p.decode(k, []byte(tc.live))
		if err != nil {
			t.Fatal(err)
		}
		updated := func(update func(live, obj runtime.Object, manager string) runtime.Object) string {
			obj, err := p.decode(k, []byte(tc.obj))
			if err != nil {
				t.Fatal(err)
			}
			out, err := p.encode(k, update(live, obj, "editor"))
			if err != nil {
				t.Fatal(err)
			}
			return normalise(t, out)
		}
		picked, fullOnly, leanOnly := updated(fm.UpdateNoErrors), updated(fm.full.UpdateNoErrors), updated(fm.lean.UpdateNoErrors)
		if picked != fullOnly {
			t.Fatalf("%s: picked:\n%s\nthe apiserver's field manager:\n%s", tc.name, picked, fullOnly)
		}
		if leanOnly == fullOnly {
			t.Fatalf("%s: the lean field manager gives the apiserver's answer here, so this case no longer shows why pick avoids it: %s", tc.name, leanOnly)
		}
	}
	checkMayName(t, "mayNameManagedFields", mayNameManagedFields, []mayNameCase{
		{"none", `{"metadata":{"name":"a"}}`, false},
		{"fields", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]}}`, false},
		{"path", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:managedFields":{}}}}]}}`, true},
		{"escaped", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:managedField\u0073":{}}}}]}}`, true},
		{"fieldsV1 a string", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":"f:data"}]}}`, true},
		{"fieldsV1 null", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1"}]}}`, true},
		{"last applied", `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"metadata\":{\"managedFields\":[]}}"}}}`, true},
		{"last applied escaped", `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"k\":\"\\u00e9\"}}"}}}`, true},
	})
}

// TestSameVersion pins when the lean field manager's convertor returns the object itself: only
// where the scheme's conversion would be a copy of it.
func TestSameVersion(t *testing.T) {
	c := sameVersion{scheme.Scheme}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
	if out, err := c.ConvertToVersion(cm, corev1.SchemeGroupVersion); err != nil || out != cm {
		t.Fatalf("same version: %p %v, want the object itself (%p)", out, err, cm)
	}
	bare := &corev1.ConfigMap{}
	out, err := c.ConvertToVersion(bare, corev1.SchemeGroupVersion)
	if err != nil || out == bare || out.GetObjectKind().GroupVersionKind() != configMapGVK {
		t.Fatalf("no type meta: %p %v, want the scheme's copy with the kind", out, err)
	}
	if _, err := c.ConvertToVersion(cm, schema.GroupVersion{Group: "apps", Version: "v1"}); err == nil {
		t.Fatal("another version: want the scheme's error")
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "labels": map[string]any{"a": "b"}, "creationTimestamp": "2020-01-02T03:04:05Z"},
		"data":     map[string]any{"k": "v"}, "binaryData": map[string]any{"b": "eA=="}}}
	want, err := scheme.Scheme.ConvertToVersion(u.DeepCopy(), corev1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []runtime.GroupVersioner{corev1.SchemeGroupVersion, schema.GroupVersion{Group: "apps", Version: "v1"}} {
		got, gotErr := c.ConvertToVersion(u, target)
		_, wantErr := scheme.Scheme.ConvertToVersion(u.DeepCopy(), target)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("unstructured to %v: error %v, the scheme's %v", target, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("unstructured: %#v, the scheme's %#v", got, want)
		}
		if gotErr == nil {
			got.(*corev1.ConfigMap).Data["k"] = "changed"
			got.(*corev1.ConfigMap).Labels["a"] = "changed"
		}
	}
	if u.Object["data"].(map[string]any)["k"] != "v" || u.GetLabels()["a"] != "b" {
		t.Fatalf("the unstructured object changed: %v", u.Object)
	}
}
