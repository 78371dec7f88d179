package fuzz

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"testing"

	kjson "sigs.k8s.io/json"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/watchcache"
)

// fixtureHarness is a cache and a model fed the same history, shared read-only by the iterations
// of a fuzz target: 4 namespaces of pods, 60 events over a window of 20, an index on spec.nodeName
// and on label app, and spec.priorityClassName registered before any event.
type fixtureHarness struct {
	once sync.Once
	h    *harness
	// rvs are the RVs of the retained history, for tokens that point into it.
	rvs []uint64
}

func (f *fixtureHarness) get(t *testing.T) *harness {
	f.once.Do(func() {
		// The fixture outlives the test that builds it: it is stopped by nobody, and holds no
		// goroutine (no watch is left running on it).
		h := newHarness(&quietTB{T: t}, 20, "the fuzz input")
		c := randChooser{rand.New(rand.NewSource(1))}
		h.relist(c, 10)
		h.registerField("spec.priorityClassName", "spec.priorityClassName")
		h.addIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"})
		h.addIndex(index.Spec{Kind: index.Label, Name: "app"})
		for range 60 {
			switch c.intn(4) {
			case 0:
				h.add(c)
			case 1:
				h.remove(c)
			default:
				h.modify(c)
			}
		}
		h.tb = nil
		f.h = h
	})
	f.h.tb = t
	f.h.ops = f.h.ops[:0]
	return f.h
}

// quietTB keeps the fixture's cache from being stopped when the test that built it ends.
type quietTB struct{ *testing.T }

func (quietTB) Cleanup(func()) {}

var tokenFixture, selectorFixture fixtureHarness

// FuzzContinueToken: a continue token built from arbitrary bytes never panics List; the answer is
// a page or the apiserver's error for it — 400 "invalid continue token: continue key is not
// valid…" (rule 2.3), 410 when the token's RV left the window (2.9), 504 when it is in the future
// — exactly as the model decodes and serves it; the tokens of pages round-trip.
func FuzzContinueToken(f *testing.F) {
	f.Add([]byte("not-a-valid-token"), int64(0), "", uint8(0), uint8(0))
	f.Add([]byte(`{"v":"meta.k8s.io/v1","rv":70,"start":"/ns-0/p3\u0000"}`), int64(0), "", uint8(1), uint8(0))
	f.Add([]byte(""), int64(70), "/ns-0/p3\x00", uint8(2), uint8(3))
	f.Add([]byte(""), int64(-1), "ns-0/p3\x00", uint8(2), uint8(0))
	f.Add([]byte(""), int64(3), "/p1\x00", uint8(2), uint8(1))
	f.Add([]byte(""), int64(999), "/a\x00", uint8(2), uint8(2))
	f.Add([]byte(""), int64(70), "/../x", uint8(2), uint8(1))
	f.Add([]byte("meta.k8s.io/v2"), int64(70), "/a", uint8(3), uint8(0))
	f.Add([]byte(`{"v":"meta.k8s.io/v1","rv":"70","start":"/a"}`), int64(0), "", uint8(1), uint8(0))
	f.Add([]byte(`{"v":"meta.k8s.io/v1","rv":70,"start":"/a"}`), int64(0), "", uint8(4), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, rv int64, start string, mode, shape uint8) {
		h := tokenFixture.get(t)
		var token string
		switch mode % 5 {
		case 0:
			token = string(data)
		case 1:
			token = base64.RawURLEncoding.EncodeToString(data)
		case 2:
			token = encodeRaw(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rv, StartKey: start})
		case 3:
			token = encodeRaw(continueToken{APIVersion: string(data), ResourceVersion: rv, StartKey: start})
		case 4:
			token = base64.URLEncoding.EncodeToString(data)
		}
		q := Query{Namespace: []string{"", "a", "ns-0", "a-b"}[shape%4], Limit: int64(shape/4) % 4, Continue: token}
		if shape&0x40 != 0 {
			q.LabelSelector = "app=web"
		}
		if shape&0x80 != 0 {
			q.FieldSelector = "spec.nodeName=n1"
		}
		got, want := h.list(q)
		if got.Err != nil {
			ok := got.Err.Code == 400 && strings.HasPrefix(got.Err.Message, "invalid continue token: continue key is not valid") ||
				got.Err.Code == 410 && got.Err.Message == msgContinueTooOld && got.Err.Continue != "" ||
				got.Err.Code == 504
			if !ok {
				t.Fatalf("continue %q: %s, want a page, 400 invalid continue token, 410 or 504", token, got.Err)
			}
			return
		}
		if got.Continue != "" {
			var tok continueToken
			data, err := base64.RawURLEncoding.DecodeString(got.Continue)
			if err != nil || json.Unmarshal(data, &tok) != nil || encodeRaw(tok) != got.Continue {
				t.Fatalf("page token %q does not round-trip (%v)", got.Continue, err)
			}
			if !strings.HasPrefix(tok.StartKey, "/") || !strings.HasSuffix(tok.StartKey, "\x00") || tok.ResourceVersion != int64(want.RV) {
				t.Fatalf("page token %+v: want the cache form /…\\x00 at the page's RV %d", tok, want.RV)
			}
		}
	})
}

func encodeRaw(t continueToken) string {
	data, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(data)
}

// FuzzSelectors: label and field selectors are accepted or rejected, by List and by Watch, as
// apimachinery's labels.Parse and fields.ParseSelector plus the pod field-label conversion do,
// with the same messages (rules 4.1–4.3); accepted ones select what the model selects (4.4, 4.6).
func FuzzSelectors(f *testing.F) {
	for _, l := range labelSelectors {
		f.Add(l, "", uint8(0))
	}
	for _, fs := range fieldSelectors {
		f.Add("", fs, uint8(0))
	}
	for _, b := range badSelectors {
		f.Add(b.label, b.field, uint8(1))
	}
	f.Add("app in (web),tier notin (x,2)", `spec.nodeName=n1,metadata.namespace=ns-0`, uint8(5))
	f.Add("", `spec.nodeName=a\,b,spec.nodeName!=\=`, uint8(0))
	f.Add("", "=,!=", uint8(0))
	f.Add("", "=x", uint8(0))
	f.Add("tier>1,tier<10", "spec.host=n0,status.podIPs!=", uint8(2))
	f.Fuzz(func(t *testing.T, label, field string, shape uint8) {
		h := selectorFixture.get(t)
		q := Query{Namespace: []string{"", "a", "ns-0", "a-b"}[shape%4], LabelSelector: label, FieldSelector: field}
		if shape&0x30 != 0 {
			q.Limit = int64(shape>>4) % 4
		}
		if shape&0x40 != 0 {
			q.ResourceVersion, q.ResourceVersionMatch = strconv.FormatUint(h.model.RV()-uint64(shape>>7)*5, 10), "Exact"
		}
		if q.Limit > 0 {
			h.listAll(q)
		} else {
			h.list(q)
		}
		// Watch refuses exactly the selectors List refuses, with the same Status.
		wq := Query{Namespace: q.Namespace, LabelSelector: label, FieldSelector: field, ResourceVersion: strconv.FormatUint(h.model.RV(), 10)}
		want := h.model.Watch(wq, h.model.RV())
		w, err := h.cache.Watch(context.Background(), watchcache.WatchOptions{Namespace: wq.Namespace, LabelSelector: label, FieldSelector: field, ResourceVersion: wq.ResourceVersion})
		if err == nil {
			w.Stop()
			for range w.Events() {
			}
		}
		switch {
		case (err == nil) != (want.Err == nil):
			t.Fatalf("Watch%s: cache %v, model %s", describeQuery(wq), err, want.Err)
		case err != nil:
			if s := apistatus.FromError(err).ErrStatus; s.Code != want.Err.Code || s.Message != want.Err.Message {
				t.Fatalf("Watch%s: cache %d %q, model %s", describeQuery(wq), s.Code, s.Message, want.Err)
			}
		}
	})
}

// FuzzApplyEvent: arbitrary bytes as an event's object never panic Apply. A rejected event wraps
// one of the Err* sentinels (400 at the edge) and leaves every answer byte-identical; an accepted
// one is served as valid JSON, under the key a JSON decoder reads from it and with the event's
// resourceVersion; the model accepts and rejects the same events.
func FuzzApplyEvent(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"x","namespace":"a"}}`), uint8(0), uint8(2))
	f.Add([]byte(`{"metadata":{"name":"p1","namespace":"a","resourceVersion":"3"},"spec":{"nodeName":"n9"}}`), uint8(1), uint8(2))
	f.Add([]byte(`{"metadata":{"name":"p1","namespace":"a"}}`), uint8(2), uint8(2))
	f.Add([]byte(`{"metadata":{"name":"p1","namespace":"a"}}`), uint8(2), uint8(0))
	f.Add([]byte(`{"metadata":{"name":"p1","namespace":"a","resourceVersion":"99"}}`), uint8(0), uint8(3))
	f.Add([]byte(`{"metadata":{"name":"x","namespace":"a","labels":{"app":1}}}`), uint8(0), uint8(2))
	f.Add([]byte(`{"metadata":{"name":"a/b","namespace":"a"}}`), uint8(0), uint8(2))
	f.Add([]byte(`{"metadata":{"name":"x"}}`), uint8(0), uint8(2))
	f.Add([]byte(`{"metadata":{"name":"x","namespace":"a"}`), uint8(0), uint8(2))
	f.Add([]byte(`{"metadata":{"name":"p\u0031","namespace":"a","labels":{"app":"web"},"labels":{"tier":"1"}}}`), uint8(1), uint8(2))
	f.Add([]byte(`{"metadata":{"name":"x","namespace":"a","resourceVersion":null},"status":{"podIPs":[{"ip":1}]}}`), uint8(0), uint8(2))
	f.Add([]byte(nil), uint8(3), uint8(2))
	f.Add([]byte(`[]`), uint8(4), uint8(2))
	f.Fuzz(func(t *testing.T, obj []byte, typ, rvSel uint8) {
		c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}, WindowAge: -1})
		defer c.Stop()
		m := NewModel(0)
		seed := [][]byte{
			[]byte(`{"metadata":{"name":"p1","namespace":"a","resourceVersion":"1","labels":{"app":"web"}},"spec":{"nodeName":"n1"}}`),
			[]byte(`{"metadata":{"name":"p2","namespace":"b","resourceVersion":"2"},"spec":{"nodeName":"n2"}}`),
		}
		if err := c.Replace(seed, 10); err != nil {
			t.Fatal(err)
		}
		if err := m.Replace(seed, 10); err != nil {
			t.Fatal(err)
		}
		if err := c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"}); err != nil {
			t.Fatal(err)
		}
		before := observe(t, c)
		evType := []watchcache.EventType{watchcache.Added, watchcache.Modified, watchcache.Deleted, watchcache.Bookmark, "UPSERT"}[typ%5]
		rv := []uint64{0, 9, 10, 11, 12}[rvSel%5] // 0: the object's own resourceVersion
		err := c.Apply(watchcache.Event{Type: evType, Object: bytes.Clone(obj), ResourceVersion: rv})
		after := observe(t, c)
		if err != nil {
			if !rejectedWith(err) || apistatus.FromError(err).ErrStatus.Code != 400 {
				t.Fatalf("Apply rejected with %v (status %d), want an Err* sentinel and 400", err, apistatus.FromError(err).ErrStatus.Code)
			}
			if after != before {
				t.Fatalf("a rejected event (%v) changed what List answers:\nbefore %s\nafter  %s", err, before, after)
			}
		} else {
			checkAccepted(t, c, evType, obj, rv)
		}
		// The model judges the same event the same way (for the event types it knows).
		mrv := rv
		if mrv == 0 && evType != watchcache.Bookmark {
			mrv = parseOwnRVLoose(obj)
		}
		merr := m.Apply(string(evType), obj, mrv)
		if (err == nil) != (merr == nil) {
			t.Fatalf("Apply(%s, rv %d, %q): cache %v, model %v", evType, rv, obj, err, merr)
		}
	})
}

// parseOwnRVLoose returns the object's own canonical resourceVersion, 0 if it has none.
func parseOwnRVLoose(obj []byte) uint64 {
	var top map[string]any
	if json.Unmarshal(obj, &top) != nil {
		return 0
	}
	md, _ := top["metadata"].(map[string]any)
	s, _ := md["resourceVersion"].(string)
	if strings.HasPrefix(s, "0") {
		return 0 // not a canonical resourceVersion
	}
	v, _ := strconv.ParseUint(s, 10, 64)
	return v
}

func rejectedWith(err error) bool {
	for _, s := range []error{watchcache.ErrMalformedObject, watchcache.ErrInvalidName, watchcache.ErrNamespaceMismatch,
		watchcache.ErrResourceVersion, watchcache.ErrUnknownKey, watchcache.ErrEventType} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// observe renders what readers can see: the RV, a full list, an indexed list, an Exact list at
// the re-list's RV, and the watch history from it.
func observe(t *testing.T, c *watchcache.Cache) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rv=%d len=%d\n", c.ResourceVersion(), c.Len())
	for _, o := range []watchcache.ListOptions{
		{}, {FieldSelector: "spec.nodeName=n1"}, {LabelSelector: "app=web"},
		{ResourceVersion: "10", ResourceVersionMatch: watchcache.MatchExact},
		{Limit: 1},
	} {
		res, err := c.List(context.Background(), o)
		if err != nil {
			t.Fatalf("List(%+v): %v", o, err)
		}
		fmt.Fprintf(&b, "list %+v rv=%d continue=%q remaining=%s\n", o, res.ResourceVersion, res.Continue, countString(res.RemainingItemCount))
		for _, it := range res.Items {
			b.Write(it)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// checkAccepted checks what an accepted event must have done.
func checkAccepted(t *testing.T, c *watchcache.Cache, typ watchcache.EventType, obj []byte, rv uint64) {
	if typ == watchcache.Bookmark {
		return
	}
	o, ok := metaOf(obj)
	if !ok {
		t.Fatalf("accepted an object encoding/json rejects or without string name/namespace: %q", obj)
	}
	want := strconv.FormatUint(c.ResourceVersion(), 10)
	if rv != 0 && want != strconv.FormatUint(rv, 10) {
		t.Fatalf("accepted at RV %d, cache RV is %s", rv, want)
	}
	res, err := c.List(context.Background(), watchcache.ListOptions{Namespace: o.namespace, FieldSelector: "metadata.name=" + escapeField(o.name)})
	if err != nil {
		t.Fatalf("List of the accepted object %s/%s: %v", o.namespace, o.name, err)
	}
	if typ == watchcache.Deleted {
		if len(res.Items) != 0 {
			t.Fatalf("deleted %s/%s still listed", o.namespace, o.name)
		}
		return
	}
	if len(res.Items) != 1 {
		t.Fatalf("accepted %s %q: %d items listed under %s/%s (as encoding/json reads the key)", typ, obj, len(res.Items), o.namespace, o.name)
	}
	item := res.Items[0]
	served, ok := metaOf(item)
	if !ok {
		t.Fatalf("serves invalid JSON for %q: %q", obj, item)
	}
	if served.rv != want || served.name != o.name || served.namespace != o.namespace {
		t.Fatalf("accepted %q at RV %s; serves %q, which a JSON decoder reads as %s/%s at RV %q", obj, want, item, served.namespace, served.name, served.rv)
	}
}

type objMeta struct{ name, namespace, rv string }

// metaOf reads metadata.name, .namespace and .resourceVersion as the apiserver and client-go
// decode an object: into typed structs, case-sensitively (sigs.k8s.io/json), so that a repeated
// object merges and a repeated scalar's last value wins.
func metaOf(obj []byte) (objMeta, bool) {
	var o struct {
		Metadata struct {
			Name            *string `json:"name"`
			Namespace       *string `json:"namespace"`
			ResourceVersion string  `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if !json.Valid(obj) || kjson.UnmarshalCaseSensitivePreserveInts(obj, &o) != nil || o.Metadata.Name == nil || o.Metadata.Namespace == nil {
		return objMeta{}, false
	}
	return objMeta{name: *o.Metadata.Name, namespace: *o.Metadata.Namespace, rv: o.Metadata.ResourceVersion}, true
}

// escapeField escapes a value for a field selector (fields.EscapeValue).
func escapeField(s string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`).Replace(s)
}

// FuzzOperations: a byte string decoded into the operations of TestDifferential (the first byte
// picks the window, and with bit 2 set keyed mode: events and re-lists with keys, see ops_test.go),
// run against the cache and the model, with identical answers required. Inputs without that bit
// decode as they did before keys existed.
func FuzzOperations(f *testing.F) {
	for seed := range int64(8) {
		rng := rand.New(rand.NewSource(seed))
		data := make([]byte, 16+rng.Intn(96)) // small: minimizing a new input costs an exec per byte tried
		rng.Read(data)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		window := []int{2, 5, 20, 100000}[data[0]%4]
		h := newHarness(t, window, "go test ./fuzz -run 'FuzzOperations/<the input file>' -v")
		h.keyed = data[0]&4 != 0
		runOps(h, &byteChooser{data: data[1:]}, 200)
	})
}
