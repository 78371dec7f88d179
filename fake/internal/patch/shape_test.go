package patch

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// TestShapeOf checks that configurations of one shape have one field set, which is what lets
// reapply reuse a decision for a shape: pairs of Deployment configurations whose shapes shapeOf
// says are the same must convert to the same field set, and pairs that differ where a field set
// can (a field more, a list element's key, a scalar where an object was) must have other shapes.
func TestShapeOf(t *testing.T) {
	_, fm := fieldManagerOf(t, newPatcher(t), deploymentGVK)
	const d = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"%s},"spec":{%s}}`
	containers := func(c string) string {
		return `"template":{"spec":{"containers":[` + c + `]}}`
	}
	for _, c := range []struct {
		name string
		a, b string
		same bool
	}{
		{"other values", fmt.Sprintf(d, `,"labels":{"x":"y"}`, `"replicas":2,"paused":true`), fmt.Sprintf(d, `,"labels":{"x":"z"}`, `"replicas":7,"paused":false`), true},
		{"other key order", fmt.Sprintf(d, `,"labels":{"x":"y","w":"v"}`, `"replicas":2`), fmt.Sprintf(d, `,"labels":{"w":"v","x":"y"}`, `"replicas":2`), true},
		{"a field more", fmt.Sprintf(d, ``, `"replicas":2`), fmt.Sprintf(d, ``, `"replicas":2,"paused":true`), false},
		{"another field", fmt.Sprintf(d, ``, `"replicas":2`), fmt.Sprintf(d, ``, `"paused":true`), false},
		{"a label more", fmt.Sprintf(d, `,"labels":{"x":"y"}`, ``), fmt.Sprintf(d, `,"labels":{"x":"y","w":"v"}`, ``), false},
		{"another element key", fmt.Sprintf(d, ``, containers(`{"name":"a","image":"i"}`)), fmt.Sprintf(d, ``, containers(`{"name":"b","image":"i"}`)), false},
		{"another element value", fmt.Sprintf(d, ``, containers(`{"name":"a","image":"i"}`)), fmt.Sprintf(d, ``, containers(`{"name":"a","image":"j"}`)), false},
		{"an element more", fmt.Sprintf(d, ``, containers(`{"name":"a"}`)), fmt.Sprintf(d, ``, containers(`{"name":"a"},{"name":"b"}`)), false},
		{"elements swapped", fmt.Sprintf(d, ``, containers(`{"name":"a"},{"name":"b"}`)), fmt.Sprintf(d, ``, containers(`{"name":"b"},{"name":"a"}`)), false},
		{"set element", fmt.Sprintf(d, ``, `"template":{"metadata":{"finalizers":["a"]}}`), fmt.Sprintf(d, ``, `"template":{"metadata":{"finalizers":["b"]}}`), false},
		{"nested element", fmt.Sprintf(d, ``, containers(`{"name":"a","ports":[{"containerPort":80}]}`)), fmt.Sprintf(d, ``, containers(`{"name":"a","ports":[{"containerPort":81}]}`)), false},
		{"string and integer", fmt.Sprintf(d, ``, containers(`{"name":"a","ports":[{"containerPort":80,"name":"1"}]}`)), fmt.Sprintf(d, ``, containers(`{"name":"a","ports":[{"containerPort":80,"name":1}]}`)), false},
		{"scalar and object", fmt.Sprintf(d, ``, `"strategy":{"rollingUpdate":{"maxSurge":1}}`), fmt.Sprintf(d, ``, `"strategy":{"rollingUpdate":{"maxSurge":{"a":1}}}`), false},
		{"key with a colon", fmt.Sprintf(d, `,"labels":{"a:1":"b"}`, ``), fmt.Sprintf(d, `,"labels":{"a":"1:b"}`, ``), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var shapes [2]string
			var sets [2]string
			for i, body := range []string{c.a, c.b} {
				u := &unstructured.Unstructured{}
				if err := yaml.Unmarshal([]byte(body), &u.Object); err != nil {
					t.Fatal(err)
				}
				shape, ok := shapeOf(nil, u.Object)
				if !ok {
					t.Fatalf("%s: no shape", body)
				}
				shapes[i] = string(shape)
				if tv, err := fm.reapply.conv.ObjectToTyped(u); err == nil {
					set, err := tv.ToFieldSet()
					if err != nil {
						t.Fatal(err)
					}
					sets[i] = set.String()
				} else {
					sets[i] = "invalid: " + err.Error()
				}
			}
			if same := shapes[0] == shapes[1]; same != c.same {
				t.Errorf("same shape: %v, want %v\n%s\n%s", same, c.same, shapes[0], shapes[1])
			}
			if shapes[0] == shapes[1] && sets[0] != sets[1] {
				t.Errorf("one shape, two field sets:\n%s\n%s", sets[0], sets[1])
			}
		})
	}
	if _, ok := shapeOf(nil, map[string]any{"a": int32(1)}); ok {
		t.Error("an int32 has a shape")
	}
}

// TestCovered checks the decision reapply keeps: a configuration of the kept shape over a last
// set of the kept encoding skips the prune without the field set walk, and over another last set
// (one with a field the configuration no longer sets) is judged again, and does not skip it.
func TestCovered(t *testing.T) {
	p := newPatcher(t)
	_, fm := fieldManagerOf(t, p, configMapGVK)
	cfg := func(body string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(body), &u.Object); err != nil {
			t.Fatal(err)
		}
		return u
	}
	apply := func(live runtime.Object, body string) *corev1.ConfigMap {
		out, _, err := p.PatchObject(live, Request{GVK: configMapGVK, Type: types.ApplyPatchType, FieldManager: "applier", Force: true,
			Name: "c", Namespace: "default", Patch: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		return out.(*corev1.ConfigMap)
	}
	const one, two = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"%d"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"%d","b":"x"}}`
	withTwo := apply(apply(nil, fmt.Sprintf(two, 0)), fmt.Sprintf(two, 1))
	withOne := apply(withTwo, fmt.Sprintf(one, 2))
	if _, ok := fm.reapply.withoutLastSet(withOne, cfg(fmt.Sprintf(one, 3)), "applier", &conversions{}); !ok {
		t.Fatal("a re-apply does not skip the prune")
	}
	if fm.reapply.covered.p.Load() == nil {
		t.Fatal("no decision kept")
	}
	if _, ok := fm.reapply.withoutLastSet(withOne, cfg(fmt.Sprintf(one, 4)), "applier", &conversions{}); !ok {
		t.Fatal("a re-apply of the kept shape does not skip the prune")
	}
	if _, ok := fm.reapply.withoutLastSet(withTwo, cfg(fmt.Sprintf(one, 5)), "applier", &conversions{}); ok {
		t.Fatal("an apply that sets a field less skips the prune over the kept decision")
	}
}
