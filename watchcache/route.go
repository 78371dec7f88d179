package watchcache

import (
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ResourceVersionMatch values (rule 0).
const (
	MatchNotOlderThan = "NotOlderThan"
	MatchExact        = "Exact"
)

// ListOptions are the parameters of a List, with the Kubernetes query-parameter semantics.
type ListOptions struct {
	// Namespace restricts the list to one namespace ("" = all; ignored for cluster-scoped resources).
	Namespace string
	// LabelSelector and FieldSelector are selectors in the Kubernetes string syntax.
	LabelSelector, FieldSelector string
	// ResourceVersion is "", "0" or a decimal RV; ResourceVersionMatch is "", NotOlderThan or Exact.
	ResourceVersion, ResourceVersionMatch string
	// Limit bounds the page size (≤ 0: no limit); Continue is a token from a previous page.
	Limit    int64
	Continue string
	// SendInitialEvents is a watch parameter; a list that sets it is rejected (rule 0.5).
	SendInitialEvents *bool
}

// readKind says which state a list reads.
type readKind uint8

const (
	// readLatest reads the newest state once the cache has reached minRV (rule 1.9).
	readLatest readKind = iota
	// readConsistent reads the newest state once the cache has reached the source's current RV (rule 1.8).
	readConsistent
	// readExact reads the snapshot at rv: the newest state with RV ≤ rv (rules 1.6, 1.7).
	readExact
)

// route is the outcome of validating and routing ListOptions: a pure function of the options, so the
// table of rules 0, 1.1 and 2.4–2.6 is tested without a cache.
type route struct {
	kind readKind
	// rv: for readLatest the RV to wait for (0: none); for readExact the RV to read at.
	rv uint64
	// start is the absolute key to start at ("" = the start of the prefix); continued says it came
	// from a token (whose start key a 410 re-issues with rv -1).
	start     string
	continued bool
	// limit is the effective page size (0: unlimited).
	limit int64
}

// validateListOptions applies rules 0.1–0.5: every error is reported, as one 422.
func validateListOptions(o ListOptions) error {
	if o.ResourceVersionMatch == "" && o.SendInitialEvents == nil {
		return nil // the common case, without building field paths
	}
	var errs field.ErrorList
	p := field.NewPath("resourceVersionMatch")
	if m := o.ResourceVersionMatch; m != "" {
		if o.ResourceVersion == "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if o.Continue != "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
		}
		if m != MatchExact && m != MatchNotOlderThan {
			errs = append(errs, field.NotSupported(p, m, []string{MatchExact, MatchNotOlderThan, ""}))
		}
		if m == MatchExact && o.ResourceVersion == "0" {
			errs = append(errs, field.Forbidden(p, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if o.SendInitialEvents != nil {
		errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	if len(errs) > 0 {
		return &InvalidOptionsError{Errs: errs}
	}
	return nil
}

// parseResourceVersion parses a request RV: "" and "0" are 0 (rule 0.9); anything else must be a
// uint64 (rule 0.8).
func parseResourceVersion(rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, badRequest("invalid resource version: %v", field.Invalid(field.NewPath("resourceVersion"), rv, err.Error()))
	}
	return v, nil
}

// routeList validates o and decides what to read (rules 0.1–0.9, 1.1, 1.6–1.9, 2.3–2.6). prefix is the
// list's root key, ending in "/". ignoreLimitForRV0 reproduces the apiserver's RV="0" limit bug.
// issued, when not nil, is what the cache recorded when it issued o.Continue for prefix: its start
// and RV are the token's, without decoding it.
func routeList(o ListOptions, prefix string, ignoreLimitForRV0 bool, issued *issuedToken) (route, error) {
	if err := validateListOptions(o); err != nil {
		return route{}, err
	}
	r := route{limit: max(o.Limit, 0)}
	if ignoreLimitForRV0 && o.ResourceVersion == "0" {
		r.limit = 0 // rule 2.6: the cache ignores limit for RV="0", with or without continue
	}
	if o.Continue != "" {
		var start string
		var tokenRV int64
		if issued != nil {
			start, tokenRV = issued.start, issued.rv
		} else {
			var err error
			if start, tokenRV, err = decodeContinue(o.Continue, prefix); err != nil {
				return route{}, badRequest("invalid continue token: %v", err)
			}
		}
		if o.ResourceVersion != "" && o.ResourceVersion != "0" {
			return route{}, badRequest("specifying resource version is not allowed when using continue")
		}
		r.start, r.continued = start, true
		if tokenRV < 0 {
			r.kind = readConsistent // rule 1.7: the rv -1 token reads the latest state from its start key
		} else {
			r.kind, r.rv = readExact, uint64(tokenRV)
		}
		return r, nil
	}
	rv, err := parseResourceVersion(o.ResourceVersion)
	if err != nil {
		return route{}, err
	}
	switch {
	case o.ResourceVersionMatch == MatchExact:
		r.kind, r.rv = readExact, rv
	case o.ResourceVersionMatch == MatchNotOlderThan:
		r.kind, r.rv = readLatest, rv
	case o.ResourceVersion == "":
		r.kind = readConsistent
	case o.ResourceVersion == "0":
		r.kind = readLatest
	case o.Limit > 0:
		r.kind, r.rv = readExact, rv // rule 1.1: legacy exact, RV=N with a limit
	default:
		r.kind, r.rv = readLatest, rv
	}
	return r, nil
}

// watchStart says where a watch begins: a snapshot of the state to send as initial events, or a
// history replay, and from which RV live events count.
type watchStart struct {
	initial    bool   // send the state at the head as ADDED events
	waitRV     uint64 // wait for the cache to reach this RV first (watch-list, rule 5.1)
	consistent bool   // waitRV is the source's current RV
	sinceRV    uint64 // replay/live events with RV > sinceRV
	fromNow    bool   // start at the cache's current RV (RV="0" without initial events)
	startErr   error  // resolving the start failed: the watch sends it as its ERROR event
}

// routeWatch validates WatchOptions (rules 0.6, 0.7, 0.8) and decides where the watch starts (rule 5.1).
func routeWatch(o WatchOptions) (watchStart, error) {
	// Rule 0.7: the 1.37 defaulting with the WatchList gate on.
	if o.SendInitialEvents == nil && o.ResourceVersionMatch == "" && (o.ResourceVersion == "" || o.ResourceVersion == "0") {
		t := true
		o.SendInitialEvents, o.ResourceVersionMatch = &t, MatchNotOlderThan
	}
	var errs field.ErrorList
	p := field.NewPath("resourceVersionMatch")
	if o.SendInitialEvents != nil && o.ResourceVersionMatch != MatchNotOlderThan {
		errs = append(errs, field.Forbidden(p, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
	}
	if m := o.ResourceVersionMatch; m != "" {
		if o.SendInitialEvents == nil {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if m != MatchNotOlderThan {
			errs = append(errs, field.NotSupported(p, m, []string{MatchNotOlderThan}))
		}
		if o.Continue != "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	if len(errs) > 0 {
		return watchStart{}, &InvalidOptionsError{Errs: errs}
	}
	rv, err := parseResourceVersion(o.ResourceVersion)
	if err != nil {
		return watchStart{}, err
	}
	if o.SendInitialEvents != nil && *o.SendInitialEvents {
		return watchStart{initial: true, waitRV: rv, consistent: o.ResourceVersion == ""}, nil
	}
	switch o.ResourceVersion {
	case "0":
		return watchStart{fromNow: true}, nil
	case "":
		return watchStart{consistent: true}, nil // start at the source's current RV, no wait
	}
	return watchStart{sinceRV: rv}, nil
}
