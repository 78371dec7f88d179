package fake_test

import "strings"

// validationWorkloadCases are the requests that show kube-apiserver 1.37.2's spec validation of
// pods and the workload kinds (pod templates, replication controllers, deployments, replica sets,
// stateful sets, daemon sets, jobs, cron jobs), recorded into
// testdata/observed-validation-workloads.json (TestRecordValidationWorkloads) and replayed
// against the fake (TestObservedValidationWorkloads). Each rule has its bad request next to a good
// one; some bodies break several rules at once, a bad name among them, to show the order of the
// causes. Case names start with "wl-" so that their namespaces are not those of other recordings.
var validationWorkloadCases = []writeCase{
	{Name: "wl-pod", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", `{"metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`),
		wlPost("no containers", "pods", `{"metadata":{"name":"p2"},"spec":{"containers":[]}}`),
		wlPost("bad name, container name and no image", "pods", `{"metadata":{"name":"Bad_Pod"},"spec":{"containers":[{"name":"C_1"}]}}`),
		wlPost("bad label and no containers", "pods", `{"metadata":{"name":"p3","labels":{"a b":"x"}},"spec":{}}`),
		wlPost("duplicate container names", "pods", `{"metadata":{"name":"p4"},"spec":{"initContainers":[{"name":"c","image":"busybox"}],"containers":[{"name":"c","image":"busybox"},{"name":"c","image":"busybox"}]}}`),
		wlPost("ports", "pods", `{"metadata":{"name":"p5"},"spec":{"containers":[{"name":"c","image":"busybox","ports":[`+
			`{"name":"http","containerPort":70000},{"name":"http","containerPort":81},{"name":"Bad_Port","containerPort":82,"protocol":"XTP"},{"containerPort":83,"hostPort":-1}]}]}}`),
		wlPost("env names", "pods", `{"metadata":{"name":"p6"},"spec":{"containers":[{"name":"c","image":"busybox","env":[{"name":"A=B","value":"1"},{"name":"","value":"2"},{"name":"OK","value":"3"}]}]}}`),
		wlPost("requests above limits", "pods", `{"metadata":{"name":"p7"},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}}}]}}`),
		wlPost("negative quantity", "pods", `{"metadata":{"name":"p8"},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"memory":"-1"}}}]}}`),
		wlPost("volumes", "pods", `{"metadata":{"name":"p9"},"spec":{"volumes":[{"name":"v","emptyDir":{}},{"name":"v","emptyDir":{}},{"name":"Bad_Vol","emptyDir":{}}],`+
			`"containers":[{"name":"c","image":"busybox","volumeMounts":[{"name":"v","mountPath":"/a"},{"name":"missing","mountPath":"/b"},{"name":"v","mountPath":"/a"},{"name":"v"}]}]}}`),
		wlPost("policies and grace period", "pods", `{"metadata":{"name":"p10"},"spec":{"restartPolicy":"Sometimes","dnsPolicy":"Bogus","terminationGracePeriodSeconds":-1,"containers":[{"name":"c","image":"busybox"}]}}`),
		wlPost("init containers", "pods", `{"metadata":{"name":"p11"},"spec":{"initContainers":[{"name":"I"},{"name":"i2","image":"busybox","ports":[{"containerPort":0}]}],"containers":[{"name":"c","image":"busybox"}]}}`),
		wlPost("container restartPolicy, hugepages alone, value and valueFrom", "pods", `{"metadata":{"name":"p14"},"spec":{"containers":[{"name":"c","image":"busybox","restartPolicy":"Sometimes",`+
			`"resources":{"limits":{"hugepages-2Mi":"2Mi"}},"env":[{"name":"A","value":"x","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}]}]}}`),
		wlPost("probes", "pods", `{"metadata":{"name":"p15"},"spec":{"initContainers":[{"name":"i","image":"busybox","restartPolicy":"Always","livenessProbe":{"httpGet":{"port":"Bad_Port","scheme":"FTP"}}}],`+
			`"containers":[{"name":"c","image":"busybox","livenessProbe":{"periodSeconds":-1},"readinessProbe":{"exec":{"command":["x"]},"tcpSocket":{"port":80},"terminationGracePeriodSeconds":5},`+
			`"startupProbe":{"grpc":{"port":70000},"successThreshold":2}}]}}`),
		wlPost("volume sources", "pods", `{"metadata":{"name":"p16"},"spec":{"volumes":[{"name":"Bad_V","secret":{"secretName":"s"},"downwardAPI":{},"projected":{"sources":[]}}],"containers":[{"name":"c","image":"busybox"}]}}`),
		wlPost("good with everything", "pods", `{"metadata":{"name":"p12"},"spec":{"restartPolicy":"Never","dnsPolicy":"Default","volumes":[{"name":"v","emptyDir":{}}],`+
			`"initContainers":[{"name":"i","image":"busybox","restartPolicy":"Always","livenessProbe":{"exec":{"command":["true"]}}}],"containers":[{"name":"c","image":"busybox","restartPolicy":"Never","ports":[{"name":"http","containerPort":80}],"env":[{"name":"A","value":"1"}],`+
			`"resources":{"requests":{"cpu":"1"},"limits":{"cpu":"2"}},"volumeMounts":[{"name":"v","mountPath":"/a"}]}]}}`),
		{Name: "update clears image and breaks a label", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/p1",
			Body: `{"metadata":{"name":"p1","labels":{"a b":"x"}},"spec":{"containers":[{"name":"c","image":""}]}}`},
		wlMerge("merge patch bad env name", "/api/v1/namespaces/{ns}/pods/p1", `{"spec":{"containers":[{"name":"c","image":"busybox","env":[{"name":"A=B"}]}]}}`),
		wlMerge("merge patch image", "/api/v1/namespaces/{ns}/pods/p1", `{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}`),
		{Name: "status update with an invalid spec in the body", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/p1/status",
			Body: `{"metadata":{"name":"p1"},"spec":{"containers":[]},"status":{"phase":"Running"}}`},
		wlApply("apply creates invalid", "/api/v1/namespaces/{ns}/pods/p13", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p13"},"spec":{"containers":[{"name":"c"}]}}`),
	}},
	{Name: "wl-podtemplate", Steps: []writeStep{
		nsStep(),
		wlPost("good", "podtemplates", `{"metadata":{"name":"t1"},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}`),
		wlPost("no containers and bad template label", "podtemplates", `{"metadata":{"name":"t2"},"template":{"metadata":{"labels":{"a b":"x"}},"spec":{"containers":[]}}}`),
		wlPost("bad name and container name", "podtemplates", `{"metadata":{"name":"Bad_T"},"template":{"spec":{"containers":[{"name":"C","image":"busybox"}]}}}`),
		{Name: "update without image", Method: "PUT", Path: "/api/v1/namespaces/{ns}/podtemplates/t1",
			Body: `{"metadata":{"name":"t1"},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c"}]}}}`},
	}},
	{Name: "wl-rc", Steps: []writeStep{
		nsStep(),
		wlPost("good", "replicationcontrollers", `{"metadata":{"name":"rc1"},"spec":{"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`),
		wlPost("no template", "replicationcontrollers", `{"metadata":{"name":"rc2"},"spec":{"replicas":1}}`),
		wlPost("selector mismatch, negative replicas, restartPolicy", "replicationcontrollers", `{"metadata":{"name":"rc3"},"spec":{"replicas":-1,"minReadySeconds":-1,"selector":{"app":"y"},`+
			`"template":{"metadata":{"labels":{"app":"x"}},"spec":{"restartPolicy":"Never","activeDeadlineSeconds":5,"containers":[{"name":"c","image":"busybox"}]}}}}`),
		wlPost("bad name and label, spec errors", "replicationcontrollers", `{"metadata":{"name":"Bad_RC","labels":{"a b":"c"}},"spec":{"replicas":-1,"minReadySeconds":-1,"selector":{"app":"y"},`+
			`"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c"}]}}}}`),
		{Name: "update replicas negative", Method: "PUT", Path: "/api/v1/namespaces/{ns}/replicationcontrollers/rc1",
			Body: `{"metadata":{"name":"rc1"},"spec":{"replicas":-2,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
	}},
	{Name: "wl-deployment", Steps: []writeStep{
		nsStep(),
		wlPost("good", "deployments", wlWorkload("d1", `"replicas":1,`+wlSelector+`,`+wlTemplate)),
		wlPost("existing name and invalid spec", "deployments", wlWorkload("d1", `"replicas":-1,`+wlSelector+`,`+wlTemplate)),
		wlPost("generateName and invalid spec", "deployments", `{"metadata":{"generateName":"gen-"},"spec":{`+wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[]}}}}`),
		wlPost("no selector", "deployments", wlWorkload("d2", wlTemplate)),
		wlPost("empty selector", "deployments", wlWorkload("d3", `"selector":{},`+wlTemplate)),
		wlPost("selector mismatch", "deployments", wlWorkload("d4", `"selector":{"matchLabels":{"app":"y"}},`+wlTemplate)),
		wlPost("bad selector", "deployments", wlWorkload("d5", `"selector":{"matchExpressions":[{"key":"app","operator":"Bogus"}]},`+wlTemplate)),
		wlPost("negative numbers", "deployments", wlWorkload("d6", `"replicas":-1,"minReadySeconds":-1,"revisionHistoryLimit":-1,`+wlSelector+`,`+wlTemplate)),
		wlPost("progressDeadlineSeconds not above minReadySeconds", "deployments", wlWorkload("d7", `"minReadySeconds":10,"progressDeadlineSeconds":10,`+wlSelector+`,`+wlTemplate)),
		wlPost("strategy type", "deployments", wlWorkload("d8", `"strategy":{"type":"Bogus"},`+wlSelector+`,`+wlTemplate)),
		wlPost("Recreate with rollingUpdate", "deployments", wlWorkload("d9", `"strategy":{"type":"Recreate","rollingUpdate":{"maxSurge":1}},`+wlSelector+`,`+wlTemplate)),
		wlPost("rollingUpdate zero and percent", "deployments", wlWorkload("d10", `"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":0}},`+wlSelector+`,`+wlTemplate)),
		wlPost("rollingUpdate over 100%", "deployments", wlWorkload("d11", `"strategy":{"rollingUpdate":{"maxUnavailable":"150%","maxSurge":"x"}},`+wlSelector+`,`+wlTemplate)),
		wlPost("template restartPolicy", "deployments", wlWorkload("d12", wlSelector+`,`+wlTemplateWith(`"restartPolicy":"Never",`))),
		wlPost("bad name and spec", "deployments", wlWorkload("Bad_D", `"replicas":-1,`+wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c"}]}}`)),
		{Name: "update selector", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1",
			Body: wlWorkload("d1", `"selector":{"matchLabels":{"app":"x","tier":"a"}},"template":{"metadata":{"labels":{"app":"x","tier":"a"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)},
		{Name: "update negative replicas and bad label", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1",
			Body: `{"metadata":{"name":"d1","labels":{"a b":"x"}},"spec":{"replicas":-1,` + wlSelector + `,` + wlTemplate + `}}`},
		{Name: "update good", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1",
			Body: wlWorkload("d1", `"replicas":3,`+wlSelector+`,`+wlTemplate)},
		wlMerge("merge patch template restartPolicy", "/apis/apps/v1/namespaces/{ns}/deployments/d1", `{"spec":{"template":{"spec":{"restartPolicy":"OnFailure"}}}}`),
		wlMerge("merge patch selector mismatch", "/apis/apps/v1/namespaces/{ns}/deployments/d1", `{"spec":{"template":{"metadata":{"labels":{"app":"z"}}}}}`),
		wlApply("apply creates without containers", "/apis/apps/v1/namespaces/{ns}/deployments/d13",
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d13"},"spec":{`+wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[]}}}}`),
		wlApply("apply makes invalid", "/apis/apps/v1/namespaces/{ns}/deployments/d1?force=true",
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d1"},"spec":{"replicas":-5}}`),
	}},
	{Name: "wl-replicaset", Steps: []writeStep{
		nsStep(),
		wlPost("good", "replicasets", wlWorkload("rs1", wlSelector+`,`+wlTemplate)),
		wlPost("no selector and restartPolicy", "replicasets", wlWorkload("rs2", wlTemplateWith(`"restartPolicy":"OnFailure",`))),
		wlPost("selector mismatch and negative numbers", "replicasets", wlWorkload("rs3", `"replicas":-1,"minReadySeconds":-1,"selector":{"matchLabels":{"app":"y"}},`+wlTemplate)),
		{Name: "update selector", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/rs1",
			Body: wlWorkload("rs1", `"selector":{"matchLabels":{"app":"x","v":"2"}},"template":{"metadata":{"labels":{"app":"x","v":"2"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)},
	}},
	{Name: "wl-statefulset", Steps: []writeStep{
		nsStep(),
		wlPost("good", "statefulsets", wlWorkload("ss1", `"serviceName":"svc",`+wlSelector+`,`+wlTemplate)),
		wlPost("mount of a claim template", "statefulsets", wlWorkload("ss6", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox","volumeMounts":[{"name":"data","mountPath":"/d"},{"name":"nope","mountPath":"/n"}]}]}},`+
			`"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]`)),
		wlPost("name with a dot", "statefulsets", wlWorkload("ss.2", wlSelector+`,`+wlTemplate)),
		wlPost("no selector", "statefulsets", wlWorkload("ss3", wlTemplate)),
		wlPost("empty selector and policies", "statefulsets", wlWorkload("ss4", `"selector":{},"podManagementPolicy":"Bogus","updateStrategy":{"type":"Bogus"},"serviceName":"Bad_Svc",`+wlTemplateWith(`"restartPolicy":"Never",`))),
		wlPost("negative numbers", "statefulsets", wlWorkload("ss5", `"replicas":-1,"minReadySeconds":-1,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":-1}},`+wlSelector+`,`+wlTemplate)),
		{Name: "update immutable fields", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/ss1",
			Body: wlWorkload("ss1", `"serviceName":"other","podManagementPolicy":"Parallel","selector":{"matchLabels":{"app":"x","v":"2"}},"template":{"metadata":{"labels":{"app":"x","v":"2"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)},
		{Name: "update replicas and image", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/ss1",
			Body: wlWorkload("ss1", `"replicas":2,"serviceName":"svc",`+wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}`)},
		wlMerge("merge patch negative replicas", "/apis/apps/v1/namespaces/{ns}/statefulsets/ss1", `{"spec":{"replicas":-3}}`),
	}},
	{Name: "wl-daemonset", Steps: []writeStep{
		nsStep(),
		wlPost("good", "daemonsets", wlWorkload("ds1", wlSelector+`,`+wlTemplate)),
		wlPost("selector mismatch and restartPolicy", "daemonsets", wlWorkload("ds2", `"selector":{"matchLabels":{"app":"y"}},`+wlTemplateWith(`"restartPolicy":"OnFailure",`))),
		wlPost("no selector", "daemonsets", wlWorkload("ds3", wlTemplate)),
		wlPost("updateStrategy", "daemonsets", wlWorkload("ds4", `"updateStrategy":{"type":"Bogus"},"minReadySeconds":-1,"revisionHistoryLimit":-1,`+wlSelector+`,`+wlTemplate)),
		wlPost("rollingUpdate zero", "daemonsets", wlWorkload("ds5", `"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0,"maxSurge":0}},`+wlSelector+`,`+wlTemplate)),
		{Name: "update selector", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets/ds1",
			Body: wlWorkload("ds1", `"selector":{"matchLabels":{"app":"x","v":"2"}},"template":{"metadata":{"labels":{"app":"x","v":"2"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)},
	}},
	{Name: "wl-job", Steps: []writeStep{
		nsStep(),
		wlPost("good", "jobs", `{"metadata":{"name":"j1"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`),
		wlPost("restartPolicy defaulted to Always", "jobs", `{"metadata":{"name":"j2"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`),
		wlPost("restartPolicy unsupported and negative numbers", "jobs", `{"metadata":{"name":"j3"},"spec":{"parallelism":-1,"completions":-1,"backoffLimit":-1,"activeDeadlineSeconds":-1,`+
			`"template":{"spec":{"restartPolicy":"Sometimes","containers":[{"name":"c","image":"busybox"}]}}}}`),
		wlPost("manual selector mismatch", "jobs", `{"metadata":{"name":"j4"},"spec":{"manualSelector":true,"selector":{"matchLabels":{"app":"y"}},`+
			`"template":{"metadata":{"labels":{"app":"x"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`),
		wlPost("name too long for the pods' label", "jobs", `{"metadata":{"name":"`+strings.Repeat("j", 64)+`"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`),
		wlPost("bad name and no containers", "jobs", `{"metadata":{"name":"Bad_J"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[]}}}}`),
		wlMerge("merge patch template", "/apis/batch/v1/namespaces/{ns}/jobs/j1", `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}}}`),
		wlMerge("merge patch parallelism", "/apis/batch/v1/namespaces/{ns}/jobs/j1", `{"spec":{"parallelism":3}}`),
	}},
	{Name: "wl-cronjob", Steps: []writeStep{
		nsStep(),
		wlPost("good", "cronjobs", wlCronJob("cj1", `"schedule":"*/5 * * * *",`, `"restartPolicy":"OnFailure",`)),
		wlPost("no schedule", "cronjobs", wlCronJob("cj2", ``, `"restartPolicy":"OnFailure",`)),
		wlPost("bad schedule", "cronjobs", wlCronJob("cj3", `"schedule":"every minute",`, `"restartPolicy":"OnFailure",`)),
		wlPost("schedule out of range", "cronjobs", wlCronJob("cj4", `"schedule":"61 * * * *",`, `"restartPolicy":"OnFailure",`)),
		wlPost("TZ in schedule", "cronjobs", wlCronJob("cj5", `"schedule":"CRON_TZ=UTC 0 * * * *",`, `"restartPolicy":"OnFailure",`)),
		wlPost("policies and negative numbers", "cronjobs", wlCronJob("cj6", `"schedule":"@hourly","concurrencyPolicy":"Sometimes","startingDeadlineSeconds":-1,"successfulJobsHistoryLimit":-1,`, ``)),
		wlPost("name too long", "cronjobs", wlCronJob(strings.Repeat("c", 53), `"schedule":"@daily",`, `"restartPolicy":"Never",`)),
		{Name: "update bad schedule", Method: "PUT", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs/cj1",
			Body: wlCronJob("cj1", `"schedule":"* * *",`, `"restartPolicy":"OnFailure",`)},
	}},
}

// wlSelector and wlTemplate are a workload's matching selector and pod template.
const (
	wlSelector = `"selector":{"matchLabels":{"app":"x"}}`
	wlTemplate = `"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`
)

// wlTemplateWith is wlTemplate with more pod spec fields (a JSON fragment ending in a comma).
func wlTemplateWith(spec string) string {
	return `"template":{"metadata":{"labels":{"app":"x"}},"spec":{` + spec + `"containers":[{"name":"c","image":"busybox"}]}}`
}

// wlWorkload is a workload named name with the spec fields given (a JSON fragment).
func wlWorkload(name, spec string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{` + spec + `}}`
}

// wlCronJob is a cron job with the spec fields given and the pod spec fields given (both JSON
// fragments ending in a comma, or empty).
func wlCronJob(name, spec, podSpec string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{` + spec + `"jobTemplate":{"spec":{"template":{"spec":{` + podSpec + `"containers":[{"name":"c","image":"busybox"}]}}}}}}`
}

// wlPost creates an object of a namespaced resource of the core, apps or batch group.
func wlPost(name, resource, body string) writeStep {
	prefix := "/api/v1"
	switch resource {
	case "deployments", "replicasets", "statefulsets", "daemonsets":
		prefix = "/apis/apps/v1"
	case "jobs", "cronjobs":
		prefix = "/apis/batch/v1"
	}
	return writeStep{Name: name, Method: "POST", Path: prefix + "/namespaces/{ns}/" + resource, Body: body}
}

// wlMerge is a JSON merge patch of the object at path.
func wlMerge(name, path, body string) writeStep {
	return writeStep{Name: name, Method: "PATCH", Path: path, ContentType: "application/merge-patch+json", Body: body}
}

// wlApply is a server-side apply of the object at path by the field manager "wl".
func wlApply(name, path, body string) writeStep {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return writeStep{Name: name, Method: "PATCH", Path: path + sep + "fieldManager=wl", ContentType: "application/apply-patch+yaml", Body: body}
}
