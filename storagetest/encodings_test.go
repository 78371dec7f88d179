package storagetest

import (
	"bytes"
	"context"
	"crypto/aes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/types"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/etcd3"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"

	etcdsource "github.com/watchcache/watchcache/source/etcd"
	"github.com/watchcache/watchcache/watchcache"
)

// TestEncodingsThroughApiserverStorage: pods written through the kube-apiserver's own storage
// path — its etcd3 store with the storage codec of each --storage-media-type (protobuf, the
// default; CBOR; JSON) built by k8s.io/apiserver's NewStorageCodec, and one store encrypting at
// rest with the aescbc provider (prefix "k8s:enc:aescbc:v1:key1:", the key as authenticated data,
// as an EncryptionConfiguration sets it up) — are read by source/etcd into one cache side by side:
// every object is the JSON the apiserver serves for what its store returns, the encrypted ones read
// through Options.Transform with the same transformer, and a value encrypted with a key the source
// lacks is counted as unreadable with its provider and key named.
func TestEncodingsThroughApiserverStorage(t *testing.T) {
	client := runEtcd(t, nil)
	ctx := context.Background()
	codecs := serializer.NewCodecFactory(clientscheme.Scheme, serializer.WithSerializer(cbor.NewSerializerInfo))
	gv := schema.GroupVersion{Version: "v1"}
	block, err := aes.NewCipher([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	encryption := value.NewPrefixTransformers(nil, value.PrefixTransformer{
		Prefix: []byte("k8s:enc:aescbc:v1:key1:"), Transformer: aestransformer.NewCBCTransformer(block),
	})
	otherBlock, _ := aes.NewCipher([]byte("fedcba9876543210fedcba9876543210"))
	otherKey := value.NewPrefixTransformers(nil, value.PrefixTransformer{
		Prefix: []byte("k8s:enc:aescbc:v1:key2:"), Transformer: aestransformer.NewCBCTransformer(otherBlock),
	})
	stores := []struct {
		namespace, mediaType string
		transformer          value.Transformer
	}{
		{"protobuf", runtime.ContentTypeProtobuf, identity.NewEncryptCheckTransformer()},
		{"cbor", runtime.ContentTypeCBOR, identity.NewEncryptCheckTransformer()},
		{"json", runtime.ContentTypeJSON, identity.NewEncryptCheckTransformer()},
		{"encrypted", runtime.ContentTypeProtobuf, encryption},
		{"otherkey", runtime.ContentTypeProtobuf, otherKey},
	}
	newFunc := func() runtime.Object { return &corev1.Pod{} }
	newListFunc := func() runtime.Object { return &corev1.PodList{} }
	type written struct {
		store storage.Interface
		key   string
	}
	var pods []written
	for _, st := range stores {
		codec, _, err := serverstorage.NewStorageCodec(serverstorage.StorageCodecConfig{
			StorageMediaType: st.mediaType, StorageSerializer: codecs, StorageVersion: gv, MemoryVersion: gv,
		})
		if err != nil {
			t.Fatalf("%s codec: %v", st.mediaType, err)
		}
		versioner := storage.APIObjectVersioner{}
		compactor := etcd3.NewCompactor(client.Client, 0, clock.RealClock{}, nil)
		t.Cleanup(compactor.Stop)
		s, err := etcd3.New(client, compactor, codec, newFunc, newListFunc, "/registry", "/pods/",
			schema.GroupResource{Resource: "pods"}, st.transformer, etcd3.NewDefaultLeaseManagerConfig(),
			etcd3.NewDefaultDecoder(codec, versioner), versioner)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		for i := range 3 {
			pod := testPod(st.namespace, fmt.Sprintf("pod-%d", i))
			key := "/pods/" + pod.Namespace + "/" + pod.Name
			if err := s.Create(ctx, key, pod, &corev1.Pod{}, 0); err != nil {
				t.Fatalf("%s: create: %v", st.namespace, err)
			}
			if st.namespace != "otherkey" {
				pods = append(pods, written{s, key})
			}
		}
	}
	// The stored values are what each encoding writes.
	for prefix, magic := range map[string]string{"protobuf": "k8s\x00", "cbor": "\xd9\xd9\xf7", "json": "{", "encrypted": "k8s:enc:aescbc:v1:key1:"} {
		resp, err := client.Client.Get(ctx, "/registry/pods/"+prefix+"/pod-0")
		if err != nil || len(resp.Kvs) != 1 || !bytes.HasPrefix(resp.Kvs[0].Value, []byte(magic)) {
			t.Fatalf("stored %s value: %v %q", prefix, err, resp.Kvs)
		}
	}

	src := etcdsource.New(client.Client, etcdsource.Options{
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
		Transform: func(ctx context.Context, key string, v []byte) ([]byte, error) {
			if !bytes.HasPrefix(v, []byte("k8s:enc:aescbc:v1:key1:")) {
				return v, nil
			}
			out, _, err := encryption.TransformFromStorage(ctx, v, value.DefaultContext(key))
			return out, err
		},
	})
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}, CurrentResourceVersion: src.CurrentResourceVersion})
	defer c.Stop()
	if err := src.Add("pods", c); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- src.Run(rctx) }()
	defer func() {
		cancel()
		<-done
	}()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ready() != nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	res, err := c.List(ctx, watchcache.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != len(pods) {
		t.Fatalf("%d pods in the cache, want %d", len(res.Items), len(pods))
	}
	got := map[string][]byte{}
	for _, raw := range res.Items {
		var m metav1.PartialObjectMetadata
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		got["/pods/"+m.Namespace+"/"+m.Name] = raw
	}
	for _, p := range pods {
		var pod corev1.Pod
		if err := p.store.Get(ctx, p.key, storage.GetOptions{}, &pod); err != nil {
			t.Fatal(err)
		}
		pod.APIVersion, pod.Kind = "v1", "Pod"
		want, err := json.Marshal(&pod)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[p.key], want) {
			t.Errorf("%s:\n got %s\nwant %s (the apiserver's store)", p.key, got[p.key], want)
		}
	}
	skips := src.Skips()
	const otherKeyReason = `encrypted at rest by provider "aescbc", key "key2"; read it through Options.Transform with the apiserver's EncryptionConfiguration`
	if skips[otherKeyReason] != 3 || src.Stats().Skipped != 3 {
		t.Fatalf("skips %v: want the 3 values of key2, by reason", skips)
	}
}

func testPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("u-" + name), Labels: map[string]string{"app": "web"},
			CreationTimestamp: metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "nginx",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}
