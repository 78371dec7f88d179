package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/watchcache"
)

// harness feeds a watchcache.Cache and a Model the same operations and compares their answers.
type harness struct {
	tb     testing.TB
	cache  *watchcache.Cache
	model  *Model
	window int
	// replay says how to reproduce a failure.
	replay string
	ops    []string // the operations so far, for failure messages

	// keyed makes the generators give events and re-list objects keys (ops_test.go); without it
	// they draw exactly the choices they drew before keys existed, so older corpus entries replay
	// as they did.
	keyed   bool
	pods    map[string]genPod // live pods by storage key "/ns/name", as last written
	tokens  []Query           // queries continuing a list, kept for later
	fields  map[string]bool   // registered custom fields
	indexes map[index.Spec]bool
	// stats counts what was compared, to show the coverage of a run (-v).
	stats map[string]int
}

// Timings of the cache under test: waits for future RVs time out fast, and watches get a periodic
// bookmark almost at once, which tells the harness that the replay is over.
const (
	waitTimeout      = 2 * time.Millisecond
	bookmarkInterval = time.Millisecond
	eventTimeout     = 5 * time.Second
)

func newHarness(tb testing.TB, window int, replay string) *harness {
	c := watchcache.New(watchcache.Options{
		Resource:         watchcache.Resource{Name: "pods", Namespaced: true},
		WindowEvents:     window,
		WindowAge:        -1,
		WaitTimeout:      waitTimeout,
		BookmarkInterval: bookmarkInterval,
	})
	tb.Cleanup(c.Stop)
	return &harness{
		tb: tb, cache: c, model: NewModel(window), window: window, replay: replay,
		pods: map[string]genPod{}, fields: map[string]bool{}, indexes: map[index.Spec]bool{},
		stats: map[string]int{},
	}
}

func (h *harness) logf(format string, args ...any) {
	h.ops = append(h.ops, fmt.Sprintf(format, args...))
}

// failf stops the test with the mismatch, the last operations and how to replay.
func (h *harness) failf(format string, args ...any) {
	h.tb.Helper()
	ops := h.ops[max(0, len(h.ops)-25):]
	h.tb.Fatalf("%s\n\nlast %d of %d operations:\n  %s\n\nreplay: %s", fmt.Sprintf(format, args...), len(ops), len(h.ops),
		strings.Join(ops, "\n  "), h.replay)
}

// --- writes

// replace re-lists both sides with objs at rv (keyed as given) and reports whether they accepted it.
func (h *harness) replace(objs []KeyedObject, rv uint64) bool {
	h.tb.Helper()
	keyed := 0
	list := make([]watchcache.Object, len(objs))
	for i, o := range objs {
		list[i] = watchcache.Object{Key: o.Key, Raw: o.Raw}
		if o.Key != "" {
			keyed++
		}
	}
	h.logf("Replace(%d objects, %d keyed, rv %d)", len(objs), keyed, rv)
	var errC error
	if keyed == 0 && !h.keyed {
		errC = h.cache.Replace(rawObjects(objs), rv)
	} else {
		errC = h.cache.ReplaceKeyed(list, rv)
	}
	if keyed > 0 {
		h.stats["replace keyed"]++
	}
	errM := h.model.ReplaceKeyed(objs, rv)
	h.checkRejected("Replace", errC, errM)
	return errC == nil
}

func rawObjects(objs []KeyedObject) [][]byte {
	raw := make([][]byte, len(objs))
	for i, o := range objs {
		raw[i] = o.Raw
	}
	return raw
}

// checkRejected requires both sides to accept or reject a write, and a key the model refuses to be
// refused with ErrInvalidKey.
func (h *harness) checkRejected(what string, errC, errM error) {
	h.tb.Helper()
	if (errC == nil) != (errM == nil) {
		h.failf("%s: cache %v, model %v", what, errC, errM)
	}
	if errors.Is(errM, errKey) {
		h.stats["reject key"]++
		if !errors.Is(errC, watchcache.ErrInvalidKey) {
			h.failf("%s: cache %v, want ErrInvalidKey (model: %v)", what, errC, errM)
		}
	}
}

// apply feeds one event, under key when it is not "", to both sides; it reports whether they
// accepted it.
func (h *harness) apply(typ, key string, obj []byte, rv uint64) bool {
	h.tb.Helper()
	what := fmt.Sprintf("Apply(%s %s rv %d)", typ, keyOf(obj), rv)
	if key != "" {
		what = fmt.Sprintf("Apply(%s %s key %q rv %d)", typ, keyOf(obj), key, rv)
		h.stats["apply keyed"]++
	}
	h.logf("%s", what)
	errC := h.cache.Apply(watchcache.Event{Type: watchcache.EventType(typ), Object: obj, ResourceVersion: rv, Key: key})
	errM := h.model.ApplyKeyed(typ, key, obj, rv)
	h.checkRejected(what, errC, errM)
	if got, want := h.cache.ResourceVersion(), h.model.RV(); got != want {
		h.failf("after Apply: cache RV %d, model RV %d", got, want)
	}
	return errC == nil
}

func (h *harness) addIndex(s index.Spec) {
	h.tb.Helper()
	h.logf("AddIndex(%s)", s)
	err := h.cache.AddIndex(s)
	switch {
	case err == nil:
		h.indexes[s] = true
	case errors.Is(err, watchcache.ErrIndexExists) && h.indexes[s]:
	case errors.Is(err, watchcache.ErrUnknownIndexField) && s.Kind == index.Field && !h.model.fieldKnown(s.Name):
	default:
		h.failf("AddIndex(%s): %v", s, err)
	}
}

func (h *harness) registerField(name, path string) {
	h.tb.Helper()
	h.logf("RegisterField(%s, %s)", name, path)
	errC := h.cache.RegisterField(name, path)
	errM := h.model.RegisterField(name, path)
	if (errC == nil) != (errM == nil) {
		h.failf("RegisterField(%s): cache %v, model %v", name, errC, errM)
	}
	if errC == nil {
		h.fields[name] = true
	}
}

// --- reads

func toQueryOpts(q Query) watchcache.ListOptions {
	return watchcache.ListOptions{
		Namespace: q.Namespace, LabelSelector: q.LabelSelector, FieldSelector: q.FieldSelector,
		ResourceVersion: q.ResourceVersion, ResourceVersionMatch: q.ResourceVersionMatch,
		Limit: q.Limit, Continue: q.Continue, SendInitialEvents: q.SendInitialEvents,
	}
}

func describeQuery(q Query) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("ns", q.Namespace)
	add("labelSelector", q.LabelSelector)
	add("fieldSelector", q.FieldSelector)
	add("resourceVersion", q.ResourceVersion)
	add("resourceVersionMatch", q.ResourceVersionMatch)
	if q.Limit != 0 {
		add("limit", fmt.Sprint(q.Limit))
	}
	if q.Continue != "" {
		add("continue", q.Continue)
	}
	if q.SendInitialEvents != nil {
		add("sendInitialEvents", fmt.Sprint(*q.SendInitialEvents))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// cacheList runs a list on the cache and renders it as an Answer.
func (h *harness) cacheList(q Query) Answer {
	res, err := h.cache.List(context.Background(), toQueryOpts(q))
	if err != nil {
		s := apistatus.FromError(err).ErrStatus
		return Answer{Err: &Status{Code: s.Code, Message: s.Message, Continue: s.ListMeta.Continue}}
	}
	return Answer{Items: res.Items, RV: res.ResourceVersion, Continue: res.Continue, Remaining: res.RemainingItemCount}
}

// list compares one list request; it returns the cache's and the model's answers.
func (h *harness) list(q Query) (Answer, Answer) {
	h.tb.Helper()
	h.logf("List%s", describeQuery(q))
	got, want := h.cacheList(q), h.model.List(q)
	h.count("list", want.Err, want.Continue != "", len(want.Items) > 0)
	if _, _, err := decodeToken(want.Continue, "/"); want.Continue != "" && err != nil {
		h.stats["list token after a //name key"]++
	}
	if diff := h.compareList(q, got, want); diff != "" {
		h.failf("List%s at cache RV %d:\n%s", describeQuery(q), h.model.RV(), diff)
	}
	return got, want
}

// compareList returns "" when the answers agree: same error (code, message, and the decoded
// token of a 410), or the same items byte for byte, RV, token (decoded), remainingItemCount.
func (h *harness) compareList(q Query, got, want Answer) string {
	if (got.Err == nil) != (want.Err == nil) {
		if got.Err != nil && want.Err != nil {
			return ""
		}
		return fmt.Sprintf("  cache %s\n  model %s", summary(got), summary(want))
	}
	if got.Err != nil {
		if got.Err.Code != want.Err.Code || got.Err.Message != want.Err.Message || !sameToken(got.Err.Continue, want.Err.Continue) {
			return fmt.Sprintf("  cache %s\n  model %s", got.Err, want.Err)
		}
		return ""
	}
	var diffs []string
	if got.RV != want.RV {
		diffs = append(diffs, fmt.Sprintf("RV: cache %d, model %d", got.RV, want.RV))
	}
	if len(got.Items) != len(want.Items) {
		diffs = append(diffs, fmt.Sprintf("items: cache %d %v, model %d %v", len(got.Items), keysOf(got.Items), len(want.Items), keysOf(want.Items)))
	} else {
		for i := range got.Items {
			if !bytes.Equal(got.Items[i], want.Items[i]) {
				diffs = append(diffs, fmt.Sprintf("item %d:\n    cache %s\n    model %s", i, got.Items[i], want.Items[i]))
				break
			}
		}
	}
	if got.Items == nil {
		diffs = append(diffs, "items: cache nil, want [] (rule 6.5)")
	}
	if !sameToken(got.Continue, want.Continue) {
		diffs = append(diffs, fmt.Sprintf("continue: cache %s, model %s", tokenString(got.Continue), tokenString(want.Continue)))
	}
	if gr, wr := countString(got.Remaining), countString(want.Remaining); gr != wr {
		diffs = append(diffs, fmt.Sprintf("remainingItemCount: cache %s, model %s", gr, wr))
	}
	return strings.Join(diffs, "\n")
}

func (h *harness) count(what string, err *Status, cont, items bool) {
	switch {
	case err != nil:
		h.stats[fmt.Sprintf("%s %d", what, err.Code)]++
	case cont:
		h.stats[what+" page+continue"]++
	case items:
		h.stats[what+" items"]++
	default:
		h.stats[what+" empty"]++
	}
}

func summary(a Answer) string {
	if a.Err != nil {
		return a.Err.String()
	}
	return fmt.Sprintf("%d items %v at RV %d, continue %s", len(a.Items), keysOf(a.Items), a.RV, tokenString(a.Continue))
}

func keysOf(items [][]byte) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = keyOf(it)
	}
	return out
}

func countString(p *int64) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// sameToken compares two tokens by content (the same RV and start key, either start form). A
// token that rule 2.3 refuses (one resuming after a "//<name>" key) is compared as it is.
func sameToken(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	ka, ra, ea := decodeToken(a, "/")
	kb, rb, eb := decodeToken(b, "/")
	if ea != nil || eb != nil {
		return a == b
	}
	return ka == kb && ra == rb
}

func tokenString(t string) string {
	if t == "" {
		return `""`
	}
	k, rv, err := decodeToken(t, "/")
	if err != nil {
		return fmt.Sprintf("%q (%v)", t, err)
	}
	return fmt.Sprintf("{rv %d start %q}", rv, k)
}

// listAll pages through a list, comparing every page, and keeps one token for later.
func (h *harness) listAll(q Query) {
	h.tb.Helper()
	for range 100 {
		got, want := h.list(q)
		if got.Err != nil || got.Continue == "" || want.Continue == "" {
			return
		}
		// Both sides continue with the cache's token: the model decodes either form, and the
		// tokens were just compared equal by content.
		q.Continue, q.ResourceVersion, q.ResourceVersionMatch = got.Continue, "", ""
		h.keepToken(q)
	}
}

// keepToken keeps a query that continues a list, to run it later, after more writes.
func (h *harness) keepToken(q Query) {
	if len(h.tokens) >= 16 {
		h.tokens = h.tokens[1:]
	}
	h.tokens = append(h.tokens, q)
}

// --- watches

// cacheWatch runs a watch on the cache and collects its events up to the first periodic bookmark
// (the replay or initial events are over) or the end of the stream.
func (h *harness) cacheWatch(q Query) WatchAnswer {
	h.tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := h.cache.Watch(ctx, watchcache.WatchOptions{
		Namespace: q.Namespace, LabelSelector: q.LabelSelector, FieldSelector: q.FieldSelector,
		ResourceVersion: q.ResourceVersion, ResourceVersionMatch: q.ResourceVersionMatch,
		SendInitialEvents: q.SendInitialEvents, AllowWatchBookmarks: q.AllowWatchBookmarks,
	})
	if err != nil {
		s := apistatus.FromError(err).ErrStatus
		return WatchAnswer{Err: &Status{Code: s.Code, Message: s.Message}}
	}
	defer func() {
		w.Stop()
		for range w.Events() {
		}
	}()
	// A watch from an RV the cache has not reached gets no bookmark (rule 5.7: none below the start
	// RV) and no event until the cache gets there: give it a moment to send something it should not.
	timeout, future := eventTimeout, false
	if n, err := strconv.ParseUint(q.ResourceVersion, 10, 64); err == nil && q.SendInitialEvents == nil && n > h.cache.ResourceVersion() {
		timeout, future = 50*time.Millisecond, true
	}
	var out []WatchEvent
	for {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				return WatchAnswer{Events: out}
			}
			we := WatchEvent{Type: string(ev.Type), Object: ev.Object, RV: ev.ResourceVersion, End: ev.InitialEventsEnd}
			if ev.Err != nil {
				s := apistatus.FromError(ev.Err).ErrStatus
				we.Err = &Status{Code: s.Code, Message: s.Message}
			}
			if ev.Type == watchcache.Bookmark && !ev.InitialEventsEnd {
				return WatchAnswer{Events: out}
			}
			out = append(out, we)
			if ev.Type == watchcache.Error {
				if _, ok := <-w.Events(); ok {
					h.failf("Watch%s: an event after the ERROR event (rule 5.1)", describeQuery(q))
				}
				return WatchAnswer{Events: out}
			}
		case <-time.After(timeout):
			if future {
				return WatchAnswer{Events: out}
			}
			h.failf("Watch%s: no event or bookmark for %v after %d events", describeQuery(q), eventTimeout, len(out))
		}
	}
}

// watch compares a watch started at the current state; replayed events are compared up to until.
func (h *harness) watch(q Query, until uint64) {
	h.tb.Helper()
	h.logf("Watch%s until %d", describeQuery(q), until)
	got := h.cacheWatch(q)
	replay := q.SendInitialEvents == nil && q.ResourceVersion != "" && q.ResourceVersion != "0"
	if replay && got.Err == nil {
		kept := got.Events[:0:0]
		for _, ev := range got.Events {
			if ev.Type == "ERROR" || ev.RV <= until {
				kept = append(kept, ev)
			}
		}
		got.Events = kept
	}
	want := h.model.Watch(q, until)
	h.count("watch", want.Err, false, len(want.Events) > 0)
	if len(want.Events) > 0 && want.Events[0].Err != nil {
		h.stats[fmt.Sprintf("watch ERROR %d", want.Events[0].Err.Code)]++
	}
	if d := compareWatch(got, want); d != "" {
		h.failf("Watch%s at cache RV %d:\n%s", describeQuery(q), h.model.RV(), d)
	}
}

func compareWatch(got, want WatchAnswer) string {
	if (got.Err == nil) != (want.Err == nil) || (got.Err != nil && (got.Err.Code != want.Err.Code || got.Err.Message != want.Err.Message)) {
		return fmt.Sprintf("  cache refused with %s\n  model refused with %s", got.Err, want.Err)
	}
	n := max(len(got.Events), len(want.Events))
	for i := range n {
		if i >= len(got.Events) || i >= len(want.Events) || !sameEvent(got.Events[i], want.Events[i]) {
			return fmt.Sprintf("  event %d differs (cache %d events, model %d)\n  cache %v\n  model %v",
				i, len(got.Events), len(want.Events), around(got.Events, i), around(want.Events, i))
		}
	}
	return ""
}

func sameEvent(a, b WatchEvent) bool {
	if a.Type != b.Type {
		return false
	}
	if a.Type == "ERROR" {
		return a.Err != nil && b.Err != nil && a.Err.Code == b.Err.Code && a.Err.Message == b.Err.Message
	}
	return a.RV == b.RV && a.End == b.End && bytes.Equal(a.Object, b.Object)
}

func around(evs []WatchEvent, i int) []WatchEvent { return evs[max(0, i-2):min(len(evs), i+3)] }
