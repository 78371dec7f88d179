package kubeapi

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
)

// TestHealth: /readyz lists every check in the apiserver's format when one fails (500, "[-]name
// failed: reason withheld", "readyz check failed"), says "ok" when all pass (the list with
// ?verbose), honours ?exclude=, and serves one check at /readyz/name; /livez and /healthz do not
// depend on the source.
func TestHealth(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	var down atomic.Bool
	if err := cl.server.AddReadyCheck("etcd", func() error {
		if down.Load() {
			return errors.New("etcd unreachable")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := cl.server.AddReadyCheck("etcd", func() error { return nil }); err == nil {
		t.Fatal("a check added twice")
	}
	const all = "[+]ping ok\n[+]resource/namespaces ok\n[+]resource/nodes ok\n[+]resource/pods ok\n[+]resource/configmaps ok\n"
	tests := []struct {
		name, path string
		down       bool
		code       int
		body       string
	}{
		{"ready", "/readyz", false, http.StatusOK, "ok"},
		{"ready, verbose", "/readyz?verbose", false, http.StatusOK, all + "[+]etcd ok\nreadyz check passed\n"},
		{"source down", "/readyz", true, http.StatusInternalServerError, all + "[-]etcd failed: reason withheld\nreadyz check failed\n"},
		{"source down, excluded", "/readyz?exclude=etcd", true, http.StatusOK, "ok"},
		{"one check", "/readyz/etcd", true, http.StatusInternalServerError, "internal server error: etcd unreachable\n"},
		{"one check, passing", "/readyz/resource/pods", true, http.StatusOK, "ok"},
		{"no such check", "/readyz/nope", false, http.StatusNotFound, ""},
		{"livez", "/livez", true, http.StatusOK, "ok"},
		{"healthz, verbose", "/healthz?verbose", true, http.StatusOK, "[+]ping ok\nhealthz check passed\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			down.Store(tt.down)
			r := cl.get(t, tt.path)
			if r.code != tt.code || (tt.body != "" && string(r.body) != tt.body) {
				t.Fatalf("%d %q\nwant %d %q", r.code, r.body, tt.code, tt.body)
			}
		})
	}
}
