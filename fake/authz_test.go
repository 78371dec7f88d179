package fake_test

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/watchcache/watchcache/fake"
)

// TestObservedAuthz replays the recorded reviews against the fake, as TestObservedWrites replays
// writeCases, with Options.EnforceRBAC (a service account's list of pods is refused): the oracle's
// admin token is a static token of the fake (Options.Tokens), and a request without credentials,
// the fake's admin, is named "admin" where the oracle's is "oracle-admin". Tokens, their expiry and credential ids are compared by presence; the rules
// of a rules review are compared as sets, since the apiserver visits its bindings in the order of
// its informers' maps; a message that prints a review's managed fields prints the time they were
// written, compared by presence.
func TestObservedAuthz(t *testing.T) {
	opts := noControllers
	opts.EnforceRBAC = true
	opts.Tokens = authzTokens
	authzRecording.replay(t, opts, func(_ string, got, want *observedStep) { authzMask(got, want) })
}

// authzTokens makes the oracle's admin token one of the fake's.
var authzTokens = map[string]fake.User{"oracle-admin-token": {Name: "oracle-admin", UID: "oracle-admin-uid", Groups: []string{"system:masters"}}}

// authzMask masks a step's answers (maskReview) and names the recorder's own identity as the
// fake's admin: a step without headers asks as a request without credentials.
func authzMask(got, want *observedStep) {
	got.Response, want.Response = maskReview(got.Response), maskReview(want.Response)
	if len(want.Header) == 0 && strings.HasPrefix(want.Path, ssrPath) {
		want.Response = json.RawMessage(strings.ReplaceAll(string(want.Response), `"username":"oracle-admin"`, `"username":"admin"`))
	}
}

// fieldsTime is the time of a managed fields entry printed in a message.
var fieldsTime = regexp.MustCompile(`\\"time\\":\\"[0-9TZ:-]+\\"`)

// maskReview masks a review's answer for comparison: tokens (maskTokens), the order of a rules
// review's rules, and the times in messages.
func maskReview(resp json.RawMessage) json.RawMessage {
	resp = maskTokens(resp)
	var v map[string]any
	if json.Unmarshal(resp, &v) != nil {
		return resp
	}
	if st, ok := v["status"].(map[string]any); ok {
		for _, key := range []string{"resourceRules", "nonResourceRules"} {
			rules, _ := st[key].([]any)
			sort.Slice(rules, func(i, j int) bool {
				a, _ := json.Marshal(rules[i])
				b, _ := json.Marshal(rules[j])
				return string(a) < string(b)
			})
		}
	}
	out, _ := json.Marshal(v)
	return json.RawMessage(fieldsTime.ReplaceAllString(string(out), `\"time\":\"<time>\"`))
}

// TestObservedAuthzAlwaysAllow replays the record of the oracle as it starts by default
// (--authorization-mode=AlwaysAllow) against a fake with the default options, which serves every
// request but whose reviews evaluate RBAC: a step answered otherwise with RBAC on
// (observed-authz.json) is left out, and so is a list with a foreign token, which only an
// enforcing fake refuses; every other must match.
func TestObservedAuthzAlwaysAllow(t *testing.T) {
	differs := map[string]bool{}
	rbac, allow := authzRecording.observed(t), authzAlwaysAllowRecording.observed(t)
	for i, c := range allow {
		for j, st := range c.Steps {
			other := rbac[i].Steps[j]
			if st.Code != other.Code || string(maskReview(st.Response)) != string(maskReview(other.Response)) {
				differs[c.Name+"/"+st.Name] = true
			}
		}
	}
	if len(differs) == 0 || len(differs) > 60 {
		t.Fatalf("%d steps differ between the two records", len(differs))
	}
	t.Logf("%d steps answered otherwise with RBAC on are left out", len(differs))
	opts := noControllers
	opts.Tokens = authzTokens
	authzAlwaysAllowRecording.replay(t, opts, func(step string, got, want *observedStep) {
		// Without EnforceRBAC the fake serves a request with a token it does not know (a 401
		// only under enforcement and from the reviews).
		if differs[step] || step == "whoami/bad token lists pods" {
			*got = *want
			return
		}
		authzMask(got, want)
	})
}
