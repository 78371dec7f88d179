package kubeapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/conformance"
	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/kubeapi"
)

// httpTarget is the conformance.Target of the façade as a client sees it. Its Writer is a
// conformance.CacheTarget — Replace and Apply on the server's cache, sized by the suite's Config
// exactly as the suite's own CacheTarget runs — and its Reader is client-go's REST client talking
// to a kubeapi.Server over that cache behind an httptest.Server: every read is a GET with the
// metav1.ListOptions encoded by client-go's parameter codec, and every answer is the raw body.
//
// Safe for concurrent use: the cache is, client-go's REST client is, and the streams' bookkeeping
// is under mu.
type httpTarget struct {
	*conformance.CacheTarget
	client rest.Interface
	// life ends when the subtest's cleanup starts: every watch still reading is cancelled with it.
	life context.Context

	readers sync.WaitGroup // the goroutines reading watch bodies
	mu      sync.Mutex
	// broken records the watch bodies that ended with something other than a clean end of stream
	// while no one had stopped them; the suite only sees its Events channel close, so cleanup
	// reports the cause.
	broken []string
}

// newHTTPTarget returns a conformance.Run constructor of httpTargets whose caches carry indexes.
//
// Teardown, in cleanup order: the suite has stopped and drained its streams; this target cancels
// any watch still open and waits for its readers, stops the cache (ending every watch the server
// still serves, so Close does not wait on them), closes the client connections and the server,
// and closes the idle connections of its own transport (client-go's default for plain http is
// http.DefaultTransport, shared by the whole binary, whose idle connections goleak would see).
func newHTTPTarget(indexes ...index.Spec) func(t conformance.TB, cfg conformance.Config) conformance.Target {
	return func(t conformance.TB, cfg conformance.Config) conformance.Target {
		t.Helper()
		ct := conformance.NewCacheTarget(t, cfg, indexes...)
		srv := kubeapi.NewServer(kubeapi.Options{})
		info, ok := kubeapi.CoreResource("pods")
		if !ok {
			t.Fatalf("kubeapi.CoreResource(pods): not found")
		}
		if err := srv.Register(info, ct.Cache); err != nil {
			t.Fatalf("Register(pods): %v", err)
		}
		hs := httptest.NewServer(srv)
		tr := &http.Transport{}
		// QPS -1: no client-side rate limit (the default is 5 requests/s, and the suite makes
		// hundreds).
		client, err := corev1client.NewForConfig(&rest.Config{Host: hs.URL, QPS: -1, Transport: tr})
		if err != nil {
			hs.Close()
			t.Fatalf("client: %v", err)
		}
		life, end := context.WithCancel(context.Background())
		h := &httpTarget{CacheTarget: ct, client: client.RESTClient(), life: life}
		t.Cleanup(func() {
			end()
			h.readers.Wait()
			ct.Cache.Stop()
			hs.CloseClientConnections()
			hs.Close()
			tr.CloseIdleConnections()
			h.mu.Lock()
			defer h.mu.Unlock()
			for _, b := range h.broken {
				t.Errorf("watch body: %s", b)
			}
		})
		return h
	}
}

// pods starts a GET on pods in namespace ns ("" = all namespaces) that client-go tries once: it
// would otherwise retry a 429 or 5xx with Retry-After (the 504 of rule 3.4 carries Retry-After 1)
// up to 10 times, a second apart, and the suite must see the first answer.
func (h *httpTarget) pods(ns string) *rest.Request {
	r := h.client.Get().Resource("pods").MaxRetries(0)
	if ns != "" {
		r = r.Namespace(ns)
	}
	return r
}

// body returns the body of a successful answer, or the error client-go makes of a failed one.
//
// Result.Error, not DoRaw: DoRaw turns every non-2xx answer into a generic StatusError whose
// message is "unknown" (the body is JSON, not text), while Result.Error decodes the Status the
// server sent — code, reason, message, details, continue token — into the *apierrors.StatusError
// the suite compares.
func body(r rest.Result) ([]byte, error) {
	if err := r.Error(); err != nil {
		return nil, err
	}
	return r.Raw()
}

// List implements conformance.Reader.
func (h *httpTarget) List(ctx context.Context, ns string, o metav1.ListOptions) (*conformance.ListResult, error) {
	data, err := body(h.pods(ns).VersionedParams(&o, scheme.ParameterCodec).Do(ctx))
	if err != nil {
		return nil, err
	}
	var l struct {
		Metadata metav1.ListMeta   `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("list body: %w: %.200s", err, data)
	}
	res := &conformance.ListResult{ListMeta: l.Metadata, Items: make([][]byte, len(l.Items))}
	for i, it := range l.Items {
		res.Items[i] = it
	}
	return res, nil
}

// Get implements conformance.Reader.
func (h *httpTarget) Get(ctx context.Context, ns, name, resourceVersion string) ([]byte, error) {
	o := metav1.GetOptions{ResourceVersion: resourceVersion}
	return body(h.pods(ns).Name(name).VersionedParams(&o, scheme.ParameterCodec).Do(ctx))
}

// Watch implements conformance.Reader: a GET with watch=true whose body is read line by line as
// client-go's watch decoder would, but kept raw: {"type":...,"object":...} becomes a WatchEvent
// with the object's bytes (the Status for ERROR). A refused watch (400, 422, 429) is the error
// client-go's Stream makes of the Status.
func (h *httpTarget) Watch(ctx context.Context, ns string, o metav1.ListOptions) (conformance.Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	stopWithTarget := context.AfterFunc(h.life, cancel)
	req := h.pods(ns).VersionedParams(&o, scheme.ParameterCodec)
	rc, err := req.Stream(ctx)
	if err != nil {
		stopWithTarget()
		cancel()
		return nil, err
	}
	s := &httpStream{out: make(chan conformance.WatchEvent), cancel: cancel}
	h.readers.Add(1)
	go func() {
		defer h.readers.Done()
		defer stopWithTarget()
		if err := s.read(ctx, rc); err != nil {
			h.mu.Lock()
			h.broken = append(h.broken, fmt.Sprintf("GET %s: %v", req.URL(), err))
			h.mu.Unlock()
		}
	}()
	return s, nil
}

// httpStream is a watch body being read.
type httpStream struct {
	out    chan conformance.WatchEvent
	cancel context.CancelFunc
}

func (s *httpStream) Events() <-chan conformance.WatchEvent { return s.out }

// Stop cancels the request: the transport closes the body, the reader sees the error and closes
// Events.
func (s *httpStream) Stop() { s.cancel() }

// read forwards the body's events until it ends or ctx does. It returns an error only when the
// body broke while the watch was still wanted: a decode error or a truncated stream. A clean end
// of the body (the server ended the watch: a re-list, an ERROR event, the cache stopping) and any
// end after ctx is done are not errors.
func (s *httpStream) read(ctx context.Context, rc io.ReadCloser) error {
	defer close(s.out)
	defer rc.Close()
	defer s.cancel()
	dec := json.NewDecoder(rc)
	for {
		var ev struct {
			Type   watch.EventType `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case s.out <- conformance.WatchEvent{Type: ev.Type, Object: ev.Object}:
		case <-ctx.Done():
			return nil
		}
	}
}
