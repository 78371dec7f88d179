package kubeapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// Serve a cache of namespaces and list them as kubectl or client-go would.
func Example() {
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "namespaces"}})
	defer c.Stop()
	_ = c.Replace([][]byte{
		[]byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"default","resourceVersion":"5"}}`),
		[]byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"kube-system","resourceVersion":"7"}}`),
	}, 10)

	s := kubeapi.NewServer(kubeapi.Options{})
	info, _ := kubeapi.CoreResource("namespaces")
	if err := s.Register(info, c); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/v1/namespaces?limit=1")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(string(body))
	// Output:
	// {"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAsInN0YXJ0IjoiL2RlZmF1bHRcdTAwMDAifQ","remainingItemCount":1},"items":[{"metadata":{"name":"default","resourceVersion":"5"}}]}
}

// Print a Deployment as kube-apiserver prints it for kubectl get -o wide.
func ExamplePrinterFor() {
	p, _ := kubeapi.PrinterFor("apps", "deployments")
	obj := []byte(`{"metadata":{"name":"web","creationTimestamp":"2026-01-10T11:00:00Z"},
		"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}},
		"status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}}`)
	row := p.Row(obj, time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC))
	for i, c := range p.Columns {
		fmt.Printf("%s=%v ", c.Name, row.Cells[i])
	}
	fmt.Println()
	// Output:
	// Name=web Ready=2/3 Up-to-date=3 Available=2 Age=60m Containers=web Images=nginx:1.27 Selector=app=web
}
