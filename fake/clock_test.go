package fake_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// TestClock: every timestamp a write makes is on Options.Now: creationTimestamp, and the
// managedFields times of creates, updates, patches and applies (which apimachinery's field
// manager would stamp with the wall clock); an entry a write does not change keeps its time.
func TestClock(t *testing.T) {
	now := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	srv := fake.NewTest(t, fake.Options{Now: clock})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	cms := cs.CoreV1().ConfigMaps("default")
	ctx := context.Background()
	check := func(step string, cm *corev1.ConfigMap, want map[string]time.Time) {
		t.Helper()
		if !cm.CreationTimestamp.Time.Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)) {
			t.Errorf("%s: creationTimestamp %v", step, cm.CreationTimestamp)
		}
		got := map[string]time.Time{}
		for _, e := range cm.ManagedFields {
			got[e.Manager+"/"+string(e.Operation)] = e.Time.Time
		}
		for k, w := range want {
			if !got[k].Equal(w) {
				t.Errorf("%s: managedFields %s at %v, want %v (all: %v)", step, k, got[k], w, got)
			}
		}
	}
	t0 := now
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{FieldManager: "creator"})
	if err != nil {
		t.Fatal(err)
	}
	check("create", cm, map[string]time.Time{"creator/Update": t0})

	now = now.Add(time.Hour)
	cm.Data["b"] = "2"
	if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "updater"}); err != nil {
		t.Fatal(err)
	}
	check("update", cm, map[string]time.Time{"creator/Update": t0, "updater/Update": now})

	now = now.Add(time.Hour)
	if cm, err = cms.Patch(ctx, "c", types.MergePatchType, []byte(`{"data":{"c":"3"}}`), metav1.PatchOptions{FieldManager: "patcher"}); err != nil {
		t.Fatal(err)
	}
	check("patch", cm, map[string]time.Time{"creator/Update": t0, "patcher/Update": now})

	now = now.Add(time.Hour)
	apply := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"d":"4"}}`)
	if cm, err = cms.Patch(ctx, "c", types.ApplyPatchType, apply, metav1.PatchOptions{FieldManager: "applier"}); err != nil {
		t.Fatal(err)
	}
	check("apply", cm, map[string]time.Time{"creator/Update": t0, "applier/Apply": now})
}

// TestClockOrdersManagedFields: managedFields entries are in the field manager's order on
// Options.Now's times (operation, then time, then manager), as the apiserver orders them on its
// own clock: entries of one second by manager name, whichever was written last; an entry written
// an hour later after one written earlier, whatever the names.
func TestClockOrdersManagedFields(t *testing.T) {
	now := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	srv := fake.NewTest(t, fake.Options{Now: func() time.Time { return now }})
	cms := kubernetes.NewForConfigOrDie(srv.Config()).CoreV1().ConfigMaps("default")
	ctx := context.Background()
	managers := func(cm *corev1.ConfigMap) []string {
		var got []string
		for _, e := range cm.ManagedFields {
			got = append(got, e.Manager)
		}
		return got
	}
	patch := func(manager, body string) *corev1.ConfigMap {
		t.Helper()
		cm, err := cms.Patch(ctx, "c", types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: manager})
		if err != nil {
			t.Fatal(err)
		}
		return cm
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"b": "1"}}, metav1.CreateOptions{FieldManager: "b"}); err != nil {
		t.Fatal(err)
	}
	patch("a", `{"data":{"a":"1"}}`)
	// "a" writes again in the same second of the clock: the order stays by name.
	if got := managers(patch("a", `{"data":{"a":"2"}}`)); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("same second: managers %q, want [a b]", got)
	}
	now = now.Add(time.Hour)
	if got := managers(patch("b", `{"data":{"b":"2"}}`)); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("b an hour later: managers %q, want [a b]", got)
	}
	now = now.Add(time.Hour)
	if got := managers(patch("a", `{"data":{"a":"3"}}`)); len(got) != 2 || got[0] != "b" || got[1] != "a" {
		t.Errorf("a an hour after b: managers %q, want [b a]", got)
	}
}
