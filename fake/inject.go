package fake

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/internal/wire"
)

// Fault is what an injected Rule makes the server answer instead of the request's own answer.
type Fault int

// The faults, each answered byte for byte as kube-apiserver 1.37.2 answers it
// (reference/observed-faults.md has the recordings and, for those the apiserver could not be made
// to produce, the source they are taken from).
const (
	// NoFault answers the request normally, after the Rule's Delay.
	NoFault Fault = iota
	// Conflict is the 409 of a write with a stale resourceVersion: "Operation cannot be fulfilled
	// on <resource> "<name>": the object has been modified; please apply your changes to the latest
	// version and try again".
	Conflict
	// Expired is the 410 of the apiserver's etcd path after a compaction: for a list with a continue
	// token the "continue parameter is too old" Status with a token that continues at the latest
	// state (rv -1); a watch gets a 200 whose one event is the ERROR "The resourceVersion for the
	// provided watch is too old."; any other request "The resourceVersion for the provided list is
	// too old.".
	Expired
	// TooManyRequests is the 429 of the apiserver's in-flight and priority-and-fairness filters: the
	// text "Too many requests, please try again later." and Retry-After (Rule.RetryAfter).
	TooManyRequests
	// InternalError is a 500 InternalError, "Internal error occurred: <Rule.Message>".
	InternalError
	// ServiceUnavailable is the 503 of an apiserver that is shutting down ("apiserver is shutting
	// down", Retry-After: 1).
	ServiceUnavailable
	// Timeout is the 504 of the apiserver's request deadline ("Timeout: request did not complete
	// within the allotted timeout"), what clients see while etcd is down.
	Timeout
	// CutWatch ends a watch's stream after Rule.Events events (bookmarks are not counted), as a
	// dropped connection or an apiserver's watch timeout ends it.
	CutWatch
	// ExpireWatch sends a watch Rule.Events events, then the ERROR event of a watch whose
	// resourceVersion was compacted (410 Expired), and ends it.
	ExpireWatch
)

var faultNames = [...]string{"NoFault", "Conflict", "Expired", "TooManyRequests", "InternalError",
	"ServiceUnavailable", "Timeout", "CutWatch", "ExpireWatch"}

// String returns the constant's name.
func (f Fault) String() string {
	if f >= 0 && int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "Fault(" + strconv.Itoa(int(f)) + ")"
}

// Rule says which requests get a fault. A request matches when every non-empty field matches it;
// the zero Rule matches every request to a resource (discovery, /version and the like are never
// matched). Of the rules that match a request, the first injected that is due acts on it (see
// After); each rule counts its matches whichever acts.
type Rule struct {
	// Verbs are the apiserver's verbs: get, list, watch, create, update, patch, delete,
	// deletecollection. Empty matches all.
	Verbs []string
	// Resource is a resource's plural name, optionally with its group after a dot:
	// "configmaps", "deployments.apps". Without a group it matches the name in any group.
	Resource string
	// Subresource is "status" and the like; "" matches requests to the object or collection only
	// unless AnySubresource is set.
	Subresource    string
	AnySubresource bool
	// Namespace and Name match the request's. As in the apiserver's request attributes, a request
	// to the namespace "ns" (/api/v1/namespaces/ns) has namespace "ns" and name "ns".
	Namespace, Name string
	// FieldManager matches a write's manager: its fieldManager parameter, or the one the apiserver
	// derives from the User-Agent (the part before the first '/').
	FieldManager string

	// After lets the first After matching requests through; Times then limits the faults to Times
	// requests (0: no limit). Probability, when in (0, 1), makes each matching request past After a
	// fault with that probability, drawn from the server's fault source (seeded by Options.Seed), so
	// the same seed and the same requests in the same order give the same faults.
	After, Times int
	Probability  float64

	// Fault is the answer; Delay is waited first (also with NoFault), ending early if the request's
	// context ends.
	Fault Fault
	Delay time.Duration
	// RetryAfter is the Retry-After (seconds) of TooManyRequests: 0 means the apiserver's 1; a
	// negative value sends 0, which client-go retries at once.
	RetryAfter int
	// Message is InternalError's cause; "" means "etcdserver: leader changed".
	Message string
	// Events is how many events CutWatch and ExpireWatch let through first.
	Events int
}

// Injection is an injected Rule. Its methods are safe for concurrent use; Remove may be called more
// than once.
type Injection struct {
	s    *Server
	rule Rule
	gr   schema.GroupResource
	// Guarded by s.faultMu.
	matched, applied int
	removed          bool
}

// Remove takes the rule out: requests that arrive afterwards are not matched by it.
func (in *Injection) Remove() {
	in.s.faultMu.Lock()
	defer in.s.faultMu.Unlock()
	in.removed = true
	in.s.rules = slices.DeleteFunc(in.s.rules, func(x *Injection) bool { return x == in })
}

// Faults returns how many requests the rule has acted on so far.
func (in *Injection) Faults() int {
	in.s.faultMu.Lock()
	defer in.s.faultMu.Unlock()
	return in.applied
}

// Inject adds a rule. Rules act from the next request on; a request already being served is not
// affected. Safe for concurrent use with requests and with other calls of Inject and Remove.
func (s *Server) Inject(r Rule) *Injection {
	in := &Injection{s: s, rule: r}
	in.rule.Verbs = slices.Clone(r.Verbs)
	if res, group, ok := strings.Cut(r.Resource, "."); ok {
		in.gr = schema.GroupResource{Group: group, Resource: res}
	} else {
		in.gr = schema.GroupResource{Group: "\x00any", Resource: r.Resource}
	}
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.rules = append(s.rules, in)
	return in
}

// matches reports whether the rule's selectors match a request.
func (in *Injection) matches(a *Request) bool {
	r := &in.rule
	switch {
	case len(r.Verbs) > 0 && !slices.Contains(r.Verbs, a.Verb):
	case r.Resource != "" && (in.gr.Resource != a.Resource.Resource || (in.gr.Group != "\x00any" && in.gr.Group != a.Resource.Group)):
	case !r.AnySubresource && r.Subresource != a.Subresource:
	case r.Namespace != "" && r.Namespace != a.Namespace:
	case r.Name != "" && r.Name != a.Name:
	case r.FieldManager != "" && r.FieldManager != a.FieldManager:
	default:
		return true
	}
	return false
}

// pick returns the rule that acts on a request, or nil. Every rule counts the requests it matches
// (After counts matches, also those an earlier rule acted on, so that rules are independent;
// Times counts the rule's faults); the first rule, in injection order, that is past its After, not
// out of Times and wins its draw acts.
func (s *Server) pick(a *Request) *Rule {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	var chosen *Rule
	for _, in := range s.rules {
		r := &in.rule
		if !in.matches(a) || ((r.Fault == CutWatch || r.Fault == ExpireWatch) && a.Verb != "watch") {
			continue // a fault of streams counts no other request
		}
		in.matched++
		if chosen != nil || in.matched <= r.After || (r.Times > 0 && in.applied >= r.Times) {
			continue
		}
		if r.Probability > 0 && r.Probability < 1 && s.faultRand.Float64() >= r.Probability {
			continue
		}
		in.applied++
		rule := *r
		chosen = &rule
	}
	return chosen
}

// newFaultRand is the fault source of a server: its own stream, so that faults drawn do not shift
// the uids and names the server generates.
func newFaultRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x6661756c7473)) // "faults"
}

// inject serves a request a rule acts on; it reports false when the request is to be served
// normally (NoFault after its delay, or a watch fault that wraps w: the returned writer).
func (s *Server) inject(w http.ResponseWriter, r *http.Request, a *Request, rule *Rule) (http.ResponseWriter, bool) {
	if rule.Delay > 0 {
		t := time.NewTimer(rule.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return w, true // the client is gone; nobody reads an answer
		}
	}
	switch rule.Fault {
	case Conflict:
		writeError(w, apierrors.NewConflict(a.Resource, a.Name,
			errors.New("the object has been modified; please apply your changes to the latest version and try again")))
	case Expired:
		if a.Verb == "watch" {
			return &watchCutter{ResponseWriter: w, events: 0, expire: true}, false
		}
		writeError(w, expiredError(r))
	case TooManyRequests:
		// http.Error, as the apiserver's filters answer: text, not a Status.
		after := rule.RetryAfter
		switch {
		case after == 0:
			after = 1
		case after < 0:
			after = 0
		}
		w.Header().Set("Retry-After", strconv.Itoa(after))
		http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
	case InternalError:
		msg := rule.Message
		if msg == "" {
			msg = "etcdserver: leader changed"
		}
		writeError(w, apierrors.NewInternalError(errors.New(msg)))
	case ServiceUnavailable:
		writeShuttingDown(w)
	case Timeout:
		writeTimeout(w)
	case CutWatch, ExpireWatch:
		return &watchCutter{ResponseWriter: w, events: rule.Events, expire: rule.Fault == ExpireWatch}, false
	default:
		return w, false
	}
	return w, true
}

// expiredError is the etcd path's 410 for a list (or get) whose resourceVersion or continue token
// was compacted (k8s.io/apiserver storage/etcd3/errors.go; reference/observed-faults.md).
func expiredError(r *http.Request) error {
	if tok := r.URL.Query().Get("continue"); tok != "" {
		if _, start, ok := decodeToken(tok); ok {
			st := apierrors.NewResourceExpired(msgInconsistentContinue)
			st.ErrStatus.ListMeta.Continue = inconsistentToken(start)
			return st
		}
	}
	return apierrors.NewResourceExpired(msgListExpired)
}

// The etcd path's messages of a compacted revision, verbatim.
const (
	msgListExpired          = "The resourceVersion for the provided list is too old."
	msgWatchExpired         = "The resourceVersion for the provided watch is too old."
	msgInconsistentContinue = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response " +
		"to retrieve the remainder of the results. Continuing with the provided token results in an " +
		"inconsistent list - objects that were created, modified, or deleted between the time the first " +
		"chunk was returned and now may show up in the list."
)

// writeShuttingDown answers as the apiserver's request wait group does once its shutdown has begun
// (k8s.io/apiserver server/filters/waitgroup.go): the Status encoded by the legacy codec (which
// ends it with a newline) and printed with Fprintln, so the body ends with two.
func writeShuttingDown(w http.ResponseWriter) {
	h := w.Header()
	h.Add("Retry-After", "1")
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503}` + "\n\n"))
}

// writeTimeout answers as the apiserver's timeout filter does when a request outlives its
// deadline (reference/observed-faults.md: the Status without kind and apiVersion, as text).
func writeTimeout(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusGatewayTimeout)
	_, _ = w.Write([]byte(`{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}` + "\n"))
}

// watchExpiredEvent is the event the etcd path sends a watch whose revision was compacted.
var watchExpiredEvent = []byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` +
	msgWatchExpired + `","reason":"Expired","code":410}}` + "\n")

// watchExpiredFrame is watchExpiredEvent in a protobuf watch stream.
var watchExpiredFrame = wire.AppendWatchFrame(nil, "ERROR", wire.Status(&metav1.Status{
	Status: metav1.StatusFailure, Message: msgWatchExpired, Reason: metav1.StatusReasonExpired, Code: http.StatusGone}))

// errWatchCut is what a cut watch's writes return, so that the read path ends the stream.
var errWatchCut = errors.New("fake: watch cut by an injected fault")

// watchCutter passes a watch's stream through until it has carried events events (one JSON line
// each, or one length-prefixed frame in protobuf; bookmarks are not counted, as their timing is
// not the test's), then writes the expired ERROR event if asked and fails every later write,
// which ends the stream.
type watchCutter struct {
	http.ResponseWriter
	events int
	expire bool

	mu       sync.Mutex
	seen     int
	cut      bool
	lineHead []byte // the start of the current line, enough to tell a bookmark
	ok       bool   // the stream started (a 200): only then is it cut
	// protobuf: the stream is protobuf frames; left is what remains of the current frame
	// (-1 while its length prefix is read, then its body's bytes).
	protobuf bool
	left     int
}

var bookmarkPrefix = []byte(`{"type":"BOOKMARK"`)

// WriteHeader passes the code on; a stream cut before its first event is cut here.
func (c *watchCutter) WriteHeader(code int) {
	c.ResponseWriter.WriteHeader(code)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ok = code == http.StatusOK
	c.protobuf = strings.HasPrefix(c.ResponseWriter.Header().Get("Content-Type"), wire.MediaProtobuf)
	c.left = -1
	if c.ok && c.events <= 0 {
		c.cutLocked()
	}
}

// Write passes the stream on up to the end of the event that is the last let through.
func (c *watchCutter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return 0, errWatchCut
	}
	if !c.ok {
		return c.ResponseWriter.Write(p)
	}
	if c.protobuf {
		return c.writeFrames(p)
	}
	for i, b := range p {
		if len(c.lineHead) < len(bookmarkPrefix) {
			c.lineHead = append(c.lineHead, b)
		}
		if b != '\n' {
			continue
		}
		if !startsWith(c.lineHead, bookmarkPrefix) {
			c.seen++
		}
		c.lineHead = c.lineHead[:0]
		if c.seen >= c.events {
			n, err := c.ResponseWriter.Write(p[:i+1])
			if err != nil {
				return n, err
			}
			c.cutLocked()
			return n, errWatchCut
		}
	}
	return c.ResponseWriter.Write(p)
}

// bookmarkFrame is how a BOOKMARK's frame body begins: the WatchEvent's type, field 1.
var bookmarkFrame = []byte("\x0a\x08BOOKMARK")

// writeFrames is Write for a protobuf stream: it follows the frames' length prefixes.
func (c *watchCutter) writeFrames(p []byte) (int, error) {
	for i := 0; i < len(p); {
		if c.left < 0 { // reading the 4-byte length, then the start of the body
			c.lineHead = append(c.lineHead, p[i])
			i++
			if len(c.lineHead) == 4 {
				c.left = int(binary.BigEndian.Uint32(c.lineHead))
			}
			continue
		}
		n := min(c.left, len(p)-i)
		if head := len(c.lineHead) - 4; head < len(bookmarkFrame) {
			c.lineHead = append(c.lineHead, p[i:i+min(n, len(bookmarkFrame)-head)]...)
		}
		c.left -= n
		i += n
		if c.left > 0 {
			continue
		}
		if !startsWith(c.lineHead[4:], bookmarkFrame) {
			c.seen++
		}
		c.lineHead, c.left = c.lineHead[:0], -1
		if c.seen >= c.events {
			w, err := c.ResponseWriter.Write(p[:i])
			if err != nil {
				return w, err
			}
			c.cutLocked()
			return w, errWatchCut
		}
	}
	return c.ResponseWriter.Write(p)
}

func startsWith(b, prefix []byte) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == string(prefix)
}

// cutLocked ends the stream: the ERROR event if asked, flushed to the client.
func (c *watchCutter) cutLocked() {
	c.cut = true
	if c.expire && c.protobuf {
		_, _ = c.ResponseWriter.Write(watchExpiredFrame)
	} else if c.expire {
		_, _ = c.ResponseWriter.Write(watchExpiredEvent)
	}
	_ = http.NewResponseController(c.ResponseWriter).Flush()
}

// FlushError flushes the stream, or fails once it is cut (http.ResponseController calls it).
func (c *watchCutter) FlushError() error {
	c.mu.Lock()
	cut := c.cut
	c.mu.Unlock()
	if cut {
		return errWatchCut
	}
	return http.NewResponseController(c.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (c *watchCutter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// InjectFault is Inject for callers that do not import this package, such as the conformance
// suite's fault section (conformance.Injector): fault is a Fault's name ("Conflict",
// "TooManyRequests", ...), and the rule matches the verb on the resource, for times requests
// (0: no limit), letting events watch events through for CutWatch and ExpireWatch, after delay.
// remove takes the rule out. An unknown fault name is an error.
func (s *Server) InjectFault(fault, verb, resource string, times, events int, delay time.Duration) (remove func(), err error) {
	i := slices.Index(faultNames[:], fault)
	if i < 0 {
		return nil, fmt.Errorf("fake: unknown fault %q", fault)
	}
	in := s.Inject(Rule{Verbs: []string{verb}, Resource: resource, Times: times, Events: events, Delay: delay, Fault: Fault(i)})
	return in.Remove, nil
}
