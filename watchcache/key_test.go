package watchcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bare is an object without metadata.namespace, as RunTestListInconsistentContinuation of the
// apiserver's storage suite writes under a namespaced key.
func bare(name, label string) []byte {
	return fmt.Appendf(nil, `{"kind":"Pod","metadata":{"name":%q,"labels":{"v":%q}},"spec":{"nodeName":"n9"}}`, name, label)
}

func TestCheckKey(t *testing.T) {
	tests := []struct {
		key        string
		namespaced bool
		ok         bool
	}{
		{"/ns/name", true, true},
		{"//name", true, true}, // an object stored without namespace (storage.NamespaceKeyFunc)
		{"/ns-1/a.b-c", true, true},
		{"/name", true, false},
		{"/ns/name/x", true, false},
		{"ns/name", true, false},
		{"/ns/", true, false},
		{"/", true, false},
		{"/./name", true, false},
		{"/ns/..", true, false},
		{"/ns/a%2Fb", true, false},
		{"/ns/\xff", true, false},
		{"/name", false, true},
		{"/ns/name", false, false},
		{"//name", false, false},
		{"/", false, false},
		{"/..", false, false},
		{"name", false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q/namespaced=%v", tt.key, tt.namespaced), func(t *testing.T) {
			err := checkKey(tt.key, tt.namespaced)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidKey)) {
				t.Fatalf("checkKey = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestKeyNamespace(t *testing.T) {
	for key, want := range map[string]string{"/ns/name": "ns/", "//name": "/", "/name": "", "/a-b/c": "a-b/"} {
		if got := keyNamespace(key); got != want {
			t.Errorf("keyNamespace(%q) = %q, want %q", key, got, want)
		}
	}
}

// keyedState is what a namespaced cache answers after a step of TestKeyedEvents.
type keyedState struct {
	all  []string            // a full list, in key order (names() of the objects)
	inNS map[string][]string // a list per namespace
	get  map[string]string   // Get("ns/name") → names() of the object, "" for NotFound
}

// TestKeyedEvents: an event with a Key is stored, replaced and deleted under that key whatever its
// object's metadata says, and the key's namespace is the one lists, counts and gets use.
func TestKeyedEvents(t *testing.T) {
	c := newPodCache(t)
	if err := c.Replace([][]byte{pod("a", "p1", "", "", 5), pod("b", "p2", "", "", 6)}, 10); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		ev   Event
		want keyedState
	}{
		{"insert without namespace under a namespaced key", Event{Type: Added, Object: bare("foo", "1"), ResourceVersion: 11, Key: "/second/foo"}, keyedState{
			all:  []string{"a/p1", "b/p2", "foo"},
			inNS: map[string][]string{"second": {"foo"}, "a": {"a/p1"}},
			get:  map[string]string{"second/foo": "foo", "/foo": ""},
		}},
		{"insert whose metadata names another key", Event{Type: Added, Object: pod("b", "other", "", "", 0), ResourceVersion: 12, Key: "/a/x"}, keyedState{
			all:  []string{"a/p1", "b/other", "b/p2", "foo"},
			inNS: map[string][]string{"a": {"a/p1", "b/other"}, "b": {"b/p2"}},
			get:  map[string]string{"a/x": "b/other", "b/other": ""},
		}},
		{"modify under the key", Event{Type: Modified, Object: bare("foo", "2"), ResourceVersion: 13, Key: "/second/foo"}, keyedState{
			all:  []string{"a/p1", "b/other", "b/p2", "foo"},
			inNS: map[string][]string{"second": {"foo"}},
			get:  map[string]string{"second/foo": "foo"},
		}},
		{"modify to an object that fits its key", Event{Type: Modified, Object: pod("second", "foo", "", "", 0), ResourceVersion: 14, Key: "/second/foo"}, keyedState{
			all:  []string{"a/p1", "b/other", "b/p2", "second/foo"},
			inNS: map[string][]string{"second": {"second/foo"}},
		}},
		{"insert under the empty namespace", Event{Type: Added, Object: bare("bare", "1"), ResourceVersion: 15, Key: "//bare"}, keyedState{
			all:  []string{"bare", "a/p1", "b/other", "b/p2", "second/foo"},
			inNS: map[string][]string{"a": {"a/p1", "b/other"}, "second": {"second/foo"}},
			get:  map[string]string{"/bare": "bare", "/nope": ""},
		}},
		{"delete by key, the object naming another", Event{Type: Deleted, Object: pod("zzz", "whatever", "", "", 0), ResourceVersion: 16, Key: "/a/x"}, keyedState{
			all:  []string{"bare", "a/p1", "b/p2", "second/foo"},
			inNS: map[string][]string{"a": {"a/p1"}},
			get:  map[string]string{"a/x": ""},
		}},
		{"unkeyed: the metadata decides", Event{Type: Added, Object: pod("b", "p3", "", "", 0), ResourceVersion: 17}, keyedState{
			all:  []string{"bare", "a/p1", "b/p2", "b/p3", "second/foo"},
			inNS: map[string][]string{"b": {"b/p2", "b/p3"}},
			get:  map[string]string{"b/p3": "b/p3"},
		}},
		{"delete under the empty namespace", Event{Type: Deleted, Object: bare("bare", "1"), ResourceVersion: 18, Key: "//bare"}, keyedState{
			all: []string{"a/p1", "b/p2", "b/p3", "second/foo"},
			get: map[string]string{"/bare": ""},
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := c.Apply(st.ev); err != nil {
				t.Fatal(err)
			}
			checkKeyedState(t, c, "", st.want)
		})
	}
	// The window: Exact reads rebuild the unpublished states by undoing events (publisher.viewAt), by key.
	for _, st := range steps {
		rv := strconv.FormatUint(st.ev.ResourceVersion, 10)
		t.Run("exact at "+rv, func(t *testing.T) {
			checkKeyedState(t, c, rv, keyedState{all: st.want.all, inNS: st.want.inNS})
		})
	}
}

// checkKeyedState compares what c answers at rv ("": latest) with want, and checks every page
// boundary of a full list: items, remainingItemCount (from the namespace counts) and tokens.
func checkKeyedState(t *testing.T, c *Cache, rv string, want keyedState) {
	t.Helper()
	match := ""
	if rv != "" {
		match = MatchExact
	}
	if got := names(mustList(t, c, ListOptions{ResourceVersion: rv, ResourceVersionMatch: match}).Items); !slices.Equal(got, want.all) {
		t.Errorf("list = %v, want %v", got, want.all)
	}
	for ns, w := range want.inNS {
		if got := names(mustList(t, c, ListOptions{Namespace: ns, ResourceVersion: rv, ResourceVersionMatch: match}).Items); !slices.Equal(got, w) {
			t.Errorf("list in %s = %v, want %v", ns, got, w)
		}
	}
	for limit := 1; limit < len(want.all); limit++ {
		res := mustList(t, c, ListOptions{Limit: int64(limit), ResourceVersion: rv, ResourceVersionMatch: match})
		if res.RemainingItemCount == nil || *res.RemainingItemCount != int64(len(want.all)-limit) {
			t.Errorf("limit %d: remainingItemCount %v, want %d", limit, res.RemainingItemCount, len(want.all)-limit)
		}
		next, err := c.List(context.Background(), ListOptions{Limit: 1, Continue: res.Continue})
		if start := decodeToken(t, res.Continue)["start"].(string); strings.HasPrefix(start, "//") {
			// After a key of the empty namespace the token's start is "//<name>\x00", which the
			// apiserver's DecodeContinue refuses (path.Clean, rule 2.3), and so does the cache.
			if !errors.Is(err, ErrBadRequest) {
				t.Errorf("limit %d: continue from %q: %v, want 400", limit, start, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		if got := names(next.Items); !slices.Equal(got, want.all[limit:limit+1]) {
			t.Errorf("limit %d: next page %v, want %v", limit, got, want.all[limit:limit+1])
		}
	}
	for nsName, w := range want.get {
		ns, name, _ := strings.Cut(nsName, "/")
		raw, _, err := c.Get(context.Background(), ns, name, "0")
		switch {
		case w == "" && !errors.Is(err, ErrNotFound):
			t.Errorf("Get(%q, %q) = %s, %v; want NotFound", ns, name, raw, err)
		case w != "" && (err != nil || names([][]byte{raw})[0] != w):
			t.Errorf("Get(%q, %q) = %s, %v; want %s", ns, name, raw, err, w)
		}
	}
}

// TestKeyedSelectors: a field selector on metadata.namespace reads the object's own field, as the
// apiserver's GetAttrs does, within the namespace of the keys the request reads (rule 4.6).
func TestKeyedSelectors(t *testing.T) {
	c := newPodCache(t)
	if err := c.Replace(nil, 10); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(Event{Type: Added, Object: bare("foo", "1"), ResourceVersion: 11, Key: "/second/foo"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(Event{Type: Added, Object: pod("b", "x", "", "", 0), ResourceVersion: 12, Key: "/a/x"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		o    ListOptions
		want []string
	}{
		{ListOptions{Namespace: "second"}, []string{"foo"}},
		{ListOptions{FieldSelector: "metadata.namespace=second"}, nil},                        // narrowed to /second/, whose object has no namespace
		{ListOptions{FieldSelector: "metadata.namespace="}, []string{"foo"}},                  // not narrowed: the object's empty field matches
		{ListOptions{FieldSelector: "metadata.namespace=b"}, nil},                             // narrowed to /b/: b/x is stored under /a/
		{ListOptions{Namespace: "a", FieldSelector: "metadata.namespace=b"}, []string{"b/x"}}, // under /a/, its field says b
		{ListOptions{Namespace: "second", FieldSelector: "metadata.name=foo"}, []string{"foo"}},
		{ListOptions{Namespace: "a", FieldSelector: "metadata.name=x"}, []string{"b/x"}},
		{ListOptions{LabelSelector: "v=1"}, []string{"foo"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.o), func(t *testing.T) {
			if got := names(mustList(t, c, tt.o).Items); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestKeyedWatch: keyed events reach the watchers of the key's namespace, not of the object's.
func TestKeyedWatch(t *testing.T) {
	c := newPodCache(t)
	if err := c.Replace(nil, 10); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	watchers := map[string]*Watcher{
		"all":                       watch(t, c, WatchOptions{ResourceVersion: "10"}),
		"second":                    watch(t, c, WatchOptions{Namespace: "second", ResourceVersion: "10"}),
		"a":                         watch(t, c, WatchOptions{Namespace: "a", ResourceVersion: "10"}),
		"b":                         watch(t, c, WatchOptions{Namespace: "b", ResourceVersion: "10"}),
		"metadata.namespace=second": watch(t, c, WatchOptions{FieldSelector: "metadata.namespace=second", ResourceVersion: "10"}),
	}
	events := []Event{
		{Type: Added, Object: bare("foo", "1"), ResourceVersion: 11, Key: "/second/foo"},
		{Type: Modified, Object: bare("foo", "2"), ResourceVersion: 12, Key: "/second/foo"},
		{Type: Added, Object: pod("b", "x", "", "", 0), ResourceVersion: 13, Key: "/a/x"},
		{Type: Added, Object: bare("bare", "1"), ResourceVersion: 14, Key: "//bare"},
		{Type: Deleted, Object: pod("zzz", "y", "", "", 0), ResourceVersion: 15, Key: "/second/foo"},
	}
	for _, ev := range events {
		if err := c.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]seen{
		"all": {{Added, "foo", 11, false}, {Modified, "foo", 12, false}, {Added, "b/x", 13, false}, {Added, "bare", 14, false},
			{Deleted, "zzz/y", 15, false}},
		"second":                    {{Added, "foo", 11, false}, {Modified, "foo", 12, false}, {Deleted, "zzz/y", 15, false}},
		"a":                         {{Added, "b/x", 13, false}},
		"b":                         nil,
		"metadata.namespace=second": nil, // narrowed to /second/, whose object has no namespace
	}
	for name, w := range watchers {
		t.Run(name, func(t *testing.T) {
			got := collectEvents(t, w, len(want[name])+1, 200*time.Millisecond)
			if !slices.Equal(got, want[name]) {
				t.Fatalf("got %v, want %v", got, want[name])
			}
		})
	}
}

// TestKeyedRejected: a bad key is rejected with ErrInvalidKey (400) and leaves the cache as it was;
// so does a keyed delete of a key the cache does not hold.
func TestKeyedRejected(t *testing.T) {
	for _, namespaced := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaced=%v", namespaced), func(t *testing.T) {
			c := New(Options{Resource: Resource{Name: "things", Namespaced: namespaced}})
			good := "/x"
			if namespaced {
				good = "/ns/x"
			}
			if err := c.ReplaceKeyed([]Object{{Key: good, Raw: bare("x", "1")}}, 10); err != nil {
				t.Fatal(err)
			}
			before := snapshotBytes(t, c)
			tests := []struct {
				name string
				ev   Event
				want error
			}{
				{"no leading slash", Event{Type: Added, Object: bare("y", "1"), ResourceVersion: 11, Key: "y"}, ErrInvalidKey},
				{"too many segments", Event{Type: Added, Object: bare("y", "1"), ResourceVersion: 11, Key: "/ns/y/z"}, ErrInvalidKey},
				{"empty name", Event{Type: Added, Object: bare("y", "1"), ResourceVersion: 11, Key: good + "/"}, ErrInvalidKey},
				{"dot-dot", Event{Type: Modified, Object: bare("y", "1"), ResourceVersion: 11, Key: "/.."}, ErrInvalidKey},
				{"percent", Event{Type: Added, Object: bare("y", "1"), ResourceVersion: 11, Key: good + "%2F"}, ErrInvalidKey},
				{"invalid UTF-8", Event{Type: Added, Object: bare("y", "1"), ResourceVersion: 11, Key: good + "\xff"}, ErrInvalidKey},
				{"delete under a bad key", Event{Type: Deleted, Object: bare("x", "1"), ResourceVersion: 11, Key: good + "/"}, ErrInvalidKey},
				{"delete of an unknown key", Event{Type: Deleted, Object: bare("x", "1"), ResourceVersion: 11, Key: good + "2"}, ErrUnknownKey},
				{"malformed object under a good key", Event{Type: Added, Object: []byte(`{"metadata":{}}`), ResourceVersion: 11, Key: good}, ErrMalformedObject},
			}
			if namespaced {
				tests = append(tests, struct {
					name string
					ev   Event
					want error
				}{"cluster-scoped key", Event{Type: Added, Object: bare("y", "1"), ResourceVersion: 11, Key: "/y"}, ErrInvalidKey})
			} else {
				tests = append(tests, struct {
					name string
					ev   Event
					want error
				}{"namespaced key", Event{Type: Added, Object: bare("y", "1"), ResourceVersion: 11, Key: "/ns/y"}, ErrInvalidKey})
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) { applyRejected(t, c, tt.ev, tt.want, before, 10) })
			}
			for _, objs := range [][]Object{
				{{Key: good, Raw: bare("x", "1")}, {Key: good + "/", Raw: bare("y", "1")}},
				{{Key: good, Raw: bare("x", "1")}, {Key: good, Raw: bare("y", "1")}}, // duplicate
			} {
				if err := c.ReplaceKeyed(objs, 20); !errors.Is(err, ErrInvalidKey) && !errors.Is(err, ErrDuplicateKey) {
					t.Fatalf("ReplaceKeyed(%v) = %v", objs, err)
				}
				if after := snapshotBytes(t, c); !bytes.Equal(before, after) || c.ResourceVersion() != 10 {
					t.Fatalf("state changed after a rejected re-list")
				}
			}
		})
	}
}

// TestReplaceKeyed: a re-list with keys holds each keyed object under its key, the others under their
// metadata's, and counts them by the key's namespace.
func TestReplaceKeyed(t *testing.T) {
	c := newPodCache(t)
	err := c.ReplaceKeyed([]Object{
		{Key: "/second/foo", Raw: bare("foo", "1")},
		{Raw: pod("a", "p1", "", "", 3)},
		{Key: "/a/x", Raw: pod("b", "x", "", "", 4)},
		{Key: "//bare", Raw: bare("bare", "1")},
		{Raw: pod("second", "bar", "", "", 5)},
	}, 10)
	if err != nil {
		t.Fatal(err)
	}
	checkKeyedState(t, c, "", keyedState{
		all:  []string{"bare", "a/p1", "b/x", "second/bar", "foo"},
		inNS: map[string][]string{"a": {"a/p1", "b/x"}, "second": {"second/bar", "foo"}, "b": nil},
		get:  map[string]string{"second/foo": "foo", "a/x": "b/x", "b/x": "", "/bare": "bare", "second/bar": "second/bar"},
	})
	// Each keeps its own RV; a keyed object without one gets the list's.
	for key, want := range map[string]string{"/second/foo": "10", "/a/x": "4", "/a/p1": "3"} {
		if got := gjsonRV(mustGet(t, c, key)); got != want {
			t.Errorf("%s at %s, want %s", key, got, want)
		}
	}
}

func mustGet(t *testing.T, c *Cache, key string) []byte {
	t.Helper()
	ns, name, _ := strings.Cut(key[1:], "/")
	raw, _, err := c.Get(context.Background(), ns, name, "0")
	if err != nil {
		t.Fatalf("Get %s: %v", key, err)
	}
	return raw
}

// keyedHistory is a History of one revision whose objects are keyed, as source/etcd's are.
type keyedHistory struct {
	rv   uint64
	objs []Object // in key order
}

func (h *keyedHistory) Range(_ context.Context, rv uint64, from, prefix string, fn func(string, []byte) bool) error {
	if rv != h.rv {
		return fmt.Errorf("rv %d: %w", rv, ErrHistoryCompacted)
	}
	for _, o := range h.objs {
		if o.Key >= from && strings.HasPrefix(o.Key, prefix) && !fn(o.Key, o.Raw) {
			break
		}
	}
	return nil
}

func (h *keyedHistory) Count(_ context.Context, rv uint64, after, prefix string) (int64, error) {
	var n int64
	for _, o := range h.objs {
		if o.Key > after && strings.HasPrefix(o.Key, prefix) {
			n++
		}
	}
	return n, nil
}

// TestKeyedHistory (rule 1.3): a list older than the window, answered from the History, keys its
// objects by the keys the History gives, as the cache keys events.
func TestKeyedHistory(t *testing.T) {
	h := &keyedHistory{rv: 11, objs: []Object{
		{Key: "/a/p1", Raw: pod("a", "p1", "", "", 5)},
		{Key: "/second/foo", Raw: bare("foo", "1")},
	}}
	c := newPodCache(t, func(o *Options) { o.WindowEvents = 1; o.History = h })
	if err := c.Replace(nil, 10); err != nil {
		t.Fatal(err)
	}
	mustApply(t, c, Added, pod("a", "p1", "", "", 0), 11)
	mustApply(t, c, Added, pod("a", "p2", "", "", 0), 12)
	mustApply(t, c, Added, pod("a", "p3", "", "", 0), 13)
	for _, tt := range []struct {
		o    ListOptions
		want []string
	}{
		{ListOptions{}, []string{"a/p1", "foo"}},
		{ListOptions{Namespace: "second"}, []string{"foo"}},
		{ListOptions{Namespace: "second", FieldSelector: "metadata.name=foo"}, []string{"foo"}},
	} {
		tt.o.ResourceVersion, tt.o.ResourceVersionMatch = "11", MatchExact
		if got := names(mustList(t, c, tt.o).Items); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: got %v, want %v", tt.o, got, tt.want)
		}
	}
	res := mustList(t, c, ListOptions{ResourceVersion: "11", ResourceVersionMatch: MatchExact, Limit: 1})
	if res.RemainingItemCount == nil || *res.RemainingItemCount != 1 || res.Continue == "" {
		t.Fatalf("page of 1: remaining %v, continue %q", res.RemainingItemCount, res.Continue)
	}
	if got := names(mustList(t, c, ListOptions{Continue: res.Continue}).Items); !slices.Equal(got, []string{"foo"}) {
		t.Fatalf("continued: %v", got)
	}
}
