package inproc_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/watchcache/watchcache/internal/inproc"
)

// BenchmarkRoundTrip is one POST with a 200-byte body answered with 400 bytes, through net/http's
// client and server on a loopback connection and through the in-process Transport: what the
// transport saves per request, and what it costs itself.
func BenchmarkRoundTrip(b *testing.B) {
	answer := []byte(strings.Repeat("a", 400))
	body := strings.Repeat("b", 200)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(answer)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	for _, c := range []struct {
		name string
		rt   http.RoundTripper
	}{{"network", &http.Transport{}}, {"inproc", inproc.New(h, u.Host)}} {
		b.Run(c.name, func(b *testing.B) {
			client := &http.Client{Transport: c.rt}
			defer client.CloseIdleConnections()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Post(srv.URL+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		})
	}
}
