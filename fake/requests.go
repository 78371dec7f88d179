package fake

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/fake/internal/patch"
)

// Request is one request to a resource, as the request log keeps it.
type Request struct {
	// Verb is the apiserver's: get, list, watch, create, update, patch, delete, deletecollection.
	Verb string
	// Resource is the resource of the path; Subresource "status" and the like.
	Resource    schema.GroupResource
	Subresource string
	// Namespace and Name are the request's, as the apiserver's request attributes have them (a
	// request to /api/v1/namespaces/ns has namespace "ns" and name "ns").
	Namespace, Name string
	// FieldManager is a write's manager: its fieldManager parameter or the one derived from the
	// User-Agent; "" for reads.
	FieldManager string
	// ResourceVersion is the request's resourceVersion parameter: it tells a watch resumed from
	// the last event seen from a fresh start ("" or "0": a list or a watch-list).
	ResourceVersion string
	// Code is the answer's HTTP status (a watch's 200 is logged when its stream starts); Fault the
	// injected fault that answered or delayed it, NoFault if none.
	Code  int
	Fault Fault
	// Time is when the request arrived, on the server's clock (Options.Now).
	Time time.Time
}

// defaultRequestLog is how many requests the log keeps when Options.RequestLog is 0: enough for
// any one test's assertions (a controller test issues hundreds), small enough (≈150 bytes an
// entry) that a long-running `watchcache serve` does not grow.
const defaultRequestLog = 10000

// requestLog is the bounded log of requests. Entries are appended when their code is known.
type requestLog struct {
	mu  sync.Mutex
	max int
	// ring is the log: it grows to max entries, then each entry replaces the oldest, at next.
	// Its capacity never exceeds max, since every garbage collection scans the whole array, and
	// a write once it is full copies nothing.
	ring []Request
	next int
	// changed is closed at the next change when a WaitFor took it (watched), and then replaced:
	// requests nobody waits for cost no channel.
	changed chan struct{}
	watched bool
}

func newRequestLog(max int) *requestLog {
	if max == 0 {
		max = defaultRequestLog
	}
	return &requestLog{max: max, changed: make(chan struct{})}
}

func (l *requestLog) add(r Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watched { // WaitFor checks again, also when nothing is kept
		close(l.changed)
		l.changed, l.watched = make(chan struct{}), false
	}
	if l.max < 0 {
		return
	}
	if len(l.ring) < l.max {
		if len(l.ring) == cap(l.ring) {
			grown := make([]Request, len(l.ring), min(max(2*cap(l.ring), 64), l.max))
			copy(grown, l.ring)
			l.ring = grown
		}
		l.ring = append(l.ring, r)
		return
	}
	l.ring[l.next] = r
	l.next = (l.next + 1) % l.max
}

// snapshot returns a copy of the log and a channel closed at its next change.
func (l *requestLog) snapshot() ([]Request, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.watched = true
	var out []Request
	if len(l.ring) > 0 {
		out = make([]Request, 0, len(l.ring))
		out = append(append(out, l.ring[l.next:]...), l.ring[:l.next]...)
	}
	return out, l.changed
}

// Requests returns the request log, oldest first: every request to a resource (not discovery or
// /version) the server answered, the last Options.RequestLog of them. The slice is the caller's.
func (s *Server) Requests() []Request {
	r, _ := s.log.snapshot()
	return r
}

// ResetRequests empties the request log, e.g. after a test's setup, so that what follows is
// asserted alone.
func (s *Server) ResetRequests() {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	s.log.ring, s.log.next = nil, 0
}

// waitForPoll is how often WaitFor checks its condition besides after each logged request: state
// also changes without a request (the namespace controller's deletes), and 10 ms is below any
// test's patience and far above the cost of a check.
const waitForPoll = 10 * time.Millisecond

// WaitFor returns nil as soon as cond returns true, and ctx's error if ctx ends first. cond is
// called at once, after every logged request and every 10 ms, with the request log (a copy, as
// Requests returns it), and with no lock held, so it may read the server (Cache, ResourceVersion)
// or call clients; a cond that sends requests to the server is called again after each of them,
// so reading the caches is cheaper. It lets a test wait for a controller's write, or for a state,
// without sleeping.
func (s *Server) WaitFor(ctx context.Context, cond func(requests []Request) bool) error {
	t := time.NewTicker(waitForPoll)
	defer t.Stop()
	for {
		reqs, changed := s.log.snapshot()
		if cond(reqs) {
			return nil
		}
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ServeHTTP serves the Kubernetes API. A request to a resource is logged, then matched against the
// injected rules, then checked against the last compaction, then served by serveAPI.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := attributesOf(r)
	if !ok {
		if s.opts.EnforceRBAC && !s.enforce(w, r, a, false) {
			return
		}
		s.serveAPI(w, r)
		return
	}
	if a.Verb == "watch" && s.prepareOnWatch.Load() {
		s.fields.Prepare()
	}
	a.Time = s.opts.Now()
	rec := &recorder{ResponseWriter: w, log: s.log, req: a}
	defer rec.finish()
	if s.opts.EnforceRBAC && !s.enforce(rec, r, a, true) {
		return // a refused request is logged with its 401 or 403
	}
	var out http.ResponseWriter = rec
	if rule := s.pick(&a); rule != nil {
		rec.req.Fault = rule.Fault
		var done bool
		if out, done = s.inject(rec, r, &a, rule); done {
			return
		}
	}
	if s.compacted(out, r, &a) {
		return
	}
	s.serveAPI(out, r)
}

// queryAttributes are the parameters attributesOf reads from a request's query.
type queryAttributes struct {
	resourceVersion, watch, fieldManager string
}

// queryAttributesOf returns the parameters attributesOf reads from rawQuery, as r.URL.Query()
// parses it (Get: the first value, "" for none). A query without "resourceVersion" in it (a
// write's: client-go sends the same fieldManager and force with every one) is parsed once and
// its answer remembered (seenQueries): the answer is a function of the raw query alone. One with
// it is parsed each time, as a resourceVersion mostly differs from one request to the next.
func queryAttributesOf(rawQuery string) queryAttributes {
	if rawQuery == "" {
		return queryAttributes{}
	}
	remember := !strings.Contains(rawQuery, "resourceVersion")
	if remember {
		if qa, ok := seenQueries.get(rawQuery); ok {
			return qa
		}
	}
	q, _ := url.ParseQuery(rawQuery) // as URL.Query: what parses, whatever does not
	qa := queryAttributes{resourceVersion: q.Get("resourceVersion"), watch: q.Get("watch"), fieldManager: q.Get("fieldManager")}
	if remember {
		seenQueries.put(rawQuery, qa)
	}
	return qa
}

// querySlots bounds the queries queryMemo keeps: a few per field manager a test's clients use. A
// memo that fills up starts again empty, so that a client that varies its query costs a map's
// worth of memory at most.
const querySlots = 64

// queryMemo maps a raw query to its queryAttributes. Safe for concurrent use.
type queryMemo struct {
	mu sync.RWMutex
	m  map[string]queryAttributes
}

// seenQueries is the process's memo of queries without a resourceVersion.
var seenQueries = &queryMemo{}

// get returns the attributes kept for rawQuery.
func (m *queryMemo) get(rawQuery string) (queryAttributes, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	qa, ok := m.m[rawQuery]
	return qa, ok
}

// put keeps qa for rawQuery, emptying the memo first when it is full.
func (m *queryMemo) put(rawQuery string, qa queryAttributes) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= querySlots {
		m.m = make(map[string]queryAttributes, querySlots)
	}
	m.m[rawQuery] = qa
}

// attributesOf returns what the apiserver's request-info resolver finds in a request to a
// resource (k8s.io/apiserver endpoints/request/requestinfo.go): verb, resource, subresource,
// namespace, name; ok is false for other paths.
func attributesOf(r *http.Request) (Request, bool) {
	var buf [maxPathSegments]string
	segs := splitPath(r.URL.Path, &buf)
	var a Request
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		a.Resource.Group, segs = segs[1], segs[3:]
	default:
		return Request{}, false
	}
	watchPath := false
	if segs[0] == "watch" {
		watchPath, segs = true, segs[1:]
	}
	if len(segs) > 0 && segs[0] == "namespaces" && len(segs) > 1 {
		a.Namespace = segs[1]
		if len(segs) > 2 && segs[2] != "status" && segs[2] != "finalize" {
			segs = segs[2:]
		}
	}
	if len(segs) == 0 || segs[0] == "" {
		return Request{}, false
	}
	a.Resource.Resource = segs[0]
	if len(segs) > 1 {
		a.Name = segs[1]
	}
	if len(segs) > 2 {
		a.Subresource = strings.Join(segs[2:], "/")
	}
	q := queryAttributesOf(r.URL.RawQuery)
	a.ResourceVersion = q.resourceVersion
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch w := q.watch; {
		case watchPath || w == "1" || w == "true":
			a.Verb = "watch"
		case a.Name == "":
			a.Verb = "list"
		default:
			a.Verb = "get"
		}
	case http.MethodPost:
		a.Verb = "create"
	case http.MethodPut:
		a.Verb = "update"
	case http.MethodPatch:
		a.Verb = "patch"
	case http.MethodDelete:
		a.Verb = "delete"
		if a.Name == "" {
			a.Verb = "deletecollection"
		}
	default:
		a.Verb = strings.ToLower(r.Method)
	}
	switch a.Verb {
	case "create", "update", "patch":
		if a.FieldManager = q.fieldManager; a.FieldManager == "" {
			a.FieldManager = patch.ManagerFromUserAgent(r.UserAgent())
		}
	}
	return a, true
}

// recorder logs a request when its answer's code is known.
type recorder struct {
	http.ResponseWriter
	log    *requestLog
	req    Request
	logged bool
}

// WriteHeader logs the request with its code.
func (rec *recorder) WriteHeader(code int) {
	if !rec.logged {
		rec.logged = true
		rec.req.Code = code
		rec.log.add(rec.req)
	}
	rec.ResponseWriter.WriteHeader(code)
}

// Write logs a 200 if no code was written.
func (rec *recorder) Write(p []byte) (int, error) {
	if !rec.logged {
		rec.WriteHeader(http.StatusOK)
	}
	return rec.ResponseWriter.Write(p)
}

// finish logs a request whose handler wrote nothing (net/http answers it with a 200).
func (rec *recorder) finish() {
	if !rec.logged {
		rec.logged = true
		rec.req.Code = http.StatusOK
		rec.log.add(rec.req)
	}
}

// FlushError flushes the writer underneath (http.ResponseController calls it).
func (rec *recorder) FlushError() error {
	if !rec.logged {
		rec.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(rec.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }
