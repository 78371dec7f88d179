package kubeapi_test

import (
	"testing"

	"github.com/watchcache/watchcache/conformance"
	"github.com/watchcache/watchcache/index"
)

// TestConformanceThroughClientGo runs the behaviour suite through the façade: the suite writes to
// the cache, and reads with client-go over HTTP what it reads from the cache directly in
// conformance's own tests. A difference is the façade's (parameter parsing, Status mapping, the
// wire form of lists, bookmarks and errors), or client-go's encoding of the parameters.
func TestConformanceThroughClientGo(t *testing.T) {
	t.Parallel()
	conformance.Run(t, newHTTPTarget())
}

// TestConformanceThroughClientGoIndexed runs the suite through the façade over a cache with
// indexes on the fields and labels the suite selects on (those of conformance's own indexed
// run), so that index plans answer over HTTP exactly as scans do.
func TestConformanceThroughClientGoIndexed(t *testing.T) {
	t.Parallel()
	conformance.Run(t, newHTTPTarget(
		index.Spec{Kind: index.Field, Name: "spec.nodeName"},
		index.Spec{Kind: index.Field, Name: "metadata.namespace"},
		index.Spec{Kind: index.Field, Name: "status.phase"},
		index.Spec{Kind: index.Label, Name: "app"},
		index.Spec{Kind: index.Label, Name: "tier"},
	))
}
