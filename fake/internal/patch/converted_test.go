package patch

import (
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// countingConverter counts the conversions of apply configurations (unstructured objects).
type countingConverter struct {
	managedfields.TypeConverter
	configurations *atomic.Int64
}

func (c countingConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if _, ok := obj.(*unstructured.Unstructured); ok {
		c.configurations.Add(1)
	}
	return c.TypeConverter.ObjectToTyped(obj, opts...)
}

// TestConverted applies ConfigMaps, forced or not, re-applying, with conflicts and without,
// through a Patcher and one with only the apiserver's field managers: the answers must be the
// same (the bare field manager's apply reuses the conversions reapply made, and a wrong reuse
// changes them), a re-apply must convert its configuration once, not twice, and no conversion
// may stay remembered after the apply.
func TestConverted(t *testing.T) {
	var count atomic.Int64
	ours, full := newPatcher(t), newPatcher(t)
	full.full = true
	tc := ours.typed
	ours.typed = sync.OnceValue(func() managedfields.TypeConverter { return countingConverter{tc(), &count} })

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", UID: "u1", ResourceVersion: "4"}, Data: map[string]string{"k": "1"}}
	created, err := full.UpdateObject(nil, cm, configMapGVK, "", "creator")
	if err != nil {
		t.Fatal(err)
	}
	cur := created.(*corev1.ConfigMap)
	steps := []struct {
		name, manager, body string
		force               bool
		conversions         int64 // of the configuration, by ours
	}{
		{"first", "applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"2","n":"1"}}`, true, 1},
		{"again", "applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"2","n":"2"}}`, false, 1},
		{"again forced", "applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"2","n":"3"}}`, true, 1},
		{"fewer", "applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"n":"4"}}`, true, 1},
		{"other manager conflicts", "other", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"n":"5"}}`, false, 1},
		{"other manager forced", "other", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"n":"5"}}`, true, 1},
		{"first conflicts", "applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"n":"6"}}`, false, 1},
		{"labels", "applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"n":"6"}}`, true, 1},
		{"labels again", "applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"c"}},"data":{"n":"7"}}`, true, 1},
	}
	for _, s := range steps {
		req := Request{GVK: configMapGVK, Type: types.ApplyPatchType, FieldManager: s.manager, Force: s.force,
			Name: "c", Namespace: "default", Patch: []byte(s.body)}
		want, _, wantErr := full.PatchObject(cur, req)
		count.Store(0)
		got, _, gotErr := ours.PatchObject(cur, req)
		if !equalWrites(got, want, gotErr, wantErr) {
			t.Fatalf("%s:\n got %v %s\nwant %v %s", s.name, gotErr, dump(got), wantErr, dump(want))
		}
		if n := count.Load(); n != s.conversions {
			t.Errorf("%s: %d conversions of the configuration, want %d", s.name, n, s.conversions)
		}
		_, fm := fieldManagerOf(t, ours, configMapGVK)
		if n := fm.reapply.converted.len(); n != 0 {
			t.Errorf("%s: %d conversions still remembered", s.name, n)
		}
		if wantErr == nil {
			cur = want.(*corev1.ConfigMap)
		}
	}
}

// TestConvertedAllocs remembers, loads and forgets the two conversions of an apply: once the
// entries have grown, none of it allocates.
func TestConvertedAllocs(t *testing.T) {
	var c converted
	cfg := &unstructured.Unstructured{Object: map[string]any{}}
	live := &corev1.ConfigMap{}
	tv := &typed.TypedValue{}
	step := func() {
		if c.remember(cfg, tv) {
			defer c.forget(cfg)
		}
		if c.remember(live, tv, typed.AllowDuplicates) {
			defer c.forget(live, typed.AllowDuplicates)
		}
		if got, ok := c.load(live, []typed.ValidationOptions{typed.AllowDuplicates}); !ok || got != tv {
			t.Fatal("the live object's conversion is not remembered")
		}
		if _, ok := c.load(live, nil); ok {
			t.Fatal("a conversion without duplicates found for one with")
		}
	}
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Errorf("%v allocations per apply, want 0", n)
	}
	if n := c.len(); n != 0 {
		t.Errorf("%d conversions still remembered", n)
	}
}
