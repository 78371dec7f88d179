package kubeapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/watchcache/watchcache/internal/testdata"
)

// discard is a ResponseWriter that drops the body, so a benchmark measures the handler only.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkList serves list pages of pods: JSON pages are spliced (allocations do not grow with
// the page), Table pages print each row.
func BenchmarkList(b *testing.B) {
	for _, pods := range []int{1000, 10000} {
		cl := newCluster(b, clusterOptions{cfg: testdata.Config{Pods: pods, Nodes: 100, Namespaces: 10, Seed: 1}})
		for _, bc := range []struct{ name, path, accept string }{
			{"page=500", "/api/v1/pods?limit=500", ""},
			{"all", "/api/v1/pods", ""},
			{"node", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-7", ""},
			{"table,page=500", "/api/v1/pods?limit=500", kubectlAccept},
		} {
			b.Run(fmt.Sprintf("pods=%d/%s", pods, bc.name), func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, bc.path, nil)
				if bc.accept != "" {
					req.Header.Set("Accept", bc.accept)
				}
				b.ReportAllocs()
				for b.Loop() {
					cl.server.ServeHTTP(&discard{h: http.Header{}}, req)
				}
			})
		}
	}
}
