package watchcache

import (
	"errors"
	"testing"
)

func TestRouteList(t *testing.T) {
	tok := encodeContinue("/ns-0/a\x00", "/", 42)
	tokLatest := encodeContinue("/ns-0/a\x00", "/", -1)
	yes := true
	tests := []struct {
		name      string
		o         ListOptions
		ignoreRV0 bool
		want      route
		wantErr   string
	}{
		{"rule 1.8: RV unset is a consistent read", ListOptions{}, false, route{kind: readConsistent}, ""},
		{"rule 1.8: RV unset with limit stays consistent", ListOptions{Limit: 5}, false, route{kind: readConsistent, limit: 5}, ""},
		{"rule 1.9: RV=0 is any (latest, no wait)", ListOptions{ResourceVersion: "0", Limit: 5}, false, route{kind: readLatest, limit: 5}, ""},
		{"rule 2.6: RV=0 ignores limit in fidelity mode", ListOptions{ResourceVersion: "0", Limit: 5}, true, route{kind: readLatest}, ""},
		{"rule 1.9: RV=N without limit is not-older-than", ListOptions{ResourceVersion: "7"}, false, route{kind: readLatest, rv: 7}, ""},
		{"rule 1.1: RV=N with limit is legacy exact", ListOptions{ResourceVersion: "7", Limit: 3}, false, route{kind: readExact, rv: 7, limit: 3}, ""},
		{"rule 1.6: Exact", ListOptions{ResourceVersion: "7", ResourceVersionMatch: MatchExact}, false, route{kind: readExact, rv: 7}, ""},
		{"rule 1.9: NotOlderThan with limit", ListOptions{ResourceVersion: "7", ResourceVersionMatch: MatchNotOlderThan, Limit: 3}, false, route{kind: readLatest, rv: 7, limit: 3}, ""},
		{"rule 1.9: NotOlderThan 0", ListOptions{ResourceVersion: "0", ResourceVersionMatch: MatchNotOlderThan}, false, route{kind: readLatest}, ""},
		{"rule 1.7: continue reads the token RV exactly", ListOptions{Continue: tok, Limit: 2}, false, route{kind: readExact, rv: 42, start: "/ns-0/a\x00", continued: true, limit: 2}, ""},
		{"rule 2.5: continue with RV=0 is accepted", ListOptions{Continue: tok, ResourceVersion: "0", Limit: 2}, false, route{kind: readExact, rv: 42, start: "/ns-0/a\x00", continued: true, limit: 2}, ""},
		{"rule 2.9: rv -1 token reads latest", ListOptions{Continue: tokLatest}, false, route{kind: readConsistent, start: "/ns-0/a\x00", continued: true}, ""},
		{"negative limit is no limit", ListOptions{Limit: -1}, false, route{kind: readConsistent}, ""},
		{"rule 2.5: continue with RV", ListOptions{Continue: tok, ResourceVersion: "42"}, false, route{}, "specifying resource version is not allowed when using continue"},
		{"rule 2.4: bad token", ListOptions{Continue: "garbage!"}, false, route{}, "invalid continue token: continue key is not valid: illegal base64 data at input byte 7"},
		{"rule 0.8: bad RV", ListOptions{ResourceVersion: "abc", Limit: 3}, false, route{}, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"rule 0.1: match without RV", ListOptions{ResourceVersionMatch: MatchNotOlderThan, Limit: 3}, false, route{},
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{"rule 0.2: match with continue", ListOptions{ResourceVersion: "1", ResourceVersionMatch: MatchExact, Continue: tok}, false, route{},
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`},
		{"rule 0.3: unknown match", ListOptions{ResourceVersion: "1", ResourceVersionMatch: "Newest"}, false, route{},
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""`},
		{"rule 0.4: exact 0", ListOptions{ResourceVersion: "0", ResourceVersionMatch: MatchExact}, false, route{},
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"rule 0.5: sendInitialEvents on list", ListOptions{ResourceVersion: "0", SendInitialEvents: &yes}, false, route{},
			`ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`},
		{"rules 0.1+0.3: every error reported", ListOptions{ResourceVersionMatch: "x"}, false, route{},
			`ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "x": supported values: "Exact", "NotOlderThan", ""]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := routeList(tt.o, "/", tt.ignoreRV0, nil)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v\nwant  %s", err, tt.wantErr)
				}
				if st := ToStatus(err); st.ErrStatus.Message != tt.wantErr && !errors.Is(err, ErrInvalidOptions) {
					t.Fatalf("status message %q differs from error", st.ErrStatus.Message)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("routeList = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestRouteWatch(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name    string
		o       WatchOptions
		want    watchStart
		wantErr string
	}{
		{"rule 0.7: RV unset defaults to a consistent watch-list", WatchOptions{}, watchStart{initial: true, consistent: true}, ""},
		{"rule 0.7: RV=0 defaults to watch-list without wait", WatchOptions{ResourceVersion: "0"}, watchStart{initial: true}, ""},
		{"rule 5.1: S=true RV=N waits for N", WatchOptions{ResourceVersion: "9", SendInitialEvents: &yes, ResourceVersionMatch: MatchNotOlderThan}, watchStart{initial: true, waitRV: 9}, ""},
		{"rule 5.1: S=false RV=0 starts now", WatchOptions{ResourceVersion: "0", SendInitialEvents: &no, ResourceVersionMatch: MatchNotOlderThan}, watchStart{fromNow: true}, ""},
		{"rule 5.1: S=false RV unset starts at the source RV", WatchOptions{SendInitialEvents: &no, ResourceVersionMatch: MatchNotOlderThan}, watchStart{consistent: true}, ""},
		{"rule 5.1: RV=N replays history", WatchOptions{ResourceVersion: "9"}, watchStart{sinceRV: 9}, ""},
		{"rule 0.6: S without NotOlderThan", WatchOptions{ResourceVersion: "9", SendInitialEvents: &yes}, watchStart{},
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`},
		{"rule 0.6: match without S", WatchOptions{ResourceVersion: "9", ResourceVersionMatch: MatchNotOlderThan}, watchStart{},
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`},
		{"rule 0.8: bad RV", WatchOptions{ResourceVersion: "x"}, watchStart{},
			`invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := routeWatch(tt.o)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v\nwant  %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("routeWatch = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
