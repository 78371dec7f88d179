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

// TestServiceTypeChangeAllocates: an update that gives a service a type with node ports allocates
// them (the ports of other services excluded, a port it holds kept), one that makes an ExternalName
// a ClusterIP service allocates its cluster IP, and 16 services made NodePort at once never share
// a port.
func TestServiceTypeChangeAllocates(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	svcs := cs.CoreV1().Services("default")
	port := func(name string, p int32) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Port: p, Protocol: corev1.ProtocolTCP}
	}
	s, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{port("http", 80), port("https", 443)}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.Type = corev1.ServiceTypeLoadBalancer
	s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	s, err = svcs.Update(ctx, s, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held := map[int32]bool{}
	for _, p := range append(s.Spec.Ports, corev1.ServicePort{NodePort: s.Spec.HealthCheckNodePort}) {
		if p.NodePort < 30000 || p.NodePort > 32767 || held[p.NodePort] {
			t.Fatalf("ports %+v, health check %d: want distinct node ports", s.Spec.Ports, s.Spec.HealthCheckNodePort)
		}
		held[p.NodePort] = true
	}
	// The same update again keeps what it holds.
	again, err := svcs.Update(ctx, s, metav1.UpdateOptions{})
	if err != nil || again.Spec.Ports[0].NodePort != s.Spec.Ports[0].NodePort {
		t.Fatalf("update again: %v, %+v", err, again.Spec.Ports)
	}
	// Another service may not take a port a already holds.
	b, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{port("http", 80)}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Spec.Type, b.Spec.Ports[0].NodePort = corev1.ServiceTypeNodePort, s.Spec.Ports[0].NodePort
	if _, err := svcs.Update(ctx, b, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("taking a's node port: %v, want 422", err)
	}
	ext, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ext.Spec.Type, ext.Spec.ExternalName, ext.Spec.Ports = corev1.ServiceTypeClusterIP, "", []corev1.ServicePort{port("http", 80)}
	if ext, err = svcs.Update(ctx, ext, metav1.UpdateOptions{}); err != nil || ext.Spec.ClusterIP == "" || ext.Spec.ClusterIP == corev1.ClusterIPNone {
		t.Fatalf("ExternalName to ClusterIP: %v, cluster IP %q", err, ext.Spec.ClusterIP)
	}

	const n = 16
	got := make([]int32, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("c", i)},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{port("http", 80)}}}, metav1.CreateOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			c.Spec.Type = corev1.ServiceTypeNodePort
			if c, err = svcs.Update(ctx, c, metav1.UpdateOptions{}); err != nil {
				t.Error(err)
				return
			}
			got[i] = c.Spec.Ports[0].NodePort
		})
	}
	wg.Wait()
	for i, p := range got {
		if held[p] {
			t.Fatalf("c%d got node port %d twice", i, p)
		}
		held[p] = true
	}
}
