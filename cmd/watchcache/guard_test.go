package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/watchcache/watchcache/cmd/watchcache/internal/gate"
)

// TestWatchTimeoutJitter: a watch without timeoutSeconds gets one between --min-request-timeout
// and twice it (the apiserver's jitter), spread over that range; a client's own is kept; a list
// gets none.
func TestWatchTimeoutJitter(t *testing.T) {
	l := &limits{minRequestTimeout: 10 * time.Second}
	var got string
	h := gate.WithRequestInfo(l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Query().Get("timeoutSeconds")
	})))
	seen := map[int]bool{}
	for range 200 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/v1/pods?watch=1", nil))
		n, err := strconv.Atoi(got)
		if err != nil || n < 10 || n > 20 {
			t.Fatalf("timeoutSeconds %q, want 10..20", got)
		}
		seen[n] = true
	}
	if len(seen) < 5 {
		t.Errorf("timeouts %v: no jitter", seen)
	}
	for _, tc := range []struct{ path, want string }{
		{"/api/v1/pods?watch=1&timeoutSeconds=3", "3"},
		{"/api/v1/watch/pods", "x"}, // the legacy watch path is a watch too
		{"/api/v1/pods", ""},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tc.path, nil))
		if tc.want == "x" {
			if got == "" {
				t.Errorf("%s: no timeoutSeconds", tc.path)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s: timeoutSeconds %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestLimitsByVerb: reads and writes have their own limits, as the apiserver's two in-flight
// limits: with every read slot taken a write passes, and the reverse.
func TestLimitsByVerb(t *testing.T) {
	l := &limits{readOnly: semaphore(1), mutating: semaphore(1)}
	hold, release := make(chan struct{}), make(chan struct{})
	h := gate.WithRequestInfo(l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hold") != "" {
			hold <- struct{}{}
			<-release
		}
	})))
	for _, tc := range []struct {
		name, heldMethod     string
		method               string
		wantSame, wantOthers int
	}{
		{"reads full", "GET", "POST", 429, 200},
		{"writes full", "DELETE", "GET", 429, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tc.heldMethod, "/api/v1/namespaces/a/configmaps/x?hold=1", nil))
			}()
			<-hold
			same := httptest.NewRecorder()
			h.ServeHTTP(same, httptest.NewRequest(tc.heldMethod, "/api/v1/namespaces/a/configmaps/y", nil))
			other := httptest.NewRecorder()
			h.ServeHTTP(other, httptest.NewRequest(tc.method, "/api/v1/namespaces/a/configmaps", nil))
			release <- struct{}{}
			<-done
			if same.Code != tc.wantSame || same.Header().Get("Retry-After") != "1" {
				t.Errorf("same kind: %d Retry-After %q, want %d", same.Code, same.Header().Get("Retry-After"), tc.wantSame)
			}
			if other.Code != tc.wantOthers {
				t.Errorf("other kind: %d, want %d", other.Code, tc.wantOthers)
			}
		})
	}
}
