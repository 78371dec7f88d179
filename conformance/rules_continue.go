package conformance

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// msgContinueTooOld is the apiserver's 410 for a continue token whose RV has left the window (rule 2.9).
const msgContinueTooOld = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter, or use the continue token in this response " +
	"to retrieve the remainder of the results. Continuing with the provided token results in an " +
	"inconsistent list - objects that were created, modified, or deleted between the time the first " +
	"chunk was returned and now may show up in the list."

var rawURLAlphabet = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tokenOf builds a token's wire form from its JSON text.
func tokenOf(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

// checkPages checks what every paged list must satisfy: each page's RV is the first page's
// (rule 2.8), each token carries that RV and starts right after the page's last item (2.1, 2.2),
// pages are full but for the last (2.6), the last has no token.
//
// root is the list's root as the token's start must be relative to: "" for all namespaces, a
// namespace, or anyRoot to leave the start's form unchecked.
func (e *env) checkPages(what string, root string, pages []*ListResult, limit int) {
	e.t.Helper()
	rv := pages[0].ListMeta.ResourceVersion
	for i, p := range pages {
		if p.ListMeta.ResourceVersion != rv {
			e.t.Errorf("%s: page %d at RV %q, page 1 at %q (rule 2.8: every page reads the first page's snapshot)", what, i+1, p.ListMeta.ResourceVersion, rv)
		}
		if p.ListMeta.Continue == "" {
			if i != len(pages)-1 {
				e.t.Errorf("%s: suite bug: page %d without token is not the last", what, i+1)
			}
			continue
		}
		if len(p.Items) != limit {
			e.t.Errorf("%s: page %d has %d items and a token, want a full page of %d (rule 2.6)", what, i+1, len(p.Items), limit)
		}
		tok := e.token(p.ListMeta.Continue)
		if strconv.FormatInt(tok.RV, 10) != rv {
			e.t.Errorf("%s: page %d token rv %d, want the list's %s (rule 2.8)", what, i+1, tok.RV, rv)
		}
		if len(p.Items) > 0 {
			m := e.meta(p.Items[len(p.Items)-1])
			want := "/" + m.Namespace + "/" + m.Name + "\x00"
			if root != "" {
				want = "/" + m.Name + "\x00"
			}
			if root != anyRoot && tok.Start != want {
				e.t.Errorf("%s: page %d token start %q, want %q: the last key + NUL, relative to the list root (rule 2.2)", what, i+1, tok.Start, want)
			}
		}
	}
}

// anyRoot tells checkPages not to check the form of the start key: a list narrowed to one
// namespace by metadata.namespace=<ns> (rule 4.6) may be relative to either root.
const anyRoot = "*"

func continueRules() []rule {
	return []rule{
		{name: "2.1/token-bytes", test: func(e *env) {
			res := e.list("", metav1.ListOptions{Limit: 3})
			tok := res.ListMeta.Continue
			if !rawURLAlphabet.MatchString(tok) {
				e.t.Errorf("token %q is not unpadded base64url", tok)
			}
			data, err := base64.RawURLEncoding.DecodeString(tok)
			if err != nil {
				e.t.Fatalf("token %q: %v", tok, err)
			}
			const want = `{"v":"meta.k8s.io/v1","rv":100,"start":"/ns-0/pod-02\u0000"}`
			if string(data) != want {
				e.t.Errorf("token decodes to %s\nwant             %s (rule 2.1: field order, \\u0000, cache form of start)", data, want)
			}
			if want := tokenOf(want); tok != want {
				e.t.Errorf("token %s, want %s", tok, want)
			}
		}},
		{name: "2.2/start-key", test: func(e *env) {
			for _, tt := range []struct {
				ns    string
				limit int64
				want  string
			}{
				{"", 3, "/ns-0/pod-02\x00"},
				{"", 10, "/ns-1/pod-01\x00"},
				{"ns-1", 2, "/pod-01\x00"},
				{"ns-2", 7, "/pod-06\x00"},
			} {
				res := e.list(tt.ns, metav1.ListOptions{Limit: tt.limit})
				if got := e.token(res.ListMeta.Continue).Start; got != tt.want {
					e.t.Errorf("list %q limit %d: start %q, want %q", tt.ns, tt.limit, got, tt.want)
				}
			}
			for _, ns := range []string{"", "ns-1"} {
				for _, limit := range []int{1, 3, 5} {
					e.checkPages(fmt.Sprintf("list %q limit %d", ns, limit), ns, e.listAll(ns, metav1.ListOptions{Limit: int64(limit)}), limit)
				}
			}
		}},
		{name: "2.3/etcd-form-accepted", test: func(e *env) {
			want := e.names(e.list("", metav1.ListOptions{Continue: tokenOf(`{"v":"meta.k8s.io/v1","rv":100,"start":"/ns-0/pod-02\u0000"}`), Limit: 3}).Items)
			got := e.names(e.list("", metav1.ListOptions{Continue: tokenOf(`{"v":"meta.k8s.io/v1","rv":100,"start":"ns-0/pod-02\u0000"}`), Limit: 3}).Items)
			if !equal(want, keyRange("ns-0", 3, 4, 5)) || !equal(got, want) {
				e.t.Errorf("cache-form token: %v, etcd-form token: %v, want %v", want, got, keyRange("ns-0", 3, 4, 5))
			}
			got = e.names(e.list("ns-1", metav1.ListOptions{Continue: tokenOf(`{"v":"meta.k8s.io/v1","rv":100,"start":"pod-05\u0000"}`)}).Items)
			if !equal(got, keyRange("ns-1", 6, 7)) {
				e.t.Errorf("namespaced etcd-form token: %v, want %v", got, keyRange("ns-1", 6, 7))
			}
		}},
		{name: "2.3/invalid-tokens", test: func(e *env) {
			_, padErr := base64.RawURLEncoding.DecodeString(base64.URLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1,"start":"a"}`)))
			for _, tt := range []struct{ token, want string }{
				{"not-a-valid-token", "continue key is not valid: illegal base64 data at input byte 16"},
				{"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NX0", "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"},
				{tokenOf(`{"v":"meta.k8s.io/v1","rv":0,"start":"/ns-0/pod-02\u0000"}`), "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"},
				{tokenOf(`{"v":"meta.k8s.io/v2","rv":100,"start":"/ns-0/pod-02\u0000"}`), "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2"},
				{tokenOf(`{"v":`), "continue key is not valid: unexpected end of JSON input"},
				{tokenOf(`{"v":"meta.k8s.io/v1","rv":100,"start":"/../secrets/x"}`), "continue key is not valid: /../secrets/x"},
				{tokenOf(`{"v":"meta.k8s.io/v1","rv":100,"start":"/ns-0/./pod-02"}`), "continue key is not valid: /ns-0/./pod-02"},
				{base64.URLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1,"start":"a"}`)), "continue key is not valid: " + padErr.Error()},
			} {
				s := e.listErr("", metav1.ListOptions{Continue: tt.token, Limit: 3})
				e.wantStatus("continue="+tt.token, s, http.StatusBadRequest, metav1.StatusReasonBadRequest, "invalid continue token: "+tt.want)
			}
		}},
		{name: "2.3/json-error-names-the-apiserver-type", test: func(e *env) {
			// A token whose JSON is not an object gets encoding/json's message, which names the
			// apiserver's Go type, storage.continueToken (k8s.io/apiserver/pkg/storage).
			s := e.listErr("", metav1.ListOptions{Continue: tokenOf("0"), Limit: 3})
			e.wantStatus("continue=MA (base64url of 0)", s, http.StatusBadRequest, metav1.StatusReasonBadRequest,
				"invalid continue token: continue key is not valid: json: cannot unmarshal number into Go value of type storage.continueToken")
			s = e.listErr("", metav1.ListOptions{Continue: tokenOf(`{"v":1}`), Limit: 3})
			e.wantStatus(`continue={"v":1}`, s, http.StatusBadRequest, metav1.StatusReasonBadRequest,
				"invalid continue token: continue key is not valid: json: cannot unmarshal number into Go struct field continueToken.v of type string")
		}},
		{name: "2.5/continue-with-resource-version", test: func(e *env) {
			tok := e.list("", metav1.ListOptions{Limit: 3}).ListMeta.Continue
			s := e.listErr("", metav1.ListOptions{Continue: tok, ResourceVersion: "100", Limit: 3})
			e.wantStatus("continue with resourceVersion=100", s, http.StatusBadRequest, metav1.StatusReasonBadRequest,
				"specifying resource version is not allowed when using continue")
			// RV=0 is tolerated and ignored: the page continues the token at its RV. Whether the
			// limit is honoured differs (the apiserver's cache ignores it, rule 2.6); both are accepted.
			res := e.list("", metav1.ListOptions{Continue: tok, ResourceVersion: "0", Limit: 3})
			if got := e.names(res.Items); res.ListMeta.ResourceVersion != "100" || len(got) < 3 || !equal(got[:3], keyRange("ns-0", 3, 4, 5)) {
				e.t.Errorf("continue with resourceVersion=0: RV %q items %v, want RV 100 starting at ns-0/pod-03", res.ListMeta.ResourceVersion, got)
			}
		}},
		{name: "2.6/token-after-last-item", test: func(e *env) {
			want := e.names(e.list("", metav1.ListOptions{}).Items)
			for _, limit := range []int{1, 2, 5, 7, 23, 24, 25} {
				pages := e.listAll("", metav1.ListOptions{Limit: int64(limit)})
				if got := e.allNames(pages); !equal(got, want) {
					e.t.Errorf("limit %d: paged %v\nwant         %v (no item repeated or skipped)", limit, got, want)
				}
				e.checkPages(fmt.Sprintf("limit %d", limit), "", pages, limit)
			}
		}},
		{name: "2.6/last-page", test: func(e *env) {
			// Exactly `limit` items and no key after them: no token.
			if res := e.list("ns-2", metav1.ListOptions{Limit: 8}); len(res.Items) != 8 || res.ListMeta.Continue != "" || res.ListMeta.RemainingItemCount != nil {
				e.t.Errorf("exact fit: %d items, continue %q, remaining %v; want 8, none, none", len(res.Items), res.ListMeta.Continue, res.ListMeta.RemainingItemCount)
			}
			// app=web is pod-00, -02, -04, -06; pod-07 follows: the full page has a token, and the
			// page it leads to is empty and has none.
			res := e.list("ns-2", metav1.ListOptions{LabelSelector: "app=web", Limit: 4})
			if got := e.names(res.Items); !equal(got, keyRange("ns-2", 0, 2, 4, 6)) || res.ListMeta.Continue == "" {
				e.t.Fatalf("app=web limit 4: %v continue %q; want 4 items and a token (a key follows)", got, res.ListMeta.Continue)
			}
			last := e.list("ns-2", metav1.ListOptions{LabelSelector: "app=web", Limit: 4, Continue: res.ListMeta.Continue})
			if len(last.Items) != 0 || last.ListMeta.Continue != "" || last.ListMeta.ResourceVersion != "100" {
				e.t.Errorf("page after the last match: %v continue %q RV %q; want an empty last page at RV 100",
					e.names(last.Items), last.ListMeta.Continue, last.ListMeta.ResourceVersion)
			}
			// limit < 0 is no limit.
			if res := e.list("", metav1.ListOptions{Limit: -1, FieldSelector: "spec.nodeName=node-1"}); len(res.Items) != 6 || res.ListMeta.Continue != "" {
				e.t.Errorf("limit -1: %d items, continue %q; want all 6, no token", len(res.Items), res.ListMeta.Continue)
			}
		}},
		{name: "2.6/selected-pages-are-full", test: func(e *env) {
			for _, o := range []metav1.ListOptions{
				{LabelSelector: "app=web", Limit: 3},
				{FieldSelector: "spec.nodeName=node-1", Limit: 4},
				{FieldSelector: "spec.nodeName!=node-1", LabelSelector: "tier", Limit: 2},
				{FieldSelector: "status.phase=Pending", Limit: 1},
			} {
				want := e.names(e.list("", metav1.ListOptions{LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector}).Items)
				pages := e.listAll("", o)
				if got := e.allNames(pages); !equal(got, want) {
					e.t.Errorf("%s: paged %v, want %v", describe(o), got, want)
				}
				e.checkPages(describe(o), "", pages, int(o.Limit))
			}
		}},
		{name: "2.7/remainingItemCount", test: func(e *env) {
			remaining := func(r *ListResult) string {
				if r.ListMeta.RemainingItemCount == nil {
					return "unset"
				}
				return strconv.FormatInt(*r.ListMeta.RemainingItemCount, 10)
			}
			var got []string
			for _, p := range e.listAll("", metav1.ListOptions{Limit: 5}) {
				got = append(got, remaining(p))
			}
			if want := []string{"19", "14", "9", "4", "unset"}; !equal(got, want) {
				e.t.Errorf("all namespaces limit 5: remainingItemCount %v, want %v", got, want)
			}
			if r := remaining(e.list("ns-1", metav1.ListOptions{Limit: 3})); r != "5" {
				e.t.Errorf("ns-1 limit 3: remainingItemCount %s, want 5 (only the namespace counts)", r)
			}
			for _, o := range []metav1.ListOptions{
				{LabelSelector: "app", Limit: 3},
				{FieldSelector: "spec.nodeName!=x", Limit: 3},
				{FieldSelector: "metadata.namespace=ns-1", Limit: 3},
			} {
				if r := e.list("", o); r.ListMeta.Continue == "" || remaining(r) != "unset" {
					e.t.Errorf("%s: continue %q remainingItemCount %s; want a token and no count (a selector is set)", describe(o), r.ListMeta.Continue, remaining(r))
				}
			}
			// The count is of the token's snapshot: deleting after page 1 does not change it.
			first := e.list("", metav1.ListOptions{Limit: 5})
			e.del("ns-2/pod-06", 110)
			e.del("ns-2/pod-07", 111)
			next := e.list("", metav1.ListOptions{Limit: 5, Continue: first.ListMeta.Continue})
			if r := remaining(next); r != "14" {
				e.t.Errorf("page 2 after deletes: remainingItemCount %s, want 14 (counted at the token's RV)", r)
			}
			if r := remaining(e.list("", metav1.ListOptions{Limit: 5})); r != "17" {
				e.t.Errorf("new list after deletes: remainingItemCount %s, want 17", r)
			}
		}},
		{name: "2.8/pages-read-the-snapshot", test: func(e *env) {
			first := e.list("ns-0", metav1.ListOptions{Limit: 4})
			p := e.pod("ns-0/pod-05")
			p.node = "node-9"
			e.put(p, 110)
			e.del("ns-0/pod-06", 111)
			e.put(newPod("ns-0", "pod-055", "node-0", nil), 112)
			e.bookmark(120)
			pages := append([]*ListResult{first}, e.listAll("ns-0", metav1.ListOptions{Limit: 4, Continue: first.ListMeta.Continue})...)
			if got := e.allNames(pages); !equal(got, keyRange("ns-0", 0, 1, 2, 3, 4, 5, 6, 7)) {
				e.t.Errorf("pages %v, want the snapshot at RV 100 (pod-06 still there, no pod-055)", got)
			}
			e.checkPages("ns-0 limit 4", "ns-0", pages, 4)
			for _, it := range pages[1].Items {
				if m := e.meta(it); m.Name == "pod-05" && (m.ResourceVersion != "15" || e.field(it, "spec.nodeName") != "node-2") {
					e.t.Errorf("pod-05 on page 2 at RV %s on %s, want its RV-100 version (15, node-2)", m.ResourceVersion, e.field(it, "spec.nodeName"))
				}
			}
		}},
		{name: "2.8/deleted-start-key", test: func(e *env) {
			first := e.list("ns-0", metav1.ListOptions{Limit: 3})
			// Delete the page's last item (the token's start is just after it) and the next item.
			e.del("ns-0/pod-02", 110)
			e.del("ns-0/pod-03", 111)
			next := e.list("ns-0", metav1.ListOptions{Limit: 3, Continue: first.ListMeta.Continue})
			if got := e.names(next.Items); !equal(got, keyRange("ns-0", 3, 4, 5)) || next.ListMeta.ResourceVersion != "100" {
				e.t.Errorf("continue after deleting the start key: %v at RV %q, want %v at 100 (the snapshot still has pod-03)",
					got, next.ListMeta.ResourceVersion, keyRange("ns-0", 3, 4, 5))
			}
			if len(next.Items) > 0 {
				if m := e.meta(next.Items[0]); m.ResourceVersion != "13" {
					e.t.Errorf("pod-03 at RV %s, want 13", m.ResourceVersion)
				}
			}
		}},
		{name: "2.9/continue-too-old", cfg: smallWindowCfg, test: func(e *env) {
			first := e.list("ns-0", metav1.ListOptions{Limit: 3})
			e.del("ns-0/pod-04", 101)
			e.put(newPod("ns-0", "pod-035", "node-0", nil), 102)
			e.churn(5 * smallWindow)
			s := e.listErr("ns-0", metav1.ListOptions{Limit: 3, Continue: first.ListMeta.Continue})
			e.wantStatus("continue beyond the window", s, http.StatusGone, metav1.StatusReasonExpired, msgContinueTooOld)
			if s.Continue == "" {
				e.t.Fatalf("410 without the rv -1 continue token (rule 2.9)")
			}
			tok, orig := e.token(s.Continue), e.token(first.ListMeta.Continue)
			if tok.RV != -1 || tok.Version != TokenVersion || tok.relStart() != orig.relStart() {
				e.t.Errorf("410 token %+v, want rv -1 and the start of %+v", tok, orig)
			}
			// The rv -1 token continues from the same key at the latest state.
			cur := rvString(e.rv)
			next := e.list("ns-0", metav1.ListOptions{Limit: 3, Continue: s.Continue})
			if got := e.names(next.Items); !equal(got, []string{"ns-0/pod-03", "ns-0/pod-035", "ns-0/pod-05"}) || next.ListMeta.ResourceVersion != cur {
				e.t.Errorf("rv -1 continue: %v at RV %q; want pod-03, pod-035, pod-05 (latest state) at %s", got, next.ListMeta.ResourceVersion, cur)
			}
			if next.ListMeta.Continue == "" {
				e.t.Fatalf("rv -1 continue: no token, want one (pod-06 and pod-07 follow)")
			}
			if t := e.token(next.ListMeta.Continue); strconv.FormatInt(t.RV, 10) != cur {
				e.t.Errorf("token after the rv -1 page carries rv %d, want the new list RV %s (rule 2.8)", t.RV, cur)
			}
			rest := e.listAll("ns-0", metav1.ListOptions{Limit: 3, Continue: next.ListMeta.Continue})
			if got := e.allNames(rest); !equal(got, keyRange("ns-0", 6, 7)) {
				e.t.Errorf("rest after the rv -1 page: %v, want pod-06, pod-07", got)
			}
		}},
	}
}
