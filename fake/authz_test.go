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
	opts.Tokens = map[string]fake.User{"oracle-admin-token": {Name: "oracle-admin", UID: "oracle-admin-uid", Groups: []string{"system:masters"}}}
	authzRecording.replay(t, opts, func(_ string, got, want *observedStep) {
		got.Response, want.Response = maskReview(got.Response), maskReview(want.Response)
		if len(want.Header) == 0 && strings.HasPrefix(want.Path, ssrPath) { // the recorder asking who it is: the fake's admin
			want.Response = json.RawMessage(strings.ReplaceAll(string(want.Response), `"username":"oracle-admin"`, `"username":"admin"`))
		}
	})
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
