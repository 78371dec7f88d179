package fake

import (
	"net/http/httptest"
	"testing"
)

// TestMayStream: every way of asking for a watch is served in a goroutine of its own (a miss would
// hold the client until the watch ends); plain reads and writes are served inline.
func TestMayStream(t *testing.T) {
	for _, c := range []struct {
		method, target string
		want           bool
	}{
		{"GET", "/api/v1/namespaces/default/configmaps?watch=true", true},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=5", true},
		{"GET", "/api/v1/configmaps?resourceVersion=5&watch=True", true},
		{"GET", "/api/v1/configmaps?w%61tch=1", true},
		{"HEAD", "/api/v1/configmaps?watch=1", true},
		{"GET", "/api/v1/watch/namespaces/default/configmaps", true},
		{"GET", "/apis/apps/v1/watch/deployments", true},
		{"GET", "/api/v1/namespaces/default/configmaps/c?fieldSelector=metadata.name%3Dwatch", true}, // in excess: harmless
		{"GET", "/api/v1/namespaces/default/configmaps", false},
		{"GET", "/api/v1/namespaces/default/configmaps?limit=5&labelSelector=a%3Db", false},
		{"POST", "/api/v1/namespaces/default/configmaps?watch=1", false},
		{"PATCH", "/api/v1/namespaces/default/configmaps/c", false},
		{"GET", "/apis", false},
	} {
		if got := mayStream(httptest.NewRequest(c.method, c.target, nil)); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.method, c.target, got, c.want)
		}
	}
}
