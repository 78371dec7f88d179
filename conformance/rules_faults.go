package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The fault section (F1): what a client sees when the server misbehaves as a real cluster does
// — a conflict, an expired continue token, throttling, 5xx answers, a slow answer, a watch that
// ends or expires, a compaction — each answer as kube-apiserver 1.37.2 gives it
// (reference/observed-faults.md, section named in each rule). A real apiserver cannot be made to
// produce these on demand, so the section runs only against a server that offers injection (an
// Injector, which the writable fake's Server is); without one every rule skips.

// Injector is what a server under test offers when faults can be injected into it.
type Injector interface {
	// InjectFault makes requests of verb ("get", "list", "watch", "update", ...) on resource
	// ("configmaps") answer with the named fault — Conflict, Expired, TooManyRequests
	// (Retry-After: 1), InternalError, ServiceUnavailable, Timeout, CutWatch, ExpireWatch, or
	// NoFault (the answer itself, after delay) — for times requests (0: until removed); the
	// watch faults let events events through first. remove takes the rule out.
	InjectFault(fault, verb, resource string, times, events int, delay time.Duration) (remove func(), err error)
	// Compact makes every resourceVersion before the current one compacted, as etcd's compaction
	// does; it returns the current one.
	Compact() uint64
}

// faultRule is one subtest of the fault section.
type faultRule struct {
	name string
	test func(f *faultEnv)
}

// faultEnv is one fault rule's client, namespace and injector.
type faultEnv struct {
	*writeEnv
	inj Injector
	cfg *rest.Config
}

// RunFaults runs the fault section: each rule gets a Config and the server's Injector from
// newTarget, and works in a namespace of its own through client-go. A nil Injector skips the rule.
func RunFaults(t TB, newTarget func(t TB) (*rest.Config, Injector)) {
	for i, r := range faultRules() {
		run(t, r.name, func(t TB) {
			cfg, inj := newTarget(t)
			if inj == nil {
				skip(t, "the server under test offers no fault injection")
				return
			}
			cfg = rest.CopyConfig(cfg)
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatalf("client: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t.Cleanup(cancel)
			w := &writeEnv{t: t, cs: cs, ctx: ctx, ns: fmt.Sprintf("fl-%d-%d", i, time.Now().UnixNano()%1_000_000), warnings: &warningRecorder{}}
			if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create namespace %s: %v", w.ns, err)
			}
			r.test(&faultEnv{writeEnv: w, inj: inj, cfg: cfg})
		})
	}
}

// FaultRules returns the names of the fault section's subtests, in the order RunFaults runs them.
func FaultRules() []string {
	var out []string
	for _, r := range faultRules() {
		out = append(out, r.name)
	}
	return out
}

// skip ends a subtest as skipped where the TB can (a *testing.T), and as passed otherwise.
func skip(t TB, why string) {
	if s, ok := t.(interface{ Skip(args ...any) }); ok {
		s.Skip(why)
	}
	t.Logf("skipped: %s", why)
}

// inject injects a fault for the rest of the rule.
func (f *faultEnv) inject(fault, verb string, times, events int, delay time.Duration) {
	f.t.Helper()
	remove, err := f.inj.InjectFault(fault, verb, "configmaps", times, events, delay)
	if err != nil {
		f.t.Fatalf("inject %s on %s: %v", fault, verb, err)
	}
	f.t.Cleanup(remove)
}

// raw GETs a path with the rule's credentials and no client-go retries, for the headers and bodies
// client-go hides.
func (f *faultEnv) raw(path string) (int, http.Header, string) {
	f.t.Helper()
	rt, err := rest.TransportFor(f.cfg)
	if err != nil {
		f.t.Fatalf("transport: %v", err)
	}
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, strings.TrimSuffix(f.cfg.Host, "/")+path, nil)
	if err != nil {
		f.t.Fatalf("request: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		f.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// watchEvents watches configmaps from rv and returns the events until the stream ends (or 5 s).
func (f *faultEnv) watchEvents(rv string) []watch.Event {
	f.t.Helper()
	wi, err := f.cs.CoreV1().ConfigMaps(f.ns).Watch(f.ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		f.t.Fatalf("watch from %s: %v", rv, err)
	}
	defer wi.Stop()
	var out []watch.Event
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			f.t.Errorf("watch from %s: still open after 5s with %d events: want the stream ended", rv, len(out))
			return out
		}
	}
}

const (
	conflictMessage         = `Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again`
	inconsistentContinueMsg = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response " +
		"to retrieve the remainder of the results. Continuing with the provided token results in an " +
		"inconsistent list - objects that were created, modified, or deleted between the time the first " +
		"chunk was returned and now may show up in the list."
	listExpiredMessage  = "The resourceVersion for the provided list is too old."
	watchExpiredMessage = "The resourceVersion for the provided watch is too old."
)

func faultRules() []faultRule {
	return []faultRule{
		{"F1.1/a conflict is 409 Conflict with the stale-resourceVersion message; the retry passes", func(f *faultEnv) {
			// observed-faults.md: 409 Conflict.
			cm := f.createCM("c")
			f.inject("Conflict", "update", 1, 0, 0)
			cm.Data = map[string]string{"k": "v"}
			_, err := f.cs.CoreV1().ConfigMaps(f.ns).Update(f.ctx, cm, metav1.UpdateOptions{})
			f.wantStatus(err, http.StatusConflict, metav1.StatusReasonConflict, conflictMessage)
			if _, err := f.cs.CoreV1().ConfigMaps(f.ns).Update(f.ctx, cm, metav1.UpdateOptions{}); err != nil {
				f.t.Errorf("update after the conflict: %v", err)
			}
		}},
		{"F1.2/an expired continue token is 410 Expired with a token that continues at the latest state", func(f *faultEnv) {
			// observed-faults.md: Compaction, the etcd path (continue with the old token).
			for _, n := range []string{"a", "b", "c"} {
				f.createCM(n)
			}
			page, err := f.cs.CoreV1().ConfigMaps(f.ns).List(f.ctx, metav1.ListOptions{Limit: 1})
			if err != nil || page.Continue == "" {
				f.t.Fatalf("first page: %v (continue %q)", err, page.Continue)
			}
			f.inject("Expired", "list", 1, 0, 0)
			_, err = f.cs.CoreV1().ConfigMaps(f.ns).List(f.ctx, metav1.ListOptions{Limit: 1, Continue: page.Continue})
			st := f.wantStatus(err, http.StatusGone, metav1.StatusReasonExpired, inconsistentContinueMsg)
			if st == nil || st.ListMeta.Continue == "" {
				f.t.Fatalf("410 without a continue token: %+v", st)
			}
			if tok := f.token(st.ListMeta.Continue); tok.RV != -1 {
				f.t.Errorf("new token %+v: want rv -1 (the latest state)", tok)
			}
			rest, err := f.cs.CoreV1().ConfigMaps(f.ns).List(f.ctx, metav1.ListOptions{Limit: 5, Continue: st.ListMeta.Continue})
			if err != nil || len(rest.Items) != 2 {
				f.t.Errorf("continuing with the new token: %v, %d items, want the 2 after the first page", err, len(rest.Items))
			}
		}},
		{"F1.3/429 carries Retry-After; client-go waits it out and retries", func(f *faultEnv) {
			// observed-faults.md: 429 Too Many Requests (text body, Retry-After: 1).
			f.createCM("c")
			f.inject("TooManyRequests", "get", 1, 0, 0)
			code, h, body := f.raw("/api/v1/namespaces/" + f.ns + "/configmaps/c")
			if code != http.StatusTooManyRequests || h.Get("Retry-After") != "1" || body != "Too many requests, please try again later.\n" ||
				h.Get("Content-Type") != "text/plain; charset=utf-8" {
				f.t.Errorf("answer %d %q %q %q: want 429, text, Retry-After: 1", code, h.Get("Content-Type"), h.Get("Retry-After"), body)
			}
			f.inject("TooManyRequests", "get", 1, 0, 0)
			start := time.Now()
			if _, err := f.cs.CoreV1().ConfigMaps(f.ns).Get(f.ctx, "c", metav1.GetOptions{}); err != nil {
				f.t.Errorf("get through one 429: %v: want client-go's retry to pass", err)
			}
			if d := time.Since(start); d < time.Second {
				f.t.Errorf("get through one 429 took %v: want the Retry-After second waited", d)
			}
		}},
		{"F1.4/500, 503 and 504 are the apiserver's Status answers; 503's Retry-After is retried", func(f *faultEnv) {
			// observed-faults.md: 500 and 503 (from the source), 504 Timeout.
			f.createCM("c")
			get := func() error {
				_, err := f.cs.CoreV1().ConfigMaps(f.ns).Get(f.ctx, "c", metav1.GetOptions{})
				return err
			}
			f.inject("InternalError", "get", 1, 0, 0)
			f.wantStatus(get(), http.StatusInternalServerError, metav1.StatusReasonInternalError, "Internal error occurred: etcdserver: leader changed")
			// The 504's body is a Status as text/plain, which client-go does not decode: it reports
			// its own message for the code.
			f.inject("Timeout", "get", 1, 0, 0)
			code, h, body := f.raw("/api/v1/namespaces/" + f.ns + "/configmaps/c")
			if code != http.StatusGatewayTimeout || h.Get("Content-Type") != "text/plain; charset=utf-8" ||
				body != `{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}`+"\n" {
				f.t.Errorf("504 answer %d %q %q", code, h.Get("Content-Type"), body)
			}
			f.inject("Timeout", "get", 1, 0, 0)
			f.wantStatus(get(), http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
				"the server was unable to return a response in the time allotted, but may still be processing the request (get configmaps c)")
			f.inject("ServiceUnavailable", "get", 1, 0, 0)
			code, h, body = f.raw("/api/v1/namespaces/" + f.ns + "/configmaps/c")
			if code != http.StatusServiceUnavailable || h.Get("Retry-After") != "1" ||
				body != `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503}`+"\n\n" {
				f.t.Errorf("503 answer %d %q %q", code, h.Get("Retry-After"), body)
			}
			f.inject("ServiceUnavailable", "get", 1, 0, 0)
			if err := get(); err != nil {
				f.t.Errorf("get through one 503 with Retry-After: %v: want client-go's retry to pass", err)
			}
		}},
		{"F1.5/a delayed answer arrives late, and a client deadline ends the wait", func(f *faultEnv) {
			f.createCM("c")
			f.inject("NoFault", "get", 0, 0, 300*time.Millisecond)
			start := time.Now()
			if _, err := f.cs.CoreV1().ConfigMaps(f.ns).Get(f.ctx, "c", metav1.GetOptions{}); err != nil {
				f.t.Errorf("delayed get: %v", err)
			}
			if d := time.Since(start); d < 300*time.Millisecond {
				f.t.Errorf("delayed get took %v: want at least the 300ms delay", d)
			}
			ctx, cancel := context.WithTimeout(f.ctx, 50*time.Millisecond)
			defer cancel()
			_, err := f.cs.CoreV1().ConfigMaps(f.ns).Get(ctx, "c", metav1.GetOptions{})
			if !errors.Is(err, context.DeadlineExceeded) {
				f.t.Errorf("get with a 50ms deadline: %v: want context.DeadlineExceeded", err)
			}
		}},
		{"F1.6/a cut watch ends after N events without an error event", func(f *faultEnv) {
			rv := f.createCM("a").ResourceVersion
			f.createCM("b")
			f.createCM("c")
			f.createCM("d")
			f.inject("CutWatch", "watch", 1, 2, 0)
			evs := f.watchEvents(rv)
			if len(evs) != 2 || evs[0].Type != watch.Added || evs[1].Type != watch.Added {
				f.t.Errorf("events %v: want 2 ADDED, then the stream's end", eventTypes(evs))
			}
		}},
		{"F1.7/an expired watch sends N events, then the 410 ERROR event, and ends", func(f *faultEnv) {
			// observed-faults.md: Compaction, the etcd path (the watch's one ERROR event).
			rv := f.createCM("a").ResourceVersion
			f.createCM("b")
			f.createCM("c")
			f.inject("ExpireWatch", "watch", 1, 1, 0)
			evs := f.watchEvents(rv)
			if len(evs) != 2 || evs[0].Type != watch.Added || evs[1].Type != watch.Error {
				f.t.Fatalf("events %v: want ADDED, then ERROR", eventTypes(evs))
			}
			f.wantStatus(apierrors.FromObject(evs[1].Object), http.StatusGone, metav1.StatusReasonExpired, watchExpiredMessage)
		}},
		{"F1.8/after a compaction, old continue tokens, exact lists and watches are 410; gets and current reads are not", func(f *faultEnv) {
			// observed-faults.md: Compaction, the etcd path.
			for _, n := range []string{"a", "b", "c"} {
				f.createCM(n)
			}
			page, err := f.cs.CoreV1().ConfigMaps(f.ns).List(f.ctx, metav1.ListOptions{Limit: 1})
			if err != nil || page.Continue == "" {
				f.t.Fatalf("first page: %v", err)
			}
			// etcd watches from the revision after the one asked for, so a watch from R-1 survives a
			// compaction at R: two writes put the page's revision below that.
			f.createCM("d")
			f.createCM("e")
			f.inj.Compact()
			_, err = f.cs.CoreV1().ConfigMaps(f.ns).List(f.ctx, metav1.ListOptions{Limit: 1, Continue: page.Continue})
			f.wantStatus(err, http.StatusGone, metav1.StatusReasonExpired, inconsistentContinueMsg)
			_, err = f.cs.CoreV1().ConfigMaps(f.ns).List(f.ctx, metav1.ListOptions{ResourceVersion: page.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
			f.wantStatus(err, http.StatusGone, metav1.StatusReasonExpired, listExpiredMessage)
			evs := f.watchEvents(page.ResourceVersion)
			if len(evs) != 1 || evs[0].Type != watch.Error {
				f.t.Fatalf("watch from before the compaction: events %v, want one ERROR", eventTypes(evs))
			}
			f.wantStatus(apierrors.FromObject(evs[0].Object), http.StatusGone, metav1.StatusReasonExpired, watchExpiredMessage)
			if _, err := f.cs.CoreV1().ConfigMaps(f.ns).Get(f.ctx, "a", metav1.GetOptions{ResourceVersion: page.ResourceVersion}); err != nil {
				f.t.Errorf("get at the old resourceVersion: %v, want the object", err)
			}
			l, err := f.cs.CoreV1().ConfigMaps(f.ns).List(f.ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil || len(l.Items) != 5 {
				f.t.Errorf("list at resourceVersion 0: %v, %d items, want 5", err, len(l.Items))
			}
		}},
	}
}

func eventTypes(evs []watch.Event) []watch.EventType {
	out := make([]watch.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// token decodes a continue token for the rule's checks.
func (f *faultEnv) token(s string) Token {
	f.t.Helper()
	tok, err := DecodeToken(s)
	if err != nil {
		f.t.Fatalf("continue token %q: %v", s, err)
	}
	return tok
}
