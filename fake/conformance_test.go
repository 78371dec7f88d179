package fake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/conformance"
	"github.com/watchcache/watchcache/fake"
)

// TestConformanceWrites runs the conformance suite's write section against the fake through
// client-go.
func TestConformanceWrites(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	conformance.RunWrites(t, func(conformance.TB) *rest.Config { return srv.Config() })
}

// TestConformanceWritesOracle runs the write section against a real kube-apiserver
// (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN), which proves the rules right. W6 needs
// kube-controller-manager's namespace controller: set WATCHCACHE_ORACLE_KCM=1 when the oracle runs
// one (KCM=1 start.sh).
func TestConformanceWritesOracle(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set")
	}
	var skip []string
	if os.Getenv("WATCHCACHE_ORACLE_KCM") == "" {
		skip = append(skip, "W6.")
	}
	conformance.RunWrites(t, func(conformance.TB) *rest.Config {
		return &rest.Config{Host: base, BearerToken: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), QPS: -1,
			TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	}, skip...)
}

// mutation is a broken server: the fake behind a handler that breaks one rule, with the rules
// that must then fail.
type mutation struct {
	name   string
	break_ func(next http.Handler) http.Handler
	fails  []string
	// mayFail are rules that fail or pass by a race the mutation opens.
	mayFail []string
}

// mutationPatience is how long the mutation tests' rules wait for the fake's controllers, which
// finish in milliseconds; a rule the mutation breaks costs this much.
const mutationPatience = 500 * time.Millisecond

// rewriteJSON returns a middleware that rewrites JSON bodies of requests with the method.
func rewriteJSON(method string, f func(obj map[string]any)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == method && r.Body != nil {
				b, _ := io.ReadAll(r.Body)
				var obj map[string]any
				if json.Unmarshal(b, &obj) == nil {
					f(obj)
					b, _ = json.Marshal(obj)
				}
				r.Body = io.NopCloser(bytes.NewReader(b))
				r.ContentLength = int64(len(b))
			}
			next.ServeHTTP(w, r)
		})
	}
}

func metadataOf(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		obj["metadata"] = m
	}
	return m
}

// dropWarnings removes the Warning headers of every answer.
type dropWarnings struct{ http.ResponseWriter }

func (d dropWarnings) WriteHeader(code int) {
	d.Header().Del("Warning")
	d.ResponseWriter.WriteHeader(code)
}

func (d dropWarnings) Unwrap() http.ResponseWriter { return d.ResponseWriter }

func (d dropWarnings) Flush() { http.NewResponseController(d.ResponseWriter).Flush() }

func (d dropWarnings) Write(b []byte) (int, error) {
	d.Header().Del("Warning")
	return d.ResponseWriter.Write(b)
}

var mutations = []mutation{
	{"ignores a stale resourceVersion", rewriteJSON(http.MethodPut, func(o map[string]any) { delete(metadataOf(o), "resourceVersion") }),
		[]string{"W2.1/update at a stale resourceVersion is 409 Conflict", "W4.2/concurrent conditional updates of one object are atomic",
			// The custom resource's update has no resourceVersion left, which a CRD's strategy refuses.
			"W7.5/a status write leaves spec and generation; a spec write bumps generation"}, nil},
	{"drops finalizers", rewriteJSON(http.MethodPost, func(o map[string]any) { delete(metadataOf(o), "finalizers") }),
		[]string{"W3.3/finalizers keep a deleted object until the last one is removed",
			"W6.3/Foreground marks the owner, deletes its dependents and waits for those with blockOwnerDeletion",
			"W6.4/Foreground does not wait for dependents without blockOwnerDeletion",
			"W6.10/Foreground goes down a chain: an owner waits for its dependent's own dependents",
			"W6.9/a terminating namespace reports its remaining content and finalizers in its conditions"}, []string{
			// Without its content's finalizer the namespace may be gone before the rule reads it.
			"W1.6/create in a terminating namespace is 403"}},
	{"names generateName objects itself", rewriteJSON(http.MethodPost, func(o map[string]any) {
		if m := metadataOf(o); m["generateName"] != nil && m["name"] == nil {
			m["name"] = fmt.Sprintf("%vaaaaa", m["generateName"])
		}
	}), []string{"W1.3/generateName appends 5 random characters"}, nil},
	{"sends no warnings", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(dropWarnings{w}, r) })
	}, []string{"W1.8/fieldValidation Strict rejects unknown fields, Warn warns, Ignore drops them",
		"W6.6/jobs and replicationcontrollers orphan by default, with a warning for jobs; deployments do not",
		"W7.3/unknown fields are pruned with a warning; defaults are applied"}, nil},
	{"ignores field selectors", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			q.Del("fieldSelector")
			r.URL.RawQuery = q.Encode()
			next.ServeHTTP(w, r)
		})
	}, []string{"W7.4/a selectable field selects; other fields are refused"}, nil},
}

// TestConformanceWritesMutations proves the write section can fail: against each broken server,
// the rules it breaks fail and no other does.
func TestConformanceWritesMutations(t *testing.T) {
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			h, err := fake.NewHandler(fake.Options{})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(m.break_(h))
			t.Cleanup(func() { h.Close(); hs.CloseClientConnections(); hs.Close() })
			rec := &recorder{name: "root"}
			conformance.RunWritesWith(rec, func(conformance.TB) *rest.Config {
				// JSON bodies, so that the broken server can rewrite them.
				return &rest.Config{Host: hs.URL, QPS: -1, ContentConfig: rest.ContentConfig{ContentType: "application/json"}}
			}, conformance.WriteOptions{ControllerPatience: mutationPatience})
			failed := rec.failures()
			for _, want := range m.fails {
				if _, ok := failed[want]; !ok {
					t.Errorf("%s did not fail", want)
				}
				delete(failed, want)
			}
			for _, may := range m.mayFail {
				delete(failed, may)
			}
			for name, msg := range failed {
				t.Errorf("%s failed too: %s", name, msg)
			}
		})
	}
}

// recorder is a conformance.TB that records failures instead of reporting them.
type recorder struct {
	name   string
	parent *recorder

	mu       sync.Mutex
	failed   bool
	msgs     []string
	cleanups []func()
	subs     []*recorder
}

func (r *recorder) Helper() {}
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Errorf(format string, args ...any) {
	r.Logf(format, args...)
	for p := r; p != nil; p = p.parent {
		p.mu.Lock()
		p.failed = true
		p.mu.Unlock()
	}
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}
func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// Run runs f on its own goroutine (Fatalf ends only it), then its cleanups.
func (r *recorder) Run(name string, f func(conformance.TB)) bool {
	c := &recorder{name: name, parent: r}
	r.mu.Lock()
	r.subs = append(r.subs, c)
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			for i := len(c.cleanups) - 1; i >= 0; i-- {
				c.cleanups[i]()
			}
		}()
		f(c)
	}()
	<-done
	return !c.Failed()
}

// failures maps each failed subtest to its messages.
func (r *recorder) failures() map[string]string {
	out := map[string]string{}
	for _, s := range r.subs {
		if s.Failed() {
			out[s.name] = strings.Join(s.msgs, "; ")
		}
	}
	return out
}

// TestConformanceControllersMutations proves the controllers' rules can fail: a fake with one
// controller switched off fails exactly that controller's rules.
func TestConformanceControllersMutations(t *testing.T) {
	gc := []string{
		"W6.2/Background deletes the owner at once and its dependents after it, in every resource",
		"W6.3/Foreground marks the owner, deletes its dependents and waits for those with blockOwnerDeletion",
		"W6.4/Foreground does not wait for dependents without blockOwnerDeletion",
		"W6.5/Orphan removes the owner's references from its dependents, then the owner",
		"W6.6/jobs and replicationcontrollers orphan by default, with a warning for jobs; deployments do not",
		"W6.7/a cluster-scoped owner's namespaced and cluster-scoped dependents are collected",
		"W6.8/dependents whose owners are all absent are collected; references to absent owners are removed",
		"W6.10/Foreground goes down a chain: an owner waits for its dependent's own dependents",
	}
	namespaces := []string{
		"W6.1/a deleted namespace goes once its content has gone",
		"W6.9/a terminating namespace reports its remaining content and finalizers in its conditions",
	}
	for _, c := range []struct {
		name  string
		opts  fake.Options
		fails []string
	}{
		{"no garbage collector", fake.Options{NoGarbageCollector: true}, gc},
		{"no namespace controller", fake.Options{NoNamespaceController: true}, namespaces},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := fake.NewTest(t, c.opts)
			rec := &recorder{name: "root"}
			conformance.RunWritesWith(rec, func(conformance.TB) *rest.Config { return srv.Config() },
				conformance.WriteOptions{Skip: []string{"W1.", "W2.", "W3.", "W4.", "W5."}, ControllerPatience: mutationPatience})
			failed := rec.failures()
			for _, want := range c.fails {
				if _, ok := failed[want]; !ok {
					t.Errorf("%s did not fail", want)
				}
				delete(failed, want)
			}
			for name, msg := range failed {
				t.Errorf("%s failed too: %s", name, msg)
			}
		})
	}
}
