package selection

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	kselection "k8s.io/apimachinery/pkg/selection"
)

// Rule 4.1: every operator, on present and absent keys.
func TestLabelSelectorRule41(t *testing.T) {
	set := NewLabels(map[string]string{"app": "web", "tier": "", "n": "10", "neg": "-3", "s": "x1"})
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"app=web", true},
		{"app==web", true},
		{"app=db", false},
		{"missing=web", false}, // `=` false on an absent key
		{"tier=", true},        // empty value
		{"missing=", false},
		{"app!=db", true},
		{"app!=web", false},
		{"missing!=web", true}, // `!=` true on an absent key
		{"app in (web,db)", true},
		{"app in (db)", false},
		{"missing in (web)", false},
		{"tier in (,a)", true},
		{"app notin (db)", true},
		{"app notin (web,db)", false},
		{"missing notin (web)", true}, // notin true on an absent key
		{"app", true},                 // exists
		{"missing", false},
		{"tier", true}, // exists with an empty value
		{"!missing", true},
		{"!app", false},
		{"n>9", true},
		{"n>10", false},
		{"n<11", true},
		{"n<10", false},
		{"neg<0", true},
		{"neg>0", false},
		{"missing>0", false},   // gt false on an absent key
		{"missing<100", false}, // lt false on an absent key
		{"s>0", false},         // non-integer value
		{"s<100", false},
		{"tier<1", false}, // "" is not an integer
		{"app=web,n>5", true},
		{"app=web,n>50", false},
		{"app=web,!missing,tier in (),n<100", true},
		{"app in (web),app notin (db)", true},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			l, err := ParseLabels(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Matches(set); got != tt.want {
				t.Errorf("Matches = %v, want %v", got, tt.want)
			}
			if ref := l.Selector.Matches(set.Set()); ref != tt.want {
				t.Errorf("labels.Selector.Matches = %v (test table disagrees with apimachinery)", ref)
			}
			if l.Empty() != (tt.sel == "") {
				t.Errorf("Empty = %v", l.Empty())
			}
		})
	}
}

// Rule 4.1: RequiresExactMatch semantics for Exact: `=`, `==`, `in` with exactly one value.
func TestLabelExact(t *testing.T) {
	tests := []struct {
		sel  string
		want []LabelExact
	}{
		{"", nil},
		{"a=1", []LabelExact{{"a", "1"}}},
		{"a==1", []LabelExact{{"a", "1"}}},
		{"a in (1)", []LabelExact{{"a", "1"}}},
		{"a in (1,2)", nil},
		{"a!=1", nil},
		{"a notin (1)", nil},
		{"a", nil},
		{"!a", nil},
		{"a>1", nil},
		{"b=2,a=1,c in (3),d!=4", []LabelExact{{"a", "1"}, {"b", "2"}, {"c", "3"}}}, // key order
		{"a=", []LabelExact{{"a", ""}}},
	}
	for _, tt := range tests {
		l, err := ParseLabels(tt.sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Collect(l.ExactTerms()); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: ExactTerms = %v, want %v", tt.sel, got, tt.want)
		}
		for _, e := range tt.want {
			v, ok := l.RequiresExactMatch(e.Key)
			if ref, refOK := l.Selector.RequiresExactMatch(e.Key); v != ref || ok != refOK {
				t.Errorf("%q: RequiresExactMatch(%q) = %q %v, apimachinery %q %v", tt.sel, e.Key, v, ok, ref, refOK)
			}
		}
	}
}

// Rule 4.1: parse errors carry labels.Parse's message and match ErrInvalidSelector.
func TestParseLabelsErrors(t *testing.T) {
	for _, sel := range []string{"a=b=c", "a in b", "a in (b", "!", "a,", "=a", "a>b", "a b", "a=" + strings.Repeat("x", 64), "a notin ()x", "-a=b"} {
		t.Run(sel, func(t *testing.T) {
			_, want := labels.Parse(sel)
			if want == nil {
				t.Fatalf("labels.Parse accepts %q", sel)
			}
			_, err := ParseLabels(sel)
			var se *SelectorError
			if !errors.As(err, &se) || se.Kind != "label" || se.Selector != sel {
				t.Fatalf("err = %#v", err)
			}
			if err.Error() != want.Error() {
				t.Errorf("message %q, want %q", err, want)
			}
			if !errors.Is(err, ErrInvalidSelector) || errors.Is(err, ErrUnsupportedField) {
				t.Errorf("errors.Is wrong for %v", err)
			}
		})
	}
}

func TestLabelSelectorString(t *testing.T) {
	l, err := ParseLabels("b in (2,1), a=1,!c")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != "!c,a=1,b in (1,2)" && got != "a=1,b in (1,2),!c" {
		t.Errorf("String = %q", got)
	}
	if got, want := l.String(), l.Selector.String(); got != want {
		t.Errorf("String = %q, apimachinery %q", got, want)
	}
	var zero LabelSelector
	if !zero.Empty() || !zero.Matches(nil) || zero.String() != "" || slices.Collect(zero.ExactTerms()) != nil {
		t.Error("zero LabelSelector is not Everything")
	}
}

// NewLabelSelector agrees with apimachinery on selectors that labels.Parse never produces.
func TestNewLabelSelector(t *testing.T) {
	badGt, _ := labels.NewRequirement("n", kselection.GreaterThan, []string{"x"}) // error ignored
	twoGt, _ := labels.NewRequirement("n", kselection.GreaterThan, []string{"1", "2"})
	in, _ := labels.NewRequirement("a", kselection.In, []string{"1", "2"})
	sels := []labels.Selector{
		nil, labels.Everything(), labels.Nothing(),
		labels.NewSelector().Add(*badGt), labels.NewSelector().Add(*twoGt), labels.NewSelector().Add(*in),
		labels.SelectorFromSet(labels.Set{"a": "1"}), labels.SelectorFromValidatedSet(labels.Set{"a": "1", "n": "5"}),
	}
	sets := []labels.Set{nil, {"a": "1"}, {"a": "2", "n": "5"}, {"n": "x"}, {"a": "1", "n": "5"}}
	for i, sel := range sels {
		l := NewLabelSelector(sel)
		for _, set := range sets {
			want := sel == nil || sel.Matches(set)
			if got := l.Matches(NewLabels(set)); got != want {
				t.Errorf("selector %d (%v) on %v: Matches = %v, want %v", i, sel, set, got, want)
			}
		}
	}
}

func TestLabelsLookup(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 32, 33, 70} {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("k%03d", i*2)] = strconv.Itoa(i)
		}
		ls := NewLabels(m)
		for i := -1; i <= 2*n; i++ {
			k := fmt.Sprintf("k%03d", i)
			v, ok := ls.Lookup(k)
			wv, wok := m[k]
			if v != wv || ok != wok || ls.Has(k) != wok || ls.Get(k) != wv {
				t.Errorf("n=%d Lookup(%q) = %q %v, want %q %v", n, k, v, ok, wv, wok)
			}
		}
		if !reflect.DeepEqual(ls.Set(), labels.Set(m)) && n > 0 {
			t.Errorf("Set() = %v", ls.Set())
		}
		if ls.String() != labels.Set(m).String() {
			t.Errorf("String() = %q, want %q", ls.String(), labels.Set(m).String())
		}
	}
	// String sorts "k=v" texts as labels.Set does, which is not key order.
	ls := NewLabels(map[string]string{"a": "x", "a.b": "y"})
	if ls.String() != "a.b=y,a=x" {
		t.Errorf("String() = %q", ls.String())
	}
}

func TestParseInt64(t *testing.T) {
	inputs := []string{
		"", "0", "-0", "+0", "1", "-1", "+1", "-", "+", "01", "1_000", "0x10", " 1", "1 ", "1.0", "1e3",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "922337203685477580", "9223372036854775799",
		"٣", "--1", "+-1",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		inputs = append(inputs, strconv.FormatInt(int64(r.Uint64()), 10), strconv.FormatUint(r.Uint64(), 10))
	}
	for _, s := range inputs {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseInt64(s)
		if ok != (err == nil) || (ok && got != want) {
			t.Errorf("parseInt64(%q) = %d %v; strconv %d %v", s, got, ok, want, err)
		}
	}
}

// Differential (rule 4.1): on random label sets and random selectors, LabelSelector.Matches on
// Labels equals labels.Selector.Matches on labels.Set.
func TestLabelSelectorDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	keys := []string{"a", "b", "app", "x.io/k", "n"}
	// Selector values must be valid label values (no leading '-'); label sets are not validated
	// here, so they also carry integers only ParseInt reads ("-3", "+5").
	vals := []string{"", "v", "w", "1", "2", "10", "007", "x"}
	setVals := append([]string{"-3", "+5", "99999999999999999999"}, vals...)
	ints := []string{"0", "1", "5", "9", "10", "007"}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	requirement := func() string {
		k := pick(keys)
		switch r.IntN(9) {
		case 0:
			return k + "=" + pick(vals)
		case 1:
			return k + "==" + pick(vals)
		case 2:
			return k + "!=" + pick(vals)
		case 3:
			return k + " in (" + pick(vals) + "," + pick(vals) + ")"
		case 4:
			return k + " notin (" + pick(vals) + ")"
		case 5:
			return k
		case 6:
			return "!" + k
		case 7:
			return k + ">" + pick(ints)
		default:
			return k + "<" + pick(ints)
		}
	}
	checked, matched := 0, 0
	for range 3000 {
		parts := make([]string, 1+r.IntN(3))
		for i := range parts {
			parts[i] = requirement()
		}
		sel := strings.Join(parts, ",")
		want, err := labels.Parse(sel)
		if err != nil {
			t.Fatalf("generator produced an invalid selector %q: %v", sel, err)
		}
		l, err := ParseLabels(sel)
		if err != nil {
			t.Fatalf("ParseLabels(%q): %v", sel, err)
		}
		for range 10 {
			set := labels.Set{}
			for _, k := range keys {
				if r.IntN(2) == 0 {
					set[k] = pick(setVals)
				}
			}
			w := want.Matches(set)
			if got := l.Matches(NewLabels(set)); got != w {
				t.Fatalf("%q on %v: Matches = %v, apimachinery %v", sel, set, got, w)
			}
			checked++
			if w {
				matched++
			}
		}
	}
	if matched == 0 || matched == checked {
		t.Errorf("degenerate generator: %d of %d matched", matched, checked)
	}
}

// Matching does not allocate (performance target), not even on non-integer values for gt/lt.
func TestLabelMatchesAllocs(t *testing.T) {
	l, _ := ParseLabels("app=web,tier!=db,version,n>5,!gone,s<3")
	ls := NewLabels(map[string]string{"app": "web", "tier": "fe", "version": "1", "n": "7", "s": "abc"})
	if n := testing.AllocsPerRun(100, func() { l.Matches(ls) }); n != 0 {
		t.Errorf("Matches allocates %v times", n)
	}
}
