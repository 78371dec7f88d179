package kubeapi

import (
	"flag"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/consistencydetector"

	"github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

var flagLong = flag.Bool("long", false, "TestInformerUnderChurn: a minute of churn instead of a few seconds")

// TestInformerUnderChurn: a client-go informer with the watch-list data consistency check on (the
// check client-go's CI runs, KUBE_WATCHLIST_INCONSISTENCY_DETECTOR=1) syncs 10,000 pods while 50
// changes per second are applied, in one watch-list stream, and follows the churn without a
// panic: after its initial events it lists at the same resourceVersion and compares every object
// (reflect.DeepEqual of the decoded pods), which any byte the list and the watch disagree on
// would fail. With -long (or WATCHCACHE_LONG=1) the churn lasts a minute; in CI three seconds
// (and under the race detector 2,000 pods, unless -long).
func TestInformerUnderChurn(t *testing.T) {
	churnFor := 3 * time.Second
	if *flagLong || os.Getenv("WATCHCACHE_LONG") != "" {
		churnFor = time.Minute
	}
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	if !consistencydetector.IsDataConsistencyDetectionForWatchListEnabled() {
		t.Cleanup(consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(true))
	}
	pods := 10_000
	if raceEnabled && !*flagLong {
		pods = 2_000
	}
	cl := newCluster(t, clusterOptions{cfg: testdata.Config{Pods: pods, Nodes: 100, Namespaces: 10, Seed: 3}})
	podCache := cl.caches["pods"]

	// 50 changes per second from before the informer starts until churnFor after it synced.
	stop := make(chan struct{})
	var churn sync.WaitGroup
	var applied int
	var applyErr error
	churn.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			cl.rv++
			ch := cl.churn.Next(cl.rv)
			typ := map[testdata.ChangeType]watchcache.EventType{
				testdata.Added: watchcache.Added, testdata.Modified: watchcache.Modified, testdata.Deleted: watchcache.Deleted,
			}[ch.Type]
			if err := podCache.Apply(watchcache.Event{Type: typ, Object: ch.Object, ResourceVersion: cl.rv}); err != nil {
				applyErr = err
				return
			}
			applied++
		}
	})
	stopChurn := sync.OnceFunc(func() { close(stop); churn.Wait() })
	defer stopChurn()

	cs, log := clientFor(t, cl)
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().Pods().Informer()
	stopInf := make(chan struct{})
	start := time.Now()
	factory.Start(stopInf)
	defer factory.Shutdown()
	defer close(stopInf)
	if !cache.WaitForCacheSync(stopInf, inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	synced := time.Since(start)
	time.Sleep(churnFor)
	stopChurn()
	if applyErr != nil {
		t.Fatal(applyErr)
	}
	want := cacheKeys(t, podCache, watchcache.ListOptions{})
	slices.Sort(want)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got []string
		for _, o := range inf.GetStore().List() {
			got = append(got, key(&o.(*corev1.Pod).ObjectMeta))
		}
		slices.Sort(got)
		if slices.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("informer has %d pods, cache %d", len(got), len(want))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if checks := log.matching("/api/v1/pods?", "resourceVersionMatch=Exact"); len(checks) == 0 {
		t.Error("the consistency check made no list")
	}
	wl := log.matching("/api/v1/pods?", "sendInitialEvents=true")
	if len(wl) != 1 {
		t.Errorf("%d watch-list streams, want the sync in one: %v", len(wl), wl)
	}
	t.Logf("synced %d pods in %v in %d watch-list stream(s); %d changes over %v of churn; requests: %d lists (%d at the sync's exact resourceVersion: the consistency check), %d watches",
		pods, synced.Round(time.Millisecond), len(wl), applied, churnFor, len(log.matching("/api/v1/pods?", "limit=")), len(log.matching("/api/v1/pods?", "resourceVersionMatch=Exact")), len(log.matching("/api/v1/pods?", "watch=true")))
}
