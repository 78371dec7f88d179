package kubeapi

import (
	"fmt"
	"io"
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

// BenchmarkListLoopback serves list pages over loopback HTTP to a client that reads the whole
// body, as the oracle comparison measures against kube-apiserver (oracle-compare/RESULTS.md):
// 20,000 pods on 100 nodes; a page of 500 and a 200-pod spec.nodeName page.
func BenchmarkListLoopback(b *testing.B) {
	cl := newCluster(b, clusterOptions{cfg: testdata.Config{Pods: 20_000, Nodes: 100, Namespaces: 10, Seed: 1}})
	client := cl.http.Client()
	for _, bc := range []struct{ name, path string }{
		{"page=500", "/api/v1/pods?limit=500"},
		{"node", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-7"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var n int64
			for b.Loop() {
				resp, err := client.Get(cl.http.URL + bc.path)
				if err != nil {
					b.Fatal(err)
				}
				n, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatal(resp.Status, err)
				}
			}
			b.SetBytes(n)
		})
	}
}

// BenchmarkSpliceItems isolates what writing list items without their kind and apiVersion costs:
// a page of 500 pods written as stored ("as-stored", what list items were before) and as list
// items (resource.listItem: one prefix comparison per item, no copy).
func BenchmarkSpliceItems(b *testing.B) {
	g := testdata.New(testdata.Config{Pods: 500, Nodes: 10, Namespaces: 4, Seed: 1})
	items := make([][]byte, 500)
	size := 0
	for i := range items {
		items[i] = g.Pod(i, uint64(i+1))
		size += len(items[i])
	}
	res := &resource{typePrefix: typePrefix("Pod", "v1")}
	for _, bc := range []struct {
		name string
		item func([]byte) ([]byte, bool)
	}{
		{"as-stored", func(b []byte) ([]byte, bool) { return b, false }},
		{"list-item", res.listItem},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				writeSpliced(io.Discard, []byte(`{"items":[`), items, "]}", bc.item)
			}
		})
	}
}

// BenchmarkListEncoding serves one page of 500 pods (of 10,000) in JSON and in protobuf, per item:
// JSON splices the stored bytes; protobuf decodes each item's JSON into a v1.Pod and marshals it
// (wire.List), which is what its ns/item and allocs/item measure.
func BenchmarkListEncoding(b *testing.B) {
	cl := newCluster(b, clusterOptions{cfg: testdata.Config{Pods: 10000, Nodes: 100, Namespaces: 10, Seed: 1}})
	const page = 500
	for _, bc := range []struct{ name, accept string }{
		{"json", "application/json"},
		{"protobuf", "application/vnd.kubernetes.protobuf"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/api/v1/pods?limit=500", nil)
			req.Header.Set("Accept", bc.accept)
			b.ReportAllocs()
			for b.Loop() {
				cl.server.ServeHTTP(&discard{h: http.Header{}}, req)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/page, "ns/item")
		})
	}
}
