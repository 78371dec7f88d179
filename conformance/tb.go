package conformance

import "testing"

// TB is the part of testing.TB the suite uses. *testing.T satisfies it; so can a fake that
// records failures, which is how this package's own tests prove that the suite fails against
// broken Targets.
//
// Fatalf must not return: *testing.T calls runtime.Goexit, and a fake must do the same (the suite
// calls it only inside subtests, each of which a Runner runs on its own goroutine).
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Failed() bool
	// Cleanup registers f to run when the (sub)test ends, last registered first.
	Cleanup(f func())
}

// Runner is implemented by a TB that is not a *testing.T but runs subtests: Run runs f as a
// subtest named name on a new goroutine, waits for it (and its cleanups) and reports whether it
// passed, as testing.T.Run does.
type Runner interface {
	Run(name string, f func(t TB)) bool
}

// run runs f as a subtest of t. A *testing.T (or anything with its Run) gets a real subtest; a
// Runner its own; any other TB runs f inline, so its failures are its parent's.
func run(t TB, name string, f func(t TB)) bool {
	switch tt := t.(type) {
	case interface {
		Run(string, func(*testing.T)) bool
	}:
		return tt.Run(name, func(t *testing.T) { f(t) })
	case Runner:
		return tt.Run(name, f)
	}
	t.Logf("=== %s", name)
	f(t)
	return !t.Failed()
}
