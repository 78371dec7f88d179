package watchcache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/rvclock"
)

// fixture: 3 namespaces × 10 pods, node-(i%4), app=web for even i, listed at RV 100.
func fixture(t testing.TB, opts ...func(*Options)) *Cache {
	t.Helper()
	c := newPodCache(t, opts...)
	var objs [][]byte
	for ns := range 3 {
		for i := range 10 {
			app := "db"
			if i%2 == 0 {
				app = "web"
			}
			objs = append(objs, pod(fmt.Sprintf("ns-%d", ns), fmt.Sprintf("pod-%02d", i), fmt.Sprintf("node-%d", i%4), "app="+app, uint64(10+ns*10+i)))
		}
	}
	if err := c.Replace(objs, 100); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestListNotReadyUntilReplace(t *testing.T) {
	c := newPodCache(t)
	_, err := c.List(context.Background(), ListOptions{})
	if !errors.Is(err, rvclock.ErrNotReady) || ToStatus(err).ErrStatus.Code != http.StatusTooManyRequests {
		t.Fatalf("List before Replace: %v, want 429 not ready (rule 3.7)", err)
	}
	if err := c.Replace(nil, 5); err != nil {
		t.Fatal(err)
	}
	res := mustList(t, c, ListOptions{})
	if len(res.Items) != 0 || res.ResourceVersion != 5 || res.Items == nil {
		t.Fatalf("empty list = %+v, want items [] (rule 6.5) at RV 5", res)
	}
}

func TestListPaginationAndTokens(t *testing.T) {
	c := fixture(t)
	res := mustList(t, c, ListOptions{Limit: 3})
	if got := names(res.Items); !reflect.DeepEqual(got, []string{"ns-0/pod-00", "ns-0/pod-01", "ns-0/pod-02"}) {
		t.Fatalf("page 1 = %v", got)
	}
	if res.ResourceVersion != 100 {
		t.Fatalf("RV = %d", res.ResourceVersion)
	}
	// Rule 2.1/2.2: the token continues after the last key, at the list RV.
	if m := decodeToken(t, res.Continue); m["start"] != "/ns-0/pod-02\x00" || m["rv"] != float64(100) {
		t.Fatalf("token = %v", m)
	}
	// Rule 2.7: 27 objects follow the page.
	if res.RemainingItemCount == nil || *res.RemainingItemCount != 27 {
		t.Fatalf("remainingItemCount = %v, want 27", res.RemainingItemCount)
	}
	all, rvs := listAll(t, c, ListOptions{Limit: 7})
	if len(all) != 30 || !slices.IsSorted(all) {
		t.Fatalf("paged list = %v", all)
	}
	for _, rv := range rvs {
		if rv != 100 {
			t.Fatalf("page RVs = %v, want all 100 (rule 2.8)", rvs)
		}
	}
	// Namespaced list: remaining counts only the namespace.
	res = mustList(t, c, ListOptions{Namespace: "ns-1", Limit: 4})
	if res.RemainingItemCount == nil || *res.RemainingItemCount != 6 {
		t.Fatalf("namespaced remainingItemCount = %v, want 6", res.RemainingItemCount)
	}
	if m := decodeToken(t, res.Continue); m["start"] != "/pod-03\x00" {
		t.Fatalf("namespaced token start = %q", m["start"])
	}
	// Rule 2.6: the page is full and a continue is set even when nothing after it matches; the last page is empty.
	res = mustList(t, c, ListOptions{Namespace: "ns-2", LabelSelector: "app=web", Limit: 5})
	if len(res.Items) != 5 || res.Continue == "" || res.RemainingItemCount != nil {
		t.Fatalf("selector page = %v cont %q remaining %v (rule 2.7: none with a selector)", names(res.Items), res.Continue, res.RemainingItemCount)
	}
	res = mustList(t, c, ListOptions{Namespace: "ns-2", LabelSelector: "app=web", Limit: 5, Continue: res.Continue})
	if len(res.Items) != 0 || res.Continue != "" {
		t.Fatalf("last page = %v cont %q, want empty", names(res.Items), res.Continue)
	}
	// Exactly limit items and no more keys: no token.
	res = mustList(t, c, ListOptions{Namespace: "ns-2", Limit: 10})
	if len(res.Items) != 10 || res.Continue != "" || res.RemainingItemCount != nil {
		t.Fatalf("exact fit: %d items cont %q", len(res.Items), res.Continue)
	}
}

// TestRemainingItemCountAcrossNamespaces: the per-namespace counts agree with a walk, including
// namespaces whose names sort differently from their keys ("a-b/" < "a/").
func TestRemainingItemCountAcrossNamespaces(t *testing.T) {
	c := newPodCache(t)
	var objs [][]byte
	rv := uint64(1)
	for _, ns := range []string{"a", "a-b", "a0", "b"} {
		for i := range 3 {
			objs = append(objs, pod(ns, fmt.Sprint("p", i), "", "", rv))
			rv++
		}
	}
	if err := c.Replace(objs, 50); err != nil {
		t.Fatal(err)
	}
	o := ListOptions{Limit: 1}
	seen := 0
	for {
		res := mustList(t, c, o)
		seen += len(res.Items)
		if res.Continue == "" {
			break
		}
		if want := int64(12 - seen); res.RemainingItemCount == nil || *res.RemainingItemCount != want {
			t.Fatalf("after %d items remaining = %v, want %d", seen, res.RemainingItemCount, want)
		}
		o.Continue = res.Continue
	}
}

// TestRemainingItemCount: every page's remainingItemCount is the number of keys after the page — a
// first page's is the prefix's count less the page, a continue page's the previous page's less
// this one when the cache remembers issuing its token, and counted after its start when it does
// not — at published RVs and at RVs read through an overlay (older or newer
// base), for all namespaces and for each namespace, with creates and deletes between the snapshots.
func TestRemainingItemCount(t *testing.T) {
	c := newPodCache(t, func(o *Options) { o.WindowEvents, o.WindowAge = 4*publishEvery, -1 })
	namespaces := []string{"a", "a-b", "a0", "b"}
	var objs [][]byte
	live := map[string]bool{}
	for _, ns := range namespaces {
		for i := range 20 {
			objs = append(objs, pod(ns, fmt.Sprint("p", i), "", "", 0))
			live[ns+"/"+fmt.Sprint("p", i)] = true
		}
	}
	if err := c.Replace(objs, 10); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	rv := uint64(10)
	for range 3 * publishEvery {
		rv++
		ns, name := namespaces[rng.IntN(len(namespaces))], fmt.Sprint("p", rng.IntN(30))
		switch k := ns + "/" + name; {
		case live[k] && rng.IntN(2) == 0:
			mustApply(t, c, Deleted, pod(ns, name, "", "", rv), rv)
			delete(live, k)
		case live[k]:
			mustApply(t, c, Modified, pod(ns, name, "", "", rv), rv)
		default:
			mustApply(t, c, Added, pod(ns, name, "", "", rv), rv)
			live[k] = true
		}
	}
	for at := rv - 2*publishEvery; at <= rv; at += 7 {
		for _, ns := range append([]string{""}, namespaces...) {
			all := mustList(t, c, ListOptions{Namespace: ns, ResourceVersion: fmt.Sprint(at), ResourceVersionMatch: MatchExact})
			for _, limit := range []int64{1, 13, 50} {
				// Every page, the first and those of its continue tokens.
				res := mustList(t, c, ListOptions{Namespace: ns, ResourceVersion: fmt.Sprint(at), ResourceVersionMatch: MatchExact, Limit: limit})
				for seen := len(res.Items); ; seen += len(res.Items) {
					want := int64(len(all.Items) - seen)
					if res.Continue == "" {
						if want != 0 {
							t.Fatalf("rv %d ns %q limit %d: no continue with %d keys left", at, ns, limit, want)
						}
						break
					}
					if res.RemainingItemCount == nil || *res.RemainingItemCount != want {
						t.Fatalf("rv %d ns %q limit %d after %d: remaining = %v, want %d", at, ns, limit, seen, res.RemainingItemCount, want)
					}
					// The next page twice: from the token the cache remembers issuing (its count
					// follows from this page's), then decoded and counted after its start.
					next := ListOptions{Namespace: ns, Limit: limit, Continue: res.Continue}
					res = mustList(t, c, next)
					c.tokens = tokenMemo{}
					if again := mustList(t, c, next); !reflect.DeepEqual(res, again) {
						t.Fatalf("rv %d ns %q limit %d after %d: the remembered token's page %+v, decoded %+v", at, ns, limit, seen, res, again)
					}
				}
			}
		}
	}
}

func TestListResourceVersions(t *testing.T) {
	c := fixture(t)
	mustApply(t, c, Modified, pod("ns-0", "pod-00", "node-9", "app=web", 0), 110)
	mustApply(t, c, Deleted, pod("ns-0", "pod-01", "node-1", "app=db", 0), 120)
	mustApply(t, c, Bookmark, nil, 130)
	ctx := context.Background()
	tests := []struct {
		name      string
		o         ListOptions
		wantRV    uint64
		wantCount int
	}{
		{"rule 1.8: consistent read answers at the current RV incl. bookmarks (3.1)", ListOptions{}, 130, 29},
		{"rule 1.9: RV=0 latest", ListOptions{ResourceVersion: "0"}, 130, 29},
		{"rule 1.9: NotOlderThan older RV answers newer", ListOptions{ResourceVersion: "100", ResourceVersionMatch: MatchNotOlderThan}, 130, 29},
		{"rule 1.6: Exact answers the requested RV from the snapshot", ListOptions{ResourceVersion: "100", ResourceVersionMatch: MatchExact}, 100, 30},
		{"rule 1.6: Exact between events reads the state at or before it", ListOptions{ResourceVersion: "115", ResourceVersionMatch: MatchExact}, 115, 30},
		{"rule 1.6: legacy exact", ListOptions{ResourceVersion: "120", Limit: 100}, 120, 29},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.List(ctx, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if res.ResourceVersion != tt.wantRV || len(res.Items) != tt.wantCount {
				t.Fatalf("RV %d, %d items; want %d, %d", res.ResourceVersion, len(res.Items), tt.wantRV, tt.wantCount)
			}
		})
	}
	// Items carry the RV of their last change (rule 3.9), written into metadata.resourceVersion.
	res := mustList(t, c, ListOptions{FieldSelector: "metadata.name=pod-00", Namespace: "ns-0"})
	if len(res.Items) != 1 || !containsRV(res.Items[0], "110") {
		t.Fatalf("modified pod = %s", res.Items)
	}
}

func containsRV(obj []byte, rv string) bool {
	return names([][]byte{obj}) != nil && string(obj) != "" && gjsonRV(obj) == rv
}

func TestListErrors(t *testing.T) {
	c := fixture(t, func(o *Options) { o.WindowEvents = 2 })
	first := mustList(t, c, ListOptions{Limit: 2})
	for i := range 3 {
		mustApply(t, c, Modified, pod("ns-0", "pod-05", "node-1", "app=db", 0), uint64(200+i))
	}
	ctx := context.Background()
	tests := []struct {
		name     string
		o        ListOptions
		code     int32
		reason   string
		message  string
		retry    int32
		hasToken bool
	}{
		{"rule 2.9: continue older than the window", ListOptions{Continue: first.Continue, Limit: 2}, 410, "Expired", msgContinueTooOld, 0, true},
		{"rule 1.18: exact older than the window", ListOptions{ResourceVersion: "100", ResourceVersionMatch: MatchExact}, 410, "Expired", "The resourceVersion for the provided list is too old.", 0, false},
		{"rule 3.4: too large RV times out", ListOptions{ResourceVersion: "999999999"}, 504, "Timeout", "Timeout: Too large resource version: 999999999, current: 202", 1, false},
		{"rule 3.4: too large exact", ListOptions{ResourceVersion: "999999999", ResourceVersionMatch: MatchExact, Limit: 3}, 504, "Timeout", "Timeout: Too large resource version: 999999999, current: 202", 1, false},
		{"rule 4.3: unsupported field", ListOptions{FieldSelector: "spec.foo=bar"}, 400, "BadRequest", "field label not supported: spec.foo", 0, false},
		{"rule 4.2: malformed field selector", ListOptions{FieldSelector: "spec.nodeName", Limit: 3}, 400, "BadRequest", "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'", 0, false},
		{"rule 2.4: garbage token", ListOptions{Continue: "not-a-valid-token", Limit: 3}, 400, "BadRequest", "invalid continue token: continue key is not valid: illegal base64 data at input byte 16", 0, false},
		{"rule 0.1", ListOptions{ResourceVersionMatch: MatchNotOlderThan, Limit: 3}, 422, "Invalid", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.List(ctx, tt.o)
			st := ToStatus(err)
			if st == nil {
				t.Fatal("no error")
			}
			s := st.ErrStatus
			if s.Code != tt.code || string(s.Reason) != tt.reason || s.Message != tt.message {
				t.Fatalf("status = %d %s %q\nwant     %d %s %q", s.Code, s.Reason, s.Message, tt.code, tt.reason, tt.message)
			}
			if tt.retry > 0 && (s.Details == nil || s.Details.RetryAfterSeconds != tt.retry || s.Details.Causes[0].Type != "ResourceVersionTooLarge") {
				t.Fatalf("details = %+v", s.Details)
			}
			if tt.hasToken {
				m := decodeToken(t, s.ListMeta.Continue)
				if m["rv"] != float64(-1) || m["start"] != "ns-0/pod-01\x00" { // the etcd form, as the apiserver's 410
					t.Fatalf("410 token = %v, want rv -1 and the same start (rule 2.9)", m)
				}
				// The rv -1 token continues at the latest state from the same key.
				res := mustList(t, c, ListOptions{Continue: s.ListMeta.Continue})
				if res.ResourceVersion != 202 || len(res.Items) != 28 {
					t.Fatalf("rv -1 continue: RV %d, %d items", res.ResourceVersion, len(res.Items))
				}
			}
		})
	}
}

func TestListIgnoreLimitForRV0(t *testing.T) {
	c := fixture(t)
	if res := mustList(t, c, ListOptions{ResourceVersion: "0", Limit: 3}); len(res.Items) != 3 || res.Continue == "" {
		t.Fatalf("default honours limit for RV=0: %d items", len(res.Items))
	}
	c = fixture(t, func(o *Options) { o.IgnoreLimitForRV0 = true })
	if res := mustList(t, c, ListOptions{ResourceVersion: "0", Limit: 3}); len(res.Items) != 30 || res.Continue != "" || res.RemainingItemCount != nil {
		t.Fatalf("fidelity mode: %d items, cont %q (rule 2.6)", len(res.Items), res.Continue)
	}
}

func TestListSelectorsAndScope(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		t.Run(fmt.Sprint("indexed=", indexed), func(t *testing.T) {
			c := fixture(t)
			if indexed {
				for _, s := range []index.Spec{{Kind: index.Field, Name: "spec.nodeName"}, {Kind: index.Label, Name: "app"}} {
					if err := c.AddIndex(s); err != nil {
						t.Fatal(err)
					}
				}
			}
			tests := []struct {
				o    ListOptions
				want []string
			}{
				{ListOptions{FieldSelector: "spec.nodeName=node-1", Namespace: "ns-1"}, []string{"ns-1/pod-01", "ns-1/pod-05", "ns-1/pod-09"}},
				{ListOptions{FieldSelector: "spec.nodeName=node-1,metadata.namespace=ns-2"}, []string{"ns-2/pod-01", "ns-2/pod-05", "ns-2/pod-09"}},
				{ListOptions{FieldSelector: "spec.nodeName=node-2", LabelSelector: "app=web", Namespace: "ns-0"}, []string{"ns-0/pod-02", "ns-0/pod-06"}},
				{ListOptions{FieldSelector: "spec.nodeName=node-2", LabelSelector: "app=db", Namespace: "ns-0"}, nil},
				{ListOptions{LabelSelector: "app in (db)", FieldSelector: "metadata.namespace=ns-0,spec.nodeName!=node-1"}, []string{"ns-0/pod-03", "ns-0/pod-07"}},
				{ListOptions{FieldSelector: "metadata.name=pod-04", Namespace: "ns-2"}, []string{"ns-2/pod-04"}},
				{ListOptions{FieldSelector: "metadata.name=pod-04"}, []string{"ns-0/pod-04", "ns-1/pod-04", "ns-2/pod-04"}},
				{ListOptions{FieldSelector: "spec.host=node-3", Namespace: "ns-0"}, []string{"ns-0/pod-03", "ns-0/pod-07"}},
				{ListOptions{FieldSelector: "metadata.namespace=ns-1", Namespace: "ns-0"}, nil},
			}
			for _, tt := range tests {
				got, _ := listAll(t, c, tt.o)
				// The same query paged by 1 gives the same items (indexes keep key order; rule 1.11).
				tt.o.Limit = 1
				paged, _ := listAll(t, c, tt.o)
				if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(paged, tt.want) {
					t.Errorf("%+v: got %v, paged %v, want %v", tt.o, got, paged, tt.want)
				}
			}
		})
	}
}

func gjsonRV(obj []byte) string {
	return getPath(obj, "metadata.resourceVersion")
}

// TestContinueAfterReplace: a re-list starts a new window at its RV, so a continue token issued
// before it is too old (rule 2.9) — whether the cache remembers issuing the token (its view is
// still alive, and not dead: a re-list marks no pin) or decodes it — and an rv -1 token from the
// 410 continues at the re-listed state.
func TestContinueAfterReplace(t *testing.T) {
	for _, remembered := range []bool{true, false} {
		t.Run(fmt.Sprint("remembered=", remembered), func(t *testing.T) {
			c := fixture(t)
			first := mustList(t, c, ListOptions{Limit: 2})
			tok := first.Continue
			if !remembered {
				start, rv, err := decodeContinue(tok, "/")
				if err != nil {
					t.Fatal(err)
				}
				tok = encodeContinueEtcdForm(start, "/", rv)
			}
			if err := c.Replace([][]byte{pod("ns-0", "pod-01", "", "", 0), pod("ns-0", "pod-02", "", "", 0)}, 300); err != nil {
				t.Fatal(err)
			}
			_, err := c.List(context.Background(), ListOptions{Continue: tok, Limit: 2})
			var exp *ExpiredError
			if !errors.As(err, &exp) || exp.Message != msgContinueTooOld {
				t.Fatalf("continue from before the re-list: %v, want 410 %q", err, msgContinueTooOld)
			}
			res := mustList(t, c, ListOptions{Continue: exp.Continue})
			if got, want := names(res.Items), []string{"ns-0/pod-02"}; res.ResourceVersion != 300 || !reflect.DeepEqual(got, want) {
				t.Fatalf("rv -1 continue after the re-list: RV %d, %v; want 300, %v", res.ResourceVersion, got, want)
			}
		})
	}
}
