package selection

// Predicate is a label selector and a field selector applied together, as the apiserver's
// SelectionPredicate applies them to the precomputed label and field sets of an object (rule
// 4.9), for this package's tests; the cache keeps a predicate of its own over the label sets it
// interns. The zero value selects everything. Immutable; safe for concurrent use.
type Predicate struct {
	Label LabelSelector
	Field FieldSelector
}

// Empty reports whether the predicate selects everything.
func (p Predicate) Empty() bool { return p.Label.Empty() && p.Field.Empty() }

// Matches reports whether an object with these labels and field values is selected. Fields are
// compared first: a few string comparisons at known positions, cheaper than label lookups. It
// does not allocate; see FieldSelector.Matches for the length of values.
func (p Predicate) Matches(ls Labels, values []string) bool {
	return p.Field.Matches(values) && p.Label.Matches(ls)
}

// MatchesObject is Matches on an extracted object.
func (p Predicate) MatchesObject(o *Object) bool { return p.Matches(o.Labels, o.Fields) }
