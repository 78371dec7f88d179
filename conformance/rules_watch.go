package conformance

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

var tooOldMessage = regexp.MustCompile(`^too old resource version: (\d+) \((\d+)\)$`)

// waitRegistered waits for the first periodic bookmark of a watch that allows bookmarks: from
// then on the watch is registered, so later writes reach it as live events.
func (w *stream) waitRegistered() {
	w.e.t.Helper()
	s, ok := w.next(patience)
	if !ok || s.typ != watch.Bookmark || s.end {
		w.e.t.Fatalf("%s: first event %v (ok=%v), want a periodic BOOKMARK (rule 5.7)", w.what, s, ok)
	}
}

func watchRules() []rule {
	return []rule{
		{name: "0.7/watch-without-resource-version-is-watch-list", test: func(e *env) {
			for i, rv := range []string{"", "0"} {
				w := e.watch("", metav1.ListOptions{ResourceVersion: rv})
				w.want(e.initial(nil)...)
				next := e.rv + 1
				p := e.pod(fmt.Sprintf("ns-1/pod-0%d", i))
				p.labels["x"] = "y"
				e.put(p, next)
				w.want(modified(p.key(), next))
			}
		}},
		{name: "5.1/watch-list-at-rv", test: func(e *env) {
			p := e.pod("ns-0/pod-00")
			p.node = "node-1"
			e.put(p, 110)
			w := e.watch("", metav1.ListOptions{ResourceVersion: "100", ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true), AllowWatchBookmarks: true})
			w.want(append(e.initial(nil), endMark(110))...)
			w = e.watch("ns-0", metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true),
				AllowWatchBookmarks: true, FieldSelector: "spec.nodeName=node-1"})
			w.want(added("ns-0/pod-00", 110), added("ns-0/pod-01", 11), added("ns-0/pod-04", 14), endMark(110))
		}},
		{name: "5.1/replay-from-rv", test: func(e *env) {
			var want []seen
			for i := range 5 {
				p := e.pod(fmt.Sprintf("ns-%d/pod-0%d", i%3, i))
				p.labels["x"] = "y"
				e.put(p, uint64(110+i))
				want = append(want, modified(p.key(), uint64(110+i)))
			}
			e.watch("", metav1.ListOptions{ResourceVersion: "100"}).want(want...)
			e.watch("", metav1.ListOptions{ResourceVersion: "112"}).want(want[3:]...)
			w := e.watch("", metav1.ListOptions{ResourceVersion: "114"})
			e.put(e.pod("ns-0/pod-07"), 120)
			w.want(modified("ns-0/pod-07", 120))
		}},
		{name: "5.1/future-rv-is-accepted-without-wait", cfg: shortWaitCfg, test: func(e *env) {
			w := e.watch("", metav1.ListOptions{ResourceVersion: "200"})
			time.Sleep(2 * e.cfg.WaitTimeout) // no wait, so no 504 either
			e.put(e.pod("ns-0/pod-00"), 150)
			e.put(e.pod("ns-0/pod-01"), 250)
			w.want(modified("ns-0/pod-01", 250))
		}},
		{name: "5.1/send-initial-events-false", test: func(e *env) {
			for _, rv := range []string{"0", ""} {
				w := e.watch("", metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: notOlderThan,
					SendInitialEvents: ptr(false), AllowWatchBookmarks: true})
				w.waitRegistered()
				next := e.rv + 1
				e.put(e.pod("ns-1/pod-03"), next)
				w.want(modified("ns-1/pod-03", next))
			}
		}},
		{name: "5.1/watch-list-future-rv-times-out", cfg: shortWaitCfg, test: func(e *env) {
			w := e.watch("", metav1.ListOptions{ResourceVersion: "999999999", ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true)})
			e.wantTooLarge("watch-list at a future RV", w.wantError(), "999999999", "100")
		}},
		{name: "5.3/too-old-after-relist", test: func(e *env) {
			s := e.watch("", metav1.ListOptions{ResourceVersion: "99"}).wantError()
			e.wantStatus("watch from 99 after a re-list at 100", s, http.StatusGone, metav1.StatusReasonExpired, "too old resource version: 99 (100)")
			w := e.watch("", metav1.ListOptions{ResourceVersion: "100"})
			e.put(e.pod("ns-0/pod-00"), 101)
			w.want(modified("ns-0/pod-00", 101))
		}},
		{name: "5.3/too-old-after-eviction", cfg: smallWindowCfg, test: func(e *env) {
			e.churn(5 * smallWindow)
			s := e.watch("", metav1.ListOptions{ResourceVersion: "100"}).wantError()
			m := tooOldMessage.FindStringSubmatch(s.Message)
			if s.Code != http.StatusGone || s.Reason != metav1.StatusReasonExpired || m == nil || m[1] != "100" {
				e.t.Fatalf("watch from 100: %d %s %q, want 410 Expired \"too old resource version: 100 (<oldest-1>)\"", s.Code, s.Reason, s.Message)
			}
			oldest, _ := strconv.ParseUint(m[2], 10, 64)
			if oldest <= 100 || oldest >= e.rv {
				e.t.Fatalf("watch from 100: oldest-1 = %d, want within (100, %d)", oldest, e.rv)
			}
			// oldest-1 is the oldest RV a watch may start from; one less is too old.
			w := e.watch("", metav1.ListOptions{ResourceVersion: m[2]})
			if got := w.read(1, true); len(got) != 1 || got[0].typ != watch.Modified || got[0].rv != rvString(oldest+1) {
				e.t.Errorf("watch from %d: %v, want the MODIFIED at %d", oldest, got, oldest+1)
			}
			s = e.watch("", metav1.ListOptions{ResourceVersion: rvString(oldest - 1)}).wantError()
			e.wantStatus(fmt.Sprintf("watch from %d", oldest-1), s, http.StatusGone, metav1.StatusReasonExpired,
				fmt.Sprintf("too old resource version: %d (%d)", oldest-1, oldest))
		}},
		{name: "5.5/selector-transitions", test: func(e *env) {
			byNode := e.watch("", metav1.ListOptions{ResourceVersion: "100", FieldSelector: "spec.nodeName=node-1"})
			byApp := e.watch("", metav1.ListOptions{ResourceVersion: "100", LabelSelector: "app=web"})
			p := e.pod("ns-0/pod-01") // node-1 → node-2: leaves the node selection
			p.node = "node-2"
			e.put(p, 110)
			p = e.pod("ns-0/pod-00") // node-0 → node-1: enters it
			p.node = "node-1"
			e.put(p, 111)
			p = e.pod("ns-0/pod-00") // stays on node-1, leaves app=web
			p.labels["app"] = "db"
			e.put(p, 112)
			p = e.pod("ns-0/pod-02") // node-2 → node-0: in neither node selection
			p.node = "node-0"
			e.put(p, 113)
			e.del("ns-0/pod-04", 114) // on node-1, app=web
			e.put(newPod("ns-1", "pod-20", "node-1", map[string]string{"app": "web"}), 115)
			got := byNode.read(5, true)
			want := []seen{deleted("ns-0/pod-01", 110), added("ns-0/pod-00", 111), modified("ns-0/pod-00", 112), deleted("ns-0/pod-04", 114), added("ns-1/pod-20", 115)}
			if !sameSeen(got, want) {
				e.t.Errorf("spec.nodeName=node-1:\n got  %v\n want %v", got, want)
			}
			byApp.want(modified("ns-0/pod-00", 111), deleted("ns-0/pod-00", 112), modified("ns-0/pod-02", 113), deleted("ns-0/pod-04", 114), added("ns-1/pod-20", 115))
		}},
		{name: "5.5/exit-carries-previous-object", test: func(e *env) {
			w := e.watch("", metav1.ListOptions{ResourceVersion: "100", FieldSelector: "spec.nodeName=node-1", LabelSelector: "app=db"})
			p := e.pod("ns-0/pod-01")
			p.node = "node-2"
			e.put(p, 110)
			if s, ok := w.next(patience); !ok || s.typ != watch.Deleted {
				e.t.Fatalf("%s: %v, want DELETED", w.what, s)
			}
			ev := w.last
			if m := e.meta(ev.Object); m.Name != "pod-01" || m.ResourceVersion != "110" || e.field(ev.Object, "spec.nodeName") != "node-1" || m.Labels["app"] != "db" {
				e.t.Errorf("DELETED on selector exit: %s, want pod-01 as it was (node-1) stamped with RV 110", ev.Object)
			}
		}},
		{name: "5.6/order-and-no-duplicates", test: func(e *env) { orderAndNoDuplicates(e) }},
		{name: "5.7/periodic-bookmarks", test: func(e *env) {
			w := e.watch("", metav1.ListOptions{ResourceVersion: "100", LabelSelector: "app=none", AllowWatchBookmarks: true})
			plain := e.watch("", metav1.ListOptions{ResourceVersion: "100", LabelSelector: "app=none"})
			w.waitRegistered()
			e.put(e.pod("ns-0/pod-00"), 110)
			e.bookmark(150)
			last := uint64(0)
			for {
				s, ok := w.next(patience)
				if !ok {
					e.t.Fatalf("%s: no BOOKMARK at the source's RV 150 (rules 3.1, 5.7)", w.what)
				}
				rv, err := strconv.ParseUint(s.rv, 10, 64)
				if s.typ != watch.Bookmark || s.end || err != nil || rv < last {
					e.t.Fatalf("%s: %v after RV %d, want periodic BOOKMARKs with non-decreasing RVs", w.what, s, last)
				}
				if last = rv; rv == 150 {
					break
				}
			}
			plain.quiet(4 * e.cfg.BookmarkInterval)
		}},
		{name: "5.8/initial-events-end", test: func(e *env) {
			e.bookmark(140)
			for _, o := range []metav1.ListOptions{
				{AllowWatchBookmarks: true},
				{ResourceVersion: "0", AllowWatchBookmarks: true},
				{ResourceVersion: "0", ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true), AllowWatchBookmarks: true},
			} {
				w := e.watch("", o)
				w.want(append(e.initial(nil), endMark(140))...)
				if s, ok := w.next(patience); !ok || s.typ != watch.Bookmark || s.end {
					e.t.Errorf("%s: %v after the end marker, want a periodic BOOKMARK without the annotation", w.what, s)
				}
			}
			w := e.watch("", metav1.ListOptions{AllowWatchBookmarks: true, LabelSelector: "app=db", FieldSelector: "spec.nodeName=node-1"})
			w.want(added("ns-0/pod-01", 11), added("ns-1/pod-01", 19), added("ns-2/pod-01", 27), endMark(140))
			// Without allowWatchBookmarks there is no marker.
			w = e.watch("ns-2", metav1.ListOptions{})
			w.want(e.initial(func(p pod) bool { return p.ns == "ns-2" })...)
			e.put(e.pod("ns-2/pod-00"), 141)
			w.want(modified("ns-2/pod-00", 141))
			// A watch that is not a watch-list never gets the annotation.
			w = e.watch("", metav1.ListOptions{ResourceVersion: rvString(e.rv), AllowWatchBookmarks: true})
			w.waitRegistered()
		}},
		{name: "5.12/namespace-scope", test: func(e *env) {
			w := e.watch("ns-1", metav1.ListOptions{ResourceVersion: "100"})
			e.put(e.pod("ns-0/pod-03"), 110)
			e.put(e.pod("ns-1/pod-03"), 111)
			e.put(e.pod("ns-2/pod-03"), 112)
			e.del("ns-1/pod-04", 113)
			e.put(newPod("ns-10", "pod-00", "", nil), 114) // "/ns-10/" shares a prefix with "/ns-1" but not with "/ns-1/"
			e.put(e.pod("ns-1/pod-05"), 115)
			w.want(modified("ns-1/pod-03", 111), deleted("ns-1/pod-04", 113), modified("ns-1/pod-05", 115))
		}},
		{name: "3.6/relist-closes-watchers", test: func(e *env) {
			replay := e.watch("", metav1.ListOptions{ResourceVersion: "100"})
			list := e.watch("", metav1.ListOptions{})
			list.want(e.initial(nil)...)
			e.put(e.pod("ns-0/pod-00"), 110)
			replay.want(modified("ns-0/pod-00", 110))
			list.want(modified("ns-0/pod-00", 110))
			e.replace(fixturePods()[:10], 200)
			replay.wantClosed()
			list.wantClosed()
			if res := e.list("", metav1.ListOptions{}); len(res.Items) != 10 || res.ListMeta.ResourceVersion != "200" {
				e.t.Errorf("list after the re-list: %d items at RV %q, want 10 at 200", len(res.Items), res.ListMeta.ResourceVersion)
			}
			s := e.watch("", metav1.ListOptions{ResourceVersion: "150"}).wantError()
			e.wantStatus("watch from 150 after a re-list at 200", s, http.StatusGone, metav1.StatusReasonExpired, "too old resource version: 150 (200)")
			s = e.listErr("", metav1.ListOptions{ResourceVersion: "150", ResourceVersionMatch: exact})
			e.wantStatus("Exact list at 150 after a re-list at 200", s, http.StatusGone, metav1.StatusReasonExpired, "The resourceVersion for the provided list is too old.")
		}},
	}
}

// orderAndNoDuplicates feeds 200 events while three watches run — one replaying from the fixture,
// one from a future RV, one watch-list started midway — and checks that each gets exactly the
// events after its start, in RV order, each once (rule 5.6), and that the watch-list's initial
// state plus its events is the final state.
func orderAndNoDuplicates(e *env) {
	const n = 200
	var evs []Event
	var types []seen
	rv := uint64(fixtureRV)
	for i := range n {
		rv++
		key := fmt.Sprintf("ns-%d/pod-%02d", i%3, (i*7)%10)
		p, ok := e.pods[key]
		switch {
		case ok && i%5 == 4:
			p.rv = rv
			evs = append(evs, Event{Type: watch.Deleted, Object: p.json(), ResourceVersion: rv})
			types = append(types, deleted(key, rv))
			delete(e.pods, key)
		case ok:
			p.labels = cloneLabels(p.labels)
			p.labels["gen"] = strconv.Itoa(i)
			p.rv = rv
			evs = append(evs, Event{Type: watch.Modified, Object: p.json(), ResourceVersion: rv})
			types = append(types, modified(key, rv))
			e.pods[key] = p
		default:
			ns, name, _ := strings.Cut(key, "/")
			p = newPod(ns, name, "node-0", nil)
			p.rv = rv
			evs = append(evs, Event{Type: watch.Added, Object: p.json(), ResourceVersion: rv})
			types = append(types, added(key, rv))
			e.pods[key] = p
		}
	}
	final := rvString(rv)

	type result struct {
		got []seen
		err error
	}
	// progress is the RV the replaying watch has reached: the writer stays within a few events of
	// it, because a Target may close a watcher that falls far behind (rule 5.10), which is not
	// what this subtest is about.
	var progress atomic.Uint64
	progress.Store(fixtureRV)
	collect := func(s Stream, out chan<- result, track bool) {
		var r result
		defer func() { out <- r }()
		timeout := time.After(3 * patience)
		for {
			select {
			case ev, ok := <-s.Events():
				if !ok {
					r.err = fmt.Errorf("stream closed after %d events", len(r.got))
					return
				}
				sn, _, err := decodeEvent(ev)
				if err != nil {
					r.err = err
					return
				}
				if sn.typ == watch.Bookmark && !sn.end {
					if sn.rv == final {
						return
					}
					continue
				}
				r.got = append(r.got, sn)
				if v, err := strconv.ParseUint(sn.rv, 10, 64); err == nil && track {
					progress.Store(v)
				}
				if sn.rv == final && sn.typ != watch.Added {
					return
				}
			case <-timeout:
				r.err = fmt.Errorf("no event at RV %s after %v", final, 3*patience)
				return
			}
		}
	}
	open := func(o metav1.ListOptions, track bool) (*stream, chan result) {
		w := e.watch("", o)
		out := make(chan result, 1)
		go collect(w.s, out, track)
		return w, out
	}
	fromFixture, fromFixtureOut := open(metav1.ListOptions{ResourceVersion: "100"}, true)
	future, futureOut := open(metav1.ListOptions{ResourceVersion: "150"}, false)

	var wg sync.WaitGroup
	var applyErr error
	half := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, ev := range evs {
			if i == n/4 {
				close(half)
			}
			if i%10 == 0 {
				deadline := time.Now().Add(patience)
				for progress.Load()+10 < ev.ResourceVersion && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
			}
			if err := e.tg.Apply(ev); err != nil {
				applyErr = fmt.Errorf("Apply(%s at %d): %w", ev.Type, ev.ResourceVersion, err)
				return
			}
		}
	}()
	<-half
	list, listOut := open(metav1.ListOptions{AllowWatchBookmarks: true}, false)
	wg.Wait()
	if applyErr != nil {
		e.t.Fatalf("%v", applyErr)
	}
	e.rv = rv

	check := func(w *stream, r result, want []seen) {
		e.t.Helper()
		if r.err != nil {
			e.t.Errorf("%s: %v", w.what, r.err)
		}
		if !sameSeen(r.got, want) {
			e.t.Errorf("%s: %d events, want %d; first difference at %d:\n got  %v\n want %v", w.what, len(r.got), len(want),
				firstDiff(r.got, want), window(r.got, firstDiff(r.got, want)), window(want, firstDiff(r.got, want)))
		}
	}
	check(fromFixture, <-fromFixtureOut, types)
	check(future, <-futureOut, types[150-fixtureRV:])

	r := <-listOut
	if r.err != nil {
		e.t.Errorf("%s: %v", list.what, r.err)
	}
	end := -1
	for i, s := range r.got {
		if s.end {
			end = i
			break
		}
	}
	if end < 0 {
		e.t.Fatalf("%s: no initial-events-end bookmark in %d events", list.what, len(r.got))
	}
	snap, _ := strconv.ParseUint(r.got[end].rv, 10, 64)
	state := map[string]string{}
	for i, s := range r.got[:end] {
		if s.typ != watch.Added || (i > 0 && s.key <= r.got[i-1].key) {
			e.t.Fatalf("%s: initial event %d is %v after %v, want ADDED in key order without duplicates", list.what, i, s, r.got[max(i-1, 0)])
		}
		state[s.key] = s.rv
	}
	if snap < fixtureRV+n/4 {
		e.t.Errorf("%s: initial events end at RV %d, but %d events were applied before the watch started", list.what, snap, n/4)
	}
	check(list, result{got: r.got[end+1:]}, types[snap-fixtureRV:])
	for _, s := range r.got[end+1:] {
		if s.typ == watch.Deleted {
			delete(state, s.key)
		} else {
			state[s.key] = s.rv
		}
	}
	want := map[string]string{}
	for k, p := range e.pods {
		want[k] = rvString(p.rv)
	}
	if len(state) != len(want) {
		e.t.Errorf("%s: initial events + events = %d objects, final state has %d", list.what, len(state), len(want))
	}
	for k, v := range want {
		if state[k] != v {
			e.t.Errorf("%s: %s at RV %q from the watch, %q in the final state", list.what, k, state[k], v)
		}
	}
}

func firstDiff(a, b []seen) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// window returns a few events around i, for failure messages.
func window(s []seen, i int) []seen { return s[max(0, i-2):min(len(s), i+3)] }
