package ctrlcache_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/watchcache/watchcache/ctrlcache"
	"github.com/watchcache/watchcache/fake"
)

// TestReadYourWrites: controller-runtime's client with EnableReadYourWritesConsistency over this
// cache, against the writable fake: every Get and List right after a create, an update or a delete
// through the same client sees that write. The client learns what the cache has observed from the
// resourceVersions its informer's handlers get (parsed as decimal integers) and waits for the
// write's; a Get made without waiting would often still read the old state, because the write
// reaches the cache by watch.
func TestReadYourWrites(t *testing.T) {
	env := &fake.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hc.CloseIdleConnections)
	ca, err := ctrlcache.New(cfg, cache.Options{Scheme: scheme.Scheme, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ca.Start, ca.WaitForCacheSync)
	cl, err := client.New(cfg, client.Options{HTTPClient: hc, Scheme: scheme.Scheme,
		Cache: &client.CacheOptions{Reader: ca, EnableReadYourWritesConsistency: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 20 {
		name := fmt.Sprintf("cm-%d", i)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"v": "0"}}
		if err := cl.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		got := &corev1.ConfigMap{}
		if err := cl.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
			t.Fatalf("Get right after create: %v", err)
		}
		cm.Data["v"] = "1"
		if err := cl.Update(ctx, cm); err != nil {
			t.Fatal(err)
		}
		if err := cl.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil || got.Data["v"] != "1" || got.ResourceVersion != cm.ResourceVersion {
			t.Fatalf("Get right after update: v=%q rv %s (want 1 at %s), %v", got.Data["v"], got.ResourceVersion, cm.ResourceVersion, err)
		}
		l := &corev1.ConfigMapList{}
		if err := cl.List(ctx, l, client.InNamespace("default")); err != nil || !hasName(l, name) {
			t.Fatalf("List right after update: %d items without %s, %v", len(l.Items), name, err)
		}
		if i%2 == 0 {
			if err := cl.Delete(ctx, cm); err != nil {
				t.Fatal(err)
			}
			if err := cl.List(ctx, l, client.InNamespace("default")); err != nil || hasName(l, name) {
				t.Fatalf("List right after delete: %s still listed, %v", name, err)
			}
		}
	}
}

func hasName(l *corev1.ConfigMapList, name string) bool {
	for _, it := range l.Items {
		if it.Name == name {
			return true
		}
	}
	return false
}
