package fake

import (
	"net/http/httptest"
	"testing"
)

// TestAttributesOf: the verb, resource, subresource, namespace and name of a request, as the
// apiserver's request-info resolver finds them; paths that name no resource are not requests to
// one (and do not panic).
func TestAttributesOf(t *testing.T) {
	cases := []struct {
		method, target string
		ok             bool
		want           string // verb group/resource/subresource ns name
	}{
		{"GET", "/api/v1/namespaces/ns/pods", true, "list /pods/ ns "},
		{"GET", "/api/v1/namespaces/ns/pods?watch=true", true, "watch /pods/ ns "},
		{"GET", "/api/v1/watch/namespaces/ns/pods", true, "watch /pods/ ns "},
		{"GET", "/api/v1/namespaces/ns/pods/p", true, "get /pods/ ns p"},
		{"HEAD", "/api/v1/namespaces/ns/pods/p", true, "get /pods/ ns p"},
		{"PUT", "/api/v1/namespaces/ns/pods/p/status", true, "update /pods/status ns p"},
		{"POST", "/apis/apps/v1/namespaces/ns/deployments", true, "create apps/deployments/ ns "},
		{"PATCH", "/apis/apps/v1/namespaces/ns/deployments/d/scale", true, "patch apps/deployments/scale ns d"},
		{"DELETE", "/api/v1/namespaces/ns/configmaps", true, "deletecollection /configmaps/ ns "},
		{"DELETE", "/api/v1/namespaces/ns/configmaps/c", true, "delete /configmaps/ ns c"},
		{"GET", "/api/v1/namespaces", true, "list /namespaces/  "},
		{"GET", "/api/v1/namespaces/ns", true, "get /namespaces/ ns ns"},
		{"PUT", "/api/v1/namespaces/ns/finalize", true, "update /namespaces/finalize ns ns"},
		{"GET", "/api/v1/nodes/n/proxy/a/b", true, "get /nodes/proxy/a/b  n"},
		{"GET", "/api", false, ""},
		{"GET", "/api/v1", false, ""},
		{"GET", "/api/v1/", false, ""},
		{"GET", "/api/v1/watch", false, ""},
		{"GET", "/apis/apps/v1", false, ""},
		{"GET", "/version", false, ""},
		{"GET", "/", false, ""},
		{"GET", "//", false, ""},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.target, func(t *testing.T) {
			a, ok := attributesOf(httptest.NewRequest(c.method, c.target, nil))
			if ok != c.ok {
				t.Fatalf("ok %v, want %v (%+v)", ok, c.ok, a)
			}
			if !ok {
				return
			}
			got := a.Verb + " " + a.Resource.Group + "/" + a.Resource.Resource + "/" + a.Subresource + " " + a.Namespace + " " + a.Name
			if got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}
