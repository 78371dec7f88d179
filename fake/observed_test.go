package fake_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// knownDifferences are the steps whose answers differ from the record, and why (README,
// "Differences from the apiserver"). A listed step is still replayed; only its body's comparison
// is relaxed: its status code and Status reason must still match.
var knownDifferences = map[string]string{
	"update/pod image change":                             "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"update/pod immutable field":                          "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"ephemeralcontainers/the main resource adding one":    "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"ephemeralcontainers/the main resource removing them": "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"resize/the main resource changing resources":         "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
}

// TestObservedWrites replays the recorded requests (testdata/observed-writes.json, from a real
// kube-apiserver 1.37.2 without kube-controller-manager) against the fake without its controllers
// and compares the normalized answers: status code, Warning headers and body. Objects are compared
// whole, defaulted fields included, and their managedFields but for the entries' times.
func TestObservedWrites(t *testing.T) { writesRecording.replay(t, noControllers, nil) }

func compareStep(t *testing.T, name string, got, want observedStep) {
	t.Helper()
	got.Response = maskAllocated(got.Response, got.Body)
	want.Response = maskAllocated(want.Response, want.Body)
	var g, w map[string]any
	_ = json.Unmarshal(got.Response, &g)
	_ = json.Unmarshal(want.Response, &w)
	reason, known := knownDifferences[name]
	if got.Code != want.Code {
		t.Errorf("code %d, apiserver %d\n got: %s\nwant: %s", got.Code, want.Code, got.Response, want.Response)
		return
	}
	if w["kind"] == "Status" && g["reason"] != w["reason"] {
		t.Errorf("reason %v, apiserver %v", g["reason"], w["reason"])
	}
	if known {
		t.Logf("known difference: %s", reason)
		return
	}
	if !reflect.DeepEqual(got.Warnings, want.Warnings) {
		t.Errorf("warnings %q, apiserver %q", got.Warnings, want.Warnings)
	}
	// Compared as sets: the field manager sorts the entries by operation, then by their times'
	// seconds, then by manager and subresource. The replay's clock stays in one second, the
	// recording's ran on, so of two entries the recording may order by time (writes a second
	// apart, or a CRD's naming controller's and quota admission's status writes) what the replay
	// orders by manager: the order is the library's, the entries are the fake's.
	gm, wm := sortedEntries(managedFieldsOf(got.Response)), sortedEntries(managedFieldsOf(want.Response))
	if !reflect.DeepEqual(gm, wm) {
		t.Errorf("managedFields differ from the apiserver's (but their times):\n got: %v\nwant: %v", gm, wm)
	}
	stripManaged(g)
	stripManaged(w)
	if diffs := compareJSON("", g, w); len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("body differs from the apiserver's:\n%s\n got: %s\nwant: %s", joinLines(diffs), got.Response, want.Response)
	}
}

// stripManaged drops metadata.managedFields (of an object and of list items).
func stripManaged(v map[string]any) {
	if m, ok := v["metadata"].(map[string]any); ok {
		delete(m, "managedFields")
	}
	if items, ok := v["items"].([]any); ok {
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				stripManaged(m)
			}
		}
	}
}

// compareJSON lists the differences between got and want: a field missing (a default the fake
// does not set), added, or of another value.
func compareJSON(path string, got, want any) []string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		var out []string
		for k, wv := range wm {
			gv, ok := gm[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: missing (apiserver %v)", path, k, short(wv)))
				continue
			}
			out = append(out, compareJSON(path+"."+k, gv, wv)...)
		}
		for k, gv := range gm {
			if _, ok := wm[k]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: %v, apiserver has none", path, k, short(gv)))
			}
		}
		return out
	}
	ga, gok := got.([]any)
	wa, wok := want.([]any)
	if gok && wok && len(ga) == len(wa) {
		var out []string
		for i := range ga {
			out = append(out, compareJSON(fmt.Sprintf("%s[%d]", path, i), ga[i], wa[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(got, want) {
		return []string{fmt.Sprintf("%s: %v, apiserver %v", path, short(got), short(want))}
	}
	return nil
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func joinLines(s []string) string {
	out := ""
	for _, l := range s {
		out += "  " + l + "\n"
	}
	return out
}

// sortedEntries returns managedFields entries in the order of their JSON text.
func sortedEntries(entries []any) []any {
	out := slices.Clone(entries)
	slices.SortFunc(out, func(a, b any) int {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return strings.Compare(string(ja), string(jb))
	})
	return out
}

// recordClock is the fake's clock in the replays of recorded requests. The recordings ran
// within a second, so the apiserver ordered managedFields entries of one operation by manager and
// subresource; on the wall clock a replay that crosses a second orders them by time instead.
func recordClock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
