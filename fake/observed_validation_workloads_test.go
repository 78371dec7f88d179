package fake_test

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	observedValidationWorkloadsFile     = "testdata/observed-validation-workloads.json"
	observedValidationWorkloadsMarkdown = "observed-validation-workloads.md"
)

// workloadKnownDifferences are the steps of validationWorkloadCases whose causes print a value
// the fake cannot print as the apiserver does, and why. Their bodies are compared with each
// cause's message cut before the value's text (relaxValues): the causes' fields, types and order
// must still be the apiserver's.
var workloadKnownDifferences = map[string]string{
	"wl-pod/update clears image and breaks a label": "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"wl-pod/merge patch bad env name":               "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"wl-pod/merge patch image":                      "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"wl-job/merge patch template":                   "the immutable template's value is its v1 JSON; the apiserver prints its internal type (Go field names)",
}

// relaxValues cuts, in a Status, the top message and each cause's message at the first
// newline (a diff) and replaces an Invalid value printed as a JSON object with "{…}".
func relaxValues(resp json.RawMessage) json.RawMessage {
	var st map[string]any
	if json.Unmarshal(resp, &st) != nil || st["kind"] != "Status" {
		return resp
	}
	delete(st, "message")
	if d, ok := st["details"].(map[string]any); ok {
		causes, _ := d["causes"].([]any)
		for _, c := range causes {
			c := c.(map[string]any)
			msg, _ := c["message"].(string)
			msg, _, _ = strings.Cut(msg, "\n")
			if rest, ok := strings.CutPrefix(msg, "Invalid value: {"); ok {
				if i := strings.LastIndex(rest, "}: "); i >= 0 {
					msg = "Invalid value: {…}: " + rest[i+3:]
				}
			}
			c["message"] = msg
		}
	}
	out, _ := json.Marshal(st)
	return out
}

// validationWorkloadsRecording is where validationWorkloadCases are recorded and replayed.
var validationWorkloadsRecording = recording{cases: validationWorkloadCases, file: observedValidationWorkloadsFile, markdown: observedValidationWorkloadsMarkdown,
	title: "validation of workloads", recorder: "TestRecordValidationWorkloads", replayer: "TestObservedValidationWorkloads", source: "observed_validation_workloads_test.go"}

// TestRecordValidationWorkloads records validationWorkloadCases from a kube-apiserver as
// TestRecordOracle records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh
// oracle) into testdata/observed-validation-workloads.json and
// ../reference/observed-validation-workloads.md.
func TestRecordValidationWorkloads(t *testing.T) {
	validationWorkloadsRecording.record(t, oracleServer(t))
}

// TestObservedValidationWorkloads replays the recorded validation of pods and workloads against
// the fake: status code, warnings and the whole body must be the apiserver's, the causes of a
// 422 and their order included (compareStep).
func TestObservedValidationWorkloads(t *testing.T) {
	validationWorkloadsRecording.replay(t, noControllers, func(step string, got, want *observedStep) {
		if reason, ok := workloadKnownDifferences[step]; ok {
			t.Logf("known difference: %s", reason)
			got.Response, want.Response = relaxValues(got.Response), relaxValues(want.Response)
		}
	})
}
