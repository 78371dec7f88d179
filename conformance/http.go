package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// HTTPReader is a Reader that asks a Kubernetes API server over HTTP through client-go's REST
// client: every read is a GET with the metav1.ListOptions encoded by client-go's parameter codec,
// and every answer is the raw body, so that a server's read path runs the suite as a client sees
// it. Pair it with a Writer that feeds the server's caches.
//
// Safe for concurrent use. It ends every watch it still reads, and closes its connections, when
// t's cleanup runs.
type HTTPReader struct {
	client rest.Interface
	life   context.Context

	readers sync.WaitGroup
	mu      sync.Mutex
	broken  []string
}

// NewHTTPReader returns a Reader of the pods of the server cfg names. It has its own transport
// (cfg.Transport is replaced), closed at t's cleanup, after which any watch body that broke while
// it was wanted fails t.
func NewHTTPReader(t TB, cfg *rest.Config) (*HTTPReader, error) {
	cfg = rest.CopyConfig(cfg)
	tr := &http.Transport{}
	cfg.Transport = tr
	// QPS -1: no client-side rate limit (the suite makes hundreds of requests).
	cfg.QPS = -1
	client, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("conformance: client: %w", err)
	}
	life, end := context.WithCancel(context.Background())
	h := &HTTPReader{client: client.RESTClient(), life: life}
	t.Cleanup(func() {
		end()
		h.readers.Wait()
		tr.CloseIdleConnections()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, b := range h.broken {
			t.Errorf("watch body: %s", b)
		}
	})
	return h, nil
}

// pods starts a GET that client-go tries once (it would retry a 504 with Retry-After).
func (h *HTTPReader) pods(ns string) *rest.Request {
	r := h.client.Get().Resource("pods").MaxRetries(0)
	if ns != "" {
		r = r.Namespace(ns)
	}
	return r
}

// body returns the body of a successful answer, or the error client-go decodes from the Status.
func body(r rest.Result) ([]byte, error) {
	if err := r.Error(); err != nil {
		return nil, err
	}
	return r.Raw()
}

// List implements Reader.
func (h *HTTPReader) List(ctx context.Context, ns string, o metav1.ListOptions) (*ListResult, error) {
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
	res := &ListResult{ListMeta: l.Metadata, Items: make([][]byte, len(l.Items))}
	for i, it := range l.Items {
		res.Items[i] = it
	}
	return res, nil
}

// Get implements Reader.
func (h *HTTPReader) Get(ctx context.Context, ns, name, resourceVersion string) ([]byte, error) {
	o := metav1.GetOptions{ResourceVersion: resourceVersion}
	return body(h.pods(ns).Name(name).VersionedParams(&o, scheme.ParameterCodec).Do(ctx))
}

// Watch implements Reader: the body is read line by line and kept raw.
func (h *HTTPReader) Watch(ctx context.Context, ns string, o metav1.ListOptions) (Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	stopWithReader := context.AfterFunc(h.life, cancel)
	req := h.pods(ns).VersionedParams(&o, scheme.ParameterCodec)
	rc, err := req.Stream(ctx)
	if err != nil {
		stopWithReader()
		cancel()
		return nil, err
	}
	s := &httpStream{out: make(chan WatchEvent), cancel: cancel}
	h.readers.Add(1)
	go func() {
		defer h.readers.Done()
		defer stopWithReader()
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
	out    chan WatchEvent
	cancel context.CancelFunc
}

func (s *httpStream) Events() <-chan WatchEvent { return s.out }
func (s *httpStream) Stop()                     { s.cancel() }

// read forwards the body's events until it ends or ctx does; it returns an error only when the
// body broke while the watch was still wanted.
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
		case s.out <- WatchEvent{Type: ev.Type, Object: ev.Object}:
		case <-ctx.Done():
			return nil
		}
	}
}
