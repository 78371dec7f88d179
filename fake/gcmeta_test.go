package fake

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestGCMetaOfObject: what the collector reads of a typed object's metadata (the load path) is
// what it reads of the same object's JSON (every other write).
func TestGCMetaOfObject(t *testing.T) {
	now := metav1.Now()
	cases := []struct {
		name string
		om   metav1.ObjectMeta
	}{
		{"bare", metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "u1"}},
		{"cluster-scoped", metav1.ObjectMeta{Name: "a", UID: "u1"}},
		{"owners", metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "u1", OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "o1", UID: "o1"}, {APIVersion: "v1", Kind: "Secret", Name: "o2"}}}},
		{"empty owners", metav1.ObjectMeta{Name: "a", UID: "u1", OwnerReferences: []metav1.OwnerReference{}}},
		{"deleting, foreground", metav1.ObjectMeta{Name: "a", UID: "u1", DeletionTimestamp: &now,
			Finalizers: []string{"x", metav1.FinalizerDeleteDependents}}},
		{"orphan", metav1.ObjectMeta{Name: "a", UID: "u1", DeletionTimestamp: &now, Finalizers: []string{metav1.FinalizerOrphanDependents}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(&corev1.ConfigMap{ObjectMeta: c.om, Data: map[string]string{"name": "not metadata"}})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := gcMetaOfObject(&c.om), gcMetaOf(b); !reflect.DeepEqual(got, want) {
				t.Errorf("gcMetaOfObject = %+v, gcMetaOf(JSON) = %+v", got, want)
			}
		})
	}
}
