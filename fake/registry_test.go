package fake_test

import (
	"testing"

	"github.com/watchcache/watchcache/fake"
)

// TestRegistry checks that the fake serves the stored built-in resources of the recorded
// discovery (testdata/discovery) and not the computed ones.
func TestRegistry(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	got := map[string]bool{}
	for _, gvr := range srv.Resources() {
		got[gvr.Group+"/"+gvr.Version+"/"+gvr.Resource] = true
	}
	for _, want := range []string{"/v1/pods", "/v1/namespaces", "/v1/configmaps", "/v1/secrets", "/v1/services", "/v1/nodes",
		"apps/v1/deployments", "apps/v1/statefulsets", "batch/v1/jobs", "batch/v1/cronjobs", "rbac.authorization.k8s.io/v1/roles",
		"coordination.k8s.io/v1/leases", "networking.k8s.io/v1/ingresses", "policy/v1/poddisruptionbudgets",
		"discovery.k8s.io/v1/endpointslices", "autoscaling/v2/horizontalpodautoscalers", "storage.k8s.io/v1/storageclasses"} {
		if !got[want] {
			t.Errorf("%s is not served", want)
		}
	}
	for _, not := range []string{"/v1/bindings", "authentication.k8s.io/v1/tokenreviews", "apiregistration.k8s.io/v1/apiservices", "apps/v1/controllerrevisions-x"} {
		if got[not] {
			t.Errorf("%s is served", not)
		}
	}
	t.Logf("%d resources", len(got))
}
