package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// seen is a watch event as the suite compares it.
type seen struct {
	typ watch.EventType
	key string // "ns/name"; "" for BOOKMARK; the Status message for ERROR
	rv  string // the object's metadata.resourceVersion
	end bool   // BOOKMARK carrying k8s.io/initial-events-end: "true"
}

func (s seen) String() string {
	switch s.typ {
	case watch.Bookmark:
		if s.end {
			return "BOOKMARK(end)@" + s.rv
		}
		return "BOOKMARK@" + s.rv
	case watch.Error:
		return fmt.Sprintf("ERROR %q", s.key)
	}
	return fmt.Sprintf("%s %s@%s", s.typ, s.key, s.rv)
}

// decodeEvent turns a wire event into a seen; err is set when the event is malformed.
func decodeEvent(ev WatchEvent) (seen, *metav1.Status, error) {
	s := seen{typ: ev.Type}
	switch ev.Type {
	case watch.Error:
		var st metav1.Status
		if err := json.Unmarshal(ev.Object, &st); err != nil {
			return s, nil, fmt.Errorf("ERROR event object is not a Status: %v: %.200s", err, ev.Object)
		}
		s.key = st.Message
		return s, &st, nil
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
	default:
		return s, nil, fmt.Errorf("unknown event type %q", ev.Type)
	}
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(ev.Object, &o); err != nil {
		return s, nil, fmt.Errorf("%s event object is not JSON: %v: %.200s", ev.Type, err, ev.Object)
	}
	s.rv = o.Metadata.ResourceVersion
	if ev.Type == watch.Bookmark {
		s.end = o.Metadata.Annotations[metav1.InitialEventsAnnotationKey] == "true"
		if o.Metadata.Name != "" {
			return s, nil, fmt.Errorf("BOOKMARK object has a name: %.200s", ev.Object)
		}
		return s, nil, nil
	}
	s.key = o.Metadata.Namespace + "/" + o.Metadata.Name
	return s, nil, nil
}

// stream is a watch opened by a subtest; it is stopped when the subtest ends.
type stream struct {
	e    *env
	s    Stream
	what string
	// status is the Status of the last ERROR event read; last is the last event read.
	status *metav1.Status
	last   WatchEvent
	closed bool
}

// watch starts a watch, failing the subtest if it is refused.
func (e *env) watch(ns string, o metav1.ListOptions) *stream {
	e.t.Helper()
	o.Watch = true
	s, err := e.tg.Watch(e.ctx, ns, o)
	if err != nil {
		e.t.Fatalf("Watch(%q, %s): %v", ns, describe(o), err)
	}
	w := &stream{e: e, s: s, what: fmt.Sprintf("watch %q %s", ns, describe(o))}
	e.t.Cleanup(func() {
		s.Stop()
		drain(s, patience)
	})
	return w
}

// drain reads a stopped stream until it closes, so that its goroutines end.
func drain(s Stream, timeout time.Duration) {
	deadline := time.After(timeout)
	for {
		select {
		case _, ok := <-s.Events():
			if !ok {
				return
			}
		case <-deadline:
			return
		}
	}
}

// next reads one event; ok is false when the stream closed or nothing came within timeout.
func (w *stream) next(timeout time.Duration) (seen, bool) {
	w.e.t.Helper()
	if w.closed {
		return seen{}, false
	}
	select {
	case ev, ok := <-w.s.Events():
		if !ok {
			w.closed = true
			return seen{}, false
		}
		w.last = ev
		s, st, err := decodeEvent(ev)
		if err != nil {
			w.e.t.Errorf("%s: %v", w.what, err)
		}
		if st != nil {
			w.status = st
		}
		return s, true
	case <-time.After(timeout):
		return seen{}, false
	}
}

// read returns the next n events (skipping periodic bookmarks, those without the end
// annotation, when skipBookmarks is set), fewer if the stream closes or stalls for patience.
func (w *stream) read(n int, skipBookmarks bool) []seen {
	w.e.t.Helper()
	var out []seen
	for len(out) < n {
		s, ok := w.next(patience)
		if !ok {
			break
		}
		if skipBookmarks && s.typ == watch.Bookmark && !s.end {
			continue
		}
		out = append(out, s)
	}
	return out
}

// want reads len(want) events (periodic bookmarks skipped) and compares them.
func (w *stream) want(want ...seen) {
	w.e.t.Helper()
	if got := w.read(len(want), true); !sameSeen(got, want) {
		w.e.t.Errorf("%s:\n got  %v\n want %v", w.what, got, want)
	}
}

// quiet checks that no event other than periodic bookmarks arrives within d.
func (w *stream) quiet(d time.Duration) {
	w.e.t.Helper()
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		s, ok := w.next(left)
		if !ok {
			return
		}
		if s.typ != watch.Bookmark || s.end {
			w.e.t.Errorf("%s: unexpected %v", w.what, s)
		}
	}
}

// wantError reads the ERROR event that ends a watch (rule 5.1) and returns its Status.
func (w *stream) wantError() metav1.Status {
	w.e.t.Helper()
	got := w.read(1, true)
	if len(got) != 1 || got[0].typ != watch.Error || w.status == nil {
		w.e.t.Fatalf("%s: %v, want one ERROR event", w.what, got)
	}
	if s, ok := w.next(patience); ok {
		w.e.t.Errorf("%s: %v after the ERROR event, want the stream closed", w.what, s)
	}
	return *w.status
}

// wantClosed checks that the stream closes without an ERROR or object event (bookmarks pass).
func (w *stream) wantClosed() {
	w.e.t.Helper()
	for {
		s, ok := w.next(patience)
		if !ok {
			if !w.closed {
				w.e.t.Errorf("%s: still open after %v, want it closed", w.what, patience)
			}
			return
		}
		if s.typ != watch.Bookmark {
			w.e.t.Errorf("%s: %v before closing, want none", w.what, s)
		}
	}
}

func sameSeen(a, b []seen) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func added(key string, rv uint64) seen { return seen{typ: watch.Added, key: key, rv: rvString(rv)} }
func modified(key string, rv uint64) seen {
	return seen{typ: watch.Modified, key: key, rv: rvString(rv)}
}
func deleted(key string, rv uint64) seen { return seen{typ: watch.Deleted, key: key, rv: rvString(rv)} }
func endMark(rv uint64) seen             { return seen{typ: watch.Bookmark, rv: rvString(rv), end: true} }

// initial is the ADDED events of the fixture's pods (in key order) that match keep.
func (e *env) initial(keep func(p pod) bool) []seen {
	var ks []string
	for k := range e.pods {
		ks = append(ks, k)
	}
	sortKeys(ks)
	var out []seen
	for _, k := range ks {
		if p := e.pods[k]; keep == nil || keep(p) {
			out = append(out, added(k, p.rv))
		}
	}
	return out
}

// sortKeys sorts "ns/name" names in storage-key order: "/ns/name" in byte order, which is the
// byte order of "ns/name" too.
func sortKeys(names []string) { slices.Sort(names) }
