package conformance

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// selectCase is a selector and the pods of ns-0 it selects (by number; see fixturePods).
type selectCase struct {
	label, field string
	want         []int
}

// checkSelected lists ns-0 with each case's selectors, unpaged and paged by 1 and 3, and
// compares with the expected pods.
func (e *env) checkSelected(cases []selectCase) {
	e.t.Helper()
	for _, c := range cases {
		want := keyRange("ns-0", c.want...)
		o := metav1.ListOptions{LabelSelector: c.label, FieldSelector: c.field}
		if got := e.names(e.list("ns-0", o).Items); !equal(got, want) {
			e.t.Errorf("%s: %v, want %v", describe(o), got, want)
			continue
		}
		for _, limit := range []int64{1, 3} {
			o.Limit = limit
			if got := e.allNames(e.listAll("ns-0", o)); !equal(got, want) {
				e.t.Errorf("%s paged: %v, want %v", describe(o), got, want)
			}
		}
	}
}

// wantBadSelector checks the 400 of a selector that does not parse or convert.
func (e *env) wantBadSelector(ns string, o metav1.ListOptions, message string) {
	e.t.Helper()
	e.wantStatus("list "+describe(o), e.listErr(ns, o), http.StatusBadRequest, metav1.StatusReasonBadRequest, message)
	o.Watch = true
	e.wantStatus("watch "+describe(o), e.watchErr(ns, o), http.StatusBadRequest, metav1.StatusReasonBadRequest, message)
}

func selectionRules() []rule {
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	return []rule{
		{name: "4.1/label-operators", test: func(e *env) {
			e.checkSelected([]selectCase{
				{"", "", all},
				{"app=web", "", []int{0, 2, 4, 6}},
				{"app==web", "", []int{0, 2, 4, 6}},
				{"app in (web,db)", "", []int{0, 1, 2, 3, 4, 6, 7}},
				{"app in (db)", "", []int{1, 3, 7}},
				{"app", "", []int{0, 1, 2, 3, 4, 6, 7}},
				{"!app", "", []int{5}},
				{"tier=frontend,app=db", "", []int{1, 3}},
				{"rank>5", "", []int{6, 7}},
				{"rank<2", "", []int{0, 1}},
				{"tier>1", "", nil},
				{"app=", "", nil},
				{"app==", "", nil},
			})
		}},
		{name: "4.1/not-equal-matches-missing-label", test: func(e *env) {
			e.checkSelected([]selectCase{
				{"app!=web", "", []int{1, 3, 5, 7}},
				{"app notin (web)", "", []int{1, 3, 5, 7}},
				{"tier!=frontend", "", []int{4, 5, 6, 7}},
				{"tier notin (frontend),app=web", "", []int{4, 6}},
			})
		}},
		{name: "4.1/label-parse-errors", test: func(e *env) {
			for _, sel := range []string{"app=(", "app in (", "=x", "a b", "!"} {
				_, err := labels.Parse(sel)
				if err == nil {
					e.t.Fatalf("suite bug: %q parses", sel)
				}
				e.wantBadSelector("", metav1.ListOptions{LabelSelector: sel}, err.Error())
			}
		}},
		{name: "4.2/field-operators", test: func(e *env) {
			e.checkSelected([]selectCase{
				{"", "spec.nodeName=node-1", []int{1, 4}},
				{"", "spec.nodeName==node-1", []int{1, 4}},
				{"", "spec.nodeName!=node-1", []int{0, 2, 3, 5, 6, 7}},
				{"", "spec.nodeName=", []int{7}},
				{"", "spec.nodeName!=,status.phase=Running", []int{0, 1, 2, 4, 5, 6}},
				{"", "status.phase=Pending", []int{3, 7}},
				{"", "metadata.name=pod-04", []int{4}},
				{"", "metadata.name!=pod-04,spec.nodeName=node-1", []int{1}},
				{"", "spec.nodeName=node-1,spec.nodeName=node-2", nil},
				{"", ",spec.nodeName=node-0,", []int{0, 3, 6}},
				{"app=web", "spec.nodeName=node-0", []int{0, 6}},
			})
		}},
		{name: "4.2/field-parse-errors", test: func(e *env) {
			for _, sel := range []string{"spec.nodeName", `spec.nodeName=a\x`, "spec.nodeName=a=b", "spec.nodeName=x,status.phase"} {
				_, err := fields.ParseSelector(sel)
				if err == nil {
					e.t.Fatalf("suite bug: %q parses", sel)
				}
				e.wantBadSelector("", metav1.ListOptions{FieldSelector: sel}, err.Error())
			}
			// The observed message of a real apiserver, verbatim.
			e.wantBadSelector("", metav1.ListOptions{FieldSelector: "spec.nodeName", Limit: 3}, "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'")
			// Whitespace is not trimmed: the field is "spec.nodeName " (rule 4.2).
			e.wantBadSelector("", metav1.ListOptions{FieldSelector: "spec.nodeName = node-1"}, "field label not supported: spec.nodeName ")
		}},
		{name: "4.3/unsupported-field", test: func(e *env) {
			e.wantBadSelector("", metav1.ListOptions{FieldSelector: "spec.foo=bar"}, "field label not supported: spec.foo")
			e.wantBadSelector("ns-0", metav1.ListOptions{FieldSelector: "spec.foo=bar", Limit: 3}, "field label not supported: spec.foo")
			e.wantBadSelector("", metav1.ListOptions{FieldSelector: "metadata.labels=x"}, "field label not supported: metadata.labels")
		}},
		{name: "4.3/spec-host-alias", test: func(e *env) {
			e.checkSelected([]selectCase{
				{"", "spec.host=node-1", []int{1, 4}},
				{"", "spec.host!=node-1", []int{0, 2, 3, 5, 6, 7}},
				{"", "spec.host=node-0,spec.nodeName=node-0", []int{0, 3, 6}},
			})
		}},
		{name: "4.4/pod-selectable-fields", test: func(e *env) {
			e.checkSelected([]selectCase{
				{"", "spec.hostNetwork=true", []int{2}},
				{"", "spec.hostNetwork=false", []int{0, 1, 3, 4, 5, 6, 7}},
				{"", "spec.restartPolicy=Never", []int{3}},
				{"", "spec.schedulerName=custom", []int{2}},
				{"", "spec.serviceAccountName=builder", []int{4}},
				{"", "status.nominatedNodeName=node-2", []int{6}},
				{"", "status.podIP=10.0.0.1", []int{1}},
				{"", "status.podIP=10.0.0.6", []int{6}}, // the first of status.podIPs
				{"", "status.podIP=", []int{7}},
				{"", "metadata.namespace=ns-0", all},
				{"", "metadata.namespace!=ns-0", nil},
			})
		}},
		{name: "4.4/status-podIPs-is-never-set", test: func(e *env) {
			e.checkSelected([]selectCase{
				{"", "status.podIPs=10.0.0.1", nil},
				{"", "status.podIPs!=10.0.0.1", all},
				{"", "status.podIPs=", all},
			})
		}},
		{name: "4.6/namespace-narrowing", test: func(e *env) {
			want := keyRange("ns-1", 0, 1, 2, 3, 4, 5, 6, 7)
			o := metav1.ListOptions{FieldSelector: "metadata.namespace=ns-1"}
			if got := e.names(e.list("", o).Items); !equal(got, want) {
				e.t.Errorf("%s: %v, want %v", describe(o), got, want)
			}
			for _, limit := range []int64{1, 3, 8} {
				o.Limit = limit
				pages := e.listAll("", o)
				if got := e.allNames(pages); !equal(got, want) {
					e.t.Errorf("%s paged: %v, want %v (the narrowed scope and the token must agree)", describe(o), got, want)
				}
				e.checkPages(describe(o), anyRoot, pages, int(limit))
			}
			o = metav1.ListOptions{FieldSelector: "metadata.namespace=ns-1,spec.nodeName!=node-0", LabelSelector: "app=web", Limit: 1}
			if got := e.allNames(e.listAll("", o)); !equal(got, keyRange("ns-1", 2, 4)) {
				e.t.Errorf("%s: %v, want %v", describe(o), got, keyRange("ns-1", 2, 4))
			}
			if got := e.names(e.list("ns-0", metav1.ListOptions{FieldSelector: "metadata.namespace=ns-1"}).Items); len(got) != 0 {
				e.t.Errorf("namespace ns-0 with metadata.namespace=ns-1: %v, want none", got)
			}
		}},
		{name: "4.6/metadata-name", test: func(e *env) {
			want := []string{"ns-0/pod-04", "ns-1/pod-04", "ns-2/pod-04"}
			for _, limit := range []int64{0, 1, 2} {
				o := metav1.ListOptions{FieldSelector: "metadata.name=pod-04", Limit: limit}
				if got := e.allNames(e.listAll("", o)); !equal(got, want) {
					e.t.Errorf("%s: %v, want %v", describe(o), got, want)
				}
			}
			if got := e.names(e.list("ns-1", metav1.ListOptions{FieldSelector: "metadata.name=pod-04"}).Items); !equal(got, want[1:2]) {
				e.t.Errorf("ns-1 metadata.name=pod-04: %v, want %v", got, want[1:2])
			}
			if got := e.names(e.list("ns-1", metav1.ListOptions{FieldSelector: "metadata.name=pod-99"}).Items); len(got) != 0 {
				e.t.Errorf("ns-1 metadata.name=pod-99: %v, want none", got)
			}
		}},
		{name: "4.9/selectors-on-snapshots", test: func(e *env) {
			// Selectors see each snapshot's own values: pod-01 leaves node-1 and pod-00 joins it.
			p := e.pod("ns-0/pod-01")
			p.node = "node-2"
			e.put(p, 110)
			p = e.pod("ns-0/pod-00")
			p.node, p.labels["app"] = "node-1", "db"
			e.put(p, 111)
			for _, tt := range []struct {
				rv           string
				field, label string
				want         []int
			}{
				{"100", "spec.nodeName=node-1", "", []int{1, 4}},
				{"110", "spec.nodeName=node-1", "", []int{4}},
				{"111", "spec.nodeName=node-1", "", []int{0, 4}},
				{"100", "", "app=db", []int{1, 3, 7}},
				{"111", "", "app=db", []int{0, 1, 3, 7}},
				{"100", "spec.nodeName=node-1", "app=db", []int{1}},
			} {
				o := metav1.ListOptions{FieldSelector: tt.field, LabelSelector: tt.label, ResourceVersion: tt.rv, ResourceVersionMatch: exact}
				if got := e.names(e.list("ns-0", o).Items); !equal(got, keyRange("ns-0", tt.want...)) {
					e.t.Errorf("%s: %v, want %v", describe(o), got, keyRange("ns-0", tt.want...))
				}
			}
		}},
	}
}
