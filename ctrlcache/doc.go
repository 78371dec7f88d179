// Package ctrlcache is a controller-runtime cache.Cache backed by watch caches: one line in a
// manager's options adopts it,
//
//	mgr, err := manager.New(cfg, manager.Options{NewCache: ctrlcache.New})
//
// and every Get, List, informer and event handler of the manager's controllers reads from
// watchcache.Cache instances fed per GroupVersionKind from the API server through source/kube —
// raw JSON end to end, synced by a watch-list where the server serves one (Config.NoWatchList
// turns it off), started lazily per type as controller-runtime's informer cache starts its
// informers. Objects are kept as the bytes the server sent (half the memory of a decoded object)
// and decoded when a caller asks: per Get, per item of a List, and once per event for an informer's
// handlers and Go indexers, which share the decoded object.
//
// What that trades, measured beside controller-runtime's cache on 100,000 pods (BENCHMARKS.md):
//
//   - A read decodes where controller-runtime's deep-copies. Typed objects are decoded with
//     jsoniter, in about the time of a pod's DeepCopy (sigs.k8s.io/json, the apiserver's decoder,
//     takes ≈5× that), and in place: into Get's object and into List's items, with no object of
//     the cache's own to copy from. Whatever jsoniter refuses, and every type with interface
//     fields, is decoded by sigs.k8s.io/json, so results and errors are always its. Nothing
//     decoded is cached: memory stays the JSON's, and every read returns the caller's own object.
//   - The objects of a list (the first sync, a re-list) are packed into shared 256 KiB blocks
//     rather than an allocation each, which the allocator would round up to its size class (8% of
//     a pod's JSON). A block is freed only when the last of its objects is replaced or deleted:
//     after churn that spares one listed object per block, the cache holds up to the list's bytes
//     again, until its next re-list. Config.NoPackLists turns it off.
//
// What it does that controller-runtime's cache refuses (internal/cache_reader.go):
//
//   - List with Limit and Continue: key-ordered pages at a consistent snapshot, continue tokens in
//     the apiserver's format.
//   - Field selectors with =, == and != on any field the apiserver supports for the type, on any
//     field registered with IndexJSONPath, or on any field indexed with IndexField.
//   - IndexJSONPath: an index on a gjson path of the stored JSON, which costs no decode at all.
//     IndexField with any Go function works too; its cost is a decode of the object per event
//     (shared with the informer's handlers) and the function's own.
//   - IndexLabel: an index on a label key, so that a label selector on it reads the key's index
//     instead of scanning the kind (controller-runtime's cache filters every object of the
//     namespace by labels).
//   - Reads keep answering from the last complete state while a source re-lists after a 410.
//
// resourceVersions are the server's decimal integers, and a read of the cache sees every event an
// informer's handler has been given, so controller-runtime's read-your-writes client
// (client.CacheOptions.EnableReadYourWritesConsistency) works over this cache as over its own.
//
// cache.Options are honoured: ByObject (namespaces, label and field selectors, Transform,
// UnsafeDisableDeepCopy), DefaultNamespaces, DefaultLabelSelector, DefaultFieldSelector,
// DefaultTransform, ReaderFailOnMissingInformer, SyncPeriod (the handlers' resync period).
// Selectors of ByObject and the defaults are sent to the server, as controller-runtime does.
// UnsafeDisableDeepCopy has nothing to disable: every object a read returns is decoded for it.
// Transforms run on the decoded objects of reads and events; field selectors and JSON-path
// indexes read the stored bytes (before the transform). Config.StripManagedFields strips
// metadata.managedFields from the stored bytes, which is what cache.TransformStripManagedFields
// achieves, without a decode.
//
// Several namespaces (DefaultNamespaces or ByObject.Namespaces with more than one) give one feed
// per namespace, as controller-runtime's multi-namespace cache does; a List across them with a
// Limit that would need a continue token is refused (ErrLimitAcrossNamespaces) rather than cut.
package ctrlcache
