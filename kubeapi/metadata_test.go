package kubeapi

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/watchcache"
)

// TestMetadataInformer: client-go's metadata informer (what controller-runtime's OnlyMetadata
// watches use) lists and watches PartialObjectMetadata, syncs, and follows churn with one handler
// call per change and a single watch: every event decodes (a full object would not: `no kind
// "Pod" is registered for version "v1"`, and the reflector would re-list).
func TestMetadataInformer(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchListClient=%t", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			cl := newCluster(t, clusterOptions{})
			mc, err := metadata.NewForConfig(&rest.Config{Host: cl.http.URL, QPS: -1})
			if err != nil {
				t.Fatal(err)
			}
			factory := metadatainformer.NewSharedInformerFactory(mc, 0)
			inf := factory.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Informer()
			var adds, updates, deletes atomic.Int64
			if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
				AddFunc:    func(any) { adds.Add(1) },
				UpdateFunc: func(any, any) { updates.Add(1) },
				DeleteFunc: func(any) { deletes.Add(1) },
			}); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			factory.Start(stop)
			defer factory.Shutdown()
			defer close(stop)
			if !cache.WaitForCacheSync(stop, inf.HasSynced) {
				t.Fatal("metadata informer did not sync")
			}
			if n := adds.Load(); n != 200 {
				t.Fatalf("%d adds after sync, want 200", n)
			}
			for _, o := range inf.GetStore().List() {
				m := o.(*metav1.PartialObjectMetadata)
				if m.UID == "" || len(m.Labels) == 0 || len(m.ManagedFields) == 0 {
					t.Fatalf("stored %+v", m)
				}
				break
			}

			const changes, batch = 300, 300
			for range changes / batch {
				cl.step(t, batch)
				want := cacheKeys(t, cl.caches["pods"], watchcache.ListOptions{})
				slices.Sort(want)
				waitFor(t, func() bool {
					var got []string
					for _, o := range inf.GetStore().List() {
						got = append(got, key(&o.(*metav1.PartialObjectMetadata).ObjectMeta))
					}
					slices.Sort(got)
					return slices.Equal(got, want)
				})
			}
			// One handler call per change: nothing was re-listed, no event was replayed.
			if n := adds.Load() - 200 + updates.Load() + deletes.Load(); n != changes {
				t.Errorf("%d handler calls for %d changes (adds %d, updates %d, deletes %d)", n, changes, adds.Load(), updates.Load(), deletes.Load())
			}
			if lists := cl.requests.matching("/api/v1/pods?", "limit="); watchList == (len(lists) > 0) || len(lists) > 1 {
				t.Errorf("lists: %v", lists)
			}
			if watches := cl.requests.matching("/api/v1/pods?", "watch=true"); len(watches) != 1 {
				t.Errorf("%d watches, want 1: %v", len(watches), watches)
			}
		})
	}
}
