package storagetest

import (
	"context"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/apis/example"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"

	"github.com/watchcache/watchcache/storagetest/adapter"
)

// TestReproRejectedUpdateKeepsStaleObject reproduces bug 1 of RESULTS.md (source/etcd): when the
// cache rejects the new value of a key (here: the object lost its metadata.namespace, which a
// namespaced cache refuses with ErrNamespaceMismatch), the source skips the event and only advances
// the clock, so the cache goes on serving the previous value — one etcd no longer has — even to
// consistent reads, until the key changes again. For a value it cannot decode at all (protobuf,
// encrypted) the source instead removes the object (a DELETED of the previous value); a rejected
// value should be handled the same way.
//
// It fails while the bug is there, so it runs only with STORAGETEST_REPRO=1.
func TestReproRejectedUpdateKeepsStaleObject(t *testing.T) {
	if os.Getenv("STORAGETEST_REPRO") == "" {
		t.Skip("reproduces an open source/etcd bug; run with STORAGETEST_REPRO=1")
	}
	ctx := context.Background()
	client := testserver.RunEtcd(t, nil)
	t.Cleanup(func() { _ = client.Close() })
	s, err := adapter.New(ctx, adapter.Config{
		Client: client, Codec: codec, NewFunc: newPod, NewListFunc: newPodList,
		PathPrefix: pathPrefix, ResourcePrefix: "/pods",
		GroupResource: schema.GroupResource{Resource: "pods"}, Namespaced: true,
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
