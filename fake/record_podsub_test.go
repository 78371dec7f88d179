package fake_test

import (
	"testing"
	"time"
)

// debugPodBody is a pod of one container with requests and limits, the target of the
// ephemeralcontainers and resize cases.
const debugPodBody = `{"metadata":{"name":"p1","labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"128Mi"}}}]}}`

// kubectlDebugPatch is the strategic merge patch `kubectl debug -it --image=busybox p1
// --target=c` sends to pods/ephemeralcontainers.
const kubectlDebugPatch = `{"spec":{"ephemeralContainers":[{"name":"debugger-x1","image":"busybox","resources":{},"terminationMessagePolicy":"File","imagePullPolicy":"Always","stdin":true,"tty":true,"targetContainerName":"c"}]}}`

// podSubresourceCases are the writes to pods' ephemeralcontainers and resize subresources
// (kubectl debug, in-place resize): what each may change, how they validate, and what the main
// resource does with the fields they own. Recorded from a kube-apiserver 1.37.2 into
// testdata/observed-podsub.json (TestRecordOraclePodSubresources), replayed by
// TestObservedPodSubresources.
var podSubresourceCases = []writeCase{
	{Name: "ephemeralcontainers", Steps: []writeStep{
		nsStep(),
		{Name: "create with an ephemeral container", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p0"},"spec":{"containers":[{"name":"c","image":"busybox"}],"ephemeralContainers":[{"name":"e","image":"busybox"}]}}`},
		{Name: "create", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: debugPodBody},
		{Name: "read the subresource", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers"},
		{Name: "read of a missing pod", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/nope/ephemeralcontainers"},
		{Name: "kubectl debug's patch", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers?fieldManager=kubectl-debug", ContentType: strategicPatch, Body: kubectlDebugPatch},
		{Name: "read", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
		{Name: "update adding a second", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", Body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","resourceVersion":"{rv}"},"spec":{"containers":[{"name":"c","image":"busybox"}],"ephemeralContainers":[{"name":"debugger-x1","image":"busybox","resources":{},"terminationMessagePolicy":"File","imagePullPolicy":"Always","stdin":true,"tty":true,"targetContainerName":"c"},{"name":"e2","image":"alpine","command":["sh"]}]}}`},
		{Name: "update with a stale resourceVersion", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", Body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","resourceVersion":"1"},"spec":{"containers":[{"name":"c","image":"busybox"}],"ephemeralContainers":[{"name":"e3","image":"busybox"}]}}`},
		{Name: "changing one", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", ContentType: strategicPatch, Body: `{"spec":{"ephemeralContainers":[{"name":"e2","image":"busybox:2"}]}}`},
		{Name: "removing one", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", ContentType: jsonPatch, Body: `[{"op":"remove","path":"/spec/ephemeralContainers/1"}]`},
		{Name: "a regular container's name", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", ContentType: strategicPatch, Body: `{"spec":{"ephemeralContainers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "fields ephemeral containers may not have", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", ContentType: strategicPatch, Body: `{"spec":{"ephemeralContainers":[{"name":"e4","image":"busybox","ports":[{"containerPort":80}],"readinessProbe":{"exec":{"command":["true"]}},"livenessProbe":{"exec":{"command":["true"]}},"startupProbe":{"exec":{"command":["true"]}},"lifecycle":{"preStop":{"exec":{"command":["true"]}}},"resources":{"requests":{"cpu":"1"}}}]}}`},
		{Name: "no image and a bad target", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", ContentType: strategicPatch, Body: `{"spec":{"ephemeralContainers":[{"name":"e5","targetContainerName":"nope"}]}}`},
		{Name: "changing the rest of the spec and labels", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", ContentType: mergePatch, Body: `{"metadata":{"labels":{"b":"2"}},"spec":{"activeDeadlineSeconds":30,"containers":[{"name":"c","image":"busybox:2"}],"ephemeralContainers":[{"name":"debugger-x1","image":"busybox","resources":{},"terminationMessagePolicy":"File","imagePullPolicy":"Always","stdin":true,"tty":true,"targetContainerName":"c"},{"name":"e2","image":"alpine","command":["sh"]},{"name":"e6","image":"busybox"}]},"status":{"phase":"Running"}}`},
		{Name: "the main resource adding one", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1", ContentType: strategicPatch, Body: `{"spec":{"ephemeralContainers":[{"name":"e7","image":"busybox"}]}}`},
		{Name: "the main resource removing them", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1", ContentType: jsonPatch, Body: `[{"op":"remove","path":"/spec/ephemeralContainers"}]`},
		{Name: "apply", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"ephemeralContainers":[{"name":"e8","image":"busybox"}]}}`},
		{Name: "dry run", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers?dryRun=All", ContentType: strategicPatch, Body: `{"spec":{"ephemeralContainers":[{"name":"e9","image":"busybox"}]}}`},
		{Name: "create through the subresource", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/ephemeralcontainers", Body: `{"metadata":{"name":"p1"}}`},
		{Name: "read again", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
	}},
	{Name: "resize", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: debugPodBody},
		{Name: "read the subresource", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1/resize"},
		{Name: "resize of an unscheduled pod", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize?fieldManager=rs", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}`},
		{Name: "node", Method: "POST", Path: "/api/v1/nodes", Body: `{"metadata":{"name":"n1"}}`},
		{Name: "bind", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/binding", Body: `{"metadata":{"name":"p1"},"target":{"kind":"Node","name":"n1"}}`},
		{Name: "resize on a node without allocatable resources", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"120m","memory":"96Mi"},"limits":{"cpu":"250m","memory":"256Mi"}}}]}}`},
		{Name: "node's allocatable resources", Method: "PATCH", Path: "/api/v1/nodes/n1/status", ContentType: mergePatch, Body: `{"status":{"capacity":{"cpu":"1","memory":"1Gi","pods":"10"},"allocatable":{"cpu":"1","memory":"1Gi","pods":"10"}}}`},
		{Name: "resize of a scheduled pod", Pause: 2 * time.Second, Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"120m","memory":"96Mi"},"limits":{"cpu":"250m","memory":"256Mi"}}}]}}`},
		{Name: "resize beyond the node's resources", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"2"}}}]}}`},
		{Name: "another pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p4"},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"800m","memory":"64Mi"}}}]}}`},
		{Name: "bind it to the node", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p4/binding", Body: `{"metadata":{"name":"p4"},"target":{"kind":"Node","name":"n1"}}`},
		{Name: "resize beyond what the node's other pods leave", Pause: time.Second, Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"300m"},"limits":{"cpu":"300m"}}}]}}`},
		{Name: "read", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
		{Name: "changing the image", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}`},
		{Name: "changing labels and the deadline", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: mergePatch, Body: `{"metadata":{"labels":{"b":"2"}},"spec":{"activeDeadlineSeconds":30},"status":{"phase":"Running"}}`},
		{Name: "an invalid quantity", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}`},
		{Name: "requests above limits", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]}}`},
		{Name: "removing limits", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: jsonPatch, Body: `[{"op":"remove","path":"/spec/containers/0/resources/limits"}]`},
		{Name: "a resource other than cpu and memory", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"ephemeral-storage":"1Gi"},"limits":{"ephemeral-storage":"1Gi"}}}]}}`},
		{Name: "resize policy", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resizePolicy":[{"resourceName":"memory","restartPolicy":"RestartContainer"}]}]}}`},
		{Name: "stale resourceVersion", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", Body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","resourceVersion":"1"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "the main resource changing resources", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"110m"}}}]}}`},
		{Name: "create with a resize policy", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p2"},"spec":{"containers":[{"name":"c","image":"busybox","resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"},{"resourceName":"memory","restartPolicy":"RestartContainer"}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}`},
		{Name: "resize of memory with a restart policy", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p2/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"memory":"32Mi"}}}]}}`},
		{Name: "read the second", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p2"},
		{Name: "guaranteed pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"limits":{"cpu":"100m","memory":"64Mi"}}},{"name":"d","image":"busybox","resources":{"limits":{"cpu":"100m","memory":"64Mi"}}}]}}`},
		{Name: "resize changing the QoS class", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p3/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"50m"}}}]}}`},
		{Name: "resize of both containers by update", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/p3/resize", Body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","image":"other","resources":{"limits":{"cpu":"200m","memory":"64Mi"}}},{"name":"d","image":"busybox","resources":{"limits":{"cpu":"300m","memory":"32Mi"},"requests":{"cpu":"300m","memory":"32Mi"}}}]}}`},
		{Name: "resize reordering containers", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p3/resize", ContentType: jsonPatch, Body: `[{"op":"move","from":"/spec/containers/1","path":"/spec/containers/0"}]`},
		{Name: "resize removing a container", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p3/resize", ContentType: jsonPatch, Body: `[{"op":"remove","path":"/spec/containers/1"}]`},
		{Name: "resize by apply", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p3/resize?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"250m","memory":"64Mi"}}}]}}`},
		{Name: "resize of a missing pod", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/nope/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"50m"}}}]}}`},
		{Name: "create through the subresource", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p3/resize", Body: `{"metadata":{"name":"p3"}}`},
	}},
	{Name: "resize-sidecar", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: sidecarPodBody},
		{Name: "resize the sidecar", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize?fieldManager=rs", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}`},
		{Name: "resize the sidecar and the container", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"memory":"96Mi"}}}],"containers":[{"name":"c","resources":{"requests":{"cpu":"120m"}}}]}}`},
		{Name: "resize the init container", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"init","resources":{"requests":{"cpu":"60m"},"limits":{"cpu":"120m"}}}]}}`},
		{Name: "change the sidecar's image", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","image":"busybox:2"}]}}`},
		{Name: "the sidecar's resize policy", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resizePolicy":[{"resourceName":"memory","restartPolicy":"RestartContainer"}]}]}}`},
		{Name: "remove the sidecar's limits", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: jsonPatch, Body: `[{"op":"remove","path":"/spec/initContainers/0/resources/limits"}]`},
		{Name: "a sidecar resource other than cpu and memory", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"ephemeral-storage":"1Gi"},"limits":{"ephemeral-storage":"1Gi"}}}]}}`},
		{Name: "reorder the init containers", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: jsonPatch, Body: `[{"op":"move","from":"/spec/initContainers/1","path":"/spec/initContainers/0"}]`},
		{Name: "sidecar requests above limits", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"cpu":"500m"}}}]}}`},
		{Name: "resize the sidecar by update", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", Body: sidecarPodUpdate},
		{Name: "resize the sidecar by apply", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"initContainers":[{"name":"side","resources":{"limits":{"cpu":"280m"}}}]}}`},
		{Name: "read", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
		{Name: "node", Method: "POST", Path: "/api/v1/nodes", Body: `{"metadata":{"name":"n-side"}}`},
		{Name: "node's allocatable resources", Method: "PATCH", Path: "/api/v1/nodes/n-side/status", ContentType: mergePatch, Body: `{"status":{"capacity":{"cpu":"1","memory":"1Gi","pods":"10"},"allocatable":{"cpu":"1","memory":"1Gi","pods":"10"}}}`},
		{Name: "bind", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/binding", Body: `{"metadata":{"name":"p1"},"target":{"kind":"Node","name":"n-side"}}`},
		{Name: "resize the sidecar of a scheduled pod", Pause: 2 * time.Second, Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"cpu":"200m"}}}]}}`},
		{Name: "the sidecar beyond the node's resources", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"cpu":"950m"},"limits":{"cpu":"1"}}}]}}`},
		{Name: "read again", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
		{Name: "a windows node", Method: "PATCH", Path: "/api/v1/nodes/n-side", ContentType: mergePatch, Body: `{"metadata":{"labels":{"kubernetes.io/os":"windows"}}}`},
		{Name: "resize on a windows node", Pause: time.Second, Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"cpu":"210m"}}}]}}`},
		{Name: "a resize that changes nothing on a windows node", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"cpu":"200m"}}}]}}`},
		{Name: "pod on a missing node", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p2"},"spec":{"nodeName":"n-missing","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}}]}}`},
		{Name: "resize on a missing node", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p2/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"}}}]}}`},
	}},
}

// sidecarPodBody is a pod with a sidecar (an init container that restarts Always), a plain init
// container and a container, all with cpu and memory requests and limits.
const sidecarPodBody = `{"metadata":{"name":"p1"},"spec":{"initContainers":[` +
	`{"name":"side","image":"busybox","restartPolicy":"Always","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"128Mi"}}},` +
	`{"name":"init","image":"busybox","resources":{"requests":{"cpu":"50m","memory":"32Mi"},"limits":{"cpu":"100m","memory":"64Mi"}}}],` +
	`"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"128Mi"}}}]}}`

// sidecarPodUpdate is sidecarPodBody's pod sent whole to resize, its sidecar's cpu changed and
// its init container's image changed.
const sidecarPodUpdate = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"initContainers":[` +
	`{"name":"side","image":"busybox","restartPolicy":"Always","resources":{"requests":{"cpu":"110m","memory":"96Mi"},"limits":{"cpu":"220m","memory":"128Mi"}}},` +
	`{"name":"init","image":"other","resources":{"requests":{"cpu":"50m","memory":"32Mi"},"limits":{"cpu":"100m","memory":"64Mi"}}}],` +
	`"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"120m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"128Mi"}}}]}}`

// podSubresourceRecording is the record of podSubresourceCases.
var podSubresourceRecording = recording{cases: podSubresourceCases, file: "testdata/observed-podsub.json", markdown: "observed-podsub.md",
	title: "pods' ephemeralcontainers and resize", recorder: "TestRecordOraclePodSubresources", replayer: "TestObservedPodSubresources", source: "record_podsub_test.go"}

// TestRecordOraclePodSubresources records podSubresourceCases from a fresh kube-apiserver as
// TestRecordOracle records writeCases.
func TestRecordOraclePodSubresources(t *testing.T) {
	podSubresourceRecording.record(t, oracleServer(t))
}

// TestObservedPodSubresources replays the recorded writes to pods' subresources against the fake.
// The PodScheduled condition a binding adds has the server's time, which differs between the two
// servers as the normalized times do.
func TestObservedPodSubresources(t *testing.T) {
	podSubresourceRecording.replay(t, noControllers, func(_ string, got, want *observedStep) {
		for _, s := range []*observedStep{got, want} {
			s.Response = mapLeaves(s.Response, func(v any, key, _ string) any {
				if key == "lastTransitionTime" && v != nil {
					return "<time>"
				}
				return v
			})
		}
	})
}
