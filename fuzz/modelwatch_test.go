package fuzz

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// WatchEvent is one event of a watch as the model predicts it. Periodic bookmarks are not
// predicted; the bookmark ending a watch-list's initial events is (End).
type WatchEvent struct {
	Type   string // ADDED, MODIFIED, DELETED, BOOKMARK or ERROR
	Object []byte // nil for BOOKMARK and ERROR
	RV     uint64
	End    bool
	Err    *Status // for ERROR
}

// String renders the event for failure messages.
func (e WatchEvent) String() string {
	switch e.Type {
	case "ERROR":
		return "ERROR " + e.Err.String()
	case "BOOKMARK":
		return fmt.Sprintf("BOOKMARK@%d end=%v", e.RV, e.End)
	}
	return fmt.Sprintf("%s %s@%d", e.Type, keyOf(e.Object), e.RV)
}

// WatchAnswer is a watch's answer: refused with Err, or the events it delivers.
type WatchAnswer struct {
	Err    *Status
	Events []WatchEvent
}

// validateWatch is rule 0.6 after the defaulting of 0.7 (AM37 validateWatchOptions, WatchList on).
func validateWatch(q Query) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("resourceVersionMatch")
	if q.SendInitialEvents != nil && q.ResourceVersionMatch != "NotOlderThan" {
		errs = append(errs, field.Forbidden(p, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
	}
	if m := q.ResourceVersionMatch; m != "" {
		if q.SendInitialEvents == nil {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if m != "NotOlderThan" {
			errs = append(errs, field.NotSupported(p, m, []string{"NotOlderThan"}))
		}
		if q.Continue != "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	return errs
}

// Watch predicts the events of a watch started now (every event applied so far is history) up
// to RV until: rule 5.1's start, 5.3's too-old check, 5.5's conversion per watcher, 5.8's end
// marker. Live events are not predicted: the caller applies nothing while it reads.
func (m *Model) Watch(q Query, until uint64) WatchAnswer {
	l, f, st := parseSelectors(q)
	if st != nil {
		return WatchAnswer{Err: st}
	}
	if q.SendInitialEvents == nil && q.ResourceVersionMatch == "" && (q.ResourceVersion == "" || q.ResourceVersion == "0") {
		t := true
		q.SendInitialEvents, q.ResourceVersionMatch = &t, "NotOlderThan" // rule 0.7
	}
	if errs := validateWatch(q); len(errs) > 0 {
		return WatchAnswer{Err: invalid(errs)}
	}
	sel, st := m.convert(q, l, f)
	if st != nil {
		return WatchAnswer{Err: st}
	}
	rv, st := parseRV(q.ResourceVersion)
	if st != nil {
		return WatchAnswer{Err: st}
	}
	errEvent := func(s *Status) WatchAnswer { return WatchAnswer{Events: []WatchEvent{{Type: "ERROR", Err: s}}} }
	var out []WatchEvent
	switch {
	case q.SendInitialEvents != nil && *q.SendInitialEvents:
		if rv > m.rv {
			return errEvent(m.tooLarge(rv))
		}
		for _, o := range m.latest().objects {
			if sel.matches(m, o) {
				out = append(out, WatchEvent{Type: "ADDED", Object: o.Raw, RV: o.RV})
			}
		}
		if q.AllowWatchBookmarks {
			out = append(out, WatchEvent{Type: "BOOKMARK", RV: m.rv, End: true})
		}
		return WatchAnswer{Events: out}
	case q.ResourceVersion == "" || q.ResourceVersion == "0":
		return WatchAnswer{} // starts at the current RV: nothing from history
	}
	oldest := m.listRV + 1
	if m.evicted {
		oldest = m.versions[0].rv
	}
	if rv < oldest-1 {
		return errEvent(&Status{Code: 410, Message: fmt.Sprintf("too old resource version: %d (%d)", rv, oldest-1)})
	}
	for _, v := range m.versions {
		if v.change == nil || v.rv <= rv || v.rv > until {
			continue
		}
		if ev, ok := m.convertEvent(sel, v.change, v.rv); ok {
			out = append(out, ev)
		}
	}
	return WatchAnswer{Events: out}
}

// convertEvent is rule 5.5: entering the selection is ADDED, staying MODIFIED, leaving DELETED
// with the previous object stamped with the event's RV, a delete DELETED with the event's object.
func (m *Model) convertEvent(sel selection, ch *change, rv uint64) (WatchEvent, bool) {
	cur := ch.typ != "DELETED" && sel.matches(m, ch.cur)
	old := ch.prev != nil && sel.matches(m, ch.prev)
	switch {
	case cur && !old:
		return WatchEvent{Type: "ADDED", Object: ch.cur.Raw, RV: rv}, true
	case cur && old:
		return WatchEvent{Type: "MODIFIED", Object: ch.cur.Raw, RV: rv}, true
	case old && ch.typ == "DELETED":
		return WatchEvent{Type: "DELETED", Object: ch.cur.Raw, RV: rv}, true
	case old:
		return WatchEvent{Type: "DELETED", Object: stampRV(ch.prev.Raw, ch.prev.RV, rv), RV: rv}, true
	}
	return WatchEvent{}, false
}

// keyOf returns "ns/name" of an object, for messages.
func keyOf(raw []byte) string {
	var o struct {
		Metadata struct{ Name, Namespace string } `json:"metadata"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return "?"
	}
	return o.Metadata.Namespace + "/" + o.Metadata.Name
}
