package peers

import (
	"context"
	"fmt"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/cacher"
	"k8s.io/apiserver/pkg/storage/etcd3"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

func init() {
	// The consistency checker (beta, on by default) re-lists the whole resource from etcd every
	// 5–7.5 minutes in the background to compare digests; it is off here so that its full lists
	// do not land inside other measurements. It is not on any request path.
	if err := utilfeature.DefaultMutableFeatureGate.Set("DetectCacheInconsistency=false"); err != nil {
		panic(err)
	}
}

// Store is the apiserver's etcd3 storage for pods (k8s.io/apiserver/pkg/storage/etcd3) over the
// embedded etcd, with the JSON storage codec; its GetList is the apiserver's etcd read path:
// paged Range (limit, doubled up to 10,000 while a selector leaves the page short) pinned at the
// first page's revision, decode of every value, SelectionPredicate on the pod's attributes.
type Store struct {
	storage.Interface
	compactor interface{ Stop() }
}

// NewStore returns the etcd3 store for pods under /registry/pods/.
func NewStore(e *Etcd) (*Store, error) {
	versioner := storage.APIObjectVersioner{}
	compactor := etcd3.NewCompactor(e.Client.Client, 0, clock.RealClock{}, nil)
	s, err := etcd3.New(e.Client, compactor, StorageCodec,
		func() kruntime.Object { return &corev1.Pod{} },
		func() kruntime.Object { return &corev1.PodList{} },
		EtcdPrefix, ResourcePrefix, schema.GroupResource{Resource: "pods"},
		identity.NewEncryptCheckTransformer(), etcd3.NewDefaultLeaseManagerConfig(),
		etcd3.NewDefaultDecoder(StorageCodec, versioner), versioner)
	if err != nil {
		compactor.Stop()
		return nil, err
	}
	return &Store{Interface: s, compactor: compactor}, nil
}

// Close stops the store.
func (s *Store) Close() {
	s.Interface.(interface{ Close() }).Close()
	s.compactor.Stop()
}

// Predicate is the apiserver's pod SelectionPredicate (pkg/registry/core/pod/strategy.go
// MatchPod): the pod attributes and spec.nodeName as index field, so that lists use the cache's
// index and watches its trigger.
func Predicate(q Query) (storage.SelectionPredicate, error) {
	ls, err := labels.Parse(q.LabelSelector)
	if err != nil {
		return storage.SelectionPredicate{}, err
	}
	fs, err := fields.ParseSelector(q.FieldSelector)
	if err != nil {
		return storage.SelectionPredicate{}, err
	}
	return storage.SelectionPredicate{
		Label: ls, Field: fs, GetAttrs: PodAttrs, IndexFields: []string{"spec.nodeName"},
		Limit: q.Limit, Continue: q.Continue,
	}, nil
}

// StoreList is the apiserver's list of pods at rv ("" = quorum read) from any storage.Interface
// (the etcd3 store, or the cache delegator).
func StoreList(ctx context.Context, s storage.Interface, q Query, rv string) (*corev1.PodList, error) {
	pred, err := Predicate(q)
	if err != nil {
		return nil, err
	}
	var list corev1.PodList
	err = s.GetList(ctx, ResourcePrefix, storage.ListOptions{ResourceVersion: rv, Predicate: pred, Recursive: true}, &list)
	return &list, err
}

// PodListKeys returns "<namespace>/<name>" of each item.
func PodListKeys(l *corev1.PodList) []string {
	out := make([]string, len(l.Items))
	for i := range l.Items {
		out[i] = l.Items[i].Namespace + "/" + l.Items[i].Name
	}
	return out
}

// PodListVersions returns "<namespace>/<name>@<uid>/<generation>" of each item.
func PodListVersions(l *corev1.PodList) []string {
	out := make([]string, len(l.Items))
	for i := range l.Items {
		out[i] = fmt.Sprintf("%s/%s@%s/%d", l.Items[i].Namespace, l.Items[i].Name, l.Items[i].UID, l.Items[i].Generation)
	}
	return out
}

// Cacher is the apiserver's watch cache for pods as kube-apiserver 1.37 builds it
// (cacher.NewCacherFromConfig + cacher.NewCacheDelegator over the etcd3 store), with the pod
// registry's spec.nodeName index and watch trigger. Delegated counts the lists the delegator sent
// to etcd instead of answering from the cache.
type Cacher struct {
	Cacher    *cacher.Cacher
	Delegator *cacher.CacheDelegator
	store     *Store
	delegated atomic.Int64
}

// CacherConfig is the cacher configuration of the pod registry.
func CacherConfig(s storage.Interface) cacher.Config {
	nodeName := func(obj any) ([]string, error) { return []string{obj.(*corev1.Pod).Spec.NodeName}, nil }
	return cacher.Config{
		Storage:             s,
		Versioner:           storage.APIObjectVersioner{},
		GroupResource:       schema.GroupResource{Resource: "pods"},
		EventsHistoryWindow: cacher.DefaultEventFreshDuration,
		ResourcePrefix:      ResourcePrefix,
		KeyFunc:             func(obj kruntime.Object) (string, error) { return storage.NamespaceKeyFunc(ResourcePrefix, obj) },
		GetAttrsFunc:        PodAttrs,
		// The pod registry's trigger (pod.NodeNameTriggerFunc) and index (pod.Indexers).
		IndexerFuncs: storage.IndexerFuncs{"spec.nodeName": func(obj kruntime.Object) string {
			return obj.(*corev1.Pod).Spec.NodeName
		}},
		Indexers:    &cache.Indexers{storage.FieldIndex("spec.nodeName"): nodeName},
		NewFunc:     func() kruntime.Object { return &corev1.Pod{} },
		NewListFunc: func() kruntime.Object { return &corev1.PodList{} },
		Codec:       StorageCodec,
		Clock:       clock.RealClock{},
	}
}

// NewCacher builds the cacher over s and waits until it has loaded the whole resource.
func NewCacher(ctx context.Context, s *Store) (*Cacher, error) {
	c, err := cacher.NewCacherFromConfig(CacherConfig(s))
	if err != nil {
		return nil, err
	}
	if err := c.Wait(ctx); err != nil {
		c.Stop()
		etcd3.TestOnlyResetResourceSizeEstimator(s.Interface)
		return nil, err
	}
	out := &Cacher{Cacher: c, store: s}
	out.Delegator = cacher.NewCacheDelegator(c, &countingStore{Interface: s, n: &out.delegated})
	return out, nil
}

// Stop stops the cacher. The store can then back another cacher (the cacher registers a
// resource-size estimator on it, which only one cacher may hold).
func (c *Cacher) Stop() {
	c.Delegator.Stop()
	c.Cacher.Stop()
	etcd3.TestOnlyResetResourceSizeEstimator(c.store.Interface)
}

// Delegated returns how many lists the delegator sent to etcd so far.
func (c *Cacher) Delegated() int64 { return c.delegated.Load() }

// List runs q through the delegator, as the apiserver does: rv "0" from the cache (limit
// ignored), "" a consistent read from the cache (or etcd when the delegator decides so).
func (c *Cacher) List(ctx context.Context, q Query, rv string) (*corev1.PodList, error) {
	return StoreList(ctx, c.Delegator, q, rv)
}

// countingStore counts the lists that reach etcd through the delegator.
type countingStore struct {
	storage.Interface
	n *atomic.Int64
}

func (s *countingStore) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj kruntime.Object) error {
	s.n.Add(1)
	return s.Interface.GetList(ctx, key, opts, listObj)
}
