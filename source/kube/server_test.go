package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/watchcache"
)

// This file holds a minimal Kubernetes list/watch HTTP façade over a watchcache.Cache for pods, so
// that a cache can be fed through client-go from another cache. It stands in for package kubeapi
// (being written in parallel); the tests only need GET /api/v1/pods and
// /api/v1/namespaces/<ns>/pods, list and watch, and hooks to break and hold watches.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeAPI serves one pods cache.
type fakeAPI struct {
	cache *watchcache.Cache
	// omitItemTypeMeta strips kind and apiVersion from list items, as a kube-apiserver's typed lists do.
	omitItemTypeMeta bool

	mu      sync.Mutex
	gate    chan struct{}          // non-nil: watch requests wait until it is closed
	held    int                    // watch requests waiting at the gate
	lists   chan struct{}          // non-nil: list requests wait until it is closed
	listing int                    // list requests waiting at the lists gate
	streams map[chan bool]struct{} // one per running watch: send true to abort the connection, false to end the stream
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ns, ok := "", r.URL.Path == "/api/v1/pods"
	if rest, found := strings.CutPrefix(r.URL.Path, "/api/v1/namespaces/"); found {
		ns, ok = strings.CutSuffix(rest, "/pods")
	}
	if !ok || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		f.watch(w, r, ns)
		return
	}
	f.mu.Lock()
	gate := f.lists
	if gate != nil {
		f.listing++
	}
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	limit, _ := strconv.ParseInt(q.Get("limit"), 10, 64)
	res, err := f.cache.List(r.Context(), watchcache.ListOptions{
		Namespace:            ns,
		LabelSelector:        q.Get("labelSelector"),
		FieldSelector:        q.Get("fieldSelector"),
		ResourceVersion:      q.Get("resourceVersion"),
		ResourceVersionMatch: q.Get("resourceVersionMatch"),
		Limit:                limit,
		Continue:             q.Get("continue"),
	})
	if err != nil {
		writeStatus(w, apistatus.FromError(err).ErrStatus)
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d"`, res.ResourceVersion)
	if res.Continue != "" {
		fmt.Fprintf(&b, `,"continue":%q`, res.Continue)
	}
	if res.RemainingItemCount != nil {
		fmt.Fprintf(&b, `,"remainingItemCount":%d`, *res.RemainingItemCount)
	}
	b.WriteString(`},"items":[`)
	for i, it := range res.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		if f.omitItemTypeMeta {
			it = stripTypeMeta(it)
		}
		b.Write(it)
	}
	b.WriteString("]}\n")
	w.Header().Set("Content-Type", "application/json")
	w.Write(b.Bytes())
}

func (f *fakeAPI) watch(w http.ResponseWriter, r *http.Request, ns string) {
	q := r.URL.Query()
	ctx := r.Context()
	if s := q.Get("timeoutSeconds"); s != "" {
		n, _ := strconv.Atoi(s)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(n)*time.Second)
		defer cancel()
	}
	f.mu.Lock()
	gate := f.gate
	if gate != nil {
		f.held++
	}
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return
		}
	}
	var sendInitial *bool
	if s := q.Get("sendInitialEvents"); s != "" {
		v := s == "true"
		sendInitial = &v
	}
	wt, err := f.cache.Watch(ctx, watchcache.WatchOptions{
		Namespace:            ns,
		LabelSelector:        q.Get("labelSelector"),
		FieldSelector:        q.Get("fieldSelector"),
		ResourceVersion:      q.Get("resourceVersion"),
		ResourceVersionMatch: q.Get("resourceVersionMatch"),
		SendInitialEvents:    sendInitial,
		AllowWatchBookmarks:  q.Get("allowWatchBookmarks") == "true",
	})
	if err != nil {
		writeStatus(w, apistatus.FromError(err).ErrStatus)
		return
	}
	defer wt.Stop()
	brk := make(chan bool, 1)
	f.mu.Lock()
	f.streams[brk] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.streams, brk)
		f.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	flusher.Flush()
	for {
		select {
		case <-ctx.Done():
			return
		case abort := <-brk:
			if abort {
				panic(http.ErrAbortHandler) // the server drops the connection mid-stream
			}
			return
		case ev, ok := <-wt.Events():
			if !ok {
				return
			}
			w.Write(eventLine(ev))
			flusher.Flush()
			if ev.Type == watchcache.Error {
				return
			}
		}
	}
}

// eventLine renders a watch event as the apiserver's JSON stream does: one object per line.
func eventLine(ev watchcache.WatchEvent) []byte {
	obj := ev.Object
	switch ev.Type {
	case watchcache.Bookmark:
		ann := ""
		if ev.InitialEventsEnd {
			ann = `,"annotations":{"k8s.io/initial-events-end":"true"}`
		}
		obj = fmt.Appendf(nil, `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"%d"%s}}`, ev.ResourceVersion, ann)
	case watchcache.Error:
		obj = statusJSON(apistatus.FromError(ev.Err).ErrStatus)
	}
	return fmt.Appendf(nil, `{"type":%q,"object":%s}`+"\n", ev.Type, obj)
}

func statusJSON(st metav1.Status) []byte {
	st.Kind, st.APIVersion = "Status", "v1"
	b, _ := json.Marshal(st)
	return b
}

func writeStatus(w http.ResponseWriter, st metav1.Status) {
	w.Header().Set("Content-Type", "application/json")
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	w.WriteHeader(int(st.Code))
	w.Write(statusJSON(st))
}

// stripTypeMeta removes kind and apiVersion from an object that starts with them.
func stripTypeMeta(obj []byte) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		panic(err)
	}
	delete(m, "kind")
	delete(m, "apiVersion")
	b, _ := json.Marshal(m)
	return b
}

// breakAll ends every running watch stream: abort drops the connection, otherwise the stream ends
// normally (as when timeoutSeconds elapses).
func (f *fakeAPI) breakAll(abort bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for brk := range f.streams {
		brk <- abort // buffered, and sent once: the stream leaves the set
		delete(f.streams, brk)
	}
}

func (f *fakeAPI) hold() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gate, f.held = make(chan struct{}), 0
}

func (f *fakeAPI) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.gate)
	f.gate = nil
}

// holdLists makes list requests wait until releaseLists.
func (f *fakeAPI) holdLists() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists, f.listing = make(chan struct{}), 0
}

func (f *fakeAPI) releaseLists() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.lists)
	f.lists = nil
}

// listsHeld returns the number of list requests waiting at the lists gate.
func (f *fakeAPI) listsHeld() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.listing
}

// streaming returns the number of running watch streams.
func (f *fakeAPI) streaming() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.streams)
}

func (f *fakeAPI) waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held
}

// serve starts the façade over cache and returns it with a client-go REST client for core/v1.
func serve(t *testing.T, cache *watchcache.Cache) (*fakeAPI, rest.Interface) {
	t.Helper()
	api := &fakeAPI{cache: cache, streams: map[chan bool]struct{}{}}
	srv := httptest.NewServer(api)
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
	return api, cs.CoreV1().RESTClient()
}
