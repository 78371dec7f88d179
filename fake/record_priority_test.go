package fake_test

import "testing"

// priorityCases are the Priority admission plugin's answers to pods and priority classes: a pod's
// priority and preemption policy come from the class it names, or the global default class, or
// are 0 and PreemptLowerPriority; a pod may not state other values, nor name a missing class;
// one class at most is the global default. Recorded from a kube-apiserver 1.37.2 into
// testdata/observed-priority.json (TestRecordOraclePriority), replayed by TestObservedPriority.
var priorityCases = []writeCase{
	{Name: "priority", Steps: []writeStep{
		nsStep(),
		{Name: "system classes", Method: "GET", Path: "/apis/scheduling.k8s.io/v1/priorityclasses"},
		{Name: "class", Method: "POST", Path: "/apis/scheduling.k8s.io/v1/priorityclasses", Body: `{"metadata":{"name":"pc-{ns}"},"value":1000,"preemptionPolicy":"Never","description":"d"}`},
		settlePriority(),
		{Name: "pod of the class", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1"},"spec":{"priorityClassName":"pc-{ns}","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod of a missing class", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p2"},"spec":{"priorityClassName":"nope-{ns}","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod stating another priority", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p3"},"spec":{"priorityClassName":"pc-{ns}","priority":98765,"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod stating the class's priority", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p4"},"spec":{"priorityClassName":"pc-{ns}","priority":1000,"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod stating another preemption policy", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p5"},"spec":{"priorityClassName":"pc-{ns}","preemptionPolicy":"PreemptLowerPriority","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod stating a priority without a class", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p6"},"spec":{"priority":87654,"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod of system-node-critical", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p7"},"spec":{"priorityClassName":"system-node-critical","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod of system-cluster-critical dry run", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods?dryRun=All", Body: `{"metadata":{"name":"p8"},"spec":{"priorityClassName":"system-cluster-critical","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "update without priority", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/p1", Body: `{"metadata":{"name":"p1","labels":{"a":"b"}},"spec":{"priorityClassName":"pc-{ns}","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "class changing its value", Method: "PATCH", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/pc-{ns}", ContentType: "application/merge-patch+json", Body: `{"value":7}`},
		{Name: "global default", Method: "POST", Path: "/apis/scheduling.k8s.io/v1/priorityclasses", Body: `{"metadata":{"name":"gd-{ns}"},"value":7,"globalDefault":true}`},
		settlePriority(),
		{Name: "second global default", Method: "POST", Path: "/apis/scheduling.k8s.io/v1/priorityclasses", Body: `{"metadata":{"name":"gd2-{ns}"},"value":9,"globalDefault":true}`},
		{Name: "class made global default", Method: "PATCH", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/pc-{ns}", ContentType: "application/merge-patch+json", Body: `{"globalDefault":true}`},
		{Name: "global default updated", Method: "PATCH", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/gd-{ns}", ContentType: "application/merge-patch+json", Body: `{"description":"the default","globalDefault":true}`},
		{Name: "pod without a class", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p9"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod stating priority 0 without a class", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p10"},"spec":{"priority":0,"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "delete global default", Method: "DELETE", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/gd-{ns}"},
		settlePriority(),
		{Name: "pod after the default is gone", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p11"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "delete a system class", Method: "DELETE", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical"},
		{Name: "delete class", Method: "DELETE", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/pc-{ns}"},
	}},
}

// settlePriority waits a second, in a watch of priority classes from the version the previous step
// answered with. The apiserver's Priority plugin reads classes from an informer, which may not
// have seen a class a few milliseconds old; a step that depends on a class just written comes
// after this one (the fake reads what is stored).
func settlePriority() writeStep {
	return writeStep{Name: "settle", Method: "GET", Path: "/apis/scheduling.k8s.io/v1/priorityclasses?watch=true&resourceVersion={rv}&timeoutSeconds=1"}
}

var priorityRecording = recording{cases: priorityCases, file: "testdata/observed-priority.json", markdown: "observed-priority.md",
	title: "Priority admission", recorder: "TestRecordOraclePriority", replayer: "TestObservedPriority", source: "record_priority_test.go"}

// TestRecordOraclePriority records priorityCases from a fresh kube-apiserver as TestRecordOracle
// records writeCases.
func TestRecordOraclePriority(t *testing.T) { priorityRecording.record(t, oracleServer(t)) }

// TestObservedPriority replays the recorded pods and priority classes against the fake.
func TestObservedPriority(t *testing.T) { priorityRecording.replay(t, noControllers, nil) }
