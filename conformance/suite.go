package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// rule is one subtest of the suite, named "<rule number>/<what>" after
// reference/apiserver-semantics.md.
type rule struct {
	name string
	// cfg adjusts the suite's default Config for this subtest (nil: defaults).
	cfg  func(*Config)
	test func(e *env)
}

// Defaults the suite asks of every Target: a window large enough that no subtest outlives it
// unless it asks for a small one, waits short enough that a 504 costs little, bookmarks frequent
// enough that a subtest can wait for one.
const (
	defaultWindow    = 1000
	defaultWait      = 250 * time.Millisecond
	defaultBookmarks = 50 * time.Millisecond
	// smallWindow is the window of the subtests that need RVs to expire: 20 events (far more than
	// twice the window) make the fixture's RV too old.
	smallWindow = 4
	// shortWait is the wait of the subtests that expect a 504.
	shortWait = 50 * time.Millisecond
	// patience bounds how long the suite waits for something that should happen.
	patience = 5 * time.Second
)

func smallWindowCfg(c *Config) { c.WindowEvents = smallWindow }
func shortWaitCfg(c *Config)   { c.WaitTimeout = shortWait }

// Run runs the behaviour suite: one subtest per rule of reference/apiserver-semantics.md that a
// read API must follow, each on a new Target made by newTarget and loaded with the fixture (24
// pods in ns-0..ns-2 at resourceVersion 100). The subtests are listed by Rules.
//
// t is usually a *testing.T; see TB and Runner for anything else. Run must be called from the
// goroutine that owns t.
func Run(t TB, newTarget func(t TB, cfg Config) Target) {
	for _, r := range allRules() {
		run(t, r.name, func(t TB) {
			cfg := Config{WindowEvents: defaultWindow, WaitTimeout: defaultWait, BookmarkInterval: defaultBookmarks}
			if r.cfg != nil {
				r.cfg(&cfg)
			}
			e := newEnv(t, newTarget(t, cfg), cfg)
			r.test(e)
		})
	}
}

// Rules returns the names of the suite's subtests, in the order Run runs them.
func Rules() []string {
	var out []string
	for _, r := range allRules() {
		out = append(out, r.name)
	}
	return out
}

func allRules() []rule {
	return slices.Concat(validationRules(), rvRules(), continueRules(), selectionRules(), watchRules())
}

// env is one subtest's Target with the fixture loaded, and the helpers the rules use.
type env struct {
	t    TB
	tg   Target
	cfg  Config
	ctx  context.Context
	rv   uint64         // the last RV written
	pods map[string]pod // the current state, by "ns/name"
}

// fixtureRV is the RV of the fixture's re-list.
const fixtureRV = 100

func newEnv(t TB, tg Target, cfg Config) *env {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	e := &env{t: t, tg: tg, cfg: cfg, ctx: ctx, pods: map[string]pod{}}
	e.replace(fixturePods(), fixtureRV)
	return e
}

// replace re-lists the Target with pods, each stamped with its own RV (10, 11, ...).
func (e *env) replace(pods []pod, rv uint64) {
	e.t.Helper()
	e.pods = map[string]pod{}
	objs := make([][]byte, len(pods))
	for i, p := range pods {
		p.rv = uint64(10 + i)
		e.pods[p.key()] = p
		objs[i] = p.json()
	}
	if err := e.tg.Replace(objs, rv); err != nil {
		e.t.Fatalf("Replace(%d pods, %d): %v", len(pods), rv, err)
	}
	e.rv = rv
}

// put feeds p as ADDED (new key) or MODIFIED at rv.
func (e *env) put(p pod, rv uint64) {
	e.t.Helper()
	typ := watch.Added
	if _, ok := e.pods[p.key()]; ok {
		typ = watch.Modified
	}
	p.rv = rv
	e.apply(Event{Type: typ, Object: p.json(), ResourceVersion: rv})
	e.pods[p.key()] = p
}

// del feeds a DELETED of key ("ns/name") at rv, carrying its last state.
func (e *env) del(key string, rv uint64) {
	e.t.Helper()
	p, ok := e.pods[key]
	if !ok {
		e.t.Fatalf("suite bug: delete of unknown %s", key)
	}
	p.rv = rv
	e.apply(Event{Type: watch.Deleted, Object: p.json(), ResourceVersion: rv})
	delete(e.pods, key)
}

func (e *env) bookmark(rv uint64) {
	e.t.Helper()
	e.apply(Event{Type: watch.Bookmark, ResourceVersion: rv})
}

func (e *env) apply(ev Event) {
	e.t.Helper()
	if err := e.tg.Apply(ev); err != nil {
		e.t.Fatalf("Apply(%s at %d): %v", ev.Type, ev.ResourceVersion, err)
	}
	e.rv = ev.ResourceVersion
}

// pod returns the current state of key, to modify it.
func (e *env) pod(key string) pod {
	e.t.Helper()
	p, ok := e.pods[key]
	if !ok {
		e.t.Fatalf("suite bug: no pod %s", key)
	}
	p.labels = cloneLabels(p.labels)
	return p
}

// churn feeds n modifications of ns-2 pods (outside what most subtests look at), from rv+1.
func (e *env) churn(n int) {
	e.t.Helper()
	for i := range n {
		p := e.pod(fmt.Sprintf("ns-2/pod-%02d", i%8))
		p.labels["gen"] = strconv.Itoa(i)
		e.put(p, e.rv+1)
	}
}

// list lists and fails the subtest on error.
func (e *env) list(ns string, o metav1.ListOptions) *ListResult {
	e.t.Helper()
	res, err := e.tg.List(e.ctx, ns, o)
	if err != nil {
		e.t.Fatalf("List(%q, %s): %v", ns, describe(o), err)
	}
	if res == nil {
		e.t.Fatalf("List(%q, %s): nil result", ns, describe(o))
	}
	return res
}

// listAll pages through a list; it returns every page.
func (e *env) listAll(ns string, o metav1.ListOptions) []*ListResult {
	e.t.Helper()
	var pages []*ListResult
	for range 1000 {
		res := e.list(ns, o)
		pages = append(pages, res)
		if res.ListMeta.Continue == "" {
			return pages
		}
		o.Continue, o.ResourceVersion, o.ResourceVersionMatch = res.ListMeta.Continue, "", ""
	}
	e.t.Fatalf("List(%q, %s) did not end after 1000 pages", ns, describe(o))
	return nil
}

// listErr lists expecting an error and returns its Status.
func (e *env) listErr(ns string, o metav1.ListOptions) metav1.Status {
	e.t.Helper()
	res, err := e.tg.List(e.ctx, ns, o)
	if err == nil {
		n := 0
		if res != nil {
			n = len(res.Items)
		}
		e.t.Fatalf("List(%q, %s) succeeded with %d items, want an error", ns, describe(o), n)
	}
	return e.status(err)
}

// status returns the Status an error carries, failing the subtest if it carries none.
func (e *env) status(err error) metav1.Status {
	e.t.Helper()
	var s apierrors.APIStatus
	if !errors.As(err, &s) {
		e.t.Fatalf("error %v (%T) carries no Status", err, err)
	}
	return s.Status()
}

// wantStatus compares the code, reason and exact message of a Status.
func (e *env) wantStatus(what string, s metav1.Status, code int32, reason metav1.StatusReason, message string) {
	e.t.Helper()
	if s.Code != code || s.Reason != reason || s.Message != message {
		e.t.Errorf("%s: status %d %s %q\nwant          %d %s %q", what, s.Code, s.Reason, s.Message, code, reason, message)
	}
}

// names returns "ns/name" of each item, in order.
func (e *env) names(items [][]byte) []string {
	e.t.Helper()
	out := make([]string, len(items))
	for i, it := range items {
		m := e.meta(it)
		out[i] = m.Namespace + "/" + m.Name
	}
	return out
}

// allNames is names over every page.
func (e *env) allNames(pages []*ListResult) []string {
	e.t.Helper()
	var out []string
	for _, p := range pages {
		out = append(out, e.names(p.Items)...)
	}
	return out
}

// meta decodes an object's metadata.
func (e *env) meta(obj []byte) metav1.ObjectMeta {
	e.t.Helper()
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &o); err != nil {
		e.t.Fatalf("object is not JSON: %v: %.200s", err, obj)
	}
	return o.Metadata
}

// field returns a string at a dotted path of an object ("spec.nodeName").
func (e *env) field(obj []byte, path string) string {
	e.t.Helper()
	var v any
	if err := json.Unmarshal(obj, &v); err != nil {
		e.t.Fatalf("object is not JSON: %v", err)
	}
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

// token decodes a continue token, failing the subtest if it is not one.
func (e *env) token(s string) Token {
	e.t.Helper()
	tok, err := DecodeToken(s)
	if err != nil {
		e.t.Fatalf("continue %q does not decode: %v", s, err)
	}
	return tok
}

func rvString(rv uint64) string { return strconv.FormatUint(rv, 10) }

// describe prints the parameters a request set, for failure messages.
func describe(o metav1.ListOptions) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("labelSelector", o.LabelSelector)
	add("fieldSelector", o.FieldSelector)
	add("resourceVersion", o.ResourceVersion)
	add("resourceVersionMatch", string(o.ResourceVersionMatch))
	if o.Limit != 0 {
		add("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.Continue != "" {
		add("continue", o.Continue[:min(len(o.Continue), 16)]+"…")
	}
	if o.SendInitialEvents != nil {
		add("sendInitialEvents", strconv.FormatBool(*o.SendInitialEvents))
	}
	if o.AllowWatchBookmarks {
		add("allowWatchBookmarks", "true")
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func ptr[T any](v T) *T { return &v }

// cloneLabels copies labels into a map that may be written, also when there were none.
func cloneLabels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// keyRange returns "ns/pod-NN" for the given pod numbers of one namespace.
func keyRange(ns string, nums ...int) []string {
	out := make([]string, len(nums))
	for i, n := range nums {
		out[i] = fmt.Sprintf("%s/pod-%02d", ns, n)
	}
	return out
}

func equal(a, b []string) bool { return slices.Equal(a, b) }
