package fake_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/conformance"
	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/watchcache"
)

// fakeReadTarget is the read-path conformance Target of the fake: the suite feeds the fake's pods
// cache as a source would (raising the fake's resourceVersion counter with it, so that its
// consistent reads wait for what was fed) and reads through client-go over HTTP.
type fakeReadTarget struct {
	*conformance.HTTPReader
	srv  *fake.Server
	pods *watchcache.Cache
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func (f *fakeReadTarget) Replace(objects [][]byte, rv uint64) error {
	f.srv.AdvanceResourceVersion(rv)
	return f.pods.Replace(objects, rv)
}

func (f *fakeReadTarget) Apply(ev conformance.Event) error {
	f.srv.AdvanceResourceVersion(ev.ResourceVersion)
	return f.pods.Apply(watchcache.Event{Type: watchcache.EventType(ev.Type), Object: ev.Object, ResourceVersion: ev.ResourceVersion})
}

// TestConformanceReadPath runs the read-path suite against the fake, unchanged.
func TestConformanceReadPath(t *testing.T) {
	conformance.Run(t, func(t conformance.TB, cfg conformance.Config) conformance.Target {
		srv, err := fake.NewServer(fake.Options{
			WindowEvents: cfg.WindowEvents, WaitTimeout: cfg.WaitTimeout, BookmarkInterval: cfg.BookmarkInterval,
			NoDefaultNamespaces: true,
		})
		if err != nil {
			t.Fatalf("fake.NewServer: %v", err)
		}
		t.Cleanup(srv.Close)
		r, err := conformance.NewHTTPReader(t, srv.Config())
		if err != nil {
			t.Fatalf("%v", err)
		}
		return &fakeReadTarget{HTTPReader: r, srv: srv, pods: srv.Cache(podsGVR)}
	})
}
