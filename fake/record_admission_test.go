package fake_test

import (
	"testing"
)

// quotaStatus is the step that sets a quota's status as kube-controller-manager's quota
// controller would (the oracle runs none): admission charges status.used against status.hard and
// refuses a quota whose used lacks one of its hard resources.
func quotaStatus(name, status string) writeStep {
	return writeStep{Name: "status of " + name, Method: "PATCH", Path: "/api/v1/namespaces/{ns}/resourcequotas/" + name + "/status",
		ContentType: "application/merge-patch+json", Body: `{"status":` + status + `}`}
}

// settleQuota waits a second, in a watch of the namespace's quotas from the version the previous
// step answered with, which sees no event. The apiserver's quota admission reads quotas from an
// informer, which may not have seen a status write a few milliseconds old; a step that depends on
// a status write it sets comes after this one (the fake reads what is stored).
func settleQuota() writeStep {
	return writeStep{Name: "settle", Method: "GET", Path: "/api/v1/namespaces/{ns}/resourcequotas?watch=true&resourceVersion={rv}&timeoutSeconds=1"}
}

// getQuota reads a quota back, to see what admission charged.
func getQuota(step, name string) writeStep {
	return writeStep{Name: step, Method: "GET", Path: "/api/v1/namespaces/{ns}/resourcequotas/" + name}
}

// podWith is a pod of one container c with the given resources (JSON, may be empty).
func podWith(step, name, resources string) writeStep {
	if resources == "" {
		resources = "{}"
	}
	return writeStep{Name: step, Method: "POST", Path: "/api/v1/namespaces/{ns}/pods",
		Body: `{"metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"busybox","resources":` + resources + `}]}}`}
}

// admissionCases are the writes the LimitRanger and ResourceQuota admission plugins answer:
// LimitRanges' bounds of pods and claims, and quotas' charges and refusals, recorded from a
// kube-apiserver 1.37.2 (without kube-controller-manager: quotas' status is set by the cases)
// into testdata/observed-admission.json (TestRecordOracleAdmission) and replayed against the fake
// (TestObservedAdmission). Each refusal names one limit range and one quota, as the apiserver
// stops at the first that refuses and reads them in no fixed order; and a single limit's min, max
// or ratio names one resource, as the plugin walks a map.
var admissionCases = []writeCase{
	{Name: "lrcontainer", Steps: []writeStep{
		nsStep(),
		{Name: "limitrange", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"c"},"spec":{"limits":[{"type":"Container","min":{"cpu":"100m"},"max":{"memory":"1Gi"},"maxLimitRequestRatio":{"cpu":"2"}}]}}`},
		podWith("within", "ok", `{"requests":{"cpu":"200m","memory":"100Mi"},"limits":{"cpu":"300m","memory":"200Mi"}}`),
		podWith("request below min", "p1", `{"requests":{"cpu":"50m"},"limits":{"cpu":"100m","memory":"100Mi"}}`),
		podWith("no request", "p2", `{"limits":{"memory":"100Mi"}}`),
		podWith("no limit for max", "p3", `{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}`),
		podWith("limit above max", "p4", `{"requests":{"cpu":"100m","memory":"1Gi"},"limits":{"cpu":"200m","memory":"2Gi"}}`),
		podWith("request above max", "p5", `{"requests":{"cpu":"100m","memory":"1500Mi"},"limits":{"cpu":"200m","memory":"1Gi"}}`),
		podWith("ratio above max", "p6", `{"requests":{"cpu":"100m"},"limits":{"cpu":"300m","memory":"1Gi"}}`),
		podWith("limit below min", "p7", `{"requests":{"cpu":"100m"},"limits":{"cpu":"50m","memory":"1Gi"}}`),
		{Name: "two containers and an init container", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p8"},"spec":{"initContainers":[{"name":"i","image":"busybox","resources":{"limits":{"cpu":"1","memory":"3Gi"}}}],` +
			`"containers":[{"name":"a","image":"busybox","resources":{"requests":{"cpu":"10m"},"limits":{"cpu":"10m","memory":"1Gi"}}},{"name":"b","image":"busybox","resources":{"requests":{"cpu":"1"},"limits":{"cpu":"3","memory":"1Gi"}}}]}}`},
		{Name: "generated name", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"generateName":"gen-"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "dryRun", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods?dryRun=All", Body: `{"metadata":{"name":"p9"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "limitrange with defaults", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"d"},"spec":{"limits":[{"type":"Container","default":{"cpu":"200m","memory":"512Mi"},"defaultRequest":{"cpu":"100m","memory":"256Mi"}}]}}`},
		podWith("defaults within bounds", "p10", ""),
		podWith("defaults then ratio", "p11", `{"requests":{"cpu":"100m","memory":"100Mi"},"limits":{"memory":"100Mi"}}`),
		{Name: "label a pod outside bounds", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/ok", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "tighter limitrange", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"t"},"spec":{"limits":[{"type":"Container","max":{"cpu":"100m"}}]}}`},
		{Name: "label a pod the new range refuses", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/ok", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"c"}}}`},
	}},
	{Name: "lrpod", Steps: []writeStep{
		nsStep(),
		{Name: "limitrange", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"p"},"spec":{"limits":[{"type":"Pod","min":{"memory":"100Mi"},"max":{"cpu":"1"},"maxLimitRequestRatio":{"memory":"4"}}]}}`},
		{Name: "within", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"ok"},"spec":{"containers":[{"name":"a","image":"busybox","resources":{"requests":{"memory":"100Mi"},"limits":{"cpu":"500m","memory":"200Mi"}}},{"name":"b","image":"busybox","resources":{"requests":{"memory":"50Mi"},"limits":{"cpu":"500m","memory":"200Mi"}}}]}}`},
		{Name: "sum above max", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1"},"spec":{"containers":[{"name":"a","image":"busybox","resources":{"requests":{"memory":"100Mi"},"limits":{"cpu":"600m","memory":"200Mi"}}},{"name":"b","image":"busybox","resources":{"requests":{"memory":"50Mi"},"limits":{"cpu":"600m","memory":"200Mi"}}}]}}`},
		podWith("nothing specified", "p2", ""),
		{Name: "init container larger than the sum", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p3"},"spec":{"initContainers":[{"name":"i","image":"busybox","resources":{"requests":{"memory":"100Mi"},"limits":{"cpu":"1500m","memory":"100Mi"}}}],` +
			`"containers":[{"name":"a","image":"busybox","resources":{"requests":{"memory":"100Mi"},"limits":{"cpu":"500m","memory":"200Mi"}}}]}}`},
		{Name: "sidecar adds to the sum", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p4"},"spec":{"initContainers":[{"name":"s","image":"busybox","restartPolicy":"Always","resources":{"requests":{"memory":"10Mi"},"limits":{"cpu":"600m","memory":"10Mi"}}}],` +
			`"containers":[{"name":"a","image":"busybox","resources":{"requests":{"memory":"100Mi"},"limits":{"cpu":"500m","memory":"200Mi"}}}]}}`},
		podWith("ratio above max", "p5", `{"requests":{"memory":"100Mi"},"limits":{"memory":"1Gi"}}`),
	}},
	{Name: "lrpvc", Steps: []writeStep{
		nsStep(),
		{Name: "limitrange", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"s"},"spec":{"limits":[{"type":"PersistentVolumeClaim","min":{"storage":"1Gi"},"max":{"storage":"10Gi"}}]}}`},
		{Name: "within", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"ok"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"5Gi"}}}}`},
		{Name: "below min", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c1"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"500Mi"}}}}`},
		{Name: "above max", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c2"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"20Gi"}}}}`},
		{Name: "limits ignored", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c3"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"2Gi"},"limits":{"storage":"20Gi"}}}}`},
		{Name: "no default", Method: "GET", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/ok"},
		{Name: "pods unaffected", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "tighter limitrange", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"t"},"spec":{"limits":[{"type":"PersistentVolumeClaim","max":{"storage":"2Gi"}}]}}`},
		{Name: "label a claim the new range refuses", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/ok", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "label a claim within", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c3", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "status of a claim outside", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/ok/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Pending"}}`},
	}},
	{Name: "quotaunknown", Steps: []writeStep{
		nsStep(),
		{Name: "quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"q"},"spec":{"hard":{"pods":"2","count/configmaps":"1","services":"1"}}}`},
		podWith("pod under a quota without status", "p1", ""),
		{Name: "service under a quota without status", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}}`},
		getQuota("quota untouched", "q"),
		quotaStatus("q", `{"hard":{"pods":"2","count/configmaps":"1","services":"1"}}`),
		settleQuota(),
		podWith("pod under a quota without usage", "p2", ""),
		{Name: "configmap under a quota without usage", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"cm"}}`},
		{Name: "secret not covered", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"s"}}`},
		{Name: "label a service under a quota without usage", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "label a pod under a quota without usage", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		quotaStatus("q", `{"used":{"pods":"1"}}`),
		settleQuota(),
		podWith("pod with its usage known", "p3", ""),
		{Name: "configmap still unknown", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"cm"}}`},
		getQuota("quota charged", "q"),
	}},
	{Name: "quotapods", Steps: []writeStep{
		nsStep(),
		{Name: "quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"q"},"spec":{"hard":{"pods":"2","count/pods":"2","requests.cpu":"1","requests.memory":"1Gi","limits.cpu":"2","limits.memory":"2Gi"}}}`},
		quotaStatus("q", `{"hard":{"pods":"2","count/pods":"2","requests.cpu":"1","requests.memory":"1Gi","limits.cpu":"2","limits.memory":"2Gi"},"used":{"pods":"0","count/pods":"0","requests.cpu":"0","requests.memory":"0","limits.cpu":"0","limits.memory":"0"}}`),
		podWith("without resources", "p0", ""),
		{Name: "missing in two containers", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p0"},"spec":{"initContainers":[{"name":"i","image":"busybox","resources":{"requests":{"cpu":"1m","memory":"1Mi"},"limits":{"cpu":"1m","memory":"1Mi"}}}],` +
			`"containers":[{"name":"a","image":"busybox","resources":{"requests":{"cpu":"1m"},"limits":{"cpu":"1m"}}},{"name":"b","image":"busybox","resources":{"requests":{"memory":"1Mi"},"limits":{"cpu":"1m","memory":"1Mi"}}}]}}`},
		podWith("first", "p1", `{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}}`),
		{Name: "dryRun create", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods?dryRun=All", Body: `{"metadata":{"name":"dry"},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m","memory":"1Mi"},"limits":{"cpu":"100m","memory":"1Mi"}}}]}}`},
		getQuota("charged once", "q"),
		podWith("above requests.cpu", "p2", `{"requests":{"cpu":"600m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}}`),
		podWith("above several", "p2", `{"requests":{"cpu":"600m","memory":"800Mi"},"limits":{"cpu":"1500m","memory":"2Gi"}}`),
		{Name: "dryRun above", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods?dryRun=All", Body: `{"metadata":{"name":"dry"},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"600m","memory":"1Mi"},"limits":{"cpu":"600m","memory":"1Mi"}}}]}}`},
		podWith("second", "p2", `{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}}`),
		podWith("third above pods", "p3", `{"requests":{"cpu":"0","memory":"0"},"limits":{"cpu":"0","memory":"0"}}`),
		{Name: "label a pod", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "make a pod terminating", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1", ContentType: "application/merge-patch+json", Body: `{"spec":{"activeDeadlineSeconds":60}}`},
		{Name: "delete a pod", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/pods/p1"},
		getQuota("not released on delete", "q"),
		podWith("after a delete", "p1", `{"requests":{"cpu":"100m","memory":"1Mi"},"limits":{"cpu":"100m","memory":"1Mi"}}`),
		quotaStatus("q", `{"used":{"pods":"1","count/pods":"1","requests.cpu":"500m","requests.memory":"256Mi","limits.cpu":"1","limits.memory":"512Mi"}}`),
		getQuota("recounted", "q"),
		podWith("after the controller's recount", "p1", `{"requests":{"cpu":"100m","memory":"1Mi"},"limits":{"cpu":"100m","memory":"1Mi"}}`),
		getQuota("charged after the recount", "q"),
		quotaStatus("q", `{"used":{"pods":"1","count/pods":"1","requests.cpu":"500m","requests.memory":"256Mi","limits.cpu":"1","limits.memory":"512Mi"}}`),
		getQuota("recounted again", "q"),
		podWith("an existing name", "p2", `{"requests":{"cpu":"100m","memory":"1Mi"},"limits":{"cpu":"100m","memory":"1Mi"}}`),
		getQuota("charged for the existing name", "q"),
	}},
	{Name: "quotadefaults", Steps: []writeStep{
		nsStep(),
		{Name: "limitrange", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"d"},"spec":{"limits":[{"type":"Container","default":{"cpu":"200m","memory":"64Mi"},"defaultRequest":{"cpu":"100m","memory":"32Mi"}}]}}`},
		{Name: "quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"q"},"spec":{"hard":{"requests.cpu":"1","limits.memory":"100Mi"}}}`},
		quotaStatus("q", `{"hard":{"requests.cpu":"1","limits.memory":"100Mi"},"used":{"requests.cpu":"0","limits.memory":"0"}}`),
		podWith("defaulted", "p1", ""),
		getQuota("charged the defaults", "q"),
		podWith("defaults above", "p2", ""),
	}},
	{Name: "quotascopes", Steps: []writeStep{
		nsStep(),
		{Name: "priorityclass", Method: "POST", Path: "/apis/scheduling.k8s.io/v1/priorityclasses", Body: `{"metadata":{"name":"{ns}-high"},"value":1000}`},
		{Name: "quota besteffort", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"be"},"spec":{"hard":{"pods":"1"},"scopes":["BestEffort"]}}`},
		{Name: "quota notbesteffort", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"nbe"},"spec":{"hard":{"pods":"4","requests.cpu":"1"},"scopes":["NotBestEffort"]}}`},
		{Name: "quota terminating", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"term"},"spec":{"hard":{"pods":"1"},"scopes":["Terminating"]}}`},
		{Name: "quota notterminating", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"nterm"},"spec":{"hard":{"count/pods":"10"},"scopes":["NotTerminating"]}}`},
		{Name: "quota priorityclass", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"prio"},"spec":{"hard":{"pods":"1"},"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["{ns}-high"]}]}}}`},
		{Name: "quota any priorityclass", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"anyprio"},"spec":{"hard":{"pods":"5"},"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"Exists"}]}}}`},
		quotaStatus("be", `{"hard":{"pods":"1"},"used":{"pods":"0"}}`),
		quotaStatus("nbe", `{"hard":{"pods":"4","requests.cpu":"1"},"used":{"pods":"0","requests.cpu":"0"}}`),
		quotaStatus("term", `{"hard":{"pods":"1"},"used":{"pods":"0"}}`),
		quotaStatus("nterm", `{"hard":{"count/pods":"10"},"used":{"count/pods":"0"}}`),
		quotaStatus("prio", `{"hard":{"pods":"1"},"used":{"pods":"0"}}`),
		quotaStatus("anyprio", `{"hard":{"pods":"5"},"used":{"pods":"0"}}`),
		podWith("besteffort", "be1", ""),
		podWith("second besteffort", "be2", ""),
		podWith("not besteffort without cpu", "nbe0", `{"requests":{"memory":"1Mi"}}`),
		podWith("not besteffort", "nbe1", `{"requests":{"cpu":"100m"}}`),
		{Name: "terminating", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"t1"},"spec":{"activeDeadlineSeconds":30,"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m"}}}]}}`},
		{Name: "second terminating", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"t2"},"spec":{"activeDeadlineSeconds":30,"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m"}}}]}}`},
		{Name: "high priority", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"h1"},"spec":{"priorityClassName":"{ns}-high","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m"}}}]}}`},
		{Name: "second high priority", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"h2"},"spec":{"priorityClassName":"{ns}-high","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m"}}}]}}`},
		{Name: "make a pod terminating", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/nbe1", ContentType: "application/merge-patch+json", Body: `{"spec":{"activeDeadlineSeconds":60}}`},
		{Name: "quotas", Method: "GET", Path: "/api/v1/namespaces/{ns}/resourcequotas"},
		{Name: "delete priorityclass", Method: "DELETE", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/{ns}-high"},
	}},
	{Name: "quotaservices", Steps: []writeStep{
		nsStep(),
		{Name: "quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"q"},"spec":{"hard":{"services":"2","services.loadbalancers":"1","services.nodeports":"2","count/services":"5"}}}`},
		quotaStatus("q", `{"hard":{"services":"2","services.loadbalancers":"1","services.nodeports":"2","count/services":"5"},"used":{"services":"0","services.loadbalancers":"0","services.nodeports":"0","count/services":"0"}}`),
		{Name: "clusterip", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"c"},"spec":{"ports":[{"port":80}]}}`},
		getQuota("charged a service", "q"),
		{Name: "nodeport with two ports", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"n"},"spec":{"type":"NodePort","ports":[{"name":"a","port":80},{"name":"b","port":81}]}}`},
		getQuota("charged node ports", "q"),
		{Name: "loadbalancer above services and node ports", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"l"},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}`},
		{Name: "clusterip to loadbalancer", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/c", ContentType: "application/merge-patch+json", Body: `{"spec":{"type":"LoadBalancer"}}`},
		{Name: "nodeport to clusterip", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/n", ContentType: "application/merge-patch+json", Body: `{"spec":{"type":"ClusterIP","ports":[{"name":"a","port":80},{"name":"b","port":81}]}}`},
		getQuota("not released on a type change", "q"),
		{Name: "label a service", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/c", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "delete a service", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/services/n"},
		getQuota("not released on delete", "q"),
		quotaStatus("q", `{"used":{"services":"1","services.nodeports":"0","count/services":"1"}}`),
		{Name: "clusterip to loadbalancer after the recount", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/c", ContentType: "application/merge-patch+json", Body: `{"spec":{"type":"LoadBalancer"}}`},
		getQuota("charged the type change", "q"),
		{Name: "loadbalancer without node ports", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"l2"},"spec":{"type":"LoadBalancer","allocateLoadBalancerNodePorts":false,"ports":[{"port":80}]}}`},
	}},
	{Name: "quotacounts", Steps: []writeStep{
		nsStep(),
		{Name: "quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"q"},"spec":{"hard":{"configmaps":"1","count/configmaps":"1","count/secrets":"3","secrets":"3","count/deployments.apps":"1","count/jobs.batch":"0"}}}`},
		quotaStatus("q", `{"hard":{"configmaps":"1","count/configmaps":"1","count/secrets":"3","secrets":"3","count/deployments.apps":"1","count/jobs.batch":"0"},"used":{"configmaps":"0","count/configmaps":"0","count/secrets":"0","secrets":"0","count/deployments.apps":"0","count/jobs.batch":"0"}}`),
		{Name: "configmap dryRun", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps?dryRun=All", Body: `{"metadata":{"name":"cm0"}}`},
		{Name: "configmap", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"cm1"}}`},
		{Name: "second configmap", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"cm2"}}`},
		{Name: "update a configmap", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/cm1", Body: `{"metadata":{"name":"cm1"},"data":{"a":"b"}}`},
		{Name: "secret", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"s1"}}`},
		{Name: "secret again", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"s1"}}`},
		{Name: "invalid secret", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"Bad_"}}`},
		getQuota("charged for a conflict, not for an invalid object", "q"),
		{Name: "deployment", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments", Body: `{"metadata":{"name":"d1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
		{Name: "second deployment", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments", Body: `{"metadata":{"name":"d2"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
		{Name: "scale a deployment", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", ContentType: "application/merge-patch+json", Body: `{"spec":{"replicas":3}}`},
		{Name: "job at a zero quota", Method: "POST", Path: "/apis/batch/v1/namespaces/{ns}/jobs", Body: `{"metadata":{"name":"j1"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`},
		{Name: "replica set not covered", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/replicasets", Body: `{"metadata":{"name":"r1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
		getQuota("charged", "q"),
	}},
	{Name: "quotaclaims", Steps: []writeStep{
		nsStep(),
		{Name: "claim before the quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c0"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"q"},"spec":{"hard":{"requests.storage":"10Gi"}}}`},
		quotaStatus("q", `{"hard":{"requests.storage":"10Gi"}}`),
		settleQuota(),
		{Name: "claim status under a quota without usage", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c0/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Bound"}}`},
		quotaStatus("q", `{"used":{"requests.storage":"1Gi"}}`),
		settleQuota(),
		{Name: "claim status allocating more", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c0/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Bound","allocatedResources":{"storage":"4Gi"}}}`},
		getQuota("charged the allocation", "q"),
		{Name: "claim status allocating beyond", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c0/status", ContentType: "application/merge-patch+json", Body: `{"status":{"allocatedResources":{"storage":"20Gi"}}}`},
		getQuota("charged beyond its hard limit", "q"),
		{Name: "claim after a status beyond", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c1"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
	}},
	{Name: "quotavac", Steps: []writeStep{
		nsStep(),
		{Name: "quota of a volume attributes class", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"vac"},"spec":{"hard":{"persistentvolumeclaims":"1"},"scopeSelector":{"matchExpressions":[{"scopeName":"VolumeAttributesClass","operator":"In","values":["fast"]}]}}}`},
		quotaStatus("vac", `{"hard":{"persistentvolumeclaims":"1"},"used":{"persistentvolumeclaims":"0"}}`),
		settleQuota(),
		{Name: "claim of the class", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c1"},"spec":{"volumeAttributesClassName":"fast","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "second claim of the class", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c2"},"spec":{"volumeAttributesClassName":"fast","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "claim of another class", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c3"},"spec":{"volumeAttributesClassName":"slow","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "quotas", Method: "GET", Path: "/api/v1/namespaces/{ns}/resourcequotas"},
	}},
	{Name: "quotapvc", Steps: []writeStep{
		nsStep(),
		{Name: "quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"q"},"spec":{"hard":{"persistentvolumeclaims":"2","requests.storage":"10Gi","gold.storageclass.storage.k8s.io/requests.storage":"3Gi","gold.storageclass.storage.k8s.io/persistentvolumeclaims":"1"}}}`},
		quotaStatus("q", `{"hard":{"persistentvolumeclaims":"2","requests.storage":"10Gi","gold.storageclass.storage.k8s.io/requests.storage":"3Gi","gold.storageclass.storage.k8s.io/persistentvolumeclaims":"1"},`+
			`"used":{"persistentvolumeclaims":"0","requests.storage":"0","gold.storageclass.storage.k8s.io/requests.storage":"0","gold.storageclass.storage.k8s.io/persistentvolumeclaims":"0"}}`),
		{Name: "claim", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c1"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"5Gi"}}}}`},
		{Name: "gold claim above its class", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c2"},"spec":{"storageClassName":"gold","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"4Gi"}}}}`},
		{Name: "gold claim", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c2"},"spec":{"storageClassName":"gold","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"2Gi"}}}}`},
		getQuota("charged", "q"),
		{Name: "third claim", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c3"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "label a claim", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c1", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "fractional bytes", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c4"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1500m"}}}}`},
	}},
	{Name: "resize", Steps: []writeStep{
		nsStep(),
		{Name: "limitrange", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"c"},"spec":{"limits":[{"type":"Container","min":{"cpu":"50m"},"max":{"cpu":"300m","memory":"1Gi"}}]}}`},
		{Name: "quota", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"q"},"spec":{"hard":{"pods":"5","requests.cpu":"200m","requests.memory":"1Gi","limits.cpu":"1","limits.memory":"2Gi"}}}`},
		quotaStatus("q", `{"hard":{"pods":"5","requests.cpu":"200m","requests.memory":"1Gi","limits.cpu":"1","limits.memory":"2Gi"},"used":{"pods":"0","requests.cpu":"0","requests.memory":"0","limits.cpu":"0","limits.memory":"0"}}`),
		settleQuota(),
		podWith("pod", "p1", `{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"128Mi"}}`),
		getQuota("charged for the pod", "q"),
		settleQuota(),
		{Name: "resize within", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m","memory":"96Mi"},"limits":{"cpu":"250m","memory":"128Mi"}}}]}}`},
		getQuota("charged for the resize", "q"),
		settleQuota(),
		{Name: "resize above the range's max", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"400m"}}}]}}`},
		{Name: "resize below the range's min", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"10m"}}}]}}`},
		{Name: "resize above the quota", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"250m"},"limits":{"cpu":"300m"}}}]}}`},
		{Name: "resize down", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"80m"},"limits":{"cpu":"200m"}}}]}}`},
		getQuota("after the resize down", "q"),
		{Name: "resize dryRun", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize?dryRun=All", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"120m"}}}]}}`},
		getQuota("after the dry run", "q"),
		{Name: "read", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
	}},
	{Name: "resizedefaults", Steps: []writeStep{
		nsStep(),
		{Name: "pod with a container without resources", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1"},"spec":{"containers":[` +
			`{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}},{"name":"d","image":"busybox"}]}}`},
		{Name: "limitrange with defaults", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"d"},"spec":{"limits":[{"type":"Container","default":{"cpu":"300m"},"defaultRequest":{"cpu":"150m"}}]}}`},
		settleLimitRanges(),
		{Name: "resize the container with resources", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/resize", ContentType: strategicPatch, Body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"120m"}}}]}}`},
		{Name: "read", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/p1"},
	}},
}

// settleLimitRanges waits a second, in a watch of the namespace's limit ranges from the version the
// previous step answered with, which sees no event: the apiserver's LimitRanger reads them from an
// informer, which may not have seen one created a few milliseconds before.
func settleLimitRanges() writeStep {
	return writeStep{Name: "settle", Method: "GET", Path: "/api/v1/namespaces/{ns}/limitranges?watch=true&resourceVersion={rv}&timeoutSeconds=1"}
}

// admissionRecording is where admissionCases are recorded and replayed.
var admissionRecording = recording{cases: admissionCases, file: "testdata/observed-admission.json", markdown: "observed-admission.md",
	title: "LimitRanger and ResourceQuota admission", recorder: "TestRecordOracleAdmission", replayer: "TestObservedAdmission", source: "record_admission_test.go"}

// TestRecordOracleAdmission records admissionCases from a fresh kube-apiserver as
// TestRecordOracle records writeCases.
func TestRecordOracleAdmission(t *testing.T) { admissionRecording.record(t, oracleServer(t)) }

// TestObservedAdmission replays the recorded limit ranges' bounds and quotas' charges against the
// fake (an apiserver without kube-controller-manager: no controllers).
func TestObservedAdmission(t *testing.T) { admissionRecording.replay(t, noControllers, nil) }
