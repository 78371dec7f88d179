package patch

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// TestReapply runs applies and updates of a Deployment, step after step on the object the
// previous step stored, through a Patcher and through one that only has the apiserver's field
// managers: the objects must be equal field by field (managedFields times aside) and the errors
// the same. The steps re-apply the same configuration, other values, more fields, fewer (which
// prunes), configurations with empty objects and nulls, over fields other managers own, on the
// status subresource, and over duplicate list entries; reapply says which of them skip the
// prune, and the test fails if a step it expects to skip it does not.
func TestReapply(t *testing.T) {
	ours, full := newPatcher(t), newPatcher(t)
	full.full = true
	const base = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"%s},"spec":{%s}}`
	spec := func(replicas int, image string, extra string) string {
		return fmt.Sprintf(`"replicas":%d,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},`+
			`"spec":{"containers":[{"name":"c1","image":"%s","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"}]}%s]}}`, replicas, image, extra)
	}
	type step struct {
		name     string
		manager  string
		sub      string
		body     string // apply configuration, or with update set the written object
		update   bool
		force    bool
		skipsRun bool // reapply skips the prune
		// inject replaces the written object's managedFields entries of the same manager and
		// operation, or adds to them (update).
		inject []metav1.ManagedFieldsEntry
	}
	c2 := `,{"name":"c2","image":"busybox"}`
	steps := []step{
		{name: "create", manager: "creator", update: true, body: fmt.Sprintf(base, `,"uid":"u1","resourceVersion":"5","labels":{"app":"a"}`, spec(1, "nginx:0", ""))},
		{name: "first apply", manager: "applier", force: true, body: fmt.Sprintf(base, `,"labels":{"x":"y"}`, spec(2, "nginx:1", ""))},
		{name: "same again", manager: "applier", body: fmt.Sprintf(base, `,"labels":{"x":"y"}`, spec(2, "nginx:1", "")), skipsRun: true},
		{name: "other values", manager: "applier", body: fmt.Sprintf(base, `,"labels":{"x":"z"}`, spec(3, "nginx:2", "")), skipsRun: true},
		{name: "more fields", manager: "applier", body: fmt.Sprintf(base, `,"labels":{"x":"z","w":"v"}`, spec(3, "nginx:2", c2)), skipsRun: true},
		{name: "fewer fields", manager: "applier", body: fmt.Sprintf(base, ``, spec(3, "nginx:2", c2))},
		{name: "empty object", manager: "applier", body: fmt.Sprintf(base, `,"annotations":{}`, spec(3, "nginx:2", c2))},
		{name: "null", manager: "applier", body: fmt.Sprintf(base, `,"labels":null`, spec(3, "nginx:2", c2))},
		{name: "back", manager: "applier", body: fmt.Sprintf(base, `,"labels":{"x":"z"}`, spec(3, "nginx:2", c2))},
		{name: "editor takes the image", manager: "editor", update: true, body: fmt.Sprintf(base, `,"uid":"u1","labels":{"app":"a","x":"z"}`, spec(3, "nginx:9", c2))},
		{name: "conflict", manager: "applier", body: fmt.Sprintf(base, `,"labels":{"x":"z"}`, spec(3, "nginx:2", c2)), skipsRun: true},
		{name: "forced", manager: "applier", force: true, body: fmt.Sprintf(base, `,"labels":{"x":"z"}`, spec(3, "nginx:2", c2)), skipsRun: true},
		{name: "status", manager: "kubelet", sub: "status", force: true, body: fmt.Sprintf(base, ``, `"replicas":1},"status":{"replicas":3,"readyReplicas":2`)},
		{name: "status again", manager: "kubelet", sub: "status", force: true, body: fmt.Sprintf(base, ``, `"replicas":1},"status":{"replicas":4,"readyReplicas":3`), skipsRun: true},
		{name: "status fewer", manager: "kubelet", sub: "status", force: true, body: fmt.Sprintf(base, ``, `"replicas":1},"status":{"replicas":4`)},
		{name: "main applies status", manager: "applier", force: true, body: fmt.Sprintf(base, `,"labels":{"x":"z"}`, spec(3, "nginx:2", c2)+`},"status":{"replicas":7`), skipsRun: true},
		{name: "duplicates", manager: "editor", update: true, body: fmt.Sprintf(base, `,"uid":"u1","labels":{"app":"a","x":"z"}`,
			`"replicas":3,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[`+
				`{"name":"c1","image":"nginx:2","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"},{"name":"A","value":"2"}]},{"name":"c2","image":"busybox"}]}}`)},
		{name: "over duplicates", manager: "applier", force: true, body: fmt.Sprintf(base, `,"labels":{"x":"z"}`, spec(3, "nginx:3", c2)), skipsRun: true},
		{name: "other apply manager", manager: "second", force: true, body: fmt.Sprintf(base, `,"labels":{"x":"q"}`, `"replicas":5`)},
		{name: "first again", manager: "applier", force: true, body: fmt.Sprintf(base, `,"labels":{"x":"z"}`, spec(3, "nginx:3", c2)), skipsRun: true},
		{name: "second again", manager: "second", body: fmt.Sprintf(base, `,"labels":{"x":"q"}`, `"replicas":5`)},
		{name: "injected status ownership", manager: "editor", update: true,
			body: fmt.Sprintf(base, `,"uid":"u1","labels":{"app":"a","x":"q"}`, spec(5, "nginx:3", c2)+`},"status":{"replicas":4,"availableReplicas":2`),
			inject: []metav1.ManagedFieldsEntry{{Manager: "applier", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1", FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}},"f:status":{"f:availableReplicas":{}}}`)}}}},
		{name: "main applies status again", manager: "applier", force: true, body: fmt.Sprintf(base, ``, `"replicas":6},"status":{"availableReplicas":7`)},
		{name: "status owned no more", manager: "applier", force: true, body: fmt.Sprintf(base, ``, `"replicas":6},"status":{"availableReplicas":7`), skipsRun: true},
	}
	var cur *appsv1.Deployment
	for _, s := range steps {
		do := func(p *Patcher) (runtime.Object, error) {
			if s.update {
				var obj appsv1.Deployment
				if err := yaml.Unmarshal([]byte(s.body), &obj); err != nil {
					t.Fatal(err)
				}
				if cur != nil {
					obj.ManagedFields = injected(cur.ManagedFields, s.inject)
					obj.CreationTimestamp = cur.CreationTimestamp
				} else {
					obj.CreationTimestamp = metav1.NewTime(time.Now().Truncate(time.Second))
				}
				var old runtime.Object
				if cur != nil {
					old = cur
				}
				return p.UpdateObject(old, &obj, deploymentGVK, s.sub, s.manager)
			}
			out, _, err := p.PatchObject(cur, Request{GVK: deploymentGVK, Subresource: s.sub, Type: types.ApplyPatchType, FieldManager: s.manager, Force: s.force,
				Name: "d", Namespace: "default", Patch: []byte(s.body)})
			return out, err
		}
		if !s.update {
			k, fm := fieldManagerOf(t, ours, deploymentGVK)
			if s.sub != "" {
				var err error
				if fm, err = ours.fieldManager(k, s.sub); err != nil {
					t.Fatal(err)
				}
			}
			cfg := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(s.body), &cfg.Object); err != nil {
				t.Fatal(err)
			}
			if _, skips := fm.reapply.withoutLastSet(cur, cfg, s.manager, &conversions{}); skips != s.skipsRun {
				t.Errorf("%s: reapply skips the prune: %v, want %v", s.name, skips, s.skipsRun)
			}
		}
		var got, want runtime.Object
		var gotErr, wantErr error
		for range 2 {
			got, gotErr = do(ours)
			want, wantErr = do(full)
			if equalWrites(got, want, gotErr, wantErr) {
				break
			}
		}
		if !equalWrites(got, want, gotErr, wantErr) {
			t.Fatalf("%s:\n got %v %s\nwant %v %s", s.name, gotErr, dump(got), wantErr, dump(want))
		}
		if wantErr == nil {
			cur = want.(*appsv1.Deployment)
		}
	}
}

// injected returns entries with those of add in place of the entries of the same manager and
// operation, and the others of add after them.
func injected(entries, add []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	if len(add) == 0 {
		return entries
	}
	var out []metav1.ManagedFieldsEntry
	for _, e := range entries {
		replaced := false
		for _, a := range add {
			replaced = replaced || (a.Manager == e.Manager && a.Operation == e.Operation)
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return append(out, add...)
}

// TestLastSetOf checks that lastSetOf gives the set the field manager decodes from an entry,
// whether the entry records the configuration's set (the comparison of encodings) or another.
func TestLastSetOf(t *testing.T) {
	p := newPatcher(t)
	_, fm := fieldManagerOf(t, p, configMapGVK)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","labels":{"a":"b"}},"data":{"k":"v","l":"w"}}`
	out, _, err := p.PatchObject(nil, Request{GVK: configMapGVK, Type: types.ApplyPatchType, FieldManager: "applier", Name: "c", Namespace: "default", Patch: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := meta.Accessor(out)
	if err != nil || len(m.GetManagedFields()) != 1 {
		t.Fatalf("managedFields %v %v", m, err)
	}
	raw := m.GetManagedFields()[0].FieldsV1.Raw
	for _, cfg := range []string{body, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}`} {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(cfg), &u.Object); err != nil {
			t.Fatal(err)
		}
		tv, err := fm.reapply.conv.ObjectToTyped(u)
		if err != nil {
			t.Fatal(err)
		}
		applied, err := tv.ToFieldSet()
		if err != nil {
			t.Fatal(err)
		}
		want := &fieldpath.Set{}
		if err := want.FromJSON(bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		got, err := lastSetOf(raw, applied)
		if err != nil || !got.Equals(want) {
			t.Errorf("%s: lastSetOf = %v %v, want %v", cfg, got, err, want)
		}
	}
}
