package fuzz

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Messages of the apiserver's 410 answers (rules 1.18, 2.9).
const (
	msgListTooOld     = "The resourceVersion for the provided list is too old."
	msgContinueTooOld = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response " +
		"to retrieve the remainder of the results. Continuing with the provided token results in an " +
		"inconsistent list - objects that were created, modified, or deleted between the time the first " +
		"chunk was returned and now may show up in the list."
)

// Answer is a list's answer: a page, or Err.
type Answer struct {
	Items     [][]byte
	RV        uint64
	Continue  string
	Remaining *int64
	Err       *Status
}

// validateList is rule 0.1–0.5 (AM37 ValidateListOptions).
func validateList(q Query) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("resourceVersionMatch")
	if m := q.ResourceVersionMatch; m != "" {
		if q.ResourceVersion == "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if q.Continue != "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
		}
		if m != "Exact" && m != "NotOlderThan" {
			errs = append(errs, field.NotSupported(p, m, []string{"Exact", "NotOlderThan", ""}))
		}
		if m == "Exact" && q.ResourceVersion == "0" {
			errs = append(errs, field.Forbidden(p, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if q.SendInitialEvents != nil {
		errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	return errs
}

// List answers a list by the rules: the apiserver's order of checks (parse, validate, convert;
// AS37 get.go listOpts), then resourceVersion routing (1.1, 1.6–1.9), a full scan of the chosen
// version from the start key (2.6), the token (2.1, 2.2) and remainingItemCount (2.7).
func (m *Model) List(q Query) Answer {
	l, f, st := parseSelectors(q)
	if st != nil {
		return Answer{Err: st}
	}
	if errs := validateList(q); len(errs) > 0 {
		return Answer{Err: invalid(errs)}
	}
	sel, st := m.convert(q, l, f)
	if st != nil {
		return Answer{Err: st}
	}
	limit := max(q.Limit, 0)
	start := sel.root
	var (
		state  []*Object
		listRV uint64
	)
	exact := func(rv uint64, continued bool) *Status {
		if rv > m.rv {
			return m.tooLarge(rv)
		}
		for i := len(m.versions) - 1; i >= 0; i-- {
			if m.versions[i].rv <= rv {
				state, listRV = m.versions[i].objects, rv
				return nil
			}
		}
		if continued {
			return &Status{Code: 410, Message: msgContinueTooOld, Continue: encodeToken(start, sel.root, -1)}
		}
		return &Status{Code: 410, Message: msgListTooOld}
	}
	latest := func(atLeast uint64) *Status {
		if atLeast > m.rv {
			return m.tooLarge(atLeast)
		}
		state, listRV = m.latest().objects, m.rv
		return nil
	}
	if q.Continue != "" {
		key, tokenRV, err := decodeToken(q.Continue, sel.root)
		if err != nil {
			return Answer{Err: badRequest("invalid continue token: %v", err)}
		}
		if q.ResourceVersion != "" && q.ResourceVersion != "0" {
			return Answer{Err: badRequest("specifying resource version is not allowed when using continue")}
		}
		start = key
		if tokenRV < 0 {
			st = latest(0) // rule 2.9: the rv -1 token continues at the latest state
		} else {
			st = exact(uint64(tokenRV), true)
		}
	} else {
		rv, perr := parseRV(q.ResourceVersion)
		if perr != nil {
			return Answer{Err: perr}
		}
		switch {
		case q.ResourceVersionMatch == "Exact":
			st = exact(rv, false)
		case q.ResourceVersionMatch == "NotOlderThan", q.ResourceVersion == "", q.ResourceVersion == "0":
			st = latest(rv)
		case limit > 0:
			st = exact(rv, false) // legacy exact: RV=N with a limit
		default:
			st = latest(rv)
		}
	}
	if st != nil {
		return Answer{Err: st}
	}
	// Rules 1.10, 4.6: an exact metadata.name in a namespace, without continue, reads one key.
	only := sel.single
	ans := Answer{Items: [][]byte{}, RV: listRV}
	var last string
	more := false
	for _, o := range state {
		if o.Key < start || !strings.HasPrefix(o.Key, sel.root) || (only != "" && o.Key != only) {
			continue
		}
		if limit > 0 && int64(len(ans.Items)) == limit {
			more = true
			break
		}
		if sel.matches(m, o) {
			ans.Items = append(ans.Items, o.Raw)
			last = o.Key
		}
	}
	if more {
		ans.Continue = encodeToken(last+"\x00", sel.root, int64(listRV))
		if sel.empty() {
			var n int64
			for _, o := range state {
				if o.Key > last && strings.HasPrefix(o.Key, sel.root) {
					n++
				}
			}
			ans.Remaining = &n
		}
	}
	return ans
}
