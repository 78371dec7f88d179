package conformance_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/watchcache/watchcache/conformance"
	"github.com/watchcache/watchcache/index"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newCache(t conformance.TB, cfg conformance.Config) conformance.Target {
	return conformance.NewCacheTarget(t, cfg)
}

// newIndexedCache registers indexes on the fields and labels the suite selects on, so that the
// same answers must come from index plans (DESIGN: indexes are an optimisation, never a semantic).
func newIndexedCache(t conformance.TB, cfg conformance.Config) conformance.Target {
	return conformance.NewCacheTarget(t, cfg,
		index.Spec{Kind: index.Field, Name: "spec.nodeName"},
		index.Spec{Kind: index.Field, Name: "metadata.namespace"},
		index.Spec{Kind: index.Field, Name: "status.phase"},
		index.Spec{Kind: index.Label, Name: "app"},
		index.Spec{Kind: index.Label, Name: "tier"},
	)
}

func TestCacheTarget(t *testing.T) {
	t.Parallel()
	conformance.Run(t, newCache)
}

func TestCacheTargetIndexed(t *testing.T) {
	t.Parallel()
	conformance.Run(t, newIndexedCache)
}

func TestRulesAreNamedByRule(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range conformance.Rules() {
		num, what, ok := strings.Cut(name, "/")
		if !ok || what == "" || strings.Trim(num, "0123456789.-+") != "" || seen[name] {
			t.Errorf("subtest %q is not named <rule>/<what> or is repeated", name)
		}
		seen[name] = true
	}
}

// mutation is a deliberately broken Target and the subtests that must catch it.
type mutation struct {
	name string
	wrap func(conformance.Target) conformance.Target
	// mustFail are subtests that pass against the real cache and must fail against the mutant.
	mustFail []string
}

var mutations = []mutation{
	{
		name: "ignores-snapshot-rv",
		wrap: func(tg conformance.Target) conformance.Target {
			return &listRewriter{Target: tg, rewrite: func(r *conformance.ListResult) {
				r.ListMeta.Continue = retoken(r.ListMeta.Continue, func(tok *conformance.Token) { tok.RV = -1 })
			}}
		},
		mustFail: []string{"2.1/token-bytes", "2.8/pages-read-the-snapshot", "2.8/deleted-start-key", "2.7/remainingItemCount"},
	},
	{
		name: "start-key-without-nul",
		wrap: func(tg conformance.Target) conformance.Target {
			return &listRewriter{Target: tg, rewrite: func(r *conformance.ListResult) {
				r.ListMeta.Continue = retoken(r.ListMeta.Continue, func(tok *conformance.Token) { tok.Start = strings.TrimSuffix(tok.Start, "\x00") })
			}}
		},
		mustFail: []string{"2.1/token-bytes", "2.2/start-key", "2.6/token-after-last-item", "2.6/selected-pages-are-full", "4.6/namespace-narrowing"},
	},
	{
		name: "drops-remainingItemCount",
		wrap: func(tg conformance.Target) conformance.Target {
			return &listRewriter{Target: tg, rewrite: func(r *conformance.ListResult) { r.ListMeta.RemainingItemCount = nil }}
		},
		mustFail: []string{"2.7/remainingItemCount"},
	},
	{
		name:     "modified-on-selector-exit",
		wrap:     func(tg conformance.Target) conformance.Target { return newExitAsModified(tg) },
		mustFail: []string{"5.5/selector-transitions", "5.5/exit-carries-previous-object"},
	},
}

// TestMutations proves the suite can fail: against each broken Target it must report failures in
// the subtests named by the mutation, and those subtests must pass against the real cache.
func TestMutations(t *testing.T) {
	t.Parallel()
	var baseline map[string]string
	baselineDone := make(chan struct{})
	go func() {
		defer close(baselineDone)
		baseline = runRecorded(t, "baseline", newCache)
	}()
	t.Cleanup(func() { <-baselineDone })
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			got := runRecorded(t, m.name, func(t conformance.TB, cfg conformance.Config) conformance.Target {
				return m.wrap(newCache(t, cfg))
			})
			<-baselineDone
			if len(got) == 0 {
				t.Fatalf("the suite passed against a Target that %s", m.name)
			}
			for _, name := range m.mustFail {
				if _, ok := got[name]; !ok {
					t.Errorf("%s passed against a Target that %s", name, m.name)
				}
				if msg, ok := baseline[name]; ok {
					t.Errorf("%s fails against the real cache too, so it proves nothing here: %s", name, msg)
				}
			}
			for _, name := range sortedNames(got) {
				if _, ok := baseline[name]; !ok {
					t.Logf("caught by %s: %.300s", name, got[name])
				}
			}
		})
	}
}

// runRecorded runs the suite with a recorder and returns the failed subtests.
func runRecorded(t *testing.T, name string, newTarget func(conformance.TB, conformance.Config) conformance.Target) map[string]string {
	t.Helper()
	rec := newRecorder(name)
	done := make(chan struct{})
	go func() { // Run's top level never calls Fatalf, but keep a stray Goexit off the test goroutine
		defer close(done)
		conformance.Run(rec, newTarget)
	}()
	<-done
	return rec.failures()
}

// retoken rewrites a continue token (a no-op on "").
func retoken(s string, f func(*conformance.Token)) string {
	if s == "" {
		return ""
	}
	tok, err := conformance.DecodeToken(s)
	if err != nil {
		return s
	}
	f(&tok)
	return tok.Encode()
}

// listRewriter rewrites every list result of the Target it wraps.
type listRewriter struct {
	conformance.Target
	rewrite func(*conformance.ListResult)
}

func (l *listRewriter) List(ctx context.Context, ns string, o metav1.ListOptions) (*conformance.ListResult, error) {
	res, err := l.Target.List(ctx, ns, o)
	if err == nil {
		l.rewrite(res)
	}
	return res, err
}

// exitAsModified sends MODIFIED where the Target sends DELETED for an object that left the
// selection without being deleted: the classic mistake of rule 5.5.
type exitAsModified struct {
	conformance.Target
	mu      sync.Mutex
	deletes map[string]bool // "ns/name@rv" of real deletes
}

func newExitAsModified(tg conformance.Target) *exitAsModified {
	return &exitAsModified{Target: tg, deletes: map[string]bool{}}
}

func (x *exitAsModified) Apply(ev conformance.Event) error {
	if ev.Type == watch.Deleted {
		x.mu.Lock()
		x.deletes[objectID(ev.Object)] = true
		x.mu.Unlock()
	}
	return x.Target.Apply(ev)
}

func (x *exitAsModified) Watch(ctx context.Context, ns string, o metav1.ListOptions) (conformance.Stream, error) {
	s, err := x.Target.Watch(ctx, ns, o)
	if err != nil {
		return nil, err
	}
	return mapStream(s, func(ev conformance.WatchEvent) conformance.WatchEvent {
		if ev.Type == watch.Deleted {
			x.mu.Lock()
			real := x.deletes[objectID(ev.Object)]
			x.mu.Unlock()
			if !real {
				ev.Type = watch.Modified
			}
		}
		return ev
	}), nil
}

func objectID(obj []byte) string {
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	_ = jsonUnmarshal(obj, &o)
	return o.Metadata.Namespace + "/" + o.Metadata.Name + "@" + o.Metadata.ResourceVersion
}

// mappedStream applies f to every event of a stream.
type mappedStream struct {
	inner conformance.Stream
	out   chan conformance.WatchEvent
	stop  chan struct{}
	once  sync.Once
}

func mapStream(s conformance.Stream, f func(conformance.WatchEvent) conformance.WatchEvent) *mappedStream {
	m := &mappedStream{inner: s, out: make(chan conformance.WatchEvent), stop: make(chan struct{})}
	go func() {
		defer close(m.out)
		for ev := range s.Events() {
			select {
			case m.out <- f(ev):
			case <-m.stop:
				for range s.Events() {
				}
				return
			}
		}
	}()
	return m
}

func (m *mappedStream) Events() <-chan conformance.WatchEvent { return m.out }

func (m *mappedStream) Stop() {
	m.once.Do(func() { close(m.stop) })
	m.inner.Stop()
}
