package fake_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/watchcache"
)

// BenchmarkMemoryPerObject reports the live heap per stored pod of a fake server loaded with
// 10,000 pods (its caches, the server around them and the uids and timestamps it set) and of a
// bare read cache holding the same objects' JSON: the fake's bytes/object and the cache's, and
// their ratio. Each is the heap after a GC with the server or cache, less the heap before; the
// fake's is less an empty server's.
func BenchmarkMemoryPerObject(b *testing.B) {
	const n = 10_000
	objs := make([]k8sruntime.Object, n)
	for i := range objs {
		objs[i] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Namespace: fmt.Sprintf("ns-%d", i%20), Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%50)}},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i%500), Containers: []corev1.Container{{
				Name: "main", Image: "registry.example.com/app:1.2.3", Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
			}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1"},
		}
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var fakePer, cachePer float64
	for b.Loop() {
		before := heap()
		srv, err := fake.NewServer(fake.Options{Objects: objs})
		if err != nil {
			b.Fatal(err)
		}
		withFake := heap()
		empty, err := fake.NewServer(fake.Options{})
		if err != nil {
			b.Fatal(err)
		}
		withEmpty := heap()
		fakePer = (float64(withFake-before) - float64(withEmpty-withFake)) / n
		page, err := srv.Cache(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
		if err != nil || len(page.Items) != n {
			b.Fatalf("list: %d items, %v", len(page.Items), err)
		}
		// The cache's heap includes the JSON it holds: copied after the first reading.
		before = heap()
		raw := make([][]byte, n)
		for i, it := range page.Items {
			raw[i] = append([]byte(nil), it...)
		}
		c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
		if err := c.Replace(raw, 1); err != nil {
			b.Fatal(err)
		}
		raw = nil
		cachePer = float64(heap()-before) / n
		c.Stop()
		runtime.KeepAlive(c)
		runtime.KeepAlive(page)
		srv.Close()
		empty.Close()
	}
	b.ReportMetric(fakePer, "fake-B/object")
	b.ReportMetric(cachePer, "cache-B/object")
	b.ReportMetric(fakePer/cachePer, "ratio")
}
