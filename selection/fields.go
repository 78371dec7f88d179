package selection

import (
	"iter"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	kselection "k8s.io/apimachinery/pkg/selection"
)

// Op is the operator of a field selector term. Field selectors have only these two (rule 4.2).
type Op uint8

const (
	// Equals is `=` or `==`.
	Equals Op = iota + 1
	// NotEquals is `!=`.
	NotEquals
)

// String returns "=" or "!=".
func (o Op) String() string {
	switch o {
	case Equals:
		return "="
	case NotEquals:
		return "!="
	}
	return "?"
}

// FieldTerm is one term of a field selector, resolved against a schema.
type FieldTerm struct {
	Field int    // position in Object.Fields
	Name  string // canonical field name (spec.host is reported as spec.nodeName)
	Op    Op
	Value string // unescaped
}

// FieldSelector is a field selector parsed and resolved against one schema (rules 4.2, 4.3): an
// AND of terms comparing the value at a field position with a string. Terms are in the order
// apimachinery sorts them (by their text).
//
// Build one with Schema.ParseFields; the zero value selects everything. A FieldSelector is
// immutable and may be used by any number of goroutines.
type FieldSelector struct {
	terms []FieldTerm
	width int
}

// ParseFields parses a field selector exactly as the apiserver does — fields.ParseSelector, then
// the kind's field-label conversion of every term — and resolves each field to its position in
// s. "" selects everything.
//
// Errors: a parse error is a *SelectorError{Kind: "field"} carrying fields.ParseSelector's
// message (`invalid selector: '<sel>'; can't understand '<term>'`, `invalid field selector:
// invalid escape sequence: \x`, `invalid field selector: unescaped character in value: 61`); the
// first term (in sorted order) naming a field s does not accept gives an *UnsupportedFieldError.
// Terms with an empty field and an empty value ("=", "!=") are dropped, as apimachinery drops them.
func (s *Schema) ParseFields(sel string) (FieldSelector, error) {
	if sel == "" {
		return FieldSelector{}, nil
	}
	parsed, err := fields.ParseSelector(sel)
	if err != nil {
		return FieldSelector{}, &SelectorError{Kind: "field", Selector: sel, Err: err}
	}
	reqs := parsed.Requirements()
	if len(reqs) == 0 {
		return FieldSelector{}, nil
	}
	out := FieldSelector{terms: make([]FieldTerm, 0, len(reqs))}
	for _, r := range reqs {
		pos, ok := s.names[r.Field]
		if !ok {
			return FieldSelector{}, &UnsupportedFieldError{Field: r.Field, Known: s.known(), Generic: s.generic}
		}
		op := Equals
		if r.Operator == kselection.NotEquals {
			op = NotEquals
		}
		out.terms = append(out.terms, FieldTerm{Field: pos, Name: s.fields[pos].name, Op: op, Value: r.Value})
		out.width = max(out.width, pos+1)
	}
	return out, nil
}

// Empty reports whether the selector selects everything.
func (f FieldSelector) Empty() bool { return len(f.terms) == 0 }

// Terms returns the terms (a copy).
func (f FieldSelector) Terms() []FieldTerm { return slices.Clone(f.terms) }

// Len is the number of terms.
func (f FieldSelector) Len() int { return len(f.terms) }

// Width returns the number of field positions the selector reads (the highest position plus
// one): Matches needs a values slice at least this long to see every value.
func (f FieldSelector) Width() int { return f.width }

// Matches reports whether the field values (Object.Fields, by position) satisfy every term:
// `f=v` is values[f] == v and `f!=v` is values[f] != v, so a missing value behaves as "" (rule
// 4.2: `spec.nodeName=` matches unscheduled pods). It does not allocate.
//
// Pass values extracted under the selector's schema or a newer one (positions are append-only).
// A position beyond len(values) — a field registered after the values were extracted — reads as
// "", which is wrong whenever the object does have a value there: compare len(values) with Width
// and re-extract under the newer schema first.
func (f FieldSelector) Matches(values []string) bool { return f.MatchesExcept(values, -1) }

// MatchesExcept is Matches without the term at index skip (-1: none): for a term that an index
// range already guarantees for every value it yields (see ExactIndex).
func (f FieldSelector) MatchesExcept(values []string, skip int) bool {
	for i := range f.terms {
		if i == skip {
			continue
		}
		t := &f.terms[i]
		v := ""
		if t.Field < len(values) {
			v = values[t.Field]
		}
		if (v == t.Value) != (t.Op == Equals) {
			return false
		}
	}
	return true
}

// ExactIndex returns the index of the first `=`/`==` term on the field name with that value, or -1.
func (f FieldSelector) ExactIndex(name, value string) int {
	for i, t := range f.terms {
		if t.Op == Equals && t.Name == name && t.Value == value {
			return i
		}
	}
	return -1
}

// ExactTerms yields the `=`/`==` terms in the selector's order, without allocating: each alone is
// an exact requirement an index can serve (fields.Selector.RequiresExactMatch semantics — any `=`
// term qualifies, `!=` never does).
func (f FieldSelector) ExactTerms() iter.Seq[FieldTerm] {
	return func(yield func(FieldTerm) bool) {
		for _, t := range f.terms {
			if t.Op == Equals && !yield(t) {
				return
			}
		}
	}
}

// Requires returns the value of the first `=`/`==` term on the field name (canonical name, e.g.
// "metadata.namespace"), as fields.Selector.RequiresExactMatch does: used to narrow a request's
// scope (rule 4.6) or to pick an index (rule 4.7).
func (f FieldSelector) Requires(name string) (string, bool) {
	for _, t := range f.terms {
		if t.Op == Equals && t.Name == name {
			return t.Value, true
		}
	}
	return "", false
}

// String returns the selector as the apiserver prints it after conversion: canonical names,
// `=` for `=` and `==`, values escaped with fields.EscapeValue, terms joined by ",".
func (f FieldSelector) String() string {
	var b strings.Builder
	for i, t := range f.terms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.Name)
		b.WriteString(t.Op.String())
		b.WriteString(fields.EscapeValue(t.Value))
	}
	return b.String()
}

// AsSelector returns the equivalent apimachinery selector, over canonical field names.
func (f FieldSelector) AsSelector() fields.Selector {
	sels := make([]fields.Selector, len(f.terms))
	for i, t := range f.terms {
		if t.Op == Equals {
			sels[i] = fields.OneTermEqualSelector(t.Name, t.Value)
		} else {
			sels[i] = fields.OneTermNotEqualSelector(t.Name, t.Value)
		}
	}
	return fields.AndSelectors(sels...)
}
