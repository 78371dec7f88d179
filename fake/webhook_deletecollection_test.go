package fake_test

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// TestConcurrentDeleteCollectionWithWebhooks: with a webhook of deletes configured, a
// deletecollection holds no lock across its items, so patches of the items and a second
// deletecollection run while it does. Each item is still deleted once, at its latest version
// (a delete whose object changed after its admission admits the new one), and a watch sees
// every event in resourceVersion order. Under -race this checks the per-item locking.
func TestConcurrentDeleteCollectionWithWebhooks(t *testing.T) {
	_, cs := allowingWebhook(t, admissionregistrationv1.Delete)
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")
	const items = 24
	var last *corev1.ConfigMap
	var err error
	for i := range items {
		if last, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i), Labels: map[string]string{"dc": "yes"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	w, err := cms.Watch(wctx, metav1.ListOptions{ResourceVersion: last.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	var wg sync.WaitGroup
	errs := make(chan error, 2+items*4)
	for range 2 {
		wg.Go(func() {
			if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "dc=yes"}); err != nil {
				errs <- fmt.Errorf("deletecollection: %w", err)
			}
		})
	}
	for i := range items {
		wg.Go(func() {
			for j := range 4 {
				patch := fmt.Sprintf(`{"data":{"k%d":"v"}}`, j)
				if _, err := cms.Patch(ctx, "cm-"+strconv.Itoa(i), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
					errs <- fmt.Errorf("patch cm-%d: %w", i, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	latest := map[string]*corev1.ConfigMap{} // each item's last version the watch saw
	deleted := map[string]bool{}
	var lastRV uint64
	for len(deleted) < items {
		ev, ok := <-w.ResultChan()
		if !ok {
			t.Fatalf("the watch ended with %d of %d items deleted", len(deleted), items)
		}
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if !ok {
			t.Fatalf("watch event %s of %T", ev.Type, ev.Object)
		}
		rv, _ := strconv.ParseUint(cm.ResourceVersion, 10, 64)
		if rv <= lastRV {
			t.Errorf("%s %s at resourceVersion %d after %d: out of order", ev.Type, cm.Name, rv, lastRV)
		}
		lastRV = rv
		if deleted[cm.Name] {
			t.Errorf("%s %s after its deletion", ev.Type, cm.Name)
		}
		switch ev.Type {
		case watch.Modified:
			latest[cm.Name] = cm
		case watch.Deleted:
			deleted[cm.Name] = true
			if prev := latest[cm.Name]; prev != nil && !maps.Equal(prev.Data, cm.Data) {
				t.Errorf("%s deleted with data %v, its latest version had %v", cm.Name, cm.Data, prev.Data)
			}
		default:
			t.Errorf("unexpected %s of %s", ev.Type, cm.Name)
		}
	}
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "dc=yes"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("%d items left after the deletecollections", len(list.Items))
	}
}
