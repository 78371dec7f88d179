package kubeapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

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
