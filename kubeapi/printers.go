package kubeapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// The printers below port k8s.io/kubernetes v1.37.2 pkg/printers/internalversion/printers.go
// (printPod, printNode, printNamespace) from typed objects to gjson reads of the stored JSON, so
// that `kubectl get` shows what it shows against a kube-apiserver. The apiserver prints wide
// (GenerateOptions{Wide: true}): priority-1 columns are always filled.

// sections returns the top-level metadata, spec and status of an object in one pass.
func sections(obj []byte) (meta, spec, status gjson.Result) {
	gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "metadata":
			meta = v
		case "spec":
			spec = v
		case "status":
			status = v
		}
		return true
	})
	return meta, spec, status
}

// metaAnd returns the top-level metadata and the top-level field name of an object in one pass,
// for kinds whose printer reads a field beside metadata rather than spec and status.
func metaAnd(obj []byte, name string) (meta, field gjson.Result) {
	gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "metadata":
			meta = v
		case name:
			field = v
		}
		return true
	})
	return meta, field
}

// present reports whether a JSON value is there and not null (a Go pointer field that is set).
func present(r gjson.Result) bool { return r.Exists() && r.Type != gjson.Null }

// PodPrinter prints pods as kubectl shows them: NAME, READY, STATUS, RESTARTS, AGE, and for
// `-o wide` IP, NODE, NOMINATED NODE, READINESS GATES.
func PodPrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."},
			{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod."},
			{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
			ageColumn,
			{Name: "IP", Type: "string", Priority: 1, Description: "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."},
			{Name: "Node", Type: "string", Priority: 1, Description: "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"},
			{Name: "Nominated Node", Type: "string", Priority: 1, Description: "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled."},
			{Name: "Readiness Gates", Type: "string", Priority: 1, Description: "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"},
		},
		Row: podRow,
	}
}

var (
	podSuccessConditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: "Succeeded", Message: "The pod has completed successfully."}}
	podFailedConditions  = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: "Failed", Message: "The pod failed."}}
)

// podRow is printPod.
func podRow(obj []byte, now time.Time) metav1.TableRow {
	meta, spec, status := sections(obj)
	var row metav1.TableRow

	restarts, restartableInitRestarts := 0, 0
	totalContainers := len(spec.Get("containers").Array())
	readyContainers := 0
	var lastRestart, lastRestartableInitRestart time.Time

	phase := status.Get("phase").String()
	reason := phase
	if r := status.Get("reason").String(); r != "" {
		reason = r
	}
	conditions := status.Get("conditions").Array()
	for _, c := range conditions {
		if c.Get("type").String() == "PodScheduled" && c.Get("reason").String() == "SchedulingGated" {
			reason = "SchedulingGated"
		}
	}
	switch phase {
	case "Succeeded":
		row.Conditions = podSuccessConditions
	case "Failed":
		row.Conditions = podFailedConditions
	}

	initSpecs := spec.Get("initContainers").Array()
	restartable := make(map[string]bool, len(initSpecs))
	for _, c := range initSpecs {
		if c.Get("restartPolicy").String() == "Always" {
			restartable[c.Get("name").String()] = true
			totalContainers++
		}
	}
	later := func(t *time.Time, c gjson.Result) {
		if term := c.Get("lastState.terminated"); present(term) {
			if f, ok := timestamp(term.Get("finishedAt")); ok && t.Before(f) {
				*t = f
			}
		}
	}

	initializing := false
	for i, c := range status.Get("initContainerStatuses").Array() {
		n := int(c.Get("restartCount").Int())
		restarts += n
		later(&lastRestart, c)
		sidecar := restartable[c.Get("name").String()]
		if sidecar {
			restartableInitRestarts += n
			later(&lastRestartableInitRestart, c)
		}
		term, wait := c.Get("state.terminated"), c.Get("state.waiting")
		switch {
		case present(term) && term.Get("exitCode").Int() == 0:
			continue
		case sidecar && c.Get("started").Bool():
			if c.Get("ready").Bool() {
				readyContainers++
			}
			continue
		case present(term):
			switch {
			case term.Get("reason").String() != "":
				reason = "Init:" + term.Get("reason").String()
			case term.Get("signal").Int() != 0:
				reason = fmt.Sprintf("Init:Signal:%d", term.Get("signal").Int())
			default:
				reason = fmt.Sprintf("Init:ExitCode:%d", term.Get("exitCode").Int())
			}
			initializing = true
		case present(wait) && wait.Get("reason").String() != "" && wait.Get("reason").String() != "PodInitializing":
			reason = "Init:" + wait.Get("reason").String()
			initializing = true
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(initSpecs))
			initializing = true
		}
		break
	}

	if !initializing || hasCondition(conditions, "Initialized") {
		restarts = restartableInitRestarts
		lastRestart = lastRestartableInitRestart
		hasRunning := false
		errorReason := ""
		statuses := status.Get("containerStatuses").Array()
		for i := len(statuses) - 1; i >= 0; i-- {
			c := statuses[i]
			restarts += int(c.Get("restartCount").Int())
			later(&lastRestart, c)
			term, wait := c.Get("state.terminated"), c.Get("state.waiting")
			switch {
			case present(wait) && wait.Get("reason").String() != "":
				reason = wait.Get("reason").String()
			case present(term):
				switch {
				case term.Get("reason").String() != "":
					reason = term.Get("reason").String()
				case term.Get("signal").Int() != 0:
					reason = fmt.Sprintf("Signal:%d", term.Get("signal").Int())
				default:
					reason = fmt.Sprintf("ExitCode:%d", term.Get("exitCode").Int())
				}
				if term.Get("exitCode").Int() != 0 {
					errorReason = reason
				}
			case c.Get("ready").Bool() && present(c.Get("state.running")):
				hasRunning = true
				readyContainers++
			}
		}
		if reason == "Completed" {
			switch {
			case hasRunning && hasCondition(conditions, "Ready"):
				reason = "Running"
			case errorReason != "":
				reason = errorReason
			case hasRunning:
				reason = "NotReady"
			}
		}
	}

	if deleting := present(meta.Get("deletionTimestamp")); deleting && status.Get("reason").String() == "NodeLost" {
		reason = "Unknown"
	} else if deleting && phase != "Failed" && phase != "Succeeded" {
		reason = "Terminating"
	}

	restartsCell := strconv.Itoa(restarts)
	if restarts != 0 && !lastRestart.IsZero() {
		restartsCell = fmt.Sprintf("%d (%s ago)", restarts, duration.HumanDuration(now.Sub(lastRestart)))
	}

	podIP := status.Get("podIPs.0.ip").String()
	readinessGates := "<none>"
	if gates := spec.Get("readinessGates").Array(); len(gates) > 0 {
		trueConditions := 0
		for _, g := range gates {
			typ := g.Get("conditionType").String()
			for _, c := range conditions {
				if c.Get("type").String() == typ {
					if c.Get("status").String() == "True" {
						trueConditions++
					}
					break
				}
			}
		}
		readinessGates = fmt.Sprintf("%d/%d", trueConditions, len(gates))
	}
	row.Cells = []any{
		meta.Get("name").String(),
		fmt.Sprintf("%d/%d", readyContainers, totalContainers),
		reason,
		restartsCell,
		age(meta.Get("creationTimestamp"), now),
		orNone(podIP),
		orNone(spec.Get("nodeName").String()),
		orNone(status.Get("nominatedNodeName").String()),
		readinessGates,
	}
	return row
}

// hasCondition reports whether the condition of that type has status True.
func hasCondition(conditions []gjson.Result, typ string) bool {
	for _, c := range conditions {
		if c.Get("type").String() == typ {
			return c.Get("status").String() == "True"
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// NodePrinter prints nodes as kubectl shows them: NAME, STATUS (Ready/NotReady/Unknown, plus
// SchedulingDisabled when cordoned), ROLES, AGE, VERSION, and for `-o wide` INTERNAL-IP,
// EXTERNAL-IP, OS-IMAGE, KERNEL-VERSION, CONTAINER-RUNTIME.
func NodePrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Status", Type: "string", Description: "The status of the node"},
			{Name: "Roles", Type: "string", Description: "The roles of the node"},
			ageColumn,
			{Name: "Version", Type: "string", Description: "Kubelet Version reported by the node."},
			{Name: "Internal-IP", Type: "string", Priority: 1, Description: nodeAddressesDoc},
			{Name: "External-IP", Type: "string", Priority: 1, Description: nodeAddressesDoc},
			{Name: "OS-Image", Type: "string", Priority: 1, Description: "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."},
			{Name: "Kernel-Version", Type: "string", Priority: 1, Description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."},
			{Name: "Container-Runtime", Type: "string", Priority: 1, Description: "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."},
		},
		Row: nodeRow,
	}
}

const nodeAddressesDoc = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP)."

// nodeRow is printNode.
func nodeRow(obj []byte, now time.Time) metav1.TableRow {
	meta, spec, status := sections(obj)
	// printNode keys conditions by type (the last one of a type wins) and reports only Ready.
	st := []string{"Unknown"}
	for _, c := range status.Get("conditions").Array() {
		if c.Get("type").String() == "Ready" {
			st[0] = "NotReady"
			if c.Get("status").String() == "True" {
				st[0] = "Ready"
			}
		}
	}
	if spec.Get("unschedulable").Bool() {
		st = append(st, "SchedulingDisabled")
	}

	roles := map[string]bool{}
	meta.Get("labels").ForEach(func(k, v gjson.Result) bool {
		switch {
		case strings.HasPrefix(k.Str, "node-role.kubernetes.io/"):
			if role := strings.TrimPrefix(k.Str, "node-role.kubernetes.io/"); role != "" {
				roles[role] = true
			}
		case k.Str == "kubernetes.io/role" && v.String() != "":
			roles[v.String()] = true
		}
		return true
	})
	names := make([]string, 0, len(roles))
	for r := range roles {
		names = append(names, r)
	}
	sort.Strings(names)

	info := status.Get("nodeInfo")
	kernel := orUnknown(info.Get("kernelVersion").String())
	if arch := info.Get("architecture").String(); arch != "" {
		kernel += " (" + arch + ")"
	}
	internal, external := "<none>", "<none>"
	addrs := status.Get("addresses").Array()
	for i := len(addrs) - 1; i >= 0; i-- { // the first of each type wins
		switch addrs[i].Get("type").String() {
		case "InternalIP":
			internal = addrs[i].Get("address").String()
		case "ExternalIP":
			external = addrs[i].Get("address").String()
		}
	}
	return metav1.TableRow{Cells: []any{
		meta.Get("name").String(),
		strings.Join(st, ","),
		orNone(strings.Join(names, ",")),
		age(meta.Get("creationTimestamp"), now),
		info.Get("kubeletVersion").String(),
		internal,
		external,
		orUnknown(info.Get("osImage").String()),
		kernel,
		orUnknown(info.Get("containerRuntimeVersion").String()),
	}}
}

// NamespacePrinter prints namespaces as kubectl shows them: NAME, STATUS, AGE.
func NamespacePrinter() *Printer {
	return &Printer{
		Columns: []metav1.TableColumnDefinition{
			nameColumn,
			{Name: "Status", Type: "string", Description: "The status of the namespace"},
			ageColumn,
		},
		Row: func(obj []byte, now time.Time) metav1.TableRow {
			meta, _, status := sections(obj)
			return metav1.TableRow{Cells: []any{
				meta.Get("name").String(), status.Get("phase").String(), age(meta.Get("creationTimestamp"), now),
			}}
		},
	}
}
