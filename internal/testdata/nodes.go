package testdata

import "strconv"

// Node layout: the first three nodes of a cluster with more than ten are
// tainted control-plane nodes; the rest are workers spread over three
// zones. Pods are placed on any node (PodNode), as if they tolerated the
// control-plane taint, so that every node carries pods.
const controlPlaneNodes = 3

var (
	zones         = [...]string{"zone-a", "zone-b", "zone-c"}
	instanceTypes = [...]struct{ name, cpu, memKi, allocCPU, allocMemKi string }{
		{"m5.xlarge", "4", "16106128Ki", "3920m", "15184528Ki"},
		{"m5.2xlarge", "8", "32408356Ki", "7910m", "31391524Ki"},
		{"m5.4xlarge", "16", "64932552Ki", "15890m", "63001288Ki"},
		{"c5.2xlarge", "8", "15896644Ki", "7910m", "14879812Ki"},
	}
)

// Node returns node j with metadata.resourceVersion rv (omitted when rv is
// 0): labels for hostname, zone, role and instance type; spec.podCIDR
// 10.244.j.0/24 (j-th /24 from 10.244.0.0); about 3% of workers cordoned
// (unschedulable plus the matching taint) and 5% tainted for GPUs; a Ready
// condition and node info as a kubelet reports them.
func (g *Generator) Node(j int, rv uint64) []byte {
	key := sub(g.key^saltNode, uint64(j))
	w := g.pool.Get().(*jw)
	w.b = w.b[:0]
	controlPlane := j < controlPlaneNodes && g.cfg.Nodes > 10
	cordoned := !controlPlane && per(sub(key, 1), 0, 30)
	gpu := !controlPlane && !cordoned && per(sub(key, 2), 0, 50)
	zone := zones[sub(key, 3)%uint64(len(zones))]
	it := &instanceTypes[sub(key, 4)%uint64(len(instanceTypes))]
	created := baseTime - 90*86400 + int64(j)*600

	w.obj("")
	w.str("kind", "Node")
	w.str("apiVersion", "v1")
	w.obj("metadata")
	w.str("name", g.NodeName(j))
	w.open("uid")
	w.b = appendUID(w.b, key)
	w.close()
	w.rv(rv)
	w.time("creationTimestamp", created)
	w.obj("labels")
	w.str("beta.kubernetes.io/arch", "amd64")
	w.str("beta.kubernetes.io/os", "linux")
	w.str("kubernetes.io/arch", "amd64")
	w.str("kubernetes.io/hostname", g.NodeName(j))
	w.str("kubernetes.io/os", "linux")
	if controlPlane {
		w.str("node-role.kubernetes.io/control-plane", "")
	} else {
		w.str("node-role.kubernetes.io/worker", "")
	}
	w.str("node.kubernetes.io/instance-type", it.name)
	w.str("topology.kubernetes.io/region", "region-1")
	w.str("topology.kubernetes.io/zone", zone)
	w.end()
	w.obj("annotations")
	w.str("node.alpha.kubernetes.io/ttl", "0")
	w.str("volumes.kubernetes.io/controller-managed-attach-detach", "true")
	w.end()
	w.end() // metadata

	w.obj("spec")
	p, q := nodePodCIDRPrefix(j)
	w.open("podCIDR")
	w.b = appendIPv4(w.b, 10, p, q, 0)
	w.b = append(w.b, "/24"...)
	w.close()
	w.arr("podCIDRs")
	w.open("")
	w.b = appendIPv4(w.b, 10, p, q, 0)
	w.b = append(w.b, "/24"...)
	w.close()
	w.endArr()
	w.open("providerID")
	w.b = append(w.b, "aws:///"...)
	w.b = append(w.b, zone...)
	w.b = append(w.b, "/i-0"...)
	w.b = appendHex(w.b, sub(key, 5), 16)
	w.close()
	if cordoned {
		w.bool("unschedulable", true)
	}
	if controlPlane || cordoned || gpu {
		w.arr("taints")
		switch {
		case controlPlane:
			w.b = append(w.b, `{"key":"node-role.kubernetes.io/control-plane","effect":"NoSchedule"}`...)
		case cordoned:
			w.obj("")
			w.str("key", "node.kubernetes.io/unschedulable")
			w.str("effect", "NoSchedule")
			w.time("timeAdded", baseTime+int64(sub(key, 6)%(30*86400)))
			w.end()
		default:
			w.b = append(w.b, `{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}`...)
		}
		w.endArr()
	}
	w.end() // spec

	heartbeat := baseTime + 30*86400 + int64(sub(key, 7)%600)
	w.obj("status")
	w.obj("capacity")
	w.str("cpu", it.cpu)
	w.str("ephemeral-storage", "101430960Ki")
	w.str("hugepages-1Gi", "0")
	w.str("hugepages-2Mi", "0")
	w.str("memory", it.memKi)
	w.str("pods", "110")
	w.end()
	w.obj("allocatable")
	w.str("cpu", it.allocCPU)
	w.str("ephemeral-storage", "93478772582")
	w.str("hugepages-1Gi", "0")
	w.str("hugepages-2Mi", "0")
	w.str("memory", it.allocMemKi)
	w.str("pods", "110")
	w.end()
	w.arr("conditions")
	for _, c := range [...]struct{ typ, status, reason, message string }{
		{"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
		{"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
		{"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
		{"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
	} {
		w.obj("")
		w.str("type", c.typ)
		w.str("status", c.status)
		w.time("lastHeartbeatTime", heartbeat)
		w.time("lastTransitionTime", created+60)
		w.str("reason", c.reason)
		w.str("message", c.message)
		w.end()
	}
	w.endArr()
	w.arr("addresses")
	w.obj("")
	w.str("type", "InternalIP")
	w.open("address")
	w.b = nodeHostIP(w.b, j)
	w.close()
	w.end()
	w.obj("")
	w.str("type", "Hostname")
	w.str("address", g.NodeName(j))
	w.end()
	w.endArr()
	w.b = append(w.b, `,"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}`...)
	w.obj("nodeInfo")
	w.open("machineID")
	w.b = appendHex(w.b, sub(key, 8), 32)
	w.close()
	w.open("systemUUID")
	w.b = appendUID(w.b, sub(key, 9))
	w.close()
	w.open("bootID")
	w.b = appendUID(w.b, sub(key, 10))
	w.close()
	w.str("kernelVersion", "6.8.0-1015-aws")
	w.str("osImage", "Ubuntu 24.04.1 LTS")
	w.str("containerRuntimeVersion", "containerd://1.7.22")
	w.str("kubeletVersion", "v1.31.2")
	w.str("kubeProxyVersion", "")
	w.str("operatingSystem", "linux")
	w.str("architecture", "amd64")
	w.end()
	w.end() // status
	w.end()
	return g.finish(w)
}

// Namespace returns namespace k ("ns-%d") with metadata.resourceVersion rv
// (omitted when rv is 0), shaped as kube-apiserver stores it.
func (g *Generator) Namespace(k int, rv uint64) []byte {
	key := sub(g.key^saltNamespace, uint64(k))
	name := "ns-" + strconv.Itoa(k)
	w := g.pool.Get().(*jw)
	w.b = w.b[:0]
	w.obj("")
	w.str("kind", "Namespace")
	w.str("apiVersion", "v1")
	w.obj("metadata")
	w.str("name", name)
	w.open("uid")
	w.b = appendUID(w.b, key)
	w.close()
	w.rv(rv)
	w.time("creationTimestamp", baseTime-86400+int64(k)*60)
	w.obj("labels")
	w.str("kubernetes.io/metadata.name", name)
	w.end()
	w.end()
	w.b = append(w.b, `,"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`...)
	return g.finish(w)
}
