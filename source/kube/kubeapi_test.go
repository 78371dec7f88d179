package kube

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// gatedHandler holds watch requests back while its gate is set, in front of the real façade.
type gatedHandler struct {
	next http.Handler
	mu   sync.Mutex
	gate chan struct{}
	held int
}

func (g *gatedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if w := r.URL.Query().Get("watch"); w == "true" || w == "1" {
		g.mu.Lock()
		gate := g.gate
		if gate != nil {
			g.held++
		}
		g.mu.Unlock()
		if gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
	}
	g.next.ServeHTTP(w, r)
}

// TestThroughKubeapi is the end-to-end path: cache A served by package kubeapi, cache B fed from it
// through client-go. B syncs to A, follows A's churn, resumes after every connection is cut, and
// re-lists after a 410 Gone when its resourceVersion has left A's window (rule 5.3).
func TestThroughKubeapi(t *testing.T) {
	a := newUpstream(t, 200, watchcache.Options{WindowEvents: 50, BookmarkInterval: 50 * time.Millisecond})
	api := kubeapi.NewServer(kubeapi.Options{})
	info, ok := kubeapi.CoreResource("pods")
	if !ok {
		t.Fatal("kubeapi has no pods")
	}
	if err := api.Register(info, a.cache); err != nil {
		t.Fatal(err)
	}
	gated := &gatedHandler{next: api}
	srv := httptest.NewServer(gated)
	transport := &http.Transport{}
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1, Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		transport.CloseIdleConnections()
	})
	src, b := newDownstream(t, cs.CoreV1().RESTClient(), Options{PageSize: 30, MinRetry: time.Millisecond, MaxRetry: 10 * time.Millisecond})
	assertSame(t, a.cache, b)

	a.apply(t, 40) // within A's window
	assertSame(t, a.cache, b)

	srv.CloseClientConnections() // every stream cut: B resumes from its RV, A replays
	a.apply(t, 20)
	assertSame(t, a.cache, b)
	if st := src.Stats(); st.Lists != 1 || st.Expired != 0 {
		t.Fatalf("stats %+v: want no re-list yet", st)
	}

	gated.mu.Lock()
	gated.gate = make(chan struct{})
	gated.mu.Unlock()
	srv.CloseClientConnections()
	waitFor(t, "B's watch to wait at the gate", func() bool {
		gated.mu.Lock()
		defer gated.mu.Unlock()
		return gated.held > 0
	})
	a.apply(t, 200) // B's resourceVersion leaves A's window of 50 events
	gated.mu.Lock()
	close(gated.gate)
	gated.gate = nil
	gated.mu.Unlock()
	waitFor(t, "B to re-list", func() bool { return src.Stats().Lists == 2 && b.Ready() == nil })
	a.apply(t, 10)
	assertSame(t, a.cache, b)
	if st := src.Stats(); st.Expired != 1 || st.Lists != 2 || st.Skipped != 0 {
		t.Fatalf("stats %+v: want one 410 and one re-list", st)
	}
}
