package kubeapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/watchcache/watchcache/watchcache"
)

// TestRequestTimeout: a list or get waiting on a source that does not answer (an etcd that is
// down) ends at the request's deadline with the apiserver's 504 (recorded from kube-apiserver
// 1.37.2 with its etcd stopped, reference/observed-faults.md); ?timeout= shortens the deadline, and
// a malformed one is the apiserver's 400. Reads that need no source answer as usual.
func TestRequestTimeout(t *testing.T) {
	c := watchcache.New(watchcache.Options{
		Resource: watchcache.Resource{Name: "configmaps", Namespaced: true},
		CurrentResourceVersion: func(ctx context.Context) (uint64, error) {
			<-ctx.Done() // the source's server never answers
			return 0, ctx.Err()
		},
	})
	defer c.Stop()
	if err := c.Replace([][]byte{[]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"5"}}`)}, 5); err != nil {
		t.Fatal(err)
	}
	s := NewServer(Options{RequestTimeout: 300 * time.Millisecond})
	info, _ := CoreResource("configmaps")
	if err := s.Register(info, c); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()

	const timeoutMessage = "Timeout: request did not complete within the allotted timeout"
	tests := []struct {
		name, path string
		code       int
		message    string
		within     time.Duration // the answer comes no later than this
		after      time.Duration // and no sooner
	}{
		{"consistent list", "/api/v1/configmaps", http.StatusGatewayTimeout, timeoutMessage, 2 * time.Second, 300 * time.Millisecond},
		{"consistent get", "/api/v1/namespaces/n/configmaps/a", http.StatusGatewayTimeout, timeoutMessage, 2 * time.Second, 300 * time.Millisecond},
		{"?timeout= shorter", "/api/v1/configmaps?timeout=50ms", http.StatusGatewayTimeout, timeoutMessage, 280 * time.Millisecond, 50 * time.Millisecond},
		{"?timeout= longer is capped", "/api/v1/configmaps?timeout=1h", http.StatusGatewayTimeout, timeoutMessage, 2 * time.Second, 300 * time.Millisecond},
		{"malformed ?timeout=", "/api/v1/configmaps?timeout=soon", http.StatusBadRequest,
			`invalid timeout specified in the request URL - time: invalid duration "soon"`, time.Second, 0},
		{"resourceVersion=0 needs no source", "/api/v1/configmaps?resourceVersion=0", http.StatusOK, "", time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			r := do(t, http.MethodGet, hs.URL+tt.path)
			took := time.Since(start)
			if r.code != tt.code {
				t.Fatalf("%d %s, want %d", r.code, r.body, tt.code)
			}
			if took > tt.within || took < tt.after {
				t.Fatalf("answered after %v, want between %v and %v", took, tt.after, tt.within)
			}
			if tt.message == "" {
				return
			}
			var st map[string]any
			if err := json.Unmarshal(r.body, &st); err != nil {
				t.Fatalf("body %q: %v", r.body, err)
			}
			if st["message"] != tt.message || st["code"] != float64(tt.code) {
				t.Fatalf("status %v, want message %q", st, tt.message)
			}
			if tt.code == http.StatusGatewayTimeout && (st["reason"] != "Timeout" || r.header.Get("Retry-After") != "") {
				t.Fatalf("status %v (Retry-After %q), want reason Timeout and no Retry-After", st, r.header.Get("Retry-After"))
			}
			// The apiserver's body over HTTP/1.1, recorded byte for byte.
			const recorded = `{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}` + "\n"
			if tt.code == http.StatusGatewayTimeout && (string(r.body) != recorded || r.header.Get("Content-Type") != "text/plain; charset=utf-8") {
				t.Fatalf("504 body %q (%s), want the apiserver's %q", r.body, r.header.Get("Content-Type"), recorded)
			}
		})
	}
}
