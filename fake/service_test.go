package fake_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// TestServiceIPsConcurrently creates services at once: 16 that ask for one cluster IP (exactly one
// gets it, the others the apiserver's 422) and 16 that ask for none (each gets an IP of its own).
// A validation hook that takes its time widens the window between allocating and storing.
func TestServiceIPsConcurrently(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{Validate: func(op fake.Operation, gvr schema.GroupVersionResource, _, _ k8sruntime.Object) field.ErrorList {
		if op == fake.Create && gvr.Resource == "services" {
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	}})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const n = 16
	var won, refused atomic.Int32
	ips := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("same-", i)},
				Spec:       corev1.ServiceSpec{ClusterIP: "10.96.0.50", Ports: []corev1.ServicePort{{Port: 80}}},
			}, metav1.CreateOptions{})
			switch {
			case err == nil:
				won.Add(1)
			case apierrors.IsInvalid(err):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
		wg.Go(func() {
			svc, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("any-", i)},
				Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			ips[i] = svc.Spec.ClusterIP
		})
	}
	wg.Wait()
	if won.Load() != 1 || refused.Load() != n-1 {
		t.Errorf("%d creates got 10.96.0.50 and %d were refused; want 1 and %d", won.Load(), refused.Load(), n-1)
	}
	seen := map[string]bool{"10.96.0.50": true}
	for _, ip := range ips {
		if ip == "" || seen[ip] {
			t.Errorf("cluster IP %q allocated twice or not at all: %q", ip, ips)
		}
		seen[ip] = true
	}
}
