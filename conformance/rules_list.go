package conformance

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	notOlderThan = metav1.ResourceVersionMatchNotOlderThan
	exact        = metav1.ResourceVersionMatchExact
)

// invalid is a 422 the suite expects: the field errors' full message and one cause per error.
type invalid struct {
	message string
	causes  []metav1.StatusCause
}

// wantInvalid checks a 422 Invalid on ListOptions.meta.k8s.io (rule 0, AM37 api/errors NewInvalid).
func (e *env) wantInvalid(what string, s metav1.Status, want invalid) {
	e.t.Helper()
	e.wantStatus(what, s, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, want.message)
	if s.Details == nil || s.Details.Group != "meta.k8s.io" || s.Details.Kind != "ListOptions" || s.Details.Name != "" {
		e.t.Errorf("%s: details %+v, want group meta.k8s.io kind ListOptions", what, s.Details)
		return
	}
	if len(s.Details.Causes) != len(want.causes) {
		e.t.Errorf("%s: causes %+v\nwant   %+v", what, s.Details.Causes, want.causes)
		return
	}
	for i, c := range s.Details.Causes {
		if c != want.causes[i] {
			e.t.Errorf("%s: cause %d = %+v, want %+v", what, i, c, want.causes[i])
		}
	}
}

func forbidden(path, detail string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseType(field.ErrorTypeForbidden), Message: "Forbidden: " + detail, Field: path}
}

func notSupported(path, value, supported string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseType(field.ErrorTypeNotSupported),
		Message: fmt.Sprintf("Unsupported value: %q: supported values: %s", value, supported), Field: path}
}

// one builds the 422 of a single field error.
func one(c metav1.StatusCause) invalid {
	return invalid{message: `ListOptions.meta.k8s.io "" is invalid: ` + c.Field + ": " + c.Message, causes: []metav1.StatusCause{c}}
}

func validationRules() []rule {
	return []rule{
		{name: "0.1-0.5/list-validation", test: func(e *env) {
			tok := e.list("", metav1.ListOptions{Limit: 3}).ListMeta.Continue
			both := []metav1.StatusCause{
				forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"),
				notSupported("resourceVersionMatch", "x", `"Exact", "NotOlderThan", ""`),
			}
			tests := []struct {
				name string
				o    metav1.ListOptions
				want invalid
			}{
				{"0.1 match without resourceVersion", metav1.ListOptions{ResourceVersionMatch: notOlderThan, Limit: 3},
					one(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))},
				{"0.2 match with continue", metav1.ListOptions{ResourceVersion: "5", ResourceVersionMatch: notOlderThan, Continue: tok},
					one(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))},
				{"0.3 unknown match", metav1.ListOptions{ResourceVersion: "5", ResourceVersionMatch: "Newest"},
					one(notSupported("resourceVersionMatch", "Newest", `"Exact", "NotOlderThan", ""`))},
				{"0.4 exact 0", metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: exact},
					one(forbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))},
				{"0.5 sendInitialEvents on a list", metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true)},
					one(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))},
				{"0.1+0.3 every error is reported", metav1.ListOptions{ResourceVersionMatch: "x"},
					invalid{message: `ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: ` + both[0].Message +
						`, resourceVersionMatch: ` + both[1].Message + `]`, causes: both}},
			}
			for _, tt := range tests {
				e.wantInvalid(tt.name, e.listErr("", tt.o), tt.want)
			}
		}},
		{name: "0.6/watch-validation", test: func(e *env) {
			tok := e.list("", metav1.ListOptions{Limit: 3}).ListMeta.Continue
			tests := []struct {
				name string
				o    metav1.ListOptions
				want invalid
			}{
				{"sendInitialEvents without NotOlderThan", metav1.ListOptions{ResourceVersion: "5", SendInitialEvents: ptr(true)},
					one(forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))},
				{"match without sendInitialEvents", metav1.ListOptions{ResourceVersion: "5", ResourceVersionMatch: notOlderThan},
					one(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))},
				{"match with continue", metav1.ListOptions{ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true), Continue: tok},
					one(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))},
				{"Exact on a watch", metav1.ListOptions{ResourceVersion: "5", ResourceVersionMatch: exact, SendInitialEvents: ptr(true)},
					invalid{
						message: `ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`,
						causes: []metav1.StatusCause{
							forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
							notSupported("resourceVersionMatch", "Exact", `"NotOlderThan"`),
						}}},
			}
			for _, tt := range tests {
				tt.o.Watch = true
				e.wantInvalid(tt.name, e.watchErr("", tt.o), tt.want)
			}
		}},
		{name: "0.1/validation-before-field-conversion", test: func(e *env) {
			// listOpts parses the selectors (400), validates the options (422), and only then
			// converts the field labels (400): an unsupported field does not hide a 422.
			want := one(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
			e.wantInvalid("list with spec.foo=bar", e.listErr("", metav1.ListOptions{FieldSelector: "spec.foo=bar", ResourceVersionMatch: notOlderThan}), want)
			want = one(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			e.wantInvalid("watch with spec.foo=bar", e.watchErr("", metav1.ListOptions{Watch: true, FieldSelector: "spec.foo=bar", ResourceVersion: "5", ResourceVersionMatch: notOlderThan}), want)
			// A selector that does not parse is the first error.
			s := e.listErr("", metav1.ListOptions{FieldSelector: "spec.nodeName", ResourceVersionMatch: notOlderThan})
			e.wantStatus("list with an unparseable selector", s, http.StatusBadRequest, metav1.StatusReasonBadRequest, "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'")
		}},
		{name: "0.8/unparseable-resource-version", test: func(e *env) {
			s := e.listErr("", metav1.ListOptions{ResourceVersion: "abc", Limit: 3})
			e.wantStatus("list resourceVersion=abc", s, http.StatusBadRequest, metav1.StatusReasonBadRequest,
				`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`)
		}},
	}
}

func rvRules() []rule {
	// history applies the events the RV subtests read around: at 110 pod-00 moves to node-9, at
	// 120 pod-01 is deleted, at 130 pod-10 is added, at 140 a bookmark.
	history := func(e *env) {
		p := e.pod("ns-0/pod-00")
		p.node = "node-9"
		e.put(p, 110)
		e.del("ns-0/pod-01", 120)
		e.put(newPod("ns-0", "pod-10", "node-1", map[string]string{"app": "web"}), 130)
		e.bookmark(140)
	}
	type read struct {
		name      string
		o         metav1.ListOptions
		wantRV    string
		wantCount int
		// wantPod00 is the RV pod-00 carries in the answer (rule 3.9: its last change).
		wantPod00 string
	}
	check := func(e *env, tests []read) {
		e.t.Helper()
		for _, tt := range tests {
			res := e.list("ns-0", tt.o)
			if res.ListMeta.ResourceVersion != tt.wantRV || len(res.Items) != tt.wantCount {
				e.t.Errorf("%s (%s): RV %q with %d items, want RV %q with %d", tt.name, describe(tt.o),
					res.ListMeta.ResourceVersion, len(res.Items), tt.wantRV, tt.wantCount)
				continue
			}
			if len(res.Items) > 0 {
				if m := e.meta(res.Items[0]); m.Name != "pod-00" || m.ResourceVersion != tt.wantPod00 {
					e.t.Errorf("%s: first item %s at RV %q, want pod-00 at %q (rule 3.9)", tt.name, m.Name, m.ResourceVersion, tt.wantPod00)
				}
			}
		}
	}
	return []rule{
		{name: "1.6/exact-answers-requested-rv", test: func(e *env) {
			history(e)
			check(e, []read{
				{"Exact at the re-list", metav1.ListOptions{ResourceVersion: "100", ResourceVersionMatch: exact}, "100", 8, "10"},
				{"Exact between events reads the state at or before it", metav1.ListOptions{ResourceVersion: "115", ResourceVersionMatch: exact}, "115", 8, "110"},
				{"Exact after a delete", metav1.ListOptions{ResourceVersion: "125", ResourceVersionMatch: exact}, "125", 7, "110"},
				{"Exact at a bookmark", metav1.ListOptions{ResourceVersion: "140", ResourceVersionMatch: exact}, "140", 8, "110"},
			})
		}},
		{name: "1.6/legacy-exact-with-limit", test: func(e *env) {
			history(e)
			check(e, []read{
				{"RV=N with a limit is Exact", metav1.ListOptions{ResourceVersion: "120", Limit: 100}, "120", 7, "110"},
				{"RV=N with a limit, before the first event", metav1.ListOptions{ResourceVersion: "105", Limit: 100}, "105", 8, "10"},
			})
		}},
		{name: "1.8/consistent-read", test: func(e *env) {
			history(e)
			check(e, []read{{"RV unset reads the latest state at the current RV, bookmarks included (3.1)", metav1.ListOptions{}, "140", 8, "110"}})
		}},
		{name: "1.9/any-and-not-older-than", test: func(e *env) {
			history(e)
			check(e, []read{
				{"RV=0 reads the latest state", metav1.ListOptions{ResourceVersion: "0"}, "140", 8, "110"},
				{"NotOlderThan an old RV answers with the current RV", metav1.ListOptions{ResourceVersion: "100", ResourceVersionMatch: notOlderThan}, "140", 8, "110"},
				{"NotOlderThan with a limit", metav1.ListOptions{ResourceVersion: "100", ResourceVersionMatch: notOlderThan, Limit: 100}, "140", 8, "110"},
				{"RV=N without a limit is NotOlderThan", metav1.ListOptions{ResourceVersion: "110"}, "140", 8, "110"},
				{"NotOlderThan 0", metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: notOlderThan}, "140", 8, "110"},
			})
		}},
		{name: "1.11/key-byte-order", test: func(e *env) {
			// Keys are /<namespace>/<name>: "a-b/" sorts before "a/" ('-' < '/'), so a cluster-wide
			// list is grouped by namespace in key byte order, not by name (rule 6.2).
			var pods []pod
			for _, k := range []string{"b/x", "a/y", "a-b/z", "a/x", "a-b/a", "a0/m"} {
				ns, name, _ := strings.Cut(k, "/")
				pods = append(pods, newPod(ns, name, "node-0", nil))
			}
			e.replace(pods, 200)
			want := []string{"a-b/a", "a-b/z", "a/x", "a/y", "a0/m", "b/x"}
			if got := e.names(e.list("", metav1.ListOptions{}).Items); !equal(got, want) {
				e.t.Errorf("order %v, want key byte order %v", got, want)
			}
			if got := e.allNames(e.listAll("", metav1.ListOptions{Limit: 1})); !equal(got, want) {
				e.t.Errorf("paged by 1: %v, want %v", got, want)
			}
		}},
		{name: "3.3/waits-for-future-rv", test: func(e *env) {
			type answer struct {
				res *ListResult
				err error
			}
			done := make(chan answer, 1)
			go func() {
				res, err := e.tg.List(e.ctx, "ns-0", metav1.ListOptions{ResourceVersion: "101", ResourceVersionMatch: notOlderThan})
				done <- answer{res, err}
			}()
			time.Sleep(e.cfg.WaitTimeout / 5)
			e.put(newPod("ns-0", "pod-99", "node-0", nil), 101)
			a := <-done
			if a.err != nil {
				e.t.Fatalf("list waiting for RV 101: %v", a.err)
			}
			if a.res.ListMeta.ResourceVersion != "101" || len(a.res.Items) != 9 {
				e.t.Errorf("list after the wait: RV %q, %d items; want 101 with 9", a.res.ListMeta.ResourceVersion, len(a.res.Items))
			}
		}},
		{name: "3.4/too-large-resource-version", cfg: shortWaitCfg, test: func(e *env) {
			for _, o := range []metav1.ListOptions{
				{ResourceVersion: "999999999"},
				{ResourceVersion: "999999999", Limit: 3},
				{ResourceVersion: "999999999", ResourceVersionMatch: exact, Limit: 3},
				{ResourceVersion: "999999999", ResourceVersionMatch: notOlderThan},
			} {
				e.wantTooLarge("list "+describe(o), e.listErr("", o), "999999999", "100")
			}
			_, err := e.tg.Get(e.ctx, "ns-0", "pod-00", "999999999")
			if err == nil {
				e.t.Fatalf("get at a future RV succeeded")
			}
			e.wantTooLarge("get", e.status(err), "999999999", "100")
		}},
		{name: "1.18/exact-too-old", cfg: smallWindowCfg, test: func(e *env) {
			e.churn(5 * smallWindow)
			for _, o := range []metav1.ListOptions{
				{ResourceVersion: "100", ResourceVersionMatch: exact},
				{ResourceVersion: "100", Limit: 3},
			} {
				s := e.listErr("", o)
				e.wantStatus("list "+describe(o), s, http.StatusGone, metav1.StatusReasonExpired, "The resourceVersion for the provided list is too old.")
				if s.Continue != "" {
					e.t.Errorf("list %s: 410 carries a continue token %q, want none", describe(o), s.Continue)
				}
			}
			// The newest RV is always servable exactly.
			if res := e.list("", metav1.ListOptions{ResourceVersion: rvString(e.rv), ResourceVersionMatch: exact}); len(res.Items) != 24 {
				e.t.Errorf("Exact at the current RV: %d items", len(res.Items))
			}
		}},
		{name: "6.7/get", test: func(e *env) {
			history(e)
			for _, rv := range []string{"", "0", "130"} {
				obj, err := e.tg.Get(e.ctx, "ns-0", "pod-00", rv)
				if err != nil {
					e.t.Errorf("get pod-00 at %q: %v", rv, err)
					continue
				}
				if m := e.meta(obj); m.Name != "pod-00" || m.ResourceVersion != "110" {
					e.t.Errorf("get pod-00 at %q: %s at RV %s, want pod-00 at 110", rv, m.Name, m.ResourceVersion)
				}
			}
			_, err := e.tg.Get(e.ctx, "ns-0", "pod-01", "")
			if err == nil {
				e.t.Fatalf("get of a deleted pod succeeded")
			}
			s := e.status(err)
			e.wantStatus("get of a deleted pod", s, http.StatusNotFound, metav1.StatusReasonNotFound, `pods "pod-01" not found`)
		}},
	}
}

// wantTooLarge checks the 504 of rule 3.4.
func (e *env) wantTooLarge(what string, s metav1.Status, asked, current string) {
	e.t.Helper()
	e.wantStatus(what, s, http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
		fmt.Sprintf("Timeout: Too large resource version: %s, current: %s", asked, current))
	if s.Details == nil || s.Details.RetryAfterSeconds != 1 || len(s.Details.Causes) != 1 ||
		s.Details.Causes[0] != (metav1.StatusCause{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}) {
		e.t.Errorf("%s: details %+v, want retryAfterSeconds 1 and one cause ResourceVersionTooLarge", what, s.Details)
	}
}

// watchErr starts a watch expecting it to be refused and returns the Status.
func (e *env) watchErr(ns string, o metav1.ListOptions) metav1.Status {
	e.t.Helper()
	s, err := e.tg.Watch(e.ctx, ns, o)
	if err == nil {
		s.Stop()
		e.t.Fatalf("Watch(%q, %s) accepted, want an error", ns, describe(o))
	}
	return e.status(err)
}
