package fake_test

import (
	"encoding/json"
	"testing"
)

// computedCases are writes to the subresources the apiserver computes rather than stores —
// pods' binding and eviction — recorded from a kube-apiserver 1.37.2 into
// testdata/observed-computed.json (TestRecordOracleComputed) and replayed against the fake
// (TestObservedComputed).
var computedCases = []writeCase{
	{Name: "binding", Steps: []writeStep{
		nsStep(),
		{Name: "pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "bind", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/binding", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"apiVersion":"v1","kind":"Node","name":"n1"}}`},
		{Name: "bound pod", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
		{Name: "bind again", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/binding", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"apiVersion":"v1","kind":"Node","name":"n2"}}`},
		{Name: "bind a missing pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/nope/binding", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"nope"},"target":{"kind":"Node","name":"n1"}}`},
		{Name: "pod p2", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p2"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "bind name mismatch", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p2/binding", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"other"},"target":{"kind":"Node","name":"n1"}}`},
		{Name: "bind without target name", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p2/binding", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"kind":"Node"}}`},
		{Name: "bind dryRun", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p2/binding?dryRun=All", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"kind":"Node","name":"n1"}}`},
		{Name: "bindings collection", Method: "POST", Path: "/api/v1/namespaces/{ns}/bindings", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2","annotations":{"a":"1"}},"target":{"kind":"Node","name":"n3"}}`},
		{Name: "pod p2 bound", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p2"},
		{Name: "binding GET", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p2/binding"},
		{Name: "bindings list", Method: "GET", Path: "/api/v1/namespaces/{ns}/bindings"},
		{Name: "bindings watch", Method: "GET", Path: "/api/v1/namespaces/{ns}/bindings?watch=1"},
		{Name: "bindings in all namespaces", Method: "GET", Path: "/api/v1/bindings"},
		{Name: "binding by name", Method: "GET", Path: "/api/v1/namespaces/{ns}/bindings/p2"},
		{Name: "bindings deletecollection", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/bindings"},
		{Name: "binding delete", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/bindings/p2"},
		{Name: "bindings PUT", Method: "PUT", Path: "/api/v1/namespaces/{ns}/bindings", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"kind":"Node","name":"n3"}}`},
		{Name: "bad body", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p2/binding", Body: `{"target":`},
	}},
	{Name: "eviction", Steps: []writeStep{
		nsStep(),
		{Name: "pod unscheduled", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1","labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "evict unscheduled", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1"}}`},
		{Name: "evicted pod gone", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
		{Name: "pod scheduled", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p2","labels":{"app":"b"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "evict scheduled", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p2/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p2"}}`},
		{Name: "evicted scheduled pod terminating", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p2"},
		{Name: "evict missing pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/nope/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"nope"}}`},
		{Name: "evict name mismatch", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p2/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"other"}}`},
		{Name: "pdb", Method: "POST", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", Body: `{"metadata":{"name":"pdb1"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"c"}}}}`},
		{Name: "pod guarded", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p3","labels":{"app":"c"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod p3 running", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p3/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`},
		{Name: "evict guarded", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p3/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p3"}}`},
		{Name: "pdb status allows one", Method: "PATCH", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/pdb1/status", ContentType: "application/merge-patch+json", Body: `{"status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":2,"desiredHealthy":1,"expectedPods":2}}`},
		{Name: "evict guarded dryRun", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p3/eviction?dryRun=All", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p3"}}`},
		{Name: "evict guarded allowed", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p3/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p3"}}`},
		{Name: "pdb after eviction", Method: "GET", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/pdb1"},
		{Name: "pod p4 guarded", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p4","labels":{"app":"c"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod p4 running", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p4/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`},
		{Name: "evict p4 budget spent", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p4/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p4"}}`},
		{Name: "evict with delete options", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p2/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p2"},"deleteOptions":{"gracePeriodSeconds":0}}`},
		{Name: "pdb status stale generation", Method: "PATCH", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/pdb1/status", ContentType: "application/merge-patch+json", Body: `{"status":{"observedGeneration":0,"disruptionsAllowed":1}}`},
		{Name: "evict p4 stale pdb", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p4/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p4"}}`},
		{Name: "evict v1beta1", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p4/eviction", Body: `{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"p4"}}`},
		{Name: "eviction bad body", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p4/eviction", Body: `[]`},
	}},
	{Name: "evictionbudgets", Steps: []writeStep{
		nsStep(),
		{Name: "pdb a", Method: "POST", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", Body: `{"metadata":{"name":"a"},"spec":{"maxUnavailable":1,"selector":{"matchLabels":{"app":"x"}}}}`},
		{Name: "pdb b", Method: "POST", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", Body: `{"metadata":{"name":"b"},"spec":{"maxUnavailable":1,"selector":{"matchLabels":{"tier":"y"}}}}`},
		{Name: "pdb unhealthy", Method: "POST", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", Body: `{"metadata":{"name":"u"},"spec":{"maxUnavailable":0,"unhealthyPodEvictionPolicy":"AlwaysAllow","selector":{"matchLabels":{"app":"u"}}}}`},
		{Name: "pod in two budgets", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1","labels":{"app":"x","tier":"y"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod p1 running", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`},
		{Name: "evict from two budgets", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1"}}`},
		{Name: "unhealthy pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p2","labels":{"app":"u"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod p2 running not ready", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p2/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False"}]}}`},
		{Name: "evict unhealthy always allowed", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p2/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p2"}}`},
		{Name: "unhealthy pod terminating", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p2"},
		{Name: "budget u untouched", Method: "GET", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/u"},
		{Name: "pod p3 healthy", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p3","labels":{"app":"u"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod p3 running", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p3/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`},
		{Name: "budget u processed", Method: "PATCH", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/u/status", ContentType: "application/merge-patch+json", Body: `{"status":{"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":1,"desiredHealthy":1,"expectedPods":1}}`},
		{Name: "evict healthy at its budget", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p3/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p3"}}`},
		{Name: "evict with a stale precondition", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p3/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p3"},"deleteOptions":{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}}`},
		{Name: "budget u allows one", Method: "PATCH", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/u/status", ContentType: "application/merge-patch+json", Body: `{"status":{"disruptionsAllowed":1}}`},
		{Name: "evict with a stale uid", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p3/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p3"},"deleteOptions":{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}}`},
		{Name: "budget u after a refused eviction", Method: "GET", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/u"},
		{Name: "dryRun mismatch", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p3/eviction?dryRun=All", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p3"},"deleteOptions":{"dryRun":["Bogus"]}}`},
		{Name: "pod bound with gates", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"g1"},"spec":{"schedulingGates":[{"name":"example.com/gate"}],"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "bind a gated pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/g1/binding", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"g1"},"target":{"kind":"Node","name":"n1"}}`},
		{Name: "bind to a wrong kind", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/g1/binding", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"g1"},"target":{"kind":"Pod"}}`},
	}},
	{Name: "finalize", Steps: []writeStep{
		nsStep(),
		{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: `{"metadata":{"name":"fin-{ns}"}}`},
		{Name: "update keeps spec.finalizers", Method: "PUT", Path: "/api/v1/namespaces/fin-{ns}", Body: `{"metadata":{"name":"fin-{ns}","labels":{"a":"1"}},"spec":{"finalizers":[]}}`},
		{Name: "merge patch keeps spec.finalizers", Method: "PATCH", Path: "/api/v1/namespaces/fin-{ns}", ContentType: "application/merge-patch+json", Body: `{"spec":{"finalizers":["example.com/x"]}}`},
		{Name: "finalize GET", Method: "GET", Path: "/api/v1/namespaces/fin-{ns}/finalize"},
		{Name: "finalize PATCH", Method: "PATCH", Path: "/api/v1/namespaces/fin-{ns}/finalize", ContentType: "application/merge-patch+json", Body: `{"spec":{"finalizers":[]}}`},
		{Name: "finalize adds one", Method: "PUT", Path: "/api/v1/namespaces/fin-{ns}/finalize", Body: `{"metadata":{"name":"fin-{ns}"},"spec":{"finalizers":["kubernetes","example.com/x"]}}`},
		{Name: "finalize invalid name", Method: "PUT", Path: "/api/v1/namespaces/fin-{ns}/finalize", Body: `{"metadata":{"name":"fin-{ns}"},"spec":{"finalizers":["bogus"]}}`},
		{Name: "finalize ignores status", Method: "PUT", Path: "/api/v1/namespaces/fin-{ns}/finalize", Body: `{"metadata":{"name":"fin-{ns}"},"spec":{"finalizers":["kubernetes","example.com/x"]},"status":{"phase":"Terminating"}}`},
		{Name: "finalize stale", Method: "PUT", Path: "/api/v1/namespaces/fin-{ns}/finalize", Body: `{"metadata":{"name":"fin-{ns}","resourceVersion":"1"},"spec":{"finalizers":[]}}`},
		{Name: "finalize missing", Method: "PUT", Path: "/api/v1/namespaces/nope-{ns}/finalize", Body: `{"metadata":{"name":"nope-{ns}"},"spec":{"finalizers":[]}}`},
		{Name: "delete", Method: "DELETE", Path: "/api/v1/namespaces/fin-{ns}"},
		{Name: "label a terminating namespace", Method: "PATCH", Path: "/api/v1/namespaces/fin-{ns}", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"b":"2"}}}`},
		{Name: "finalize keeps one", Method: "PUT", Path: "/api/v1/namespaces/fin-{ns}/finalize", Body: `{"metadata":{"name":"fin-{ns}"},"spec":{"finalizers":["example.com/x"]}}`},
		{Name: "still terminating", Method: "GET", Path: "/api/v1/namespaces/fin-{ns}"},
		{Name: "finalize empties", Method: "PUT", Path: "/api/v1/namespaces/fin-{ns}/finalize", Body: `{"metadata":{"name":"fin-{ns}"},"spec":{"finalizers":[]}}`},
		{Name: "gone", Method: "GET", Path: "/api/v1/namespaces/fin-{ns}"},
	}},
	{Name: "token", Steps: []writeStep{
		nsStep(),
		{Name: "serviceaccount", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts", Body: `{"metadata":{"name":"sa1"}}`},
		{Name: "token", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token", Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`},
		{Name: "token with audiences and expiry", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token", Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"name":"sa1"},"spec":{"audiences":["a","b"],"expirationSeconds":7200}}`},
		{Name: "token too short", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token", Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":60}}`},
		{Name: "token name mismatch", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token", Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"name":"other"},"spec":{}}`},
		{Name: "token namespace mismatch", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token", Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"namespace":"other"},"spec":{}}`},
		{Name: "token of a missing account", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/nope/token", Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`},
		{Name: "token dryRun", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token?dryRun=All", Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`},
		{Name: "token GET", Method: "GET", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token"},
		{Name: "token bad body", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token", Body: `{"spec":`},
		{Name: "token bound to a missing pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token", Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"p"}}}`},
	}},
}

// computedRecording is where computedCases are recorded and replayed.
var computedRecording = recording{cases: computedCases, file: "testdata/observed-computed.json", markdown: "observed-computed.md",
	title: "computed subresources", recorder: "TestRecordOracleComputed", replayer: "TestObservedComputed", source: "record_computed_test.go"}

// TestRecordOracleComputed records computedCases from a fresh kube-apiserver as
// TestRecordOracle records writeCases.
func TestRecordOracleComputed(t *testing.T) { computedRecording.record(t, oracleServer(t)) }

// TestObservedComputed replays the recorded bindings, evictions, finalizes and tokens against the
// fake, as TestObservedWrites replays writeCases (an apiserver without kube-controller-manager: no
// controllers). The times the server sets when it writes (conditions' lastTransitionTime, a
// budget's disruptedPods, a token's expiry) and the token itself are compared by presence.
func TestObservedComputed(t *testing.T) {
	computedRecording.replay(t, noControllers, func(_ string, got, want *observedStep) {
		got.Response, want.Response = maskWriteTimes(got.Response), maskWriteTimes(want.Response)
	})
}

// maskWriteTimes replaces, in an answer, the times a server stamps on a write it makes itself —
// conditions' lastTransitionTime, the values of a PodDisruptionBudget's disruptedPods, a token's
// expiry — and a token (signed by another key) with a placeholder.
func maskWriteTimes(resp json.RawMessage) json.RawMessage {
	return mapLeaves(resp, func(v any, key, parent string) any {
		if _, ok := v.(string); !ok {
			return v
		}
		switch {
		case parent == "disruptedPods", key == "lastTransitionTime", key == "expirationTimestamp":
			return "<time>"
		case key == "token":
			return "<token>"
		}
		return v
	})
}
