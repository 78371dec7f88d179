package main

// oursReasons says, for each case ours is expected not to pass, why. A failure of ours that is not
// listed here, or a listed case that passes, makes summarize exit 1.
var oursReasons = map[string]string{
	"WatchError": "By design: the watch is served from the cache, which read the object when it was written; the " +
		"failing transformer the test swaps in afterwards is only on the etcd3 store's reads, so no ERROR event is produced.",
	"WatchErrorIsBlockingFurtherEvents": "",
	"ProgressNotify":                    "",
}

// oursFlaky lists the cases ours passes or fails from run to run, with why; either result is expected.
var oursFlaky = map[string]string{}

// notes are remarks on a case for every backend: setup differences and what upstream runs.
var notes = map[string]string{
	"Get":                              "Backends run one after the other: the object has a 1 s TTL and the cacher failed once when three backends ran at once. Get with resourceVersion \"\" goes to etcd in both caches (CacheDelegator.Get, rule 6.7).",
	"Get/ConsistentGetFromCache":       "Ours with adapter.Config.ConsistentGetFromCache: Get \"\" answered by the cache as a consistent read.",
	"GuaranteedUpdate":                 "Upstream skips it for the cacher (TODO #109831).",
	"GuaranteedUpdateChecksStoredData": "Upstream skips it for the cacher (TODO #109831).",
	"TransformationFailure": "Upstream skips it for the cacher (TODO #109831); the cacher passes or fails from run to run in this harness (its reflector must fail and make it unready before the list). " +
		"Ours: source/etcd reads etcd through a PrefixTransformer with the store's prefix (adapter.Config.SourceTransformer: the one the test swaps back to, " +
		"since the cache reads each value once, when it is written), skips the value written with another prefix and reports its key (Source.Unreadable); " +
		"the adapter fails a list whose range holds that key, and a Get of it from the cache, with the etcd3 store's InternalError.",
	"ListInconsistentContinuation": "All backends with cacher_test.go's createWrapper (Create returns once the cache serves the object: the first page is read at RV=0). " +
		"Ours: the test rewrites /pods/second/foo without metadata.namespace (line 3637); source/etcd keys every object by its etcd key " +
		"(watchcache.Event.Key), so the cache holds the new value there, as the etcd3 store does. " +
		"Upstream skips it for the cacher (TODO #109831); the cacher ignores limit at RV=0, so its first page has no continue token (line 3621).",
	"ListResourceVersionMatch": "Upstream skips it for the cacher (TODO #109831). Its reproducing transformer injects writes during " +
		"etcd reads, which the cache's lists never make.",
	"ListPaginationRareObject": "The 1000 pods have no namespace and are stored at /pods//<name>; ours holds them under those keys (empty namespace segment), as the cacher does.",
	"KeySchema":                "Ours: Get \"\" of the nameless objects at /pods/ and /pods/namespace goes to etcd (rule 6.7); the cache, which holds no nameless object, would answer NotFound.",
	"CompactRevision":          "Ours: the adapter answers 410 for Exact/continue RVs below the etcd3 store's CompactRevision, as the cacher's compactor drops older snapshots.",
	"List":                     "Ours: as CompactRevision, for the Exact list before the first write after compaction.",
	"WatchFromZero": "Apiserver cache: not run, the compaction step trims the cacher's unexported history (compactWatch). Ours: " +
		"adapter.Store.Compact stands in for that trimming (watches from older RVs get 410).",
	"WatchError":         "Upstream skips it for the cacher (TODO #109831).",
	"WatchContextCancel": "Upstream skips it for the cacher (TODO #109831).",
	"WatchBookmarksWithCorrectResourceVersion": "Upstream runs it for the cacher only (bookmarks are a watch-cache feature).",
	"WatchDispatchBookmarkEvents":              "etcd3 with a 1 s progress-notify interval and expectedWatchBookmarks=false, as upstream.",
	"ClusterScopedWatch":                       "Cluster-scoped key function (cacher) / cluster-scoped cache (ours), as upstream's withClusterScopedKeyFunc.",
	"Stats/SizeBasedListCostEstimate=true": "etcd3: EnableResourceSizeEstimation with its own keys, as upstream; cacher and ours with the cache's keys. " +
		"Ours: the pods have no namespace and are stored at /pods//<name>, where the cache holds them (keyed by etcd key); " +
		"the adapter reads changed objects through the etcd3 store so its estimator learns their sizes (adapter/sizes.go).",
}

// short are the README's one-line notes: for ours, why it does not pass (required when it does not);
// then what differs for the other columns or in ours' setup.
var short = map[string]string{
	"TransformationFailure": "ours: source/etcd reads through the store's prefix transformer and reports the key it cannot read; the adapter " +
		"fails the list with InternalError; apiserver cache: passes or fails from run to run (upstream skips it)",
	"WatchError": "ours, by design: the watch is served from the cache, which read the object before the test swapped in a failing " +
		"transformer, so there is no ERROR event; the apiserver cache fails it too (upstream skips it)",
	"ListInconsistentContinuation": "ours: the pod the test rewrites without metadata.namespace is held under its etcd key (source/etcd " +
		"keys events by etcd key); apiserver cache: ignores limit at RV=0",
	"WatchErrorIsBlockingFurtherEvents":        "not run on caches (upstream: etcd3 only): it waits for the watch to end on an unreadable value, which a cache's watch never does",
	"ProgressNotify":                           "not run on caches (upstream: etcd3 only): ListOptions.ProgressNotify is an etcd watch option the apiserver's cache ignores too",
	"Get/ConsistentGetFromCache":               "ours only: Get with resourceVersion \"\" answered by the cache instead of etcd",
	"KeySchema":                                "ours: Get \"\" goes to etcd, as the apiserver's CacheDelegator (the nameless objects it reads are not in the cache)",
	"Stats/SizeBasedListCostEstimate=true":     "ours: sizes read through the etcd3 store",
	"WatchFromZero":                            "apiserver cache: not run (it trims the cacher's unexported watch history)",
	"WatchBookmarksWithCorrectResourceVersion": "etcd3: upstream runs it for the cacher only",
}
