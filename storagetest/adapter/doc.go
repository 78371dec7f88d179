// Package adapter serves the kube-apiserver's storage.Interface (k8s.io/apiserver/pkg/storage) from a
// watchcache.Cache, with the same split as the apiserver's own watch cache (its CacheDelegator):
//
//	writes  Create, Delete, GuaranteedUpdate,        → the apiserver's etcd3 store on a real etcd
//	        Stats, GetCurrentResourceVersion,
//	        RequestWatchProgress, CompactRevision,
//	        EnableResourceSizeEstimation
//	reads   Get, GetList, Watch, ReadinessCheck       → watchcache.Cache, fed from the same etcd by
//	                                                    source/etcd (Range, then Watch with progress notify)
//	        Get with resourceVersion "", any Get      → the etcd3 store, as CacheDelegator.Get routes it
//	        while the cache is not ready                (rule 6.7; Config.ConsistentGetFromCache: the cache)
//
// Objects cross the boundary as JSON: the etcd3 store writes what its codec encodes (the adapter
// requires a JSON codec, the apiserver's --storage-media-type=application/json), the source hands
// those bytes to the cache with the mod revision stamped into metadata.resourceVersion, and reads
// decode the cache's bytes into the caller's objects with the same codec.
//
// Keys are the storage keys the registry passes ("/pods/<namespace>/<name>" for a namespaced
// resource with ResourcePrefix "/pods"); the adapter maps a key to the cache's namespace and name,
// a recursive list or watch key to a namespace, and re-encodes continue tokens between the caller's
// key prefix and the cache's (the continue token is the same wire format on both sides, rule 2.1).
//
// What the cache cannot know about, the adapter adds, as the apiserver's cacher does around its own
// watch cache:
//   - compaction: the cacher's compactor drops snapshots older than etcd's compacted revision, so
//     an Exact list or a continue token older than it is 410 Expired; the adapter checks the etcd3
//     store's CompactRevision the same way. Store.Compact additionally makes watches from older
//     revisions 410 (the apiserver tests trim the cacher's history for the same purpose).
//   - flow control: Watch signals utilflowcontrol.WatchInitialized once the watch is set up.
//   - size estimation: the etcd3 store's estimator gets its keys from the cache, as from the
//     cacher, and the sizes of changed objects through reads the adapter makes (sizes.go).
//   - unreadable values: the source reads etcd through the store's value transformer and skips a
//     value it cannot transform; the adapter fails a list whose range holds such a key, and a Get
//     of it, with the etcd3 store's InternalError, where the cache would answer without it
//     (source/etcd Source.Unreadable; unreadable.go).
//
// Everything here is safe for concurrent use once New has returned.
package adapter
