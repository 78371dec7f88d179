package fake_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/conformance"
	"github.com/watchcache/watchcache/fake"
)

// The fake's Server is the conformance suite's Injector.
var _ conformance.Injector = (*fake.Server)(nil)

// TestConformanceFaults runs the conformance suite's fault section against the fake.
func TestConformanceFaults(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	conformance.RunFaults(t, func(conformance.TB) (*rest.Config, conformance.Injector) { return srv.Config(), srv })
}

// TestConformanceFaultsOracle runs the fault section against a real kube-apiserver
// (WATCHCACHE_ORACLE_URL), which offers no injection: every rule skips, which shows the section
// asks nothing of a server it cannot break.
func TestConformanceFaultsOracle(t *testing.T) {
	base := os.Getenv("WATCHCACHE_ORACLE_URL")
	if base == "" {
		t.Skip("WATCHCACHE_ORACLE_URL is not set")
	}
	conformance.RunFaults(t, func(conformance.TB) (*rest.Config, conformance.Injector) {
		return &rest.Config{Host: base, BearerToken: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), QPS: -1,
			TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, nil
	})
}

// brokenInjector is an Injector that misbehaves as inject and compact say.
type brokenInjector struct {
	srv     *fake.Server
	inject  func(srv *fake.Server, fault, verb, resource string, times, events int, delay time.Duration) (func(), error)
	compact func(srv *fake.Server) uint64
}

func (b brokenInjector) InjectFault(fault, verb, resource string, times, events int, delay time.Duration) (func(), error) {
	if b.inject == nil {
		return b.srv.InjectFault(fault, verb, resource, times, events, delay)
	}
	return b.inject(b.srv, fault, verb, resource, times, events, delay)
}

func (b brokenInjector) Compact() uint64 {
	if b.compact == nil {
		return b.srv.Compact()
	}
	return b.compact(b.srv)
}

// faultMutation is a broken server for the fault section, and the rules that must then fail.
type faultMutation struct {
	name    string
	broken  brokenInjector
	handler func(http.Handler) http.Handler
	fails   []string
}

var faultMutations = func() []faultMutation {
	r := conformance.FaultRules()
	nothing := func(*fake.Server, string, string, string, int, int, time.Duration) (func(), error) {
		return func() {}, nil
	}
	return []faultMutation{
		{name: "injects nothing, compacts nothing", broken: brokenInjector{inject: nothing, compact: func(*fake.Server) uint64 { return 0 }}, fails: r},
		{name: "compacts nothing", broken: brokenInjector{compact: func(*fake.Server) uint64 { return 0 }}, fails: r[7:8]},
		{name: "every fault is a 500", broken: brokenInjector{inject: func(s *fake.Server, _, verb, res string, times, events int, delay time.Duration) (func(), error) {
			return s.InjectFault("InternalError", verb, res, times, events, delay)
		}}, fails: r[:7]},
		{name: "watch faults let one more event through", broken: brokenInjector{inject: func(s *fake.Server, f, verb, res string, times, events int, delay time.Duration) (func(), error) {
			return s.InjectFault(f, verb, res, times, events+1, delay)
		}}, fails: r[5:7]},
		{name: "drops Retry-After", handler: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(dropRetryAfter{w}, r) })
		}, fails: r[2:4]},
	}
}()

// dropRetryAfter removes the Retry-After header of every answer.
type dropRetryAfter struct{ http.ResponseWriter }

func (d dropRetryAfter) WriteHeader(code int) {
	d.Header().Del("Retry-After")
	d.ResponseWriter.WriteHeader(code)
}

func (d dropRetryAfter) Write(b []byte) (int, error) {
	d.Header().Del("Retry-After")
	return d.ResponseWriter.Write(b)
}

func (d dropRetryAfter) Flush() { http.NewResponseController(d.ResponseWriter).Flush() }

// TestConformanceFaultsMutations: each broken injector or server fails the fault rules it breaks,
// and only those, which shows the rules can fail.
func TestConformanceFaultsMutations(t *testing.T) {
	for _, m := range faultMutations {
		t.Run(m.name, func(t *testing.T) {
			h, err := fake.NewHandler(fake.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var handler http.Handler = h
			if m.handler != nil {
				handler = m.handler(h)
			}
			hs := httptest.NewServer(handler)
			t.Cleanup(func() { h.Close(); hs.CloseClientConnections(); hs.Close() })
			inj := m.broken
			inj.srv = h
			rec := &recorder{name: "root"}
			conformance.RunFaults(rec, func(conformance.TB) (*rest.Config, conformance.Injector) {
				return &rest.Config{Host: hs.URL, QPS: -1}, inj
			})
			failed := rec.failures()
			for _, want := range m.fails {
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
