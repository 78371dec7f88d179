package patch

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// TestBareFieldManager runs writes on decoded ConfigMaps through a Patcher and through one that
// only has the apiserver's field managers: the objects they return must be equal, field by field
// (managedFields times aside), the metadata no manager owns included, whichever of them the
// Patcher picks. The live objects carry every field of unownedFields, with creation times that
// the conversion gives back (decoded from JSON) and that it does not (time.Now's, zero).
func TestBareFieldManager(t *testing.T) {
	ours, full := newPatcher(t), newPatcher(t)
	full.full = true
	now := metav1.NewTime(time.Now())
	decoded := metav1.NewTime(now.Truncate(time.Second))
	lives := map[string]*corev1.ConfigMap{
		"decoded time": {ObjectMeta: metav1.ObjectMeta{CreationTimestamp: decoded}},
		"current time": {ObjectMeta: metav1.ObjectMeta{CreationTimestamp: now}},
		"utc time":     {ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(decoded.UTC())}},
		"no time":      {},
		"year 10000":   {ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.Local))}},
	}
	for name, cm := range lives {
		cm.Name, cm.Namespace, cm.UID, cm.ResourceVersion, cm.Generation, cm.SelfLink = "c", "default", "u1", "7", 3, "/api/v1/namespaces/default/configmaps/c"
		cm.Data = map[string]string{"k": "1"}
		created, err := full.UpdateObject(nil, cm, configMapGVK, "", "creator")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lives[name] = created.(*corev1.ConfigMap)
	}
	injected := lives["decoded time"].DeepCopy()
	injected.ManagedFields = append(injected.ManagedFields, metav1.ManagedFieldsEntry{Manager: "injected", Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:uid":{},"f:resourceVersion":{}}}`)}})
	lives["owned uid"] = injected
	lastApplied := lives["decoded time"].DeepCopy()
	lastApplied.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u1"},"data":{"k":"1"}}`}
	lives["last applied"] = lastApplied
	unnamed := lives["decoded time"].DeepCopy()
	unnamed.Name = ""
	lives["unnamed"] = unnamed

	apply := func(manager, body string, force bool) func(*Patcher, *corev1.ConfigMap) (runtime.Object, error) {
		return func(p *Patcher, live *corev1.ConfigMap) (runtime.Object, error) {
			out, _, err := p.PatchObject(live, Request{GVK: configMapGVK, Type: types.ApplyPatchType, FieldManager: manager, Force: force,
				Name: "c", Namespace: "default", Patch: []byte(body)})
			return out, err
		}
	}
	update := func(manager string, edit func(*corev1.ConfigMap)) func(*Patcher, *corev1.ConfigMap) (runtime.Object, error) {
		return func(p *Patcher, live *corev1.ConfigMap) (runtime.Object, error) {
			obj := live.DeepCopy()
			obj.ManagedFields = nil
			edit(obj)
			return p.UpdateObject(live, obj, configMapGVK, "", manager)
		}
	}
	writes := []struct {
		name string
		do   func(*Patcher, *corev1.ConfigMap) (runtime.Object, error)
	}{
		{"apply", apply("applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"2"}}`, true)},
		{"apply no change", apply("creator", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"1"}}`, false)},
		{"apply conflict", apply("applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"2"}}`, false)},
		{"kubectl apply conflict", apply("kubectl", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"2"}}`, false)},
		{"apply sets uid", apply("applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u2"},"data":{"k":"2"}}`, true)},
		{"apply sets resourceVersion", apply("applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","resourceVersion":"7"},"data":{"k":"2"}}`, true)},
		{"apply sets creationTimestamp", apply("applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","creationTimestamp":"2020-01-02T03:04:05Z"},"data":{"k":"2"}}`, true)},
		{"apply sets generation and selfLink", apply("applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","generation":9,"selfLink":"x"},"data":{"k":"2"}}`, true)},
		{"update", update("editor", func(cm *corev1.ConfigMap) { cm.Data["k"] = "2" })},
		{"update changes uid", update("editor", func(cm *corev1.ConfigMap) { cm.UID, cm.Data["k"] = "u2", "2" })},
		{"update removes metadata", update("editor", func(cm *corev1.ConfigMap) {
			cm.UID, cm.ResourceVersion, cm.Generation, cm.SelfLink, cm.CreationTimestamp = "", "", 0, "", metav1.Time{}
		})},
		{"update sets time", update("editor", func(cm *corev1.ConfigMap) { cm.CreationTimestamp = now })},
	}
	for lname, live := range lives {
		keep := live.DeepCopy()
		for _, w := range writes {
			var got, want runtime.Object
			var gotErr, wantErr error
			// Both run within the clock's second but for a write that straddles one.
			for range 2 {
				got, gotErr = w.do(ours, live)
				want, wantErr = w.do(full, live)
				if equalWrites(got, want, gotErr, wantErr) {
					break
				}
			}
			if !equalWrites(got, want, gotErr, wantErr) {
				t.Errorf("%s, %s:\n got %v %s\nwant %v %s", lname, w.name, gotErr, dump(got), wantErr, dump(want))
			}
			if !reflect.DeepEqual(live, keep) {
				t.Fatalf("%s, %s: the live object changed: %s", lname, w.name, dump(live))
			}
		}
	}
}

// TestBareFieldManagerPick pins why the bare field manager is not used where a managedFields
// entry names metadata it leaves out: an update that changes the uid takes it from the manager
// that owns it on the apiserver, which the bare conversion does not see.
func TestBareFieldManagerPick(t *testing.T) {
	_, fm := fieldManagerOf(t, newPatcher(t), configMapGVK)
	live := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", UID: "u1", ManagedFields: []metav1.ManagedFieldsEntry{{
			Manager: "injected", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:a":{}},"f:metadata":{"f:uid":{}}}`)}}}},
		Data: map[string]string{"a": "1"}}
	updated := func(update func(live, obj runtime.Object, manager string) runtime.Object) string {
		obj := live.DeepCopy()
		obj.ManagedFields, obj.UID = nil, "u2"
		out := update(live, obj, "editor").(*corev1.ConfigMap)
		for i := range out.ManagedFields {
			out.ManagedFields[i].Time = nil
		}
		return dump(out)
	}
	picked, fullOnly, bareOnly := updated(fm.UpdateNoErrors), updated(fm.full.UpdateNoErrors), updated(fm.bare.UpdateNoErrors)
	if picked != fullOnly {
		t.Fatalf("picked:\n%s\nthe apiserver's field manager:\n%s", picked, fullOnly)
	}
	if bareOnly == fullOnly {
		t.Fatalf("the bare field manager gives the apiserver's answer here, so this case no longer shows why pick avoids it: %s", bareOnly)
	}
	checkMayName(t, "mayNameUnowned", mayNameUnowned, []mayNameCase{
		{"none", `{"metadata":{"name":"a"}}`, false},
		{"fields", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]}}`, false},
		{"uid", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:uid":{}}}}]}}`, true},
		{"a label named generation", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:generation":{}}}}}]}}`, true},
		{"fieldsV1 null", `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1"}]}}`, true},
		{"last applied", `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}}}`, true},
	})
}

// fieldManagerOf returns p's kind for gvk and its field manager for the main resource.
func fieldManagerOf(t *testing.T, p *Patcher, gvk schema.GroupVersionKind) (kind, *fieldManager) {
	t.Helper()
	k, err := p.kindOf(gvk)
	if err != nil {
		t.Fatal(err)
	}
	fm, err := p.fieldManager(k, "")
	if err != nil {
		t.Fatal(err)
	}
	return k, fm
}

// mayNameCase is a ConfigMap as JSON and what a mayName function answers for it.
type mayNameCase struct {
	name string
	obj  string
	want bool
}

// checkMayName checks the answers of mayName, called name, for cases.
func checkMayName(t *testing.T, name string, mayName func(runtime.Object) bool, cases []mayNameCase) {
	t.Helper()
	for _, tc := range cases {
		var cm corev1.ConfigMap
		if err := json.Unmarshal([]byte(tc.obj), &cm); err != nil {
			t.Fatal(err)
		}
		if got := mayName(&cm); got != tc.want {
			t.Errorf("%s: %s = %v, want %v", tc.name, name, got, tc.want)
		}
	}
}

// equalWrites reports whether two writes' results are equal but for their managedFields times.
func equalWrites(got, want runtime.Object, gotErr, wantErr error) bool {
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		return false
	}
	if gotErr != nil {
		return true
	}
	return reflect.DeepEqual(withoutTimes(got), withoutTimes(want))
}

// withoutTimes returns a copy of obj without its managedFields times.
func withoutTimes(obj runtime.Object) runtime.Object {
	if obj == nil {
		return nil
	}
	obj = obj.DeepCopyObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj
	}
	mf := m.GetManagedFields()
	for i := range mf {
		mf[i].Time = nil
	}
	return obj
}

// dump is obj as JSON, with the creation time's location, which JSON leaves out.
func dump(obj runtime.Object) string {
	b, err := json.Marshal(obj)
	if err != nil {
		return err.Error()
	}
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		return string(b) + " created " + cm.CreationTimestamp.String()
	}
	return string(b)
}

// TestBareFieldManagerConcurrent creates and applies ConfigMaps from several goroutines on a new
// Patcher, whose first conversions of the kind prove its Go type (validatedTypes) while others
// convert: under -race, a data race there fails it; every result must be the apiserver's field
// manager's.
func TestBareFieldManagerConcurrent(t *testing.T) {
	ours, full := newPatcher(t), newPatcher(t)
	full.full = true
	write := func(p *Patcher, i int) (runtime.Object, error) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", UID: "u1", ResourceVersion: "1",
			CreationTimestamp: metav1.NewTime(time.Unix(1_700_000_000, 0))}, Data: map[string]string{"k": "1"}}
		live, err := p.UpdateObject(nil, cm, configMapGVK, "", "creator")
		if err != nil {
			return nil, err
		}
		out, _, err := p.PatchObject(live, Request{GVK: configMapGVK, Type: types.ApplyPatchType, FieldManager: "applier", Force: true,
			Name: "c", Namespace: "default", Patch: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"` + string(rune('a'+i%26)) + `"}}`)})
		return out, err
	}
	errs := make(chan string, 8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				got, gotErr := write(ours, g+i)
				want, wantErr := write(full, g+i)
				if !equalWrites(got, want, gotErr, wantErr) {
					errs <- fmt.Sprintf("got %v %s\nwant %v %s", gotErr, dump(got), wantErr, dump(want))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
