package fake_test

import (
	"flag"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/watchcache/watchcache/fake"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Every write a test makes checks the decodings the server keeps against a fresh decoding;
	// benchmarks measure the server without the check.
	fake.VerifyStoredDecodings(flag.Lookup("test.bench").Value.String() == "")
	var opts []goleak.Option
	if os.Getenv("WATCHCACHE_ORACLE_URL") != "" {
		// client-go keeps one TLS transport per rest.Config in a process-wide cache, whose idle
		// connections to the oracle outlive the tests; the fake's own are plain HTTP and checked.
		opts = append(opts, goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
	}
	goleak.VerifyTestMain(m, opts...)
}
