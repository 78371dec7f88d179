package inproc_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/watchcache/watchcache/internal/inproc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// seen is what a handler saw of its request.
type seen struct {
	Method, URL, RequestURI, Host, Proto string
	ContentLength                        int64
	TransferEncoding                     []string
	Header                               http.Header
	Body                                 string
	Loopback, TLS                        bool
}

// answer is what a client got, Date's value left out (it is the time of the answer).
type answer struct {
	Status           string
	StatusCode       int
	Proto            string
	Header           http.Header
	ContentLength    int64
	TransferEncoding []string
	Body             string
	HasDate          bool
}

// modes are the in-process ways of serving a request: in a goroutine of its own (streams), or in
// the caller's (inline).
var modes = []struct {
	name    string
	streams func(*http.Request) bool
}{{"goroutine", nil}, {"inline", func(*http.Request) bool { return false }}}

// each serves one request with h over a loopback socket and then in process in each mode, and
// returns what the handler saw and what the client got each time, the socket's first.
func each(t *testing.T, h http.HandlerFunc, newReq func(base string) *http.Request) [][2]any {
	t.Helper()
	var mu sync.Mutex
	var got seen
	record := func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		host, _, _ := strings.Cut(r.RemoteAddr, ":")
		mu.Lock()
		got = seen{Method: r.Method, URL: r.URL.String(), RequestURI: r.RequestURI, Host: r.Host, Proto: r.Proto,
			ContentLength: r.ContentLength, TransferEncoding: r.TransferEncoding, Header: r.Header.Clone(),
			Body: string(body), Loopback: net.ParseIP(host).IsLoopback(), TLS: r.TLS != nil}
		mu.Unlock()
		h(w, r)
	}
	srv := httptest.NewServer(http.HandlerFunc(record))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	u, _ := url.Parse(srv.URL)
	run := func(c *http.Client) [2]any {
		resp, err := c.Do(newReq(srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		_, hasDate := resp.Header["Date"]
		hdr := resp.Header.Clone()
		delete(hdr, "Date")
		mu.Lock()
		defer mu.Unlock()
		// net/http's client with compression off sends no Accept-Encoding, as this transport does.
		return [2]any{got, answer{resp.Status, resp.StatusCode, resp.Proto, hdr, resp.ContentLength, resp.TransferEncoding, string(body), hasDate}}
	}
	out := [][2]any{run(client)}
	for _, m := range modes {
		tr := inproc.New(srv.Config.Handler, u.Host)
		tr.Streams = m.streams
		out = append(out, run(&http.Client{Transport: tr}))
	}
	return out
}

func TestSameAsSocket(t *testing.T) {
	long := strings.Repeat("x", 5000)
	get := func(path string) func(string) *http.Request {
		return func(base string) *http.Request {
			r, _ := http.NewRequest(http.MethodGet, base+path, nil)
			return r
		}
	}
	with := func(method, path, body string, hdr ...string) func(string) *http.Request {
		return func(base string) *http.Request {
			var rd io.Reader
			if body != "" {
				rd = strings.NewReader(body)
			}
			r, _ := http.NewRequest(method, base+path, rd)
			for i := 0; i+1 < len(hdr); i += 2 {
				r.Header[hdr[i]] = append(r.Header[hdr[i]], hdr[i+1])
			}
			return r
		}
	}
	cases := []struct {
		name string
		h    http.HandlerFunc
		req  func(base string) *http.Request
	}{
		{"sniffed text", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") }, get("/a")},
		{"sniffed html", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "<html><body>x") }, get("/a")},
		{"json created", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"a":1}`)
		}, with(http.MethodPost, "/api/v1/namespaces/default/configmaps?fieldManager=m", `{"metadata":{"name":"x"}}`, "Content-Type", "application/json")},
		{"empty", func(w http.ResponseWriter, r *http.Request) {}, get("/")},
		{"2048 bytes", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, long[:2048]) }, get("/")},
		{"2049 bytes: chunked", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, long[:2049]) }, get("/")},
		{"long, in pieces", func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < 5; i++ {
				_, _ = io.WriteString(w, long[:1000])
			}
		}, get("/")},
		{"own Content-Length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "5000")
			_, _ = io.WriteString(w, long)
		}, get("/")},
		{"no content", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNoContent)
			if _, err := io.WriteString(w, "x"); !errors.Is(err, http.ErrBodyNotAllowed) {
				panic("write to a 204 did not fail")
			}
		}, with(http.MethodDelete, "/x", "")},
		{"not modified", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", "10")
			w.WriteHeader(http.StatusNotModified)
		}, get("/")},
		{"head, short", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") }, with(http.MethodHead, "/", "")},
		{"head, long", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, long) }, with(http.MethodHead, "/", "")},
		{"head, nothing", func(w http.ResponseWriter, r *http.Request) {}, with(http.MethodHead, "/", "")},
		{"warnings, retry-after, 429", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Warning", `299 - "first"`)
			w.Header().Add("Warning", `299 - "second"`)
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"kind":"Status"}`)
		}, get("/")},
		{"headers after WriteHeader are kept, not sent", func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusAccepted)
			h.Set("X-Late", "1")
			w.Header().Set("X-Later", "1")
			_, _ = io.WriteString(w, w.Header().Get("Content-Type")) // the handler still reads its headers
		}, get("/")},
		{"no Date", func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Date"] = nil
			w.Header()["X-Empty"] = []string{}
		}, get("/")},
		{"path built by the client", func(w http.ResponseWriter, r *http.Request) {}, func(base string) *http.Request {
			u, _ := url.Parse(base)
			u.Path, u.RawQuery = "/a b/ü/c", "x=1&y=%2F"
			return &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
		}},
		{"own Date", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Date", "Mon, 02 Jan 2006 15:04:05 GMT")
		}, get("/")},
		{"chunked set by the handler", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Transfer-Encoding", "chunked")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, "{}\n")
		}, get("/")},
		{"flushed", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "a\n")
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "b\n")
		}, get("/")},
		{"flushed, type sniffed from what was flushed", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "plain ")
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "<html>")
		}, get("/")},
		{"flushed before any write", func(w http.ResponseWriter, r *http.Request) {
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "<html>")
		}, get("/")},
		{"unknown status", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(599) }, get("/")},
		{"escaped path and query", func(w http.ResponseWriter, r *http.Request) {}, get("/api/v1/namespaces/a%2Fb/configmaps?labelSelector=a%3Db&limit=2")},
		{"put with headers", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) },
			with(http.MethodPut, "/x", "body", "Authorization", "Bearer t", "Impersonate-User", "u", "x-lower", "v", "User-Agent", "me/1.0")},
		{"patch", func(w http.ResponseWriter, r *http.Request) {}, with(http.MethodPatch, "/x", `{"a":1}`, "Content-Type", "application/merge-patch+json")},
		{"post without a body", func(w http.ResponseWriter, r *http.Request) {}, with(http.MethodPost, "/x", "")},
		{"empty User-Agent", func(w http.ResponseWriter, r *http.Request) {}, with(http.MethodGet, "/x", "", "User-Agent", "")},
		{"body of unknown length", func(w http.ResponseWriter, r *http.Request) {}, func(base string) *http.Request {
			r, _ := http.NewRequest(http.MethodPost, base+"/x", io.NopCloser(strings.NewReader("abc")))
			return r
		}},
		{"body not read", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadRequest) }, with(http.MethodPost, "/x", long)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := each(t, c.h, c.req)
			for m, in := range got[1:] {
				for i, what := range []string{"the handler saw", "the client got"} {
					if !reflect.DeepEqual(got[0][i], in[i]) {
						t.Errorf("%s, %s\n socket:     %+v\n in process: %+v", modes[m].name, what, got[0][i], in[i])
					}
				}
			}
		})
	}
}

// TestStream: a flushed answer reaches the client at the flush, the handler's later writes as
// they are flushed, and closing the body or ending the request's context ends the handler's
// context, its writes failing.
func TestStream(t *testing.T) {
	for _, end := range []string{"close", "cancel"} {
		t.Run(end, func(t *testing.T) {
			next, ended := make(chan struct{}), make(chan error, 1)
			tr := inproc.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rc := http.NewResponseController(w)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, "first\n")
				_ = rc.Flush()
				<-next
				_, _ = io.WriteString(w, "second\n")
				_ = rc.Flush()
				<-r.Context().Done()
				var err error
				for err == nil { // a write to a client that went away fails
					_, err = io.WriteString(w, "more\n")
					if err == nil {
						err = rc.Flush()
					}
				}
				ended <- err
			}), "h")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://h/watch", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.ContentLength != -1 || !reflect.DeepEqual(resp.TransferEncoding, []string{"chunked"}) || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("streamed answer: length %d, transfer encoding %v, headers %v", resp.ContentLength, resp.TransferEncoding, resp.Header)
			}
			br := bufio.NewReader(resp.Body)
			if line, err := br.ReadString('\n'); line != "first\n" {
				t.Fatalf("first line %q, %v", line, err)
			}
			close(next)
			if line, err := br.ReadString('\n'); line != "second\n" {
				t.Fatalf("second line %q, %v", line, err)
			}
			if end == "close" {
				_ = resp.Body.Close()
			} else {
				cancel()
			}
			select {
			case err := <-ended:
				if err == nil {
					t.Error("the handler's write after the end did not fail")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the handler did not end")
			}
			if _, err := io.ReadAll(br); err == nil {
				t.Error("reading the body after its end: no error")
			} else if end == "cancel" && !errors.Is(err, context.Canceled) {
				t.Errorf("reading after cancel: %v, want context.Canceled", err)
			}
			_ = resp.Body.Close()
		})
	}
}

// TestCancelBeforeAnswer: RoundTrip returns the context's error when it ends before the handler
// answers, and the handler's context ends with it.
func TestCancelBeforeAnswer(t *testing.T) {
	release, done := make(chan struct{}), make(chan error)
	tr := inproc.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		<-release
		_, _ = io.WriteString(w, "late")
		done <- http.NewResponseController(w).Flush()
	}), "h")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://h/", nil)
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("RoundTrip: %v, want the deadline", err)
	}
	close(release)
	if err := <-done; err == nil {
		t.Error("the handler's flush after RoundTrip gave up did not fail")
	}
}

// TestCancelInline: a request served inline whose context ends before the handler returns fails
// with the context's error, as the handler's context ends with it.
func TestCancelInline(t *testing.T) {
	tr := inproc.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		_, _ = io.WriteString(w, "late")
	}), "h")
	tr.Streams = func(*http.Request) bool { return false }
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://h/", nil)
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("RoundTrip: %v, want the deadline", err)
	}
}

// TestPanic: a handler's panic is an error of RoundTrip before the answer (always, inline), a
// broken body after.
func TestPanic(t *testing.T) {
	for _, c := range []struct {
		name   string
		flush  bool
		value  any
		inline bool
	}{{"before", false, "boom", false}, {"after", true, "boom", false}, {"abort", false, http.ErrAbortHandler, false}, {"inline", true, "boom", true}} {
		t.Run(c.name, func(t *testing.T) {
			tr := inproc.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, "part")
				if c.flush {
					w.(http.Flusher).Flush()
				}
				panic(c.value)
			}), "h")
			if c.inline {
				tr.Streams = func(*http.Request) bool { return false }
			}
			req, _ := http.NewRequest(http.MethodGet, "http://h/", strings.NewReader("x"))
			resp, err := tr.RoundTrip(req)
			if !c.flush || c.inline {
				if err == nil || resp != nil {
					t.Fatalf("RoundTrip: %v, %v; want an error", resp, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if string(b) != "part" || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("body %q, %v; want the part written and an unexpected EOF", b, err)
			}
		})
	}
}

// closeRecorder is a request body that records its Close.
type closeRecorder struct {
	io.Reader
	closed chan struct{}
}

func (c *closeRecorder) Close() error { close(c.closed); return nil }

// TestRefused: requests to another host, and after Close, fail; their bodies are closed.
func TestRefused(t *testing.T) {
	tr := inproc.New(http.NotFoundHandler(), "h:1")
	for _, u := range []string{"http://other:1/", "https://h:1/"} {
		body := &closeRecorder{strings.NewReader("x"), make(chan struct{})}
		req, _ := http.NewRequest(http.MethodPost, u, body)
		if _, err := tr.RoundTrip(req); err == nil {
			t.Errorf("%s: no error", u)
		}
		<-body.closed
	}
	body := &closeRecorder{strings.NewReader("x"), make(chan struct{})}
	req, _ := http.NewRequest(http.MethodPost, "http://h:1/", body)
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("%v %v", resp, err)
	}
	<-body.closed // closed by the transport once the handler returned
	tr.Close()
	req, _ = http.NewRequest(http.MethodGet, "http://h:1/", nil)
	if _, err := tr.RoundTrip(req); err == nil {
		t.Error("after Close: no error")
	}
}

// TestSlowReader: a stream holds what the handler writes ahead of a reader that has not read yet,
// as a socket's buffers do, so the handler is not held back by it.
func TestSlowReader(t *testing.T) {
	wrote := make(chan struct{})
	tr := inproc.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		for range 1000 {
			_, _ = io.WriteString(w, strings.Repeat("e", 100)+"\n")
			w.(http.Flusher).Flush()
		}
		close(wrote)
	}), "h")
	req, _ := http.NewRequest(http.MethodGet, "http://h/", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	select {
	case <-wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler waited for the reader")
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || len(b) != 101_000 {
		t.Fatalf("read %d bytes, %v", len(b), err)
	}
}

// TestHeaderCopy checks that the handler's header values, which share one array, are its own:
// adding to one header changes neither the next one's values nor the caller's request.
func TestHeaderCopy(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys := []string{"A", "B", "C", "User-Agent", "Content-Length"}
		for _, k := range keys {
			r.Header.Add(k, "added")
		}
		for _, k := range keys {
			if v := r.Header.Values(k); len(v) < 2 || v[len(v)-1] != "added" || v[0] == "added" {
				t.Errorf("header %s after adding to each: %q", k, v)
			}
		}
		for i := range r.Header["A"] {
			r.Header["A"][i] = "changed"
		}
		if got := r.Header.Get("B"); got != "b1" {
			t.Errorf("B after changing A's values: %q", got)
		}
	})
	tr := inproc.New(h, "h.invalid")
	tr.Streams = func(*http.Request) bool { return false }
	req, err := http.NewRequest("POST", "http://h.invalid/x", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = http.Header{"A": {"a1", "a2"}, "B": {"b1"}, "c": {"c1"}}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if want := (http.Header{"A": {"a1", "a2"}, "B": {"b1"}, "c": {"c1"}}); !reflect.DeepEqual(req.Header, want) {
		t.Errorf("the caller's headers became %v", req.Header)
	}
}
