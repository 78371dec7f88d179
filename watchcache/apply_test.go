package watchcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/selection"
)

// snapshotBytes renders everything a reader can observe: a full list and its RV.
func snapshotBytes(t *testing.T, c *Cache) []byte {
	t.Helper()
	res := mustList(t, c, ListOptions{})
	var b bytes.Buffer
	fmt.Fprintf(&b, "rv=%d\n", res.ResourceVersion)
	for _, it := range res.Items {
		b.Write(it)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestRejectedEventsLeaveStateUnchanged(t *testing.T) {
	c := fixture(t)
	if err := c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"}); err != nil {
		t.Fatal(err)
	}
	mustApply(t, c, Modified, pod("ns-0", "pod-00", "node-1", "", 0), 110)
	before := snapshotBytes(t, c)
	tests := []struct {
		name string
		ev   Event
		want error
	}{
		{"malformed JSON", Event{Type: Added, Object: []byte(`{"metadata":{"name":"x","namespace":"ns-0"`), ResourceVersion: 200}, ErrMalformedObject},
		{"not an object", Event{Type: Added, Object: []byte(`[1,2]`), ResourceVersion: 200}, ErrMalformedObject},
		{"missing name", Event{Type: Added, Object: []byte(`{"metadata":{"namespace":"ns-0"}}`), ResourceVersion: 200}, ErrMalformedObject},
		{"name with slash", Event{Type: Added, Object: pod("ns-0", "a/b", "", "", 0), ResourceVersion: 200}, ErrInvalidName},
		{"missing namespace on a namespaced resource", Event{Type: Added, Object: []byte(`{"metadata":{"name":"x"}}`), ResourceVersion: 200}, ErrNamespaceMismatch},
		{"RV going backwards", Event{Type: Modified, Object: pod("ns-0", "pod-01", "", "", 0), ResourceVersion: 105}, ErrResourceVersion},
		{"RV equal to the cache's", Event{Type: Modified, Object: pod("ns-0", "pod-01", "", "", 0), ResourceVersion: 110}, ErrResourceVersion},
		{"no RV anywhere", Event{Type: Added, Object: pod("ns-0", "new", "", "", 0)}, ErrResourceVersion},
		{"bookmark going backwards", Event{Type: Bookmark, ResourceVersion: 50}, ErrResourceVersion},
		{"delete of an unknown key", Event{Type: Deleted, Object: pod("ns-0", "nope", "", "", 0), ResourceVersion: 200}, ErrUnknownKey},
		{"unknown event type", Event{Type: "UPSERT", Object: pod("ns-0", "x", "", "", 0), ResourceVersion: 200}, ErrEventType},
		{"labels not strings", Event{Type: Added, Object: []byte(`{"metadata":{"name":"x","namespace":"ns-0","labels":{"a":1}}}`), ResourceVersion: 200}, ErrMalformedObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { applyRejected(t, c, tt.ev, tt.want, before, 110) })
	}
	// A re-list with a bad object changes nothing either.
	if err := c.Replace([][]byte{pod("ns-0", "a", "", "", 1), []byte("{")}, 500); !errors.Is(err, ErrMalformedObject) {
		t.Fatalf("Replace = %v", err)
	}
	if err := c.Replace([][]byte{pod("ns-0", "a", "", "", 1), pod("ns-0", "a", "", "", 2)}, 500); !errors.Is(err, ErrDuplicateKey) {
		t.Fatalf("Replace duplicate = %v", err)
	}
	if after := snapshotBytes(t, c); !bytes.Equal(before, after) {
		t.Fatalf("state changed after a rejected re-list")
	}
}

// The event RV is authoritative: it is written into metadata.resourceVersion (replaced or inserted).
func TestEventRVWrittenIntoObject(t *testing.T) {
	c := newPodCache(t)
	if err := c.Replace(nil, 1); err != nil {
		t.Fatal(err)
	}
	mustApply(t, c, Added, pod("a", "stale", "", "", 3), 7)
	mustApply(t, c, Added, pod("a", "none", "", "", 0), 8)
	mustApply(t, c, Added, []byte(`{"metadata":{"name":"empty-md","namespace":"a"}}`), 9)
	mustApply(t, c, Added, pod("a", "own", "", "", 10), 0)
	res := mustList(t, c, ListOptions{})
	want := map[string]string{"a/empty-md": "9", "a/none": "8", "a/own": "10", "a/stale": "7"}
	for i, n := range names(res.Items) {
		if gjsonRV(res.Items[i]) != want[n] {
			t.Errorf("%s: resourceVersion %q, want %q (%s)", n, gjsonRV(res.Items[i]), want[n], res.Items[i])
		}
	}
}

func TestClusterScoped(t *testing.T) {
	c := New(Options{Resource: Resource{Name: "nodes"}})
	node := func(name string, unsched bool, rv uint64) []byte {
		return fmt.Appendf(nil, `{"kind":"Node","metadata":{"name":%q,"resourceVersion":"%d"},"spec":{"unschedulable":%v}}`, name, rv, unsched)
	}
	if err := c.Replace([][]byte{node("n2", false, 2), node("n1", true, 1), node("n3", false, 3)}, 5); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(Event{Type: Added, Object: pod("ns", "x", "", "", 0), ResourceVersion: 6}); !errors.Is(err, ErrNamespaceMismatch) {
		t.Fatalf("namespaced object into nodes: %v", err)
	}
	res := mustList(t, c, ListOptions{Namespace: "ignored", Limit: 2})
	if got := names(res.Items); fmt.Sprint(got) != "[n1 n2]" || *res.RemainingItemCount != 1 {
		t.Fatalf("nodes page = %v remaining %v", got, *res.RemainingItemCount)
	}
	if m := decodeToken(t, res.Continue); m["start"] != "/n2\x00" {
		t.Fatalf("token start %q", m["start"])
	}
	res = mustList(t, c, ListOptions{FieldSelector: "spec.unschedulable=true"})
	if fmt.Sprint(names(res.Items)) != "[n1]" {
		t.Fatalf("unschedulable = %v", names(res.Items))
	}
	_, err := c.List(context.Background(), ListOptions{FieldSelector: "metadata.namespace=x"})
	if st := ToStatus(err).ErrStatus; st.Code != 400 || st.Message != "field label not supported: metadata.namespace" {
		t.Fatalf("nodes metadata.namespace: %v", err)
	}
}

// Readers paging at small limits while a writer churns see exactly the state at the first page's
// RV: no duplicate, no skip, no time travel. The expected state is rebuilt from the writer's own log.
func TestConcurrentPagingIsSnapshotConsistent(t *testing.T) {
	c := newPodCache(t, func(o *Options) { o.WindowEvents = 1 << 20 })
	var log changeLog
	var objs [][]byte
	var initial []string
	for i := range 200 {
		objs = append(objs, pod(fmt.Sprint("ns-", i%5), fmt.Sprintf("p%03d", i), "", "", uint64(i+1)))
		initial = append(initial, fmt.Sprintf("ns-%d/p%03d", i%5, i))
		log.add(loggedChange{rv: 1000, key: initial[i], gen: "-"})
	}
	if err := c.Replace(objs, 1000); err != nil {
		t.Fatal(err)
	}
	if err := c.AddIndex(index.Spec{Kind: index.Label, Name: "gen"}); err != nil {
		t.Fatal(err)
	}
	// stateAt replays the log: key -> gen label ("-" for objects without one).
	stateAt := func(rv uint64) map[string]string {
		m := map[string]string{}
		for k, e := range log.at(rv) {
			m[k] = e.gen
		}
		return m
	}
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		rng := rand.New(rand.NewSource(1))
		live := map[string]bool{}
		for _, k := range initial {
			live[k] = true
		}
		for rv := uint64(1001); ; rv++ {
			select {
			case <-stop:
				return
			default:
			}
			i := rng.Intn(300)
			ns, name := fmt.Sprint("ns-", i%5), fmt.Sprintf("p%03d", i)
			key := ns + "/" + name
			e := loggedChange{rv: rv, key: key}
			del := live[key] && rng.Intn(3) == 0
			if !del {
				e.gen = fmt.Sprint(rv % 3)
			}
			log.add(e) // before applying: a reader that sees RV rv in the cache must find it in the log
			var err error
			if del {
				err = c.Apply(Event{Type: Deleted, Object: pod(ns, name, "", "", 0), ResourceVersion: rv})
				delete(live, key)
			} else {
				err = c.Apply(Event{Type: Modified, Object: pod(ns, name, "", "gen="+e.gen, 0), ResourceVersion: rv})
				live[key] = true
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	var readers sync.WaitGroup
	for r := range 4 {
		readers.Go(func() {
			for range 25 {
				o := ListOptions{Limit: 7}
				if r%2 == 1 {
					o.LabelSelector, o.Namespace = "gen=1", "ns-1"
				}
				got, rvs := listAll(t, c, o)
				for _, rv := range rvs {
					if rv != rvs[0] {
						t.Errorf("page RVs differ: %v", rvs)
						return
					}
				}
				want := []string{}
				st := stateAt(rvs[0])
				for _, k := range sortedKeys(st) {
					if r%2 == 0 || (k[:5] == "ns-1/" && st[k] == "1") {
						want = append(want, k)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("reader %d at RV %d: got %d items, want %d", r, rvs[0], len(got), len(want))
					return
				}
			}
		})
	}
	readers.Wait()
	close(stop)
	writer.Wait()
}

// A re-list stamps objects that carry no resourceVersion with the list's RV.
func TestReplaceStampsMissingRV(t *testing.T) {
	c := newPodCache(t)
	if err := c.Replace([][]byte{pod("a", "x", "", "", 0), pod("a", "y", "", "", 3)}, 9); err != nil {
		t.Fatal(err)
	}
	res := mustList(t, c, ListOptions{})
	if gjsonRV(res.Items[0]) != "9" || gjsonRV(res.Items[1]) != "3" {
		t.Fatalf("RVs = %s, %s; want 9, 3", gjsonRV(res.Items[0]), gjsonRV(res.Items[1]))
	}
}

// OnWait tells the source when a reader waits for an RV the cache has not reached (rule 3.3).
func TestOnWaitCalledForFutureRV(t *testing.T) {
	var asked []uint64
	c := newPodCache(t, func(o *Options) { o.OnWait = func(rv uint64) { asked = append(asked, rv) } })
	if err := c.Replace(nil, 5); err != nil {
		t.Fatal(err)
	}
	mustList(t, c, ListOptions{ResourceVersion: "5"})
	if len(asked) != 0 {
		t.Fatalf("OnWait called for a reached RV: %v", asked)
	}
	_, _ = c.List(context.Background(), ListOptions{ResourceVersion: "7"})
	if fmt.Sprint(asked) != "[7]" {
		t.Fatalf("OnWait calls = %v, want [7]", asked)
	}
}

func TestGetNotFoundNamesGroup(t *testing.T) {
	c := New(Options{Resource: Resource{Name: "widgets", Group: "example.com", Namespaced: true}})
	if err := c.Replace(nil, 1); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.Get(context.Background(), "a", "x", "")
	st := ToStatus(err).ErrStatus
	if st.Code != 404 || st.Message != `widgets.example.com "x" not found` || st.Details.Group != "example.com" {
		t.Fatalf("status = %d %q %+v", st.Code, st.Message, st.Details)
	}
}

// applyRejected applies ev, which c must refuse with want and a 400, leaving every List answer
// byte-identical to before and the cache at rv.
func applyRejected(t *testing.T, c *Cache, ev Event, want error, before []byte, rv uint64) {
	t.Helper()
	err := c.Apply(ev)
	if !errors.Is(err, want) {
		t.Fatalf("Apply = %v, want %v", err, want)
	}
	if st := ToStatus(err).ErrStatus; st.Code != 400 {
		t.Fatalf("status code %d, want 400", st.Code)
	}
	if after := snapshotBytes(t, c); !bytes.Equal(before, after) || c.ResourceVersion() != rv {
		t.Fatalf("state changed after a rejected event: RV %d (want %d)\n%s", c.ResourceVersion(), rv, after)
	}
}

// TestApplyReusesKnownLabelSets: an event whose labels text is interned already shares that set
// (its labels are not read again), a new text gets a new set, and selectors read both right —
// including after a re-list, which starts a new table.
func TestApplyReusesKnownLabelSets(t *testing.T) {
	c := newPodCache(t)
	if err := c.Replace([][]byte{pod("a", "p0", "n0", "app=web,tier=fe", 1)}, 1); err != nil {
		t.Fatal(err)
	}
	mustApply(t, c, Added, pod("a", "p1", "n0", "app=web,tier=fe", 0), 2)
	mustApply(t, c, Added, pod("a", "p2", "n0", "tier=fe,app=web", 0), 3) // other text, same labels
	mustApply(t, c, Modified, pod("a", "p0", "n1", "app=web,tier=fe", 0), 4)
	set := func(key string) *labelSet {
		t.Helper()
		rec, ok := c.current().st.get(key)
		if !ok {
			t.Fatalf("%s missing", key)
		}
		return rec.ls
	}
	if set("/a/p0") != set("/a/p1") {
		t.Error("the same labels text got two sets")
	}
	if set("/a/p2") == set("/a/p1") || !reflect.DeepEqual(set("/a/p2").labels, set("/a/p1").labels) {
		t.Errorf("p2: set %p %v, p1: %p %v", set("/a/p2"), set("/a/p2").labels, set("/a/p1"), set("/a/p1").labels)
	}
	for sel, want := range map[string][]string{"app=web": {"a/p0", "a/p1", "a/p2"}, "tier=fe,app=web": {"a/p0", "a/p1", "a/p2"}, "app!=web": nil} {
		if got := names(mustList(t, c, ListOptions{LabelSelector: sel}).Items); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Errorf("%s: %v, want %v", sel, got, want)
		}
	}
	// A text that was never interned, handed over without its parse (not reached by Apply): read.
	ls := c.labels.Load().intern(`{"x":"1"}`, nil)
	if !reflect.DeepEqual(ls.labels, selection.Labels{{Key: "x", Value: "1"}}) {
		t.Errorf("intern of an unknown text without labels: %v", ls.labels)
	}
}

// TestApplyRejectsInvalidUTF8: an object with bytes that are not UTF-8 is refused and leaves the
// state as it was, whether the extraction's pass saw every byte (up to 16 KiB) or the document is
// longer; valid non-ASCII text is stored in both.
func TestApplyRejectsInvalidUTF8(t *testing.T) {
	doc := func(name, value string, pad int) []byte {
		return fmt.Appendf(nil, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"ns","annotations":{"pad":"%s","v":"%s"}},"spec":{},"status":{}}`,
			name, strings.Repeat("x", pad), value)
	}
	tests := []struct {
		name, value string
		pad         int
		wantErr     bool
	}{
		{"ascii", "plain", 0, false},
		{"utf-8", "café ✓", 0, false},
		{"invalid", "caf\xe9", 0, true},
		{"truncated", "\xe2\x9c", 0, true},
		{"long ascii", "plain", 20 << 10, false},
		{"long utf-8", "café ✓", 20 << 10, false},
		{"long invalid", "\xff", 20 << 10, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPodCache(t)
			if err := c.Replace(nil, 1); err != nil {
				t.Fatal(err)
			}
			before := snapshotBytes(t, c)
			err := c.Apply(Event{Type: Added, Object: doc(fmt.Sprint("p", i), tt.value, tt.pad), ResourceVersion: 2})
			if tt.wantErr {
				if !errors.Is(err, ErrMalformedObject) {
					t.Fatalf("Apply: %v, want ErrMalformedObject", err)
				}
				if after := snapshotBytes(t, c); !bytes.Equal(before, after) {
					t.Fatalf("state changed by a refused event:\n%s", after)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if res := mustList(t, c, ListOptions{}); len(res.Items) != 1 || !bytes.Contains(res.Items[0], []byte(tt.value)) {
				t.Fatalf("stored %q", res.Items)
			}
		})
	}
}
