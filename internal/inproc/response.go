package inproc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// bufferBeforeChunking is how much of a body net/http's server holds before it sends the headers:
// an answer that fits and is complete when the handler returns gets a Content-Length, a longer or
// flushed one is chunked. The same rule gives the same headers.
const bufferBeforeChunking = 2048

// sniffLen is how much of a body http.DetectContentType reads.
const sniffLen = 512

// errClientGone is what a handler's write gets once the client closed the body or its context
// ended, as a write to a closed connection fails.
var errClientGone = errors.New("inproc: client went away")

// responseWriter collects what the handler writes, and hands the response over to RoundTrip when
// the handler flushes or returns.
//
// The handler's goroutine is the only writer (as with net/http's ResponseWriter, which is not
// safe for concurrent use); mu orders the hand-over against a RoundTrip that gave up waiting.
type responseWriter struct {
	req    *http.Request // the client's
	head   bool          // a HEAD request: the body is counted, not kept
	cancel func()        // ends the handler's context
	// inline: the handler runs in RoundTrip's goroutine, so nothing is handed over before it
	// returns; flushed is the body's length at its first flush then (-1: none), which makes the
	// answer chunked and its type sniffed from what was flushed, as on a socket.
	inline  bool
	flushed int

	header http.Header // the handler's; a copy of it is sent, made at WriteHeader
	sent   http.Header // the headers as of WriteHeader; nil before
	spare  []string    // room for the values response adds to sent
	status int
	// clen is the Content-Length the handler set (-1 for none); written counts the body.
	clen    int64
	written int64
	buf     bytes.Buffer

	mu     sync.Mutex
	handed bool // the response is in resp (or err), ready is closed
	gone   bool // RoundTrip returned without it: writes fail
	pipe   *pipe
	ready  chan struct{} // nil when inline
	resp   *http.Response
	err    error
}

func newResponseWriter(req, sr *http.Request, cancel func(), inline bool) *responseWriter {
	w := &responseWriter{req: req, head: sr.Method == http.MethodHead, cancel: cancel, inline: inline, flushed: -1, clen: -1}
	if !inline {
		w.ready = make(chan struct{})
	}
	return w
}

// Header returns the headers to send; once they are sent (WriteHeader), changes to it are
// ignored, as with net/http's server.
func (w *responseWriter) Header() http.Header {
	if w.header == nil {
		w.header = make(http.Header)
	}
	return w.header
}

// WriteHeader sends the status and a copy of the headers; a second call is ignored. Informational
// codes (1xx) are not the answer and are dropped, since a client of RoundTrip cannot see them.
func (w *responseWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code)) // as net/http's server
	}
	if w.sent != nil || (code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols) {
		return
	}
	w.status = code
	w.sent, w.spare = cloneHeader(w.Header()) // the handler keeps its map, whose later changes are not sent
	if v := w.sent.Get("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			w.clen = n
		} else {
			w.sent.Del("Content-Length") // net/http's server drops an invalid one
		}
	}
}

// Write adds to the body: to the buffer until the response is handed over, then to the stream.
func (w *responseWriter) Write(p []byte) (int, error) {
	if w.sent == nil {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	w.written += int64(len(p))
	if w.clen >= 0 && w.written > w.clen {
		return 0, http.ErrContentLength
	}
	if w.head {
		if n := min(len(p), sniffLen-w.buf.Len()); n > 0 {
			w.buf.Write(p[:n]) // only to sniff the Content-Type, as net/http's server does for HEAD
		}
		return len(p), nil
	}
	switch {
	case w.pipe != nil:
		return w.pipe.write(p)
	case w.inline:
		return w.buf.Write(p)
	}
	w.mu.Lock()
	handed, gone := w.handed, w.gone
	w.mu.Unlock()
	switch {
	case gone:
		return 0, errClientGone
	case !handed:
		return w.buf.Write(p)
	}
	return len(p), nil // handed over without a stream: its Content-Length was 0
}

// FlushError hands the response over, headers and the body so far, and streams the rest; it
// fails once the client went away. http.ResponseController calls it.
func (w *responseWriter) FlushError() error {
	if w.sent == nil {
		w.WriteHeader(http.StatusOK)
	}
	if w.inline {
		if w.flushed < 0 {
			w.flushed = w.buf.Len()
		}
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gone {
		return errClientGone
	}
	if !w.handed {
		w.handOverLocked(false, nil)
	}
	if w.pipe != nil {
		return w.pipe.writeErr()
	}
	return nil
}

// Flush implements http.Flusher for handlers that type-assert it.
func (w *responseWriter) Flush() { _ = w.FlushError() }

// finish ends the response when the handler returns: the whole buffered answer is handed over,
// or the stream ends.
func (w *responseWriter) finish() {
	if w.sent == nil {
		w.WriteHeader(http.StatusOK)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.handed {
		w.handOverLocked(true, nil)
	}
	if w.pipe != nil {
		w.pipe.closeWrite(io.EOF)
	}
}

// fail ends the response of a handler that panicked: RoundTrip returns err if nothing was handed
// over, else the stream breaks with it, as a connection net/http's server closes after a panic.
func (w *responseWriter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.handed {
		w.handOverLocked(true, err)
	}
	if w.pipe != nil {
		w.pipe.closeWrite(fmt.Errorf("%w: %w", io.ErrUnexpectedEOF, err))
	}
}

// abandon marks the response as unwanted when RoundTrip gives up before the hand-over; it is false
// when the response was handed over already.
func (w *responseWriter) abandon() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.handed {
		return false
	}
	w.gone = true
	return true
}

// handOverLocked builds the client's response (or error) and wakes RoundTrip. done says the
// handler has returned, so the buffer is the whole body; otherwise the rest streams.
func (w *responseWriter) handOverLocked(done bool, err error) {
	w.handed = true
	if w.ready != nil {
		defer close(w.ready)
	}
	if err != nil || w.gone {
		w.err = err
		return
	}
	resp, streams := w.response(done)
	if streams {
		w.pipe = newPipe(w.req.Context(), w.buf.Bytes(), w.cancel)
		resp.Body = w.pipe
	} else if resp.Body == nil {
		resp.Body = &bufferedBody{b: w.buf.Bytes()}
	}
	w.resp = resp
}

// response is the answer as a net/http client reads it from a net/http server (the server's
// chunkWriter.writeHeader and the client's readTransfer): Date added, Content-Type sniffed,
// Content-Length set for a short complete body, chunked otherwise, headers a bodiless status may
// not have removed. streams says the body is to come from the handler.
func (w *responseWriter) response(done bool) (resp *http.Response, streams bool) {
	code, h := w.status, w.sent
	if _, ok := h["Date"]; !ok {
		h["Date"] = w.value(httpDate())
	}
	for k, v := range h {
		if len(v) == 0 {
			delete(h, k) // nothing to send: a nil value suppresses a header net/http's server adds
		}
	}
	te := h.Get("Transfer-Encoding")
	hasTE := te != ""
	allowed := bodyAllowed(code)
	clen := w.clen
	sniff := w.buf.Bytes()
	if w.flushed >= 0 {
		sniff = sniff[:min(w.flushed, len(sniff))]
	}
	if _, has := h["Content-Length"]; done && w.flushed < 0 && !hasTE && allowed && !has && (!w.head || w.written > 0) && w.written <= bufferBeforeChunking {
		clen = w.written
		h["Content-Length"] = w.value(strconv.FormatInt(clen, 10))
	}
	if allowed {
		if _, haveType := h["Content-Type"]; !haveType && !hasTE && h.Get("Content-Encoding") == "" && len(sniff) > 0 {
			h["Content-Type"] = w.value(http.DetectContentType(sniff))
		}
	} else {
		delete(h, "Content-Length")
		delete(h, "Transfer-Encoding")
		if code == http.StatusNotModified {
			delete(h, "Content-Type")
		}
	}
	resp = &http.Response{
		Status:     statusLine(code),
		StatusCode: code,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Request:    w.req,
	}
	switch {
	case w.head:
		resp.ContentLength, resp.Body = -1, http.NoBody
		if clen >= 0 {
			resp.ContentLength = clen
		}
		delete(h, "Transfer-Encoding")
		return resp, false
	case !allowed:
		resp.Body = http.NoBody
		return resp, false
	case clen >= 0:
		delete(h, "Transfer-Encoding")
		resp.ContentLength = clen
		if clen == 0 {
			resp.Body = http.NoBody
			return resp, false
		}
	default:
		delete(h, "Transfer-Encoding") // the client takes it out of the headers
		resp.ContentLength = -1
		if te != "identity" {
			resp.TransferEncoding = []string{"chunked"}
		}
	}
	return resp, !done
}

// value is a header value of one string, in the spare room of the sent headers' values when
// there is some.
func (w *responseWriter) value(v string) []string {
	if len(w.spare) == 0 {
		return []string{v}
	}
	out := w.spare[:1:1]
	out[0], w.spare = v, w.spare[1:]
	return out
}

// addedHeaders is how many headers response adds at most: Date, Content-Length, Content-Type.
const addedHeaders = 3

// cloneHeader is h.Clone with room for the headers response adds, so that adding them does not
// grow the map, and spare, room in the values' array for theirs.
func cloneHeader(h http.Header) (out http.Header, spare []string) {
	n := 0
	for _, v := range h {
		n += len(v)
	}
	values := make([]string, n+addedHeaders)
	spare = values[n:]
	out = make(http.Header, len(h)+addedHeaders)
	for k, v := range h {
		if v == nil {
			out[k] = nil // a nil value suppresses the header, as in net/http
			continue
		}
		n = copy(values, v)
		out[k] = values[:n:n]
		values = values[n:]
	}
	return out, spare
}

// date is the last Date header made: the time in whole seconds, and its text.
type date struct {
	unix int64
	text string
}

var lastDate atomic.Pointer[date]

// httpDate is the Date header of now. Its text is made once a second, since it changes no more
// often and formatting it is a tenth of the transport's own time.
func httpDate() string {
	now := time.Now()
	if d := lastDate.Load(); d != nil && d.unix == now.Unix() {
		return d.text
	}
	d := &date{unix: now.Unix(), text: now.UTC().Format(http.TimeFormat)}
	lastDate.Store(d)
	return d.text
}

// bodyAllowed is false for the statuses without a body: 1xx, 204 and 304.
func bodyAllowed(code int) bool {
	return (code < 100 || code > 199) && code != http.StatusNoContent && code != http.StatusNotModified
}

// statusLines are the Status of each code net/http names, made once.
var statusLines = func() map[int]string {
	m := map[int]string{}
	for code := 100; code < 600; code++ {
		if t := http.StatusText(code); t != "" {
			m[code] = strconv.Itoa(code) + " " + t
		}
	}
	return m
}()

// statusLine is a response's Status: the code and net/http's reason phrase.
func statusLine(code int) string {
	if s, ok := statusLines[code]; ok {
		return s
	}
	return strconv.Itoa(code) + " " + statusText(code)
}

// statusText is the reason phrase net/http's server writes.
func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "status code " + strconv.Itoa(code)
}
