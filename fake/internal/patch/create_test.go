package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"
)

// createKinds are the built-in kinds the create tests write: a spread of schemas, with fields not
// omitted when empty (RoleBinding's roleRef, a Pod's containers), quantities, times, int-or-strings
// and raw extensions.
var createKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
	{Version: "v1", Kind: "Pod"},
	{Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "PersistentVolumeClaim"},
	{Version: "v1", Kind: "LimitRange"},
	{Version: "v1", Kind: "Event"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "ControllerRevision"},
	{Group: "batch", Version: "v1", Kind: "Job"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"},
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"},
	{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"},
	{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"},
	{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"},
}

// FuzzCreateMemo creates a random object of one of createKinds, then objects made from it by
// changing scalars (near), through a Patcher and through one with only the apiserver's field
// managers: the managedFields must be the same but for their times. The Patcher answers from the
// first create the later ones of the same createShape.
func FuzzCreateMemo(f *testing.F) {
	for i := range createKinds {
		f.Add(uint8(i), []byte(fmt.Sprint("seed", i)))
		f.Add(uint8(i), bytes.Repeat([]byte{byte(i), 0x5a, 0xff, 0x01}, 64))
	}
	ours, full := newPatcher(f), newPatcher(f)
	full.full = true
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		checkCreates(t, ours, full, createKinds[int(kind)%len(createKinds)], data)
	})
}

// TestCreateMemo is FuzzCreateMemo over a few hundred objects, and fails when no object was
// answered from the memo, which would leave the comparison without the case it is for.
func TestCreateMemo(t *testing.T) {
	ours, full := newPatcher(t), newPatcher(t)
	full.full = true
	hits := 0
	for i := range 400 {
		data := fmt.Appendf(nil, "create-%d", i)
		hits += checkCreates(t, ours, full, createKinds[i%len(createKinds)], data)
	}
	if hits == 0 {
		t.Fatal("no create was answered from the memo")
	}
	t.Logf("%d creates answered from the memo", hits)
}

// TestCreateMemoZeroScalars creates, in a row, objects of one kind that differ in one scalar: the
// kind's empty object has a zero there, or none, and the field manager's answers differ.
func TestCreateMemoZeroScalars(t *testing.T) {
	hpa := func(maxReplicas int32, target string) runtime.Object {
		return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "h", Namespace: "ns"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: maxReplicas,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: target}}}
	}
	rb := func(name string) runtime.Object {
		return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "rb", Namespace: "ns"},
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name}}
	}
	cm := func(data map[string]string) runtime.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}, Data: data}
	}
	for name, objs := range map[string][]runtime.Object{
		// maxReplicas and scaleTargetRef.name are not omitted when empty: the empty object has 0
		// and "" there, so only a create that sets them owns them.
		"number zero":    {hpa(3, "d"), hpa(0, "d"), hpa(5, "d")},
		"string zero":    {hpa(3, "d"), hpa(3, ""), hpa(3, "e")},
		"atomic struct":  {rb(""), rb("r"), rb(""), rb("s")},
		"data value":     {cm(map[string]string{"k": "v"}), cm(map[string]string{"k": ""}), cm(map[string]string{"k": "w"})},
		"no data":        {cm(nil), cm(map[string]string{}), cm(map[string]string{"k": "v"})},
		"only name left": {cm(nil), &corev1.ConfigMap{}},
	} {
		t.Run(name, func(t *testing.T) {
			ours, full := newPatcher(t), newPatcher(t)
			full.full = true
			for _, obj := range objs {
				compareCreate(t, ours, full, obj)
			}
		})
	}
}

// TestCreateMemoLeavesToFieldManager creates objects that carry managedFields or kubectl's
// last-applied configuration, which the field manager reads: their answers are the field
// manager's, and none is remembered.
func TestCreateMemoLeavesToFieldManager(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	entry := metav1.ManagedFieldsEntry{Manager: createManager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:j":{}}}`)}}
	for name, meta := range map[string]metav1.ObjectMeta{
		"managedFields": {Name: "cm", Namespace: "ns", ManagedFields: []metav1.ManagedFieldsEntry{entry}},
		"last-applied":  {Name: "cm", Namespace: "ns", Annotations: map[string]string{corev1.LastAppliedConfigAnnotation: `{"data":{"k":"v"}}`}},
	} {
		t.Run(name, func(t *testing.T) {
			ours, full := newPatcher(t), newPatcher(t)
			full.full = true
			for range 2 {
				cm := &corev1.ConfigMap{ObjectMeta: *meta.DeepCopy(), Data: map[string]string{"j": "1", "k": "v"}}
				cm.SetGroupVersionKind(gvk)
				compareCreate(t, ours, full, cm)
				if remembered(t, ours, cm) {
					t.Fatal("the memo remembered a create the field manager reads more of than the object's shape")
				}
			}
		})
	}
}

// TestCreateMemoConcurrent creates ConfigMaps of a few shapes from several goroutines at once,
// more shapes than the memo keeps, for the race detector.
func TestCreateMemoConcurrent(t *testing.T) {
	ours, full := newPatcher(t), newPatcher(t)
	full.full = true
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				data := map[string]string{fmt.Sprint("k", (g+i)%(createMemoSize+2)): fmt.Sprint(i)}
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", g, "-", i), Namespace: "ns"}, Data: data}
				if err := createDiff(ours, full, cm); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// checkCreates creates, through ours and full, an object of kind gvk filled from data, then three
// objects near it (near), and compares their managedFields. It returns how many of them ours
// answered from its memo.
func checkCreates(t *testing.T, ours, full *Patcher, gvk schema.GroupVersionKind, data []byte) int {
	t.Helper()
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		t.Fatal(err)
	}
	randfill.NewFromGoFuzz(data).NilChance(.4).NumElements(0, 2).MaxDepth(12).
		Funcs(metafuzzer.Funcs(serializer.NewCodecFactory(scheme.Scheme))...).Fill(obj)
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	m.SetManagedFields(nil)
	if a := m.GetAnnotations(); a != nil {
		delete(a, corev1.LastAppliedConfigAnnotation)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if _, err := json.Marshal(obj); err != nil {
		return 0 // no JSON, no object to create (a raw extension that is not JSON)
	}
	h := fnv.New64a()
	h.Write(data)
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(len(data))))
	hits := 0
	for i, o := range []runtime.Object{obj, near(t, r, obj, changedNonZero, maxNearChanges), near(t, r, obj, zeroed, 1),
		near(t, r, obj, changed, 1), near(t, r, obj, changed, maxNearChanges)} {
		if i > 0 && remembered(t, ours, o) {
			hits++
		}
		compareCreate(t, ours, full, o)
	}
	return hits
}

// remembered reports whether ours has an answer for a create of obj by the test's manager.
func remembered(t *testing.T, ours *Patcher, obj runtime.Object) bool {
	t.Helper()
	k, err := ours.kindOf(obj.GetObjectKind().GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	fm, err := ours.fieldManager(k, "")
	if err != nil {
		t.Fatal(err)
	}
	if !fm.creates.liveOK {
		return false
	}
	b := &shapeBuffer{}
	b.enc = json.NewEncoder(&b.js)
	shape, ok := b.shapeOf(obj, fm.creates.live)
	return ok && fm.creates.lookup(createManager, shape) != nil
}

// createManager is the manager of the test's creates.
const createManager = "creator"

// compareCreate creates a copy of obj through ours and through full, and fails when createDiff
// finds a difference.
func compareCreate(t *testing.T, ours, full *Patcher, obj runtime.Object) {
	t.Helper()
	if err := createDiff(ours, full, obj); err != nil {
		t.Fatal(err)
	}
}

// createDiff creates a copy of obj through ours and through full, and says how their
// managedFields differ but for their times, or how a time is not the field manager's clock at
// the create.
func createDiff(ours, full *Patcher, obj runtime.Object) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		var err error
		if gvk, err = schemeKind(obj); err != nil {
			return err
		}
	}
	before := time.Now().UTC().Add(-time.Second)
	got, err := ours.UpdateObject(nil, obj.DeepCopyObject(), gvk, "", createManager)
	if err != nil {
		return err
	}
	want, err := full.UpdateObject(nil, obj.DeepCopyObject(), gvk, "", createManager)
	if err != nil {
		return err
	}
	after := time.Now().UTC().Add(time.Second)
	g, err := entriesOf(got)
	if err != nil {
		return err
	}
	w, err := entriesOf(want)
	if err != nil {
		return err
	}
	for _, e := range g {
		if e.Time == nil || e.Time.Time.Before(before) || e.Time.Time.After(after) || e.Time.Location() != time.UTC {
			return fmt.Errorf("entry time %v, want UTC between %v and %v", e.Time, before, after)
		}
	}
	if g, w := entriesWithoutTimes(g), entriesWithoutTimes(w); !reflect.DeepEqual(g, w) {
		js, _ := json.Marshal(obj)
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		return fmt.Errorf("create of %s:\n got %s\nwant %s", js, gj, wj)
	}
	return nil
}

// schemeKind is obj's kind as the scheme knows it.
func schemeKind(obj runtime.Object) (schema.GroupVersionKind, error) {
	kinds, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return kinds[0], nil
}

// entriesOf is obj's managedFields.
func entriesOf(obj runtime.Object) ([]metav1.ManagedFieldsEntry, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	return m.GetManagedFields(), nil
}

// entriesWithoutTimes is a copy of entries without their times.
func entriesWithoutTimes(entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	out := make([]metav1.ManagedFieldsEntry, len(entries))
	for i, e := range entries {
		e.Time = nil
		out[i] = e
	}
	return out
}

// near returns obj with up to changes of its scalars outside lists changed by change, each to a
// value that its Go type decodes.
func near(t *testing.T, r *rand.Rand, obj runtime.Object, change func(any) (any, bool), changes int) runtime.Object {
	t.Helper()
	js, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		t.Fatal(err)
	}
	var leaves []func(any) // setters of the scalars outside lists, each with its value
	var values []any
	var walk func(m map[string]any)
	walk = func(m map[string]any) {
		for k, v := range m {
			switch v := v.(type) {
			case map[string]any:
				walk(v)
			case []any, nil, bool:
			default:
				leaves = append(leaves, func(nv any) { m[k] = nv })
				values = append(values, v)
			}
		}
	}
	walk(tree)
	out := obj
	tries := 0
	for _, i := range r.Perm(len(leaves)) {
		if changes == 0 || tries == maxNearChanges {
			break
		}
		if changes > 1 && r.IntN(2) == 0 {
			continue
		}
		tries++
		nv, ok := change(values[i])
		if !ok {
			continue
		}
		leaves[i](nv)
		b, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		o, err := scheme.Scheme.New(obj.GetObjectKind().GroupVersionKind())
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, o); err != nil {
			leaves[i](values[i]) // the type does not take that value
			continue
		}
		o.GetObjectKind().SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
		out = o
		changes--
	}
	return out
}

// maxNearChanges bounds the scalars near tries to change, each a round trip of the object
// through JSON, so that a large random object costs the fuzzer milliseconds, not seconds.
const maxNearChanges = 24

// changedNonZero is changed for the scalars that are not "" or 0, whose createShape stays the
// same unless the empty object has their value.
func changedNonZero(v any) (any, bool) {
	if v == "" || v == json.Number("0") {
		return nil, false
	}
	return changed(v)
}

// zeroed returns "" for a string and 0 for a number, where the empty object of a field not
// omitted when empty has that value: the createShape changes.
func zeroed(v any) (any, bool) {
	switch v.(type) {
	case string:
		return "", v != ""
	case json.Number:
		return json.Number("0"), v != json.Number("0")
	}
	return nil, false
}

// changed returns another value of v's JSON type for a scalar v (string or json.Number): a time
// a second later, a number one more, a string with a character more (or one from nothing).
func changed(v any) (any, bool) {
	switch v := v.(type) {
	case string:
		if v == "" {
			return "a", true
		}
		if tm, err := time.Parse(time.RFC3339, v); err == nil {
			return tm.Add(time.Second).Format(time.RFC3339), true
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil { // a quantity
			return strconv.FormatInt(n+1, 10), true
		}
		return v + "a", true
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return nil, false
		}
		if n == -1 {
			n = -3
		}
		return json.Number(strconv.FormatInt(n+1, 10)), true
	}
	return nil, false
}
