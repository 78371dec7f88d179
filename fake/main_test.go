package fake_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	var opts []goleak.Option
	if os.Getenv("WATCHCACHE_ORACLE_URL") != "" {
		// client-go keeps one TLS transport per rest.Config in a process-wide cache, whose idle
		// connections to the oracle outlive the tests; the fake's own are plain HTTP and checked.
		opts = append(opts, goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
	}
	goleak.VerifyTestMain(m, opts...)
}
