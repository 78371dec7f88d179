package fake_test

import (
	"maps"
	"testing"
)

// validationCoreRecording is where validationCoreCases are recorded and replayed.
var validationCoreRecording = recording{cases: validationCoreCases, file: "testdata/observed-validation-core.json", markdown: "observed-validation-core.md",
	title: "validation of core kinds", recorder: "TestRecordValidationCore", replayer: "TestObservedValidationCore", source: "record_validation_core_test.go"}

// TestRecordValidationCore records validationCoreCases from a kube-apiserver as TestRecordOracle
// records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh oracle).
func TestRecordValidationCore(t *testing.T) { validationCoreRecording.record(t, oracleServer(t)) }

// TestObservedValidationCore replays the recorded validation cases against the fake without its
// controllers (the record is of an apiserver without kube-controller-manager) and compares the
// answers as TestObservedWrites does: status code, warnings and the whole body.
func TestObservedValidationCore(t *testing.T) { validationCoreRecording.replay(t, noControllers, nil) }

// knownValidationCoreDifferences are the steps of validationCoreCases whose answers differ from
// the record, and why. As knownDifferences, a listed step still must match in status code and
// reason.
var knownValidationCoreDifferences = map[string]string{}

// The cases' names are prefixed "core-", so the two lists never name one step.
func init() { maps.Copy(knownDifferences, knownValidationCoreDifferences) }
