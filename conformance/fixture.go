package conformance

import (
	"encoding/json"
	"fmt"
)

// pod is the suite's model of one pod: the fields the rules select on, rendered as the JSON a
// kube-apiserver would store (field order fixed by the structs below).
type pod struct {
	ns, name    string
	rv          uint64
	node        string
	labels      map[string]string
	phase       string
	restart     string
	scheduler   string
	sa          string
	hostNetwork bool
	podIP       string
	podIPs      []string
	nominated   string
}

func (p pod) key() string { return p.ns + "/" + p.name }

type podJSON struct {
	Kind       string      `json:"kind"`
	APIVersion string      `json:"apiVersion"`
	Metadata   podMeta     `json:"metadata"`
	Spec       podSpecJSON `json:"spec"`
	Status     podStatus   `json:"status"`
}

type podMeta struct {
	Name            string            `json:"name"`
	Namespace       string            `json:"namespace"`
	ResourceVersion string            `json:"resourceVersion"`
	Labels          map[string]string `json:"labels,omitempty"`
}

type podSpecJSON struct {
	Containers         []container `json:"containers"`
	RestartPolicy      string      `json:"restartPolicy,omitempty"`
	NodeName           string      `json:"nodeName,omitempty"`
	ServiceAccountName string      `json:"serviceAccountName,omitempty"`
	HostNetwork        bool        `json:"hostNetwork,omitempty"`
	SchedulerName      string      `json:"schedulerName,omitempty"`
}

type container struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

type podStatus struct {
	Phase             string  `json:"phase,omitempty"`
	NominatedNodeName string  `json:"nominatedNodeName,omitempty"`
	PodIP             string  `json:"podIP,omitempty"`
	PodIPs            []podIP `json:"podIPs,omitempty"`
}

type podIP struct {
	IP string `json:"ip"`
}

// json renders the pod with metadata.resourceVersion = p.rv.
func (p pod) json() []byte {
	o := podJSON{
		Kind: "Pod", APIVersion: "v1",
		Metadata: podMeta{Name: p.name, Namespace: p.ns, ResourceVersion: rvString(p.rv), Labels: p.labels},
		Spec: podSpecJSON{
			Containers:    []container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
			RestartPolicy: p.restart, NodeName: p.node, ServiceAccountName: p.sa,
			HostNetwork: p.hostNetwork, SchedulerName: p.scheduler,
		},
		Status: podStatus{Phase: p.phase, NominatedNodeName: p.nominated, PodIP: p.podIP},
	}
	for _, ip := range p.podIPs {
		o.Status.PodIPs = append(o.Status.PodIPs, podIP{IP: ip})
	}
	data, err := json.Marshal(o)
	if err != nil {
		panic(err) // plain structs always marshal
	}
	return data
}

// fixturePods is the state every subtest starts from: namespaces ns-0, ns-1, ns-2 with pods
// pod-00..pod-07 each, in key order. Pod i of every namespace:
//
//	spec.nodeName        node-(i%3); pod-07 is unscheduled ("")
//	labels               app=web (even i) or db (odd i), rank=<i>, tier=frontend for i<4; pod-05 has no labels
//	status.phase         Running; pod-03 and pod-07 Pending
//	spec.restartPolicy   Always; pod-03 Never
//	spec.schedulerName   default-scheduler; pod-02 custom
//	spec.hostNetwork     true for pod-02, absent otherwise
//	spec.serviceAccountName  default; pod-04 builder
//	status.podIPs        [10.<ns>.0.<i>, fd00::<ns>:<i>] when scheduled; status.podIP the first, except
//	                     pod-06, which has only podIPs
//	status.nominatedNodeName node-2 for pod-06
func fixturePods() []pod {
	var out []pod
	for ns := range 3 {
		for i := range 8 {
			out = append(out, fixturePod(ns, i))
		}
	}
	return out
}

func fixturePod(ns, i int) pod {
	p := pod{
		ns: fmt.Sprintf("ns-%d", ns), name: fmt.Sprintf("pod-%02d", i),
		node: fmt.Sprintf("node-%d", i%3), phase: "Running", restart: "Always",
		scheduler: "default-scheduler", sa: "default",
	}
	if i != 5 {
		app := "web"
		if i%2 == 1 {
			app = "db"
		}
		p.labels = map[string]string{"app": app, "rank": fmt.Sprint(i)}
		if i < 4 {
			p.labels["tier"] = "frontend"
		}
	}
	switch i {
	case 2:
		p.hostNetwork, p.scheduler = true, "custom"
	case 3:
		p.phase, p.restart = "Pending", "Never"
	case 4:
		p.sa = "builder"
	case 6:
		p.nominated = "node-2"
	case 7:
		p.node, p.phase = "", "Pending"
	}
	if p.node != "" {
		ip := fmt.Sprintf("10.%d.0.%d", ns, i)
		p.podIPs = []string{ip, fmt.Sprintf("fd00::%d:%d", ns, i)}
		if i != 6 {
			p.podIP = ip
		}
	}
	return p
}

// newPod returns a pod in ns named name on node with labels, in the fixture's defaults.
func newPod(ns, name, node string, labels map[string]string) pod {
	return pod{ns: ns, name: name, node: node, labels: labels, phase: "Running", restart: "Always",
		scheduler: "default-scheduler", sa: "default"}
}
