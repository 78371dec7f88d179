package testdata

import "strconv"

// This file renders a resolved podState as Pod JSON, in the field order
// kube-apiserver uses.

// podTemplateHash is shared by all pods of one app at one version, as a
// ReplicaSet's pods share it.
func (g *Generator) podTemplateHash(b []byte, app, ver int) []byte {
	h := sub(g.key^saltRS, uint64(app)<<8|uint64(ver))
	const safe = "bcdfghjklmnpqrstvwxz2456789" // rand.SafeEncodeString's alphabet
	for n := 0; n < 10; n++ {
		b = append(b, safe[h%uint64(len(safe))])
		h /= uint64(len(safe))
	}
	return b
}

func (g *Generator) writePod(w *jw, s *podState, rv uint64) {
	app := s.app
	w.obj("")
	w.str("kind", "Pod")
	w.str("apiVersion", "v1")

	w.obj("metadata")
	w.open("name")
	w.b = append(w.b, "pod-"...)
	w.b = appendPadded(w.b, s.i, 6)
	w.close()
	w.open("namespace")
	w.b = append(w.b, "ns-"...)
	w.b = strconv.AppendInt(w.b, int64(s.ns), 10)
	w.close()
	w.open("uid")
	w.b = appendUID(w.b, s.key)
	w.close()
	w.rv(rv)
	w.int("generation", int64(s.version)+1)
	w.time("creationTimestamp", s.created)
	w.obj("labels")
	w.str("app", app.name)
	w.open("pod-template-hash")
	w.b = g.podTemplateHash(w.b, app.index, s.ver)
	w.close()
	w.str("team", teams[s.team])
	w.str("tier", tiers[s.tier])
	w.open("version")
	w.b = append(w.b, 'v')
	w.b = strconv.AppendInt(w.b, int64(s.ver), 10)
	w.close()
	w.end()
	if app.configVolume || app.scrape || s.annotStep > 0 {
		g.writePodAnnotations(w, s)
	}
	w.arr("ownerReferences")

	w.obj("")
	w.str("apiVersion", "apps/v1")
	w.str("kind", "ReplicaSet")
	w.open("name")
	w.b = append(w.b, app.name...)
	w.b = append(w.b, '-')
	w.b = g.podTemplateHash(w.b, app.index, s.ver)
	w.close()
	rsUID := sub(g.key^saltRS, 1<<40|uint64(s.ns)<<16|uint64(app.index)<<8|uint64(s.ver))
	w.open("uid")
	w.b = appendUID(w.b, rsUID)
	w.close()
	w.bool("controller", true)
	w.bool("blockOwnerDeletion", true)
	w.end()
	w.endArr()
	g.writePodManagedFields(w, s, rsUID)
	w.end() // metadata

	g.writePodSpec(w, s)
	g.writePodStatus(w, s)
	w.end()
}

func (g *Generator) writePodAnnotations(w *jw, s *podState) {
	app := s.app
	w.obj("annotations")
	if app.configVolume {
		// The template's checksum, shared by the app's pods until an
		// update restamps this pod.
		sum := sub(g.key^saltChecksum, uint64(app.index))
		if s.annotStep > 0 {
			sum = sub(stepKey(s.key, s.annotStep), saltChecksum)
		}
		w.open("checksum/config")
		w.b = appendHex(w.b, sum, 64)
		w.close()
	}
	if s.annotStep > 0 {
		w.time("kubectl.kubernetes.io/restartedAt", s.stepTime(s.annotStep))
	}
	if app.scrape {
		w.open("prometheus.io/port")
		w.b = strconv.AppendInt(w.b, int64(app.metricsPort), 10)
		w.close()
		w.str("prometheus.io/scrape", "true")
	}
	w.end()
}

// writePodManagedFields writes the field owners of a Deployment's pod. Real
// entries list every leaf of the template; these stop at the first level
// below a keyed list (containers by name, owners by uid), which keeps the
// shape — managers, subresource, k:{...} keys — at a fraction of the bytes.
func (g *Generator) writePodManagedFields(w *jw, s *podState, rsUID uint64) {
	app := s.app
	w.arr("managedFields")

	// The ReplicaSet controller created the pod from its template.
	w.obj("")
	w.str("manager", "kube-controller-manager")
	w.str("operation", "Update")
	w.str("apiVersion", "v1")
	w.time("time", s.created)
	w.str("fieldsType", "FieldsV1")
	w.obj("fieldsV1")
	w.obj("f:metadata")
	if app.configVolume || app.scrape {
		w.leaf("f:annotations")
	}
	w.leaf("f:labels")
	w.obj("f:ownerReferences")
	w.leaf(".")
	w.key("")
	w.b = append(w.b, `"k:{\"uid\":\"`...)
	w.b = appendUID(w.b, rsUID)
	w.b = append(w.b, `\"}":{}`...)
	w.end()
	w.end() // f:metadata
	w.obj("f:spec")
	w.obj("f:containers")
	for c := 0; c < app.containers; c++ {
		w.key("")
		w.b = append(w.b, `"k:{\"name\":\"`...)
		w.b = append(w.b, app.containerName(c)...)
		w.b = append(w.b, `\"}":{}`...)
	}
	w.end() // f:containers
	w.leaf("f:volumes")
	w.end() // f:spec
	w.end() // fieldsV1
	w.end()

	// Later edits to labels and annotations.
	if s.specStep > 0 {
		w.obj("")
		w.str("manager", "kubectl-patch")
		w.str("operation", "Update")
		w.str("apiVersion", "v1")
		w.time("time", s.stepTime(s.specStep))
		w.str("fieldsType", "FieldsV1")
		w.key("fieldsV1")
		w.b = append(w.b, `{"f:metadata":{"f:annotations":{},"f:labels":{"f:tier":{},"f:version":{}}}}`...)
		w.end()
	}

	// Status: the kubelet for a bound pod, the scheduler for one it could
	// not place.
	w.obj("")
	if s.scheduled() {
		w.str("manager", "kubelet")
		w.str("operation", "Update")
		w.str("apiVersion", "v1")
		w.time("time", s.stepTime(s.statusStep)+9)
		w.str("fieldsType", "FieldsV1")
		w.obj("fieldsV1")
		w.obj("f:status")
		w.leaf("f:conditions")
		w.leaf("f:containerStatuses")
		w.leaf("f:hostIP")
		w.leaf("f:phase")
		if s.hasPodIP() {
			w.leaf("f:podIP")
			w.leaf("f:podIPs")
		}
		w.leaf("f:startTime")
		w.end()
		w.end()
	} else {
		w.str("manager", "kube-scheduler")
		w.str("operation", "Update")
		w.str("apiVersion", "v1")
		w.time("time", s.created)
		w.str("fieldsType", "FieldsV1")
		w.key("fieldsV1")
		w.b = append(w.b, `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{}}}}`...)
	}
	w.str("subresource", "status")
	w.end()
	w.endArr()
}

func (g *Generator) writePodSpec(w *jw, s *podState) {
	app := s.app
	w.obj("spec")
	w.arr("volumes")
	if app.configVolume {
		w.obj("")
		w.str("name", "config")
		w.obj("configMap")
		w.open("name")
		w.b = append(w.b, app.name...)
		w.b = append(w.b, "-config"...)
		w.close()
		w.int("defaultMode", 420)
		w.end()
		w.end()
	}
	w.obj("")
	w.open("name")
	w.b = g.appendTokenVolume(w.b, s)
	w.close()
	w.obj("secret")
	w.open("secretName")
	w.b = g.appendTokenVolume(w.b, s)
	w.close()
	w.int("defaultMode", 420)
	w.end()
	w.end()
	w.endArr()

	w.arr("containers")
	for c := 0; c < app.containers; c++ {
		g.writeContainer(w, s, c)
	}
	w.endArr()
	w.str("restartPolicy", app.restartPolicy)
	w.int("terminationGracePeriodSeconds", int64(app.grace))
	if s.hostNet {
		w.str("dnsPolicy", "ClusterFirstWithHostNet")
	} else {
		w.str("dnsPolicy", "ClusterFirst")
	}
	w.str("serviceAccountName", app.serviceAccount)
	if s.scheduled() {
		w.open("nodeName")
		w.b = append(w.b, "node-"...)
		w.b = strconv.AppendInt(w.b, int64(s.node), 10)
		w.close()
	}
	if s.hostNet {
		w.bool("hostNetwork", true)
	}
	if s.customSched {
		w.str("schedulerName", "custom-scheduler")
	} else {
		w.str("schedulerName", "default-scheduler")
	}
	w.arr("tolerations")
	if s.gpu {
		w.b = append(w.b, `{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},`...)
	}
	w.b = append(w.b, `{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}`...)
	w.endArr()
	if app.priorityClass {
		w.str("priorityClassName", "high-priority")
		w.int("priority", 1000000)
	} else {
		w.int("priority", 0)
	}
	w.end()
}

// appendTokenVolume names the service account's token secret, mounted
// into every container (the pre-1.24 form: a tenth of the bytes of the
// projected kube-api-access volume, the same role for a cache).
func (g *Generator) appendTokenVolume(b []byte, s *podState) []byte {
	b = append(b, s.app.serviceAccount...)
	b = append(b, "-token-"...)
	h := sub(g.key^saltVolume, uint64(s.ns)<<8|uint64(s.app.index))
	const safe = "bcdfghjklmnpqrstvwxz2456789"
	for n := 0; n < 5; n++ {
		b = append(b, safe[h%uint64(len(safe))])
		h /= uint64(len(safe))
	}
	return b
}

func (g *Generator) writeContainer(w *jw, s *podState, c int) {
	app := s.app
	w.obj("")
	w.str("name", app.containerName(c))
	w.open("image")
	w.b = g.appendImage(w.b, s, c)
	w.close()
	if c > 0 {
		// Sidecars: pinned image, small requests.
		writeResources(w, app.res[c])
		w.end()
		return
	}
	w.arr("ports")
	w.obj("")
	w.str("name", "http")
	w.int("containerPort", int64(app.port))
	w.str("protocol", "TCP")
	w.end()
	if app.scrape {
		w.obj("")
		w.str("name", "metrics")
		w.int("containerPort", int64(app.metricsPort))
		w.str("protocol", "TCP")
		w.end()
	}
	w.endArr()
	w.arr("env")
	for _, e := range app.env {
		w.obj("")
		w.str("name", e.name)
		if e.fieldPath != "" {
			w.obj("valueFrom")
			w.obj("fieldRef")
			w.str("apiVersion", "v1")
			w.str("fieldPath", e.fieldPath)
			w.end()
			w.end()
		} else {
			w.str("value", e.value)
		}
		w.end()
	}
	w.endArr()
	writeResources(w, app.res[0])
	w.arr("volumeMounts")
	if app.configVolume {
		w.obj("")
		w.str("name", "config")
		w.bool("readOnly", true)
		w.open("mountPath")
		w.b = append(w.b, "/etc/"...)
		w.b = append(w.b, app.name...)
		w.close()
		w.end()
	}
	w.obj("")
	w.open("name")
	w.b = g.appendTokenVolume(w.b, s)
	w.close()
	w.bool("readOnly", true)
	w.str("mountPath", "/var/run/secrets/kubernetes.io/serviceaccount")
	w.end()
	w.endArr()
	if app.liveness {
		w.obj("livenessProbe")
		w.obj("httpGet")
		w.str("path", app.probePath)
		w.str("port", "http")
		w.str("scheme", "HTTP")
		w.end()
		w.int("initialDelaySeconds", 10)
		w.int("periodSeconds", 10)
		w.int("failureThreshold", 3)
		w.end()
	}
	if app.readiness {
		w.obj("readinessProbe")
		w.obj("httpGet")
		w.str("path", "/ready")
		w.str("port", "http")
		w.end()
		w.int("periodSeconds", 5)
		w.end()
	}
	w.end()
}

func writeResources(w *jw, r resources) {
	w.obj("resources")
	if r.cpuReq != "" {
		if r.cpuLim != "" {
			w.obj("limits")
			w.str("cpu", r.cpuLim)
			w.str("memory", r.memLim)
			w.end()
		}
		w.obj("requests")
		w.str("cpu", r.cpuReq)
		w.str("memory", r.memReq)
		w.end()
	}
	w.end()
}

// appendImage: the app's own image is tagged by the version label, so a
// version change is a rollout; sidecars are pinned.
func (g *Generator) appendImage(b []byte, s *podState, c int) []byte {
	if c > 0 {
		return append(b, sidecars[s.app.sidecars[c-1]].image...)
	}
	b = append(b, "ghcr.io/acme/"...)
	b = append(b, s.app.name...)
	b = append(b, ":1."...)
	b = strconv.AppendInt(b, int64(s.ver), 10)
	b = append(b, '.')
	return strconv.AppendInt(b, int64(s.app.patch), 10)
}

// appendImageRepo is appendImage without the tag, as in an imageID.
func (g *Generator) appendImageRepo(b []byte, s *podState, c int) []byte {
	n := len(b)
	b = g.appendImage(b, s, c)
	for i := len(b) - 1; i > n; i-- {
		if b[i] == ':' {
			return b[:i]
		}
	}
	return b
}

// nodeHostIP is node j's InternalIP: 172.16.0.10 onwards.
func nodeHostIP(b []byte, j int) []byte {
	v := uint64(172<<24|16<<16) + 10 + uint64(j)
	return appendIPv4(b, v>>24, v>>16, v>>8, v)
}

// nodePodCIDR gives node j the j-th /24 from 10.244.0.0.
func nodePodCIDRPrefix(j int) (uint64, uint64) {
	v := uint64(244<<8) + uint64(j)
	return (v >> 8) & 0xff, v & 0xff
}

func (g *Generator) appendPodIP(b []byte, s *podState) []byte {
	if s.hostNet {
		return nodeHostIP(b, s.node)
	}
	p, q := nodePodCIDRPrefix(s.node)
	host := 2 + sub(stepKey(s.key, s.ipStep), saltIP)%250
	return appendIPv4(b, 10, p, q, host)
}

func (g *Generator) writePodStatus(w *jw, s *podState) {
	app := s.app
	w.obj("status")
	w.str("phase", phaseNames[s.phase])
	w.arr("conditions")
	if !s.scheduled() {
		w.obj("")
		w.str("type", "PodScheduled")
		w.str("status", "False")
		w.time("lastTransitionTime", s.created)
		w.str("reason", "Unschedulable")
		w.open("message")
		n := strconv.Itoa(g.cfg.Nodes)
		w.b = append(w.b, "0/"...)
		w.b = append(w.b, n...)
		w.b = append(w.b, " nodes are available: "...)
		w.b = append(w.b, n...)
		w.b = append(w.b, " Insufficient cpu. preemption: 0/"...)
		w.b = append(w.b, n...)
		w.b = append(w.b, " nodes are available: "...)
		w.b = append(w.b, n...)
		w.b = append(w.b, " No preemption victims found for incoming pod."...)
		w.close()
		w.end()
		w.endArr()
		if per(sub(s.key, saltNominated), 0, 300) {
			w.open("nominatedNodeName")
			w.b = append(w.b, "node-"...)
			w.b = strconv.AppendUint(w.b, sub(s.key, saltPlacement)%uint64(g.cfg.Nodes), 10)
			w.close()
		}
		w.str("qosClass", app.qos)
		w.end()
		return
	}

	changed := s.stepTime(s.phaseStep) + 8
	ready, reason := "False", ""
	switch s.phase {
	case running:
		ready = "True"
	case pending:
		reason = "ContainersNotReady"
	case succeeded:
		reason = "PodCompleted"
	case failed:
		reason = "PodFailed"
	}
	cond := func(typ, status, reason string, at int64) {
		w.obj("")
		w.str("type", typ)
		w.str("status", status)
		w.time("lastTransitionTime", at)
		if reason != "" && status == "False" {
			w.str("reason", reason)
		}
		w.end()
	}
	cond("Ready", ready, reason, changed)
	cond("ContainersReady", ready, reason, changed)
	cond("PodScheduled", "True", "", s.created)
	w.endArr()

	w.open("hostIP")
	w.b = nodeHostIP(w.b, s.node)
	w.close()
	if s.hasPodIP() {
		w.open("podIP")
		w.b = g.appendPodIP(w.b, s)
		w.close()
		w.arr("podIPs")
		w.obj("")
		w.open("ip")
		w.b = g.appendPodIP(w.b, s)
		w.close()
		w.end()
		w.endArr()
	}
	w.time("startTime", s.created+1)

	w.arr("containerStatuses")
	for c := 0; c < app.containers; c++ {
		w.obj("")
		w.str("name", app.containerName(c))
		w.obj("state")
		switch s.phase {
		case pending:
			w.obj("waiting")
			w.str("reason", "ContainerCreating")
			w.end()
		case running:
			w.obj("running")
			w.time("startedAt", changed-3)
			w.end()
		default:
			code, why := 0, "Completed"
			if s.phase == failed && c == 0 {
				code, why = 1, "Error"
			}
			w.obj("terminated")
			w.int("exitCode", int64(code))
			w.str("reason", why)
			w.time("finishedAt", changed-1)
			w.end()
		}
		w.end()
		w.bool("ready", s.phase == running)
		restarts := 0
		if c == 0 {
			restarts = s.restarts
		}
		w.int("restartCount", int64(restarts))
		w.open("image")
		w.b = g.appendImage(w.b, s, c)
		w.close()
		w.open("imageID")
		if s.phase != pending {
			w.b = g.appendImageRepo(w.b, s, c)
			w.b = append(w.b, "@sha256:"...)
			w.b = appendHex(w.b, sub(g.key^saltImage, uint64(s.app.index)<<16|uint64(s.ver)<<8|uint64(c)), 64)
		}
		w.close()
		if s.phase != pending {
			w.open("containerID")
			w.b = append(w.b, "containerd://"...)
			w.b = appendHex(w.b, sub(s.key, saltContainer<<8|uint64(c)), 64)
			w.close()
		}
		w.end()
	}
	w.endArr()
	w.str("qosClass", app.qos)
	w.end()
}
