package selection

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
)

// Rule 4.2: parsing — operators, escapes, no trimming, sorted terms, empty terms.
func TestParseFieldsRule42(t *testing.T) {
	s := NewSchema(true)
	s, _ = s.WithField("a", "a")
	s, _ = s.WithField("b", "b")
	s, _ = s.WithField(" a", "a")
	s, _ = s.WithField("a ", "a")
	type term struct {
		name  string
		op    Op
		value string
	}
	tests := []struct {
		sel  string
		want []term
	}{
		{"", nil},
		{",", nil},
		{"=", nil},  // empty field and value: dropped
		{"!=", nil}, // likewise
		{"a=1", []term{{"a", Equals, "1"}}},
		{"a==1", []term{{"a", Equals, "1"}}},
		{"a!=1", []term{{"a", NotEquals, "1"}}},
		{"a=", []term{{"a", Equals, ""}}},
		{"a==", []term{{"a", Equals, ""}}},
		{"a===", nil}, // `==` then the value "=": rejected, an unescaped '='
		{`a==\=`, []term{{"a", Equals, "="}}},
		{`a=x\,y`, []term{{"a", Equals, "x,y"}}},
		{`a=x\=y`, []term{{"a", Equals, "x=y"}}},
		{`a=x\\y`, []term{{"a", Equals, `x\y`}}},
		{`a=x\\`, []term{{"a", Equals, `x\`}}},
		{`a!=\,`, []term{{"a", NotEquals, ","}}},
		{" a=1", []term{{" a", Equals, "1"}}}, // no trimming of the field
		{"a =1", []term{{"a ", Equals, "1"}}},
		{"a= 1 ", []term{{"a", Equals, " 1 "}}},                     // nor of the value
		{"b=2,a=1", []term{{"a", Equals, "1"}, {"b", Equals, "2"}}}, // sorted by term text
		{"a=2,a=1", []term{{"a", Equals, "1"}, {"a", Equals, "2"}}},
		{"a=1,,b=2,", []term{{"a", Equals, "1"}, {"b", Equals, "2"}}}, // empty terms ignored
		{"a!=1,a=1", []term{{"a", NotEquals, "1"}, {"a", Equals, "1"}}},
		{"a=1!", []term{{"a", Equals, "1!"}}},
		{"a=!=1", nil}, // the first operator occurrence splits: value "!=1", rejected
		{"a!==1", nil}, // "!=" is tried first: value "=1", rejected
		{`a!=\=1`, []term{{"a", NotEquals, "=1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			ref, refErr := fields.ParseSelector(tt.sel)
			f, err := s.ParseFields(tt.sel)
			if refErr != nil {
				// The table assumed a valid selector; agree with apimachinery on rejecting it.
				if err == nil || err.Error() != refErr.Error() {
					t.Fatalf("apimachinery rejects (%v), ParseFields: %v", refErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []term
			for _, ft := range f.Terms() {
				got = append(got, term{ft.Name, ft.Op, ft.Value})
				if pos, _ := s.Field(ft.Name); pos != ft.Field {
					t.Errorf("term %v: position %d, want %d", ft, ft.Field, pos)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("terms = %v, want %v", got, tt.want)
			}
			if len(ref.Requirements()) != len(got) {
				t.Errorf("apimachinery has %d terms", len(ref.Requirements()))
			}
			if f.Empty() != (len(tt.want) == 0) {
				t.Errorf("Empty = %v", f.Empty())
			}
		})
	}
}

// Rule 4.2: the exact apiserver error strings.
func TestParseFieldsErrorsRule42(t *testing.T) {
	tests := []struct{ sel, msg string }{
		{"spec.nodeName", "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'"},
		{"spec.nodeName=a,status.phase", "invalid selector: 'spec.nodeName=a,status.phase'; can't understand 'status.phase'"},
		{"a,b", "invalid selector: 'a,b'; can't understand 'a'"}, // terms are sorted first
		{`spec.nodeName=a\x`, `invalid field selector: invalid escape sequence: \x`},
		{`spec.nodeName=a\`, `invalid field selector: invalid escape sequence: \`},
		{"spec.nodeName=a=b", "invalid field selector: unescaped character in value: 61"},
		{"spec.nodeName=a!=b", "invalid field selector: unescaped character in value: 61"},
		{"metadata.name=x,unknown", "invalid selector: 'metadata.name=x,unknown'; can't understand 'unknown'"}, // parse before conversion
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			_, err := PodSchema().ParseFields(tt.sel)
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("err = %v, want %q", err, tt.msg)
			}
			var se *SelectorError
			if !errors.As(err, &se) || se.Kind != "field" || se.Selector != tt.sel {
				t.Errorf("err = %#v", err)
			}
			if !errors.Is(err, ErrInvalidSelector) || errors.Is(err, ErrUnsupportedField) {
				t.Errorf("errors.Is wrong for %v", err)
			}
			if _, ref := fields.ParseSelector(tt.sel); ref == nil || ref.Error() != tt.msg {
				t.Errorf("apimachinery says %v", ref)
			}
		})
	}
}

// Rule 4.3: field-label conversion — alias, accepted sets, unsupported messages.
func TestParseFieldsRule43(t *testing.T) {
	withField, _ := NewSchema(true).WithField("spec.replicas", "spec.replicas")
	crdWithField, _ := CustomResourceSchema(false).WithField("spec.color", "spec.color")
	tests := []struct {
		name   string
		schema *Schema
		sel    string
		err    string // "" = accepted
	}{
		{"pods: spec.host is spec.nodeName", PodSchema(), "spec.host=n1", ""},
		{"pods: status.podIPs accepted", PodSchema(), "status.podIPs=10.0.0.1", ""},
		{"pods: every listed field", PodSchema(), "metadata.name=a,metadata.namespace=b,spec.nodeName=c,spec.restartPolicy=d," +
			"spec.schedulerName=e,spec.serviceAccountName=f,spec.hostNetwork=g,status.phase=h,status.podIP=i,status.podIPs=j," +
			"status.nominatedNodeName=k", ""},
		{"pods: unknown", PodSchema(), "spec.containers=x", "field label not supported: spec.containers"},
		{"pods: first unknown in sorted order", PodSchema(), "zzz=1,spec.bad=2", "field label not supported: spec.bad"},
		{"pods: names are case-sensitive", PodSchema(), "spec.NodeName=x", "field label not supported: spec.NodeName"},
		{"pods: no trimming", PodSchema(), " spec.nodeName=x", "field label not supported:  spec.nodeName"},
		{"pods: empty field", PodSchema(), "=x", "field label not supported: "},
		{"nodes: spec.unschedulable", NodeSchema(), "spec.unschedulable=true", ""},
		{"nodes: no namespace", NodeSchema(), "metadata.namespace=x", "field label not supported: metadata.namespace"},
		{"nodes: unknown", NodeSchema(), "spec.podCIDR=x", "field label not supported: spec.podCIDR"},
		{"generic: name and namespace", NewSchema(true), "metadata.name=a,metadata.namespace=b", ""},
		{"generic: unknown", NewSchema(true), "spec.x=1",
			`"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"generic: unknown is %q-quoted", NewSchema(true), `a"b=1`,
			`"a\"b" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"generic cluster-scoped: namespace accepted", NewSchema(false), "metadata.namespace=x", ""},
		{"generic cluster-scoped: unknown, same fixed message", NewSchema(false), "status.phase=x",
			`"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"generic with a registered field", withField, "spec.replicas=3", ""},
		{"generic with a registered field: unknown", withField, "spec.paused=true", "field label not supported: spec.paused"},
		{"custom resource: unknown", CustomResourceSchema(true), "spec.x=1", "field label not supported: spec.x"},
		{"custom resource cluster-scoped: no namespace", CustomResourceSchema(false), "metadata.namespace=", "field label not supported: metadata.namespace"},
		{"custom resource with selectable field", crdWithField, "spec.color=red", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.schema.ParseFields(tt.sel)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if f.Empty() {
					t.Error("empty selector")
				}
				return
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			var ue *UnsupportedFieldError
			if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupportedField) || errors.Is(err, ErrInvalidSelector) {
				t.Errorf("err = %#v", err)
			}
			for _, k := range ue.Known {
				if _, ok := tt.schema.Field(k); !ok {
					t.Errorf("Known lists %q", k)
				}
			}
		})
	}
	// The alias is rewritten: the term names spec.nodeName.
	f, _ := PodSchema().ParseFields("spec.host=n1")
	if got := f.Terms(); len(got) != 1 || got[0].Name != "spec.nodeName" || got[0].Field != 2 {
		t.Errorf("terms %v", got)
	}
	if f.String() != "spec.nodeName=n1" {
		t.Errorf("String = %q", f.String())
	}
	if v, ok := f.Requires("spec.nodeName"); !ok || v != "n1" {
		t.Errorf("Requires = %q %v", v, ok)
	}
}

// Rules 4.2, 4.4: matching on extracted pods — a missing field is "", the podIPs quirk.
func TestFieldMatchesPods(t *testing.T) {
	s := PodSchema()
	extract := func(raw string) []string {
		o, err := s.Extract([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return o.Fields
	}
	scheduled := extract(`{"metadata":{"name":"a","namespace":"ns"},"spec":{"nodeName":"n1","hostNetwork":true},"status":{"phase":"Running","podIPs":[{"ip":"10.0.0.1"}]}}`)
	unscheduled := extract(`{"metadata":{"name":"b","namespace":"ns"},"spec":{},"status":{"phase":"Pending"}}`)
	tests := []struct {
		sel                    string
		scheduled, unscheduled bool
	}{
		{"", true, true},
		{"spec.nodeName=", false, true}, // rule 4.2: a missing field behaves as ""
		{"spec.nodeName!=", true, false},
		{"spec.nodeName=n1", true, false},
		{"spec.host=n1", true, false}, // rule 4.3 alias
		{"spec.nodeName==n1", true, false},
		{"spec.nodeName!=n1", false, true},
		{"spec.hostNetwork=true", true, false}, // rule 4.4 bool conversion
		{"spec.hostNetwork=false", false, true},
		{"spec.hostNetwork=", false, false}, // never "", a missing bool is "false"
		{"status.podIP=10.0.0.1", true, false},
		{"status.podIP=", false, true},
		{"status.podIPs=10.0.0.1", false, false}, // rule 4.4: absent from the field set
		{"status.podIPs!=10.0.0.1", true, true},
		{"status.podIPs=", true, true},
		{"metadata.namespace=ns,status.phase!=Running", false, true},
		{"metadata.name=a,metadata.name=b", false, false},
		{"status.nominatedNodeName=", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			f, err := s.ParseFields(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Matches(scheduled); got != tt.scheduled {
				t.Errorf("scheduled: Matches = %v", got)
			}
			if got := f.Matches(unscheduled); got != tt.unscheduled {
				t.Errorf("unscheduled: Matches = %v", got)
			}
		})
	}
}

// Rule 4.2/4.7: RequiresExactMatch semantics — any `=` term qualifies, `!=` never does.
func TestFieldExact(t *testing.T) {
	s := PodSchema()
	f, err := s.ParseFields("spec.nodeName!=a,status.phase=Running,spec.nodeName==b,metadata.namespace=ns,spec.host=c")
	if err != nil {
		t.Fatal(err)
	}
	// The apiserver sorts the terms as written, then converts spec.host: the alias keeps its place.
	ref, _ := fields.ParseSelector("spec.nodeName!=a,status.phase=Running,spec.nodeName==b,metadata.namespace=ns,spec.host=c")
	ref, _ = ref.Transform(func(f, v string) (string, string, error) {
		if f == "spec.host" {
			f = "spec.nodeName"
		}
		return f, v, nil
	})
	for _, name := range []string{"spec.nodeName", "status.phase", "metadata.namespace", "metadata.name"} {
		v, ok := f.Requires(name)
		rv, rok := ref.RequiresExactMatch(name)
		if v != rv || ok != rok {
			t.Errorf("Requires(%q) = %q %v; apimachinery %q %v", name, v, ok, rv, rok)
		}
	}
	var exact []string
	for t := range f.ExactTerms() {
		if t.Op != Equals {
			panic("non-exact term")
		}
		exact = append(exact, t.Name+"="+t.Value)
	}
	want := []string{"metadata.namespace=ns", "spec.nodeName=c", "spec.nodeName=b", "status.phase=Running"}
	if !reflect.DeepEqual(exact, want) {
		t.Errorf("Exact = %q, want %q", exact, want)
	}
	if f.Width() != 8 {
		t.Errorf("Width = %d", f.Width())
	}
	if got := f.String(); got != "metadata.namespace=ns,spec.nodeName=c,spec.nodeName!=a,spec.nodeName=b,status.phase=Running" || got != ref.String() {
		t.Errorf("String = %q, apimachinery %q", got, ref.String())
	}
	var zero FieldSelector
	if !zero.Empty() || !zero.Matches(nil) || slices.Collect(zero.ExactTerms()) != nil || zero.String() != "" || zero.Width() != 0 {
		t.Error("zero FieldSelector is not Everything")
	}
}

func TestFieldStringEscapes(t *testing.T) {
	f, err := PodSchema().ParseFields(`spec.nodeName=a\,b\=c\\d`)
	if err != nil {
		t.Fatal(err)
	}
	if f.String() != `spec.nodeName=a\,b\=c\\d` {
		t.Errorf("String = %q", f.String())
	}
	if again, err := PodSchema().ParseFields(f.String()); err != nil || !reflect.DeepEqual(again, f) {
		t.Errorf("String does not round-trip: %v %v", again, err)
	}
	if f.AsSelector().String() != f.String() {
		t.Errorf("AsSelector().String() = %q", f.AsSelector().String())
	}
}

// A selector compiled under a newer schema reads positions an older record lacks as "".
func TestFieldMatchesShortValues(t *testing.T) {
	s, _ := PodSchema().WithField("x", "spec.x")
	f, _ := s.ParseFields("x=,spec.nodeName=n")
	if f.Width() != s.NumFields() {
		t.Errorf("Width = %d", f.Width())
	}
	old := make([]string, PodSchema().NumFields())
	old[2] = "n"
	if !f.Matches(old) {
		t.Error("short values: want the missing position read as \"\"")
	}
}

// Differential (rules 4.2–4.4): on random selectors over the pod fields and random field values,
// FieldSelector.Matches equals the converted fields.Selector's Matches on a fields.Set holding
// the same values (absent fields left out of the set, as ToSelectableFields leaves them out).
func TestFieldSelectorDifferential(t *testing.T) {
	s := PodSchema()
	r := rand.New(rand.NewPCG(42, 42))
	names := append(s.names2(), "spec.host")
	vals := []string{"", "a", "node-1", "a,b", "x=y", `\`, "Running", "true", " a"}
	ops := []string{"=", "==", "!="}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	matched, checked := 0, 0
	for range 3000 {
		terms := make([]string, 1+r.IntN(3))
		for i := range terms {
			terms[i] = pick(names) + pick(ops) + fields.EscapeValue(pick(vals))
		}
		sel := strings.Join(terms, ",")
		f, err := s.ParseFields(sel)
		if err != nil {
			t.Fatalf("ParseFields(%q): %v", sel, err)
		}
		ref, err := fields.ParseSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		ref, err = ref.Transform(func(f, v string) (string, string, error) {
			if f == "spec.host" {
				return "spec.nodeName", v, nil
			}
			return f, v, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if f.AsSelector().String() != ref.String() {
			t.Fatalf("%q: AsSelector %q, apimachinery %q", sel, f.AsSelector(), ref)
		}
		for range 10 {
			values := make([]string, s.NumFields())
			set := fields.Set{}
			for i := range values {
				if s.fields[i].kind == kindAbsent {
					continue // Extract never fills it; the apiserver's set does not have it
				}
				values[i] = pick(vals)
				set[s.FieldName(i)] = values[i]
			}
			want := ref.Matches(set)
			if got := f.Matches(values); got != want {
				t.Fatalf("%q on %v: Matches = %v, apimachinery %v", sel, set, got, want)
			}
			checked++
			if want {
				matched++
			}
		}
	}
	if matched == 0 || matched == checked {
		t.Errorf("degenerate generator: %d of %d matched", matched, checked)
	}
}

// Matching does not allocate (performance target).
func TestFieldMatchesAllocs(t *testing.T) {
	s := PodSchema()
	f, _ := s.ParseFields("spec.nodeName=node-0042,status.phase!=Failed,metadata.namespace=team-a")
	o, _ := s.Extract(pod4K)
	if n := testing.AllocsPerRun(100, func() { f.Matches(o.Fields) }); n != 0 {
		t.Errorf("Matches allocates %v times", n)
	}
	p := Predicate{Field: f}
	p.Label, _ = ParseLabels("app=web,tier in (frontend,backend)")
	if !p.MatchesObject(&o) || p.Empty() {
		t.Error("predicate does not match the fixture")
	}
	if n := testing.AllocsPerRun(100, func() { p.Matches(o.Labels, o.Fields) }); n != 0 {
		t.Errorf("Predicate.Matches allocates %v times", n)
	}
}

// TestFieldExactTermsAndMatchesExcept: ExactTerms yields the `=` terms in order; MatchesExcept skips
// exactly the term ExactIndex names (an index range guarantees it), and nothing else.
func TestFieldExactTermsAndMatchesExcept(t *testing.T) {
	s := PodSchema()
	f, err := s.ParseFields("spec.nodeName=n1,status.phase=Running,metadata.namespace!=kube-system")
	if err != nil {
		t.Fatal(err)
	}
	var viaIter []FieldTerm
	for term := range f.ExactTerms() {
		viaIter = append(viaIter, term)
	}
	var want []FieldTerm
	for _, term := range f.Terms() {
		if term.Op == Equals {
			want = append(want, term)
		}
	}
	if len(want) != 2 || !reflect.DeepEqual(viaIter, want) {
		t.Fatalf("ExactTerms %v, the = terms %v", viaIter, want)
	}
	values := func(node, phase, ns string) []string {
		v := make([]string, s.NumFields())
		for name, val := range map[string]string{"spec.nodeName": node, "status.phase": phase, "metadata.namespace": ns} {
			pos, _ := s.Field(name)
			v[pos] = val
		}
		return v
	}
	node := f.ExactIndex("spec.nodeName", "n1")
	if node < 0 || f.ExactIndex("spec.nodeName", "n2") != -1 || f.ExactIndex("metadata.namespace", "kube-system") != -1 {
		t.Fatalf("ExactIndex: %d", node)
	}
	for _, tc := range []struct {
		v               []string
		all, exceptNode bool
	}{
		{values("n1", "Running", "default"), true, true},
		{values("n2", "Running", "default"), false, true}, // only the skipped term fails
		{values("n1", "Pending", "default"), false, false},
		{values("n1", "Running", "kube-system"), false, false},
	} {
		if got := f.Matches(tc.v); got != tc.all {
			t.Errorf("Matches(%v) = %v", tc.v, got)
		}
		if got := f.MatchesExcept(tc.v, node); got != tc.exceptNode {
			t.Errorf("MatchesExcept(%v, nodeName) = %v", tc.v, got)
		}
		if got := f.MatchesExcept(tc.v, -1); got != tc.all {
			t.Errorf("MatchesExcept(%v, -1) = %v", tc.v, got)
		}
	}
}
