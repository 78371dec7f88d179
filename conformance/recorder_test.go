package conformance_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/watchcache/watchcache/conformance"
)

// recorder is a conformance.TB that records failures instead of reporting them, so a test can run
// the suite against a broken Target and assert that it fails, and where.
type recorder struct {
	name   string
	parent *recorder

	mu       sync.Mutex
	failed   bool
	logs     []string
	cleanups []func()
	subs     []*recorder
}

var _ conformance.TB = (*recorder)(nil)
var _ conformance.Runner = (*recorder)(nil)

func newRecorder(name string) *recorder { return &recorder{name: name} }

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }

func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) Errorf(format string, args ...any) {
	r.Logf(format, args...)
	r.fail()
}

// Fatalf ends the subtest's goroutine, as testing.T.FailNow does.
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) fail() {
	for p := r; p != nil; p = p.parent {
		p.mu.Lock()
		p.failed = true
		p.mu.Unlock()
	}
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// Run runs f on its own goroutine, so that Fatalf (runtime.Goexit) ends only the subtest, then
// runs its cleanups, last first. A panic fails the subtest instead of the process.
func (r *recorder) Run(name string, f func(conformance.TB)) bool {
	c := &recorder{name: r.name + "/" + name, parent: r}
	r.mu.Lock()
	r.subs = append(r.subs, c)
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer c.runCleanups()
		defer func() {
			if p := recover(); p != nil {
				c.Errorf("panic: %v", p)
			}
		}()
		f(c)
	}()
	<-done
	return !c.Failed()
}

func (r *recorder) runCleanups() {
	r.mu.Lock()
	cs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

// failures returns the names of the failed leaf subtests (relative to r) with their first message.
func (r *recorder) failures() map[string]string {
	out := map[string]string{}
	var walk func(n *recorder)
	walk = func(n *recorder) {
		n.mu.Lock()
		subs, failed, logs := n.subs, n.failed, n.logs
		n.mu.Unlock()
		if failed && n != r {
			msg := ""
			if len(logs) > 0 {
				msg = logs[0]
			}
			out[strings.TrimPrefix(n.name, r.name+"/")] = msg
		}
		for _, s := range subs {
			walk(s)
		}
	}
	walk(r)
	return out
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
