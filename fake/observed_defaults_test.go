package fake_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/watchcache/watchcache/fake"
)

// defaultRecordings are the cases of defaults, of the scale subresource and of apply bodies.
var defaultRecordings = func() []recording {
	out := []recording{
		{cases: defaultCases, file: "testdata/observed-defaults.json", markdown: "observed-defaults.md"},
		{cases: scaleCases, file: "testdata/observed-scale.json", markdown: "observed-scale.md"},
		{cases: applyBodyCases, file: "testdata/observed-apply-bodies.json", markdown: "observed-apply-bodies.md"},
	}
	for i := range out {
		out[i].title = strings.TrimSuffix(strings.TrimPrefix(out[i].markdown, "observed-"), ".md")
		out[i].recorder, out[i].replayer, out[i].source = "TestRecordOracleDefaults", "TestObservedDefaults", "observed_defaults_test.go"
	}
	return out
}()

// TestRecordOracleDefaults records defaultCases and scaleCases from a kube-apiserver as
// TestRecordOracle records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh
// oracle).
func TestRecordOracleDefaults(t *testing.T) {
	srv := oracleServer(t)
	for _, rec := range defaultRecordings {
		rec.record(t, srv)
	}
}

// TestObservedDefaults replays the recorded defaults and scale cases against the fake: status
// code, warnings and the whole body must be the apiserver's, defaulted fields and managedFields
// included (compareStep).
func TestObservedDefaults(t *testing.T) {
	for _, rec := range defaultRecordings {
		rec.replay(t, fake.Options{}, nil)
	}
}

// allocatedKeys are the fields whose values the apiserver allocates at random (or sets to the
// time of the write); compareStep compares them by presence: a recorded value the request did
// not ask for must be matched by one the fake allocated.
var allocatedKeys = map[string]bool{"clusterIP": true, "clusterIPs": true, "nodePort": true, "healthCheckNodePort": true, "lastPhaseTransitionTime": true}

// maskAllocated replaces, in an answer, the values of allocatedKeys that the request's body does
// not name with a placeholder.
func maskAllocated(resp json.RawMessage, body string) json.RawMessage {
	return mapLeaves(resp, func(v any, key, _ string) any {
		if !allocatedKeys[key] {
			return v
		}
		switch x := v.(type) {
		case string:
			if x != "None" && !strings.Contains(body, `"`+x+`"`) {
				return "<allocated>"
			}
		case float64:
			if !strings.Contains(body, `:`+strings.TrimSuffix(jsonNumber(x), ".0")) {
				return "<allocated>"
			}
		}
		return v
	})
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// managedFieldsOf returns an answer's metadata.managedFields without their times.
func managedFieldsOf(resp json.RawMessage) []any {
	var v struct {
		Metadata struct {
			ManagedFields []map[string]any `json:"managedFields"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(resp, &v)
	var out []any
	for _, e := range v.Metadata.ManagedFields {
		delete(e, "time")
		out = append(out, e)
	}
	return out
}
