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

// TestRejectedUpdateLeavesNoStaleObject is bug 1 of RESULTS.md end to end (etcd3 store → etcd →
// source/etcd → cache → adapter): when the cache rejects the new value of a key (here the object lost
// its metadata.namespace, which a namespaced cache refuses), the previous value must leave the cache
// rather than be served on, as for a value that is not JSON. Fixed in ec5cdac (source/etcd has its
// own regression test, TestRejectedUpdateRemovesStaleObject).
func TestRejectedUpdateLeavesNoStaleObject(t *testing.T) {
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
	// The write the apiserver's suite makes in RunTestListInconsistentContinuation: same key, the
	// object without a namespace.
	updated := &example.Pod{}
	err = s.GuaranteedUpdate(ctx, key, updated, false, nil, storage.SimpleUpdate(func(runtime.Object) (runtime.Object, error) {
		return &example.Pod{ObjectMeta: metav1.ObjectMeta{Name: "foo", Labels: map[string]string{"state": "new"}}}, nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}

	got := &example.Pod{}
	err = s.Get(ctx, key, storage.GetOptions{}, got) // consistent: waits for etcd's current revision
	switch {
	case err == nil && got.ResourceVersion == created.ResourceVersion:
		t.Errorf("consistent Get of %s serves the value of revision %s, which etcd replaced at revision %s", key, got.ResourceVersion, updated.ResourceVersion)
	case err != nil && !storage.IsNotFound(err):
		t.Fatal(err)
	}
	// Want: NotFound (the cache cannot hold the new value, so the key is gone from it), as for a
	// value that is not JSON.
}
