package watchcache

import (
	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/selection"
)

// memoAfter is how many label-set evaluations a query makes before it allocates a memo of one
// byte per interned set: small indexed pages never pay for the memo, scans over many objects
// evaluate the selector once per distinct set.
const memoAfter = 32

// predicate is a parsed label and field selector, evaluated on the values precomputed at apply
// time. It is used by one query (its memo is not shared) and never allocates per object.
type predicate struct {
	schema    *selection.Schema
	labels    selection.LabelSelector
	fields    selection.FieldSelector
	hasLabels bool
	hasFields bool
	// skipLabels, skipFields: the plan's index range already guarantees that part (plan.covers).
	skipLabels bool
	skipFields bool
	// skipTerm is the field term the plan's index range guarantees when other terms remain (-1: none).
	skipTerm int

	sets  *labelSets
	memo  []uint8 // per label set id: 0 unknown, 1 match, 2 no match
	evals int
}

func newPredicate(schema *selection.Schema, sets *labelSets, l selection.LabelSelector, f selection.FieldSelector) *predicate {
	p := makePredicate(schema, sets, l, f)
	return &p
}

// makePredicate is newPredicate as a value, for a caller that keeps it on its stack (List).
func makePredicate(schema *selection.Schema, sets *labelSets, l selection.LabelSelector, f selection.FieldSelector) predicate {
	var p predicate
	p.init(schema, sets, &l, &f)
	return p
}

// init sets p for the selectors, in place: a List builds its predicate inside its
// collector, on its stack, without a temporary copy of the selectors.
func (p *predicate) init(schema *selection.Schema, sets *labelSets, l *selection.LabelSelector, f *selection.FieldSelector) {
	p.schema, p.labels, p.fields, p.sets, p.skipTerm = schema, *l, *f, sets, -1
	p.hasLabels, p.hasFields = !l.Empty(), !f.Empty()
}

// empty reports whether the predicate selects everything (rule 2.7: remainingItemCount only then).
func (p *predicate) empty() bool { return !p.hasLabels && !p.hasFields }

// matchHit reports whether the hit's version at rv exists and matches; the version is read only
// when the label set (from the store, when the walk read it) matches. On true, h.rec is set.
func (p *predicate) matchHit(h *hit, rv uint64) bool {
	if p.hasLabels && !p.skipLabels {
		ls := h.labels(rv)
		if ls == nil || !p.matchLabels(ls) {
			return false
		}
	}
	rec := h.version(rv)
	return rec != nil && p.matchFields(rec)
}

func (p *predicate) matchFields(rec *record) bool {
	return !p.hasFields || p.skipFields || p.fields.MatchesExcept(rec.fields(p.schema), p.skipTerm)
}

// use tells the predicate which part the plan's index range already guarantees.
func (p *predicate) use(pl plan) {
	switch {
	case pl.covers:
		p.skipFields = pl.si.spec.Kind == index.Field
		p.skipLabels = pl.si.spec.Kind == index.Label
	case pl.si != nil && pl.si.spec.Kind == index.Field:
		p.skipTerm = p.fields.ExactIndex(pl.si.spec.Name, pl.value)
	}
}

func (p *predicate) matchRecord(r *record) bool {
	return (!p.hasLabels || p.skipLabels || p.matchLabels(r.ls)) && p.matchFields(r)
}

func (p *predicate) matchLabels(ls *labelSet) bool {
	if int(ls.id) < len(p.memo) {
		switch p.memo[ls.id] {
		case 1:
			return true
		case 2:
			return false
		}
	}
	ok := p.labels.Matches(ls.labels)
	p.evals++
	if p.memo == nil && p.evals >= memoAfter {
		p.memo = make([]uint8, p.sets.size())
	}
	if int(ls.id) < len(p.memo) {
		p.memo[ls.id] = 2
		if ok {
			p.memo[ls.id] = 1
		}
	}
	return ok
}
