package storagetest

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/apis/example"
	"k8s.io/apiserver/pkg/storage"

	"github.com/watchcache/watchcache/storagetest/adapter"
)

// TestUpdateWithoutNamespaceServedFromKey is the write of RunTestListInconsistentContinuation end
// to end (etcd3 store → etcd → source/etcd → cache → adapter): a pod rewritten under its
// namespaced key without metadata.namespace. The cache keys objects by their etcd key
// (watchcache.Event.Key), so it holds the new value under that key and a consistent Get serves it,
// as the etcd3 store does.
//
// RESULTS.md, bug 1, describes the case. Neither the previous value nor NotFound is right: the
// key holds the new value (source/etcd TestRejectedUpdateRemovesStaleObject checks that a value
// the cache cannot hold at all makes the key leave the cache).
func TestUpdateWithoutNamespaceServedFromKey(t *testing.T) {
	ctx := context.Background()
	client := runEtcd(t, nil)
	t.Cleanup(func() { _ = client.Close() })
	s, err := adapter.New(ctx, adapter.Config{
		Client: client, Codec: codec, NewFunc: newPod, NewListFunc: newPodList,
		PathPrefix: pathPrefix, ResourcePrefix: "/pods",
		GroupResource: schema.GroupResource{Resource: "pods"}, Namespaced: true,
		ConsistentGetFromCache: true, // the Get below must read the cache, not etcd
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)

	key := "/pods/ns/foo"
	created := &example.Pod{}
	if err := s.Create(ctx, key, &example.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foo"}}, created, 0); err != nil {
		t.Fatal(err)
	}
	updated := &example.Pod{}
	err = s.GuaranteedUpdate(ctx, key, updated, false, nil, storage.SimpleUpdate(func(runtime.Object) (runtime.Object, error) {
		return &example.Pod{ObjectMeta: metav1.ObjectMeta{Name: "foo", Labels: map[string]string{"state": "new"}}}, nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}

	got := &example.Pod{}
	if err := s.Get(ctx, key, storage.GetOptions{}, got); err != nil { // consistent: waits for etcd's current revision
		t.Fatalf("consistent Get of %s: %v; want the value etcd holds (revision %s)", key, err, updated.ResourceVersion)
	}
	if got.ResourceVersion != updated.ResourceVersion || got.Namespace != "" || got.Labels["state"] != "new" {
		t.Fatalf("consistent Get of %s = revision %s, namespace %q, labels %v; want revision %s, no namespace, state=new",
			key, got.ResourceVersion, got.Namespace, got.Labels, updated.ResourceVersion)
	}
	// And the namespace's list holds it: the key's namespace decides, not the object's.
	list := &example.PodList{}
	if err := s.GetList(ctx, "/pods/ns/", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].ResourceVersion != updated.ResourceVersion {
		t.Fatalf("list of /pods/ns/ = %d items %v, want the updated pod", len(list.Items), list.Items)
	}
}
