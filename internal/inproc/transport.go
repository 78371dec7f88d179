package inproc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
)

// RemoteAddr is the r.RemoteAddr a handler sees: a loopback client, as on the listener, with port
// 0 since no connection has a port.
const RemoteAddr = "127.0.0.1:0"

// defaultUserAgent is what net/http's client sends when a request has no User-Agent header.
const defaultUserAgent = "Go-http-client/1.1"

// Transport serves requests to one host with a handler, in process.
//
// Concurrency: RoundTrip may be called from any number of goroutines; each request's handler runs
// in the goroutine of its RoundTrip, or in one of its own when it may stream (Streams), so the
// handler must be safe for concurrent use, as with net/http's server. The fields must not change
// after the first RoundTrip, and a Transport must not be copied.
type Transport struct {
	handler http.Handler
	host    string
	// Logger receives the panics of handlers (Error, with the stack), as net/http's server logs
	// them; nil discards them. Set it before the first RoundTrip.
	Logger *slog.Logger
	// Streams reports whether the handler may flush its answer to a request before it returns
	// (a watch); it is given the handler's request. Such a request is served in a goroutine of
	// its own, and RoundTrip returns at the first flush. Any other is served in the caller's
	// goroutine, which spares a goroutine's start, its stack's growth and the wake-up of the
	// caller (a tenth of a small write's CPU); a flush there sends nothing before the handler
	// returns, so a handler that flushes and then waits for its client must be reported here.
	// Nil reports every request. Set it before the first RoundTrip.
	Streams func(*http.Request) bool
	closed  atomic.Bool
}

// New returns a Transport that serves the requests to host (the host:port of their URL, scheme
// http) with h.
func New(h http.Handler, host string) *Transport {
	return &Transport{handler: h, host: host}
}

// Close makes later requests fail, as a closed listener refuses connections; requests in flight
// go on.
func (t *Transport) Close() { t.closed.Store(true) }

// RoundTrip serves req with the handler. It returns when the handler has returned or flushed;
// the body of a flushed answer is written by the handler while the caller reads it. A request to
// another host than the Transport's fails: the Transport reaches one server only.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.check(req); err != nil {
		closeBody(req)
		return nil, err
	}
	ctx, cancel := context.WithCancel(req.Context())
	sr, err := serverRequest(ctx, req)
	if err != nil {
		cancel()
		closeBody(req)
		return nil, err
	}
	if t.Streams != nil && !t.Streams(sr) {
		w := newResponseWriter(req, sr, cancel, true)
		t.serve(w, sr, req)
		if err := req.Context().Err(); err != nil && w.resp != nil {
			_ = w.resp.Body.Close() // the client gave up before the answer, as on a socket
			return nil, gaveUp(req)
		}
		return w.resp, w.err
	}
	w := newResponseWriter(req, sr, cancel, false)
	go t.serve(w, sr, req)
	select {
	case <-w.ready:
		return w.resp, w.err
	case <-req.Context().Done():
		if !w.abandon() && w.resp != nil {
			_ = w.resp.Body.Close() // handed over meanwhile
		}
		return nil, gaveUp(req)
	}
}

// gaveUp is RoundTrip's error when the request's context ends before the answer.
func gaveUp(req *http.Request) error {
	return fmt.Errorf("inproc: %s %s: %w", req.Method, req.URL.Redacted(), context.Cause(req.Context()))
}

// check refuses a request the Transport does not serve.
func (t *Transport) check(req *http.Request) error {
	switch {
	case req.URL == nil:
		return fmt.Errorf("inproc: request without a URL")
	case t.closed.Load():
		return fmt.Errorf("inproc: %s %s: server closed", req.Method, req.URL.Redacted())
	case req.URL.Scheme != "http" || req.URL.Host != t.host:
		return fmt.Errorf("inproc: %s %s: this transport serves http://%s only", req.Method, req.URL.Redacted(), t.host)
	}
	return nil
}

// serve runs the handler and hands its answer over, also when it panics.
func (t *Transport) serve(w *responseWriter, sr, req *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler && t.Logger != nil {
				t.Logger.Error("panic serving request", slog.String("method", sr.Method), slog.String("uri", sr.RequestURI),
					slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			}
			w.fail(fmt.Errorf("inproc: %s %s: handler panicked: %v", sr.Method, sr.RequestURI, p))
		} else {
			w.finish()
		}
		w.cancel()
		closeBody(req)
	}()
	t.handler.ServeHTTP(w, sr)
}

// serverRequest is req as net/http's server would hand it to a handler after a net/http client
// sent it: the URL of the request line (path and query), RequestURI, Host, a loopback RemoteAddr,
// HTTP/1.1, the headers the client's transport writes (Content-Length, a default User-Agent; not
// Host, which is r.Host) and a body that is never nil and ends at ContentLength. The header map is
// a copy, so a handler that edits it leaves the caller's request alone.
//
// Unlike net/http's client it adds no Accept-Encoding: gzip, so that a handler never compresses
// what the caller would then have to decompress: the caller reads the same bytes either way. A
// body of unknown length (ContentLength 0 with a body) is sent as chunked, without net/http's
// probe for an empty one.
func serverRequest(ctx context.Context, req *http.Request) (*http.Request, error) {
	uri := req.URL.RequestURI()
	u, err := requestURL(req.URL, uri)
	if err != nil {
		return nil, fmt.Errorf("inproc: %s %s: %w", req.Method, req.URL.Redacted(), err)
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	// The values in one array, with room for the two the transport adds: one allocation
	// instead of one per header.
	n := 2
	for _, v := range req.Header {
		n += len(v)
	}
	values := make([]string, 0, n)
	h := make(http.Header, len(req.Header)+2)
	add := func(k string, v ...string) {
		if prev := h[k]; prev != nil {
			h[k] = append(prev, v...) // another spelling of a key already copied: a new array
			return
		}
		start := len(values)
		values = append(values, v...)
		h[k] = values[start:len(values):len(values)]
	}
	for k, v := range req.Header {
		if len(v) == 0 {
			continue
		}
		ck := http.CanonicalHeaderKey(k)
		switch ck {
		case "Host", "Content-Length", "Transfer-Encoding":
			continue // the transport writes these itself
		}
		add(ck, v...)
	}
	switch ua, ok := req.Header["User-Agent"]; {
	case !ok:
		add("User-Agent", defaultUserAgent)
	case len(ua) == 0 || ua[0] == "":
		delete(h, "User-Agent") // net/http's client sends none
	}
	sr := &http.Request{
		Method:     method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Host:       host,
		RemoteAddr: RemoteAddr,
		RequestURI: uri,
		Body:       http.NoBody,
	}
	switch n := req.ContentLength; {
	case req.Body != nil && req.Body != http.NoBody && n > 0:
		add("Content-Length", strconv.FormatInt(n, 10))
		sr.ContentLength = n
		sr.Body = &requestBody{r: io.LimitReader(req.Body, n)}
	case req.Body != nil && req.Body != http.NoBody:
		sr.ContentLength = -1
		sr.TransferEncoding = []string{"chunked"}
		sr.Body = &requestBody{r: req.Body}
	case method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch:
		add("Content-Length", "0") // as net/http's client sends it for these methods
	}
	return sr.WithContext(ctx), nil
}

// requestURL is the URL net/http's server parses from the request line uri of a client's URL c:
// the path and query only. A plain path (one the client did not escape its own way) is copied,
// since parsing its escaped form gives it back, and a parse would cost a sixth of the transport's
// time; any other URL is parsed as the server would.
func requestURL(c *url.URL, uri string) (*url.URL, error) {
	if c.Opaque == "" && c.RawPath == "" && !c.ForceQuery && strings.HasPrefix(c.Path, "/") {
		return &url.URL{Path: c.Path, RawQuery: c.RawQuery}, nil
	}
	return url.ParseRequestURI(uri)
}

// requestBody is the handler's view of the client's body: closing it does not close the client's,
// which RoundTrip closes once the handler has returned, as it must.
type requestBody struct {
	r      io.Reader
	closed bool
}

func (b *requestBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.r.Read(p)
}

func (b *requestBody) Close() error {
	b.closed = true
	return nil
}

// closeBody closes the client's request body, which a RoundTripper must close in every case.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}
