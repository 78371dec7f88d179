package storagetest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage/etcd3"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	"k8s.io/apiserver/pkg/storage/value"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// suiteCase is one test of k8s.io/apiserver/pkg/storage/testing, run against every backend with
// the arguments and setup the apiserver's own tests use for that backend
// (etcd3/store_test.go, etcd3/watcher_test.go, cacher/cacher_test.go).
type suiteCase struct {
	name string
	opts options
	// ours overrides opts for our backend (a setup difference, recorded in RESULTS.md).
	ours *options
	// skip lists the backends the case is not run against, with the reason.
	skip map[backend]string
	// gates are feature gates set for the case, before any backend is set up.
	gates map[featuregate.Feature]bool
	// serial runs the backends one after the other, and the case before the parallel ones: it sets
	// feature gates or other global state itself, which cannot be done from parallel tests, or it is
	// sensitive to load.
	serial bool
	// slow marks the cases `go test -short` skips: they wait out timeouts (lease expiry, periodic
	// bookmarks, progress notifications), 3-10 s each.
	slow bool
	run  func(t *testing.T, b backend, e *env)
}

func noValidation(context.Context, *testing.T, string) {}

func noCalls(*testing.T, uint64, uint64) {}

// cached says whether the backend serves reads from a watch cache (the suite's watchCacheEnabled,
// cacheEnabled and expectedWatchBookmarks arguments).
func cached(b backend) bool { return b != etcd3Backend }

const (
	skipCacherInternals = "needs the cacher's unexported watch history (cacher_testing_utils_test.go compactWatch)"
	skipProgressNotify  = "optional; ListOptions.ProgressNotify is an etcd3 feature the apiserver's cacher ignores too (upstream runs it for etcd3 only; it waits 30 s)"
	variantOfOurs       = "a variant for ours only"
	skipBlocksForever   = "etcd3-only test (upstream runs it for etcd3 only): it reads until the watch ends, and a cache's watch does not end on a value it cannot read, so it blocks forever"
)

var unsafeDelete = map[featuregate.Feature]bool{features.AllowUnsafeMalformedObjectDeletion: true}

var cases = []suiteCase{
	// ---- write path (passes through to etcd3 for both caches) ----
	{name: "Create", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestCreate(e.ctx, t, e.store, noValidation)
	}},
	{name: "CreateWithTTL", slow: true, run: func(t *testing.T, b backend, e *env) { storagetesting.RunTestCreateWithTTL(e.ctx, t, e.store) }},
	{name: "CreateWithKeyExist", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestCreateWithKeyExist(e.ctx, t, e.store)
	}},
	// Serial: the case gives its object a 1 s TTL and reads it in parallel subtests; under the load
	// of three backends at once the lease can expire first (seen with the cacher).
	{name: "Get", serial: true, run: func(t *testing.T, b backend, e *env) { storagetesting.RunTestGet(e.ctx, t, e.store) }},
	// The same with the cache answering Get "" too (consistent reads from the cache), which the
	// routing of Get (etcd for "", as the apiserver) otherwise leaves to the etcd3 store.
	{name: "Get/ConsistentGetFromCache", serial: true, ours: &options{getFromCache: true},
		skip: map[backend]string{etcd3Backend: variantOfOurs, cacherBackend: variantOfOurs},
		run:  func(t *testing.T, b backend, e *env) { storagetesting.RunTestGet(e.ctx, t, e.store) }},
	{name: "UnconditionalDelete", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestUnconditionalDelete(e.ctx, t, e.store)
	}},
	{name: "ConditionalDelete", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestConditionalDelete(e.ctx, t, e.store)
	}},
	{name: "DeleteWithSuggestion", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestDeleteWithSuggestion(e.ctx, t, e.store)
	}},
	{name: "DeleteWithSuggestionAndConflict", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestDeleteWithSuggestionAndConflict(e.ctx, t, e.store)
	}},
	{name: "DeleteWithSuggestionOfDeletedObject", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestDeleteWithSuggestionOfDeletedObject(e.ctx, t, e.store)
	}},
	{name: "ValidateDeletionWithSuggestion", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestValidateDeletionWithSuggestion(e.ctx, t, e.store)
	}},
	{name: "ValidateDeletionWithOnlySuggestionValid", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestValidateDeletionWithOnlySuggestionValid(e.ctx, t, e.store)
	}},
	{name: "DeleteWithConflict", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestDeleteWithConflict(e.ctx, t, e.store)
	}},
	{name: "DeleteWithConflictAndMissingExpectedTransformOrDecodeError", opts: options{transformer: func() value.Transformer { return newFailing() }},
		gates: unsafeDelete,
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunTestDeleteWithConflictAndMissingExpectedTransformOrDecodeError(e.ctx, t, e.store, e.failing.setFailing)
		}},
	{name: "DeleteWithConflictAndExpectedTransformError", opts: options{transformer: func() value.Transformer { return newFailing() }},
		gates: unsafeDelete,
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunTestDeleteExpectedTransformOrDecodeError(e.ctx, t, e.store, e.failing.setFailing)
		}},
	{name: "DeleteWithConflictAndExpectedDecodeError", opts: options{codec: func() runtime.Codec { return newFailingCodec() }},
		gates: unsafeDelete, serial: true, // TestOnlySetFatalOnDecodeError is a global
		run: func(t *testing.T, b backend, e *env) {
			etcd3.TestOnlySetFatalOnDecodeError(t, false)
			storagetesting.RunTestDeleteExpectedTransformOrDecodeError(e.ctx, t, e.store, e.failingCodec.setFailing)
		}},
	{name: "DeleteWithSuggestionAndMissingExpectedTransformOrDecodeError", gates: unsafeDelete, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestDeleteWithSuggestionAndMissingExpectedTransformOrDecodeError(e.ctx, t, e.store)
	}},
	{name: "PreconditionalDeleteWithSuggestion", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestPreconditionalDeleteWithSuggestion(e.ctx, t, e.store)
	}},
	{name: "PreconditionalDeleteWithSuggestionPass", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestPreconditionalDeleteWithOnlySuggestionPass(e.ctx, t, e.store)
	}},
	{name: "GuaranteedUpdateWithTTL", slow: true, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestGuaranteedUpdateWithTTL(e.ctx, t, e.store)
	}},
	{name: "GuaranteedUpdateWithConflict", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestGuaranteedUpdateWithConflict(e.ctx, t, e.store)
	}},
	{name: "GuaranteedUpdateWithSuggestionAndConflict", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestGuaranteedUpdateWithSuggestionAndConflict(e.ctx, t, e.store)
	}},
	{name: "GuaranteedUpdate", opts: options{transformer: prefixed("test!")},
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunTestGuaranteedUpdate(e.ctx, t, &withPrefixTransformer{Interface: e.store, sw: e.prefix}, noValidation)
		}},
	{name: "GuaranteedUpdateChecksStoredData", opts: options{transformer: prefixed("test!")},
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunTestGuaranteedUpdateChecksStoredData(e.ctx, t, &withPrefixTransformer{Interface: e.store, sw: e.prefix})
		}},
	{name: "TransformationFailure", opts: options{transformer: prefixed("test!")},
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunTestTransformationFailure(e.ctx, t, &withPrefixTransformer{Interface: e.store, sw: e.prefix})
		}},
	{name: "Stats/SizeBasedListCostEstimate=true", gates: map[featuregate.Feature]bool{features.SizeBasedListCostEstimate: true},
		run: func(t *testing.T, b backend, e *env) {
			if b == etcd3Backend {
				// etcd3/store_test.go: store.EnableResourceSizeEstimation(store.getKeys).
				if err := e.store.EnableResourceSizeEstimation(e.etcdKeys); err != nil {
					t.Fatal(err)
				}
			}
			storagetesting.RunTestStats(e.ctx, t, e.store, codec, identity.NewEncryptCheckTransformer(), true)
		}},
	{name: "Stats/SizeBasedListCostEstimate=false", gates: map[featuregate.Feature]bool{features.SizeBasedListCostEstimate: false},
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunTestStats(e.ctx, t, e.store, codec, identity.NewEncryptCheckTransformer(), false)
		}},

	// ---- read path: lists ----
	{name: "ListPaging", run: func(t *testing.T, b backend, e *env) { storagetesting.RunTestListPaging(e.ctx, t, e.store) }},
	{name: "List", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestList(e.ctx, t, e.store, e.compact, cached(b), e.client.Kubernetes.(*storagetesting.KubernetesRecorder))
	}},
	{name: "ConsistentList", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestConsistentList(e.ctx, t, e.store, e.increaseRV, cached(b), true, cached(b))
	}},
	{name: "GetListNonRecursive", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestGetListNonRecursive(e.ctx, t, e.increaseRV, e.store)
	}},
	{name: "GetListRecursivePrefix", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestGetListRecursivePrefix(e.ctx, t, e.store)
	}},
	{name: "CompactRevision", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestCompactRevision(e.ctx, t, e.store, e.increaseRV, e.compact)
	}},
	{name: "ListContinuation", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestListContinuation(e.ctx, t, e.store, noCalls)
	}},
	{name: "ListPaginationRareObject", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestListPaginationRareObject(e.ctx, t, e.store, noCalls)
	}},
	{name: "ListContinuationWithFilter", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestListContinuationWithFilter(e.ctx, t, e.store, noCalls)
	}},
	// createWrapper: the first page is read at RV=0 (any state) right after the writes; an
	// asynchronous cache must have them by then (cacher_test.go's device for such tests).
	{name: "ListInconsistentContinuation", opts: options{createWrapper: true}, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestListInconsistentContinuation(e.ctx, t, e.store, e.compact)
	}},
	{name: "ListResourceVersionMatch", opts: options{transformer: prefixed("test!")},
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunTestListResourceVersionMatch(e.ctx, t, &withPrefixTransformer{Interface: e.store, sw: e.prefix})
		}},
	{name: "NamespaceScopedList", opts: options{nodeNameIndex: true}, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestNamespaceScopedList(e.ctx, t, e.store)
	}},
	{name: "KeySchema", run: func(t *testing.T, b backend, e *env) { storagetesting.RunTestKeySchema(e.ctx, t, e.store) }},

	// ---- read path: watches ----
	{name: "Watch", run: func(t *testing.T, b backend, e *env) { storagetesting.RunTestWatch(e.ctx, t, e.store) }},
	{name: "WatchFromZero", skip: map[backend]string{cacherBackend: skipCacherInternals},
		run: func(t *testing.T, b backend, e *env) {
			c := e.compact
			if b != etcd3Backend {
				c = e.compactWatch
			}
			storagetesting.RunTestWatchFromZero(e.ctx, t, e.store, c)
		}},
	{name: "DeleteTriggerWatch", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestDeleteTriggerWatch(e.ctx, t, e.store)
	}},
	{name: "WatchFromNonZero", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestWatchFromNonZero(e.ctx, t, e.store)
	}},
	{name: "DelayedWatchDelivery", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestDelayedWatchDelivery(e.ctx, t, e.store)
	}},
	{name: "WatchError", opts: options{transformer: prefixed("test!")},
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunTestWatchError(e.ctx, t, &withPrefixTransformer{Interface: e.store, sw: e.prefix})
		}},
	{name: "WatchErrorIsBlockingFurtherEvents", opts: options{transformer: prefixed("test!")},
		skip: map[backend]string{cacherBackend: skipBlocksForever, oursBackend: skipBlocksForever},
		run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunWatchErrorIsBlockingFurtherEvents(e.ctx, t, &withPrefixTransformer{Interface: e.store, sw: e.prefix})
		}},
	{name: "WatchContextCancel", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestWatchContextCancel(e.ctx, t, e.store)
	}},
	{name: "WatcherTimeout", run: func(t *testing.T, b backend, e *env) { storagetesting.RunTestWatcherTimeout(e.ctx, t, e.store) }},
	{name: "WatchDeleteEventObjectHaveLatestRV", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestWatchDeleteEventObjectHaveLatestRV(e.ctx, t, e.store)
	}},
	{name: "WatchInitializationSignal", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestWatchInitializationSignal(e.ctx, t, e.store)
	}},
	{name: "ClusterScopedWatch", opts: options{clusterScoped: true, nodeNameIndex: true}, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestClusterScopedWatch(e.ctx, t, e.store)
	}},
	{name: "NamespaceScopedWatch", opts: options{nodeNameIndex: true}, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestNamespaceScopedWatch(e.ctx, t, e.store)
	}},
	{name: "WatchDispatchBookmarkEvents", slow: true, opts: options{progressNotify: time.Second}, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestWatchDispatchBookmarkEvents(e.ctx, t, e.store, cached(b))
	}},
	{name: "WatchBookmarksWithCorrectResourceVersion", slow: true, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunTestOptionalWatchBookmarksWithCorrectResourceVersion(e.ctx, t, e.store)
	}},
	{name: "SendInitialEventsBackwardCompatibility", run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunSendInitialEventsBackwardCompatibility(e.ctx, t, e.store)
	}},
	{name: "WatchSemantics", opts: options{createWrapper: true}, serial: true, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunWatchSemantics(context.TODO(), t, e.store)
	}},
	{name: "WatchSemanticInitialEventsExtended", opts: options{createWrapper: true}, serial: true, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunWatchSemanticInitialEventsExtended(context.TODO(), t, e.store)
	}},
	{name: "WatchListMatchSingle", opts: options{createWrapper: true}, serial: true, run: func(t *testing.T, b backend, e *env) {
		storagetesting.RunWatchListMatchSingle(context.TODO(), t, e.store)
	}},
	{name: "ProgressNotify", slow: true, opts: options{progressNotify: time.Second},
		skip: map[backend]string{cacherBackend: skipProgressNotify, oursBackend: skipProgressNotify}, run: func(t *testing.T, b backend, e *env) {
			storagetesting.RunOptionalTestProgressNotify(e.ctx, t, e.store, e.increaseRV)
		}},
}

// TestStorage runs every case against every backend: TestStorage/<case>/<backend>.
//
// Each backend of each case has its own etcd. The cases that set feature gates or other global
// state, or are marked serial, run first, one after the other; then all the other cases and their
// backends run in parallel, as many at a time as -parallel allows (run.sh sets it: the cases mostly
// wait — for timeouts, TTLs, watch deliveries — so more of them than cores fit).
func TestStorage(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.serial && len(c.gates) == 0 {
				t.Parallel() // starts once the loop is done: after every serial case
			}
			if len(c.gates) > 0 {
				overrides := featuregatetesting.FeatureOverrides{}
				for f, v := range c.gates {
					overrides[f] = v
				}
				featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, overrides)
			}
			for _, b := range backends {
				t.Run(string(b), func(t *testing.T) {
					if reason, ok := c.skip[b]; ok {
						t.Skip(reason)
					}
					if c.slow && testing.Short() {
						t.Skip("slow: skipped with -short")
					}
					if !c.serial {
						t.Parallel()
					}
					o := c.opts
					if b == oursBackend && c.ours != nil {
						o = *c.ours
					}
					c.run(t, b, setup(t, b, o))
				})
			}
		})
	}
}

// failing is cacher_test.go's testTransformer: reads from etcd fail while set.
type failing struct {
	value.Transformer
	fail atomic.Bool
}

func newFailing() *failing {
	return &failing{Transformer: identity.NewEncryptCheckTransformer()}
}

func (f *failing) setFailing(v bool) { f.fail.Store(v) }

func (f *failing) TransformFromStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	if f.fail.Load() {
		return nil, false, errors.New("synthetic error")
	}
	return f.Transformer.TransformFromStorage(ctx, data, dataCtx)
}

// failingCodec is cacher_test.go's testCodec: decoding fails while set.
type failingCodec struct {
	runtime.Codec
	fail atomic.Bool
}

func newFailingCodec() *failingCodec { return &failingCodec{Codec: codec} }

func (c *failingCodec) setFailing(v bool) { c.fail.Store(v) }

func (c *failingCodec) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if c.fail.Load() {
		return nil, nil, errors.New("synthetic error")
	}
	return c.Codec.Decode(data, defaults, into)
}

// prefixed makes a swappable PrefixTransformer. The etcd3 tests use the prefix "test!", and so do
// the caches: ours reads etcd through a PrefixTransformer with the same prefix (the harness passes
// it as adapter.Config.SourceTransformer).
func prefixed(prefix string) func() value.Transformer {
	return func() value.Transformer {
		return &swappable{cur: storagetesting.NewPrefixTransformer([]byte(prefix), false), prefix: []byte(prefix)}
	}
}
