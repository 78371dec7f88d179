package fake_test

// defaultCases are the creates whose answers show the apiserver's defaults, recorded from a
// kube-apiserver 1.37.2 into testdata/observed-defaults.json (TestRecordOracleDefaults) and
// replayed against the fake (TestObservedDefaults), which must set every recorded field. {ns} is
// the case's namespace, as in writeCases.
var defaultCases = []writeCase{
	{Name: "defaults", Steps: []writeStep{
		nsStep(),
		{Name: "pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1"},"spec":{"initContainers":[{"name":"i","image":"busybox:1"}],` +
			`"containers":[{"name":"c","image":"busybox:1","ports":[{"containerPort":80}],"env":[{"name":"N","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],` +
			`"resources":{"limits":{"cpu":"1","memory":"1Gi"}},` +
			`"livenessProbe":{"httpGet":{"path":"/","port":80}},"readinessProbe":{"tcpSocket":{"port":80}},"startupProbe":{"exec":{"command":["true"]}}}],` +
			`"volumes":[{"name":"cm","configMap":{"name":"x"}},{"name":"s","secret":{"secretName":"x"}},{"name":"e","emptyDir":{}},` +
			`{"name":"d","downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}},` +
			`{"name":"pr","projected":{"sources":[{"configMap":{"name":"x"}}]}},{"name":"h","hostPath":{"path":"/tmp"}}]}}`},
		{Name: "pod with serviceAccountName", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"sa1"},"spec":{"serviceAccountName":"builder","containers":[{"name":"c","image":"busybox:1"}]}}`},
		{Name: "pod with the deprecated serviceAccount", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"sa2"},"spec":{"serviceAccount":"old","containers":[{"name":"c","image":"busybox:1"}]}}`},
		{Name: "service", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s1"},"spec":{"selector":{"app":"x"},"ports":[{"port":80}]}}`},
		{Name: "service with clusterIP", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s2"},"spec":{"clusterIP":"10.96.200.10","ports":[{"port":80,"targetPort":"http"}]}}`},
		{Name: "service clusterIP taken", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s3"},"spec":{"clusterIP":"10.96.200.10","ports":[{"port":80}]}}`},
		{Name: "service clusterIP out of range", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s4"},"spec":{"clusterIP":"10.0.0.10","ports":[{"port":80}]}}`},
		{Name: "service clusterIP invalid", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s5"},"spec":{"clusterIP":"not-an-ip","ports":[{"port":80}]}}`},
		{Name: "service headless", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s6"},"spec":{"clusterIP":"None","ports":[{"port":80}]}}`},
		{Name: "service NodePort", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s7"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}}`},
		{Name: "service ExternalName", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s8"},"spec":{"type":"ExternalName","externalName":"example.com"}}`},
		{Name: "service deleted frees its clusterIP", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/services/s2"},
		{Name: "service reuses the freed clusterIP", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s9"},"spec":{"clusterIP":"10.96.200.10","ports":[{"port":80}]}}`},
		{Name: "service NodePort taken", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s10"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}}`},
		{Name: "service NodePort out of range", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s11"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":80}]}}`},
		{Name: "service NodePort allocated", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s12"},"spec":{"type":"NodePort","ports":[{"port":80}]}}`},
		{Name: "service LoadBalancer", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s13"},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}`},
		{Name: "service update without clusterIP", Method: "PUT", Path: "/api/v1/namespaces/{ns}/services/s9", Body: `{"metadata":{"name":"s9"},"spec":{"ports":[{"port":81}]}}`},
		{Name: "service update changes clusterIP", Method: "PUT", Path: "/api/v1/namespaces/{ns}/services/s9", Body: `{"metadata":{"name":"s9"},"spec":{"clusterIP":"10.96.200.11","ports":[{"port":81}]}}`},
		{Name: "job", Method: "POST", Path: "/apis/batch/v1/namespaces/{ns}/jobs", Body: `{"metadata":{"name":"j1"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "cronjob", Method: "POST", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs", Body: `{"metadata":{"name":"cj1"},"spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox:1"}]}}}}}}`},
		{Name: "daemonset", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets", Body: `{"metadata":{"name":"ds1"},"spec":{"selector":{"matchLabels":{"app":"ds"}},"template":{"metadata":{"labels":{"app":"ds"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "statefulset", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets", Body: `{"metadata":{"name":"ss1"},"spec":{"selector":{"matchLabels":{"app":"ss"}},"template":{"metadata":{"labels":{"app":"ss"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}},` +
			`"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`},
		{Name: "replicaset", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/replicasets", Body: `{"metadata":{"name":"rs1"},"spec":{"selector":{"matchLabels":{"app":"rs"}},"template":{"metadata":{"labels":{"app":"rs"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "replicationcontroller", Method: "POST", Path: "/api/v1/namespaces/{ns}/replicationcontrollers", Body: `{"metadata":{"name":"rc1"},"spec":{"template":{"metadata":{"labels":{"app":"rc"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "ingress", Method: "POST", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses", Body: `{"metadata":{"name":"in1"},"spec":{"rules":[{"host":"a.example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"s1","port":{"number":80}}}}]}}]}}`},
		{Name: "networkpolicy", Method: "POST", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies", Body: `{"metadata":{"name":"np1"},"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80}]}]}}`},
		{Name: "poddisruptionbudget", Method: "POST", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", Body: `{"metadata":{"name":"pdb1"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"x"}}}}`},
		{Name: "serviceaccount", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts", Body: `{"metadata":{"name":"sa1"}}`},
		{Name: "secret", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"sec1"},"stringData":{"k":"v"}}`},
		{Name: "persistentvolumeclaim", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"pvc1"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "persistentvolume", Method: "POST", Path: "/api/v1/persistentvolumes", Body: `{"metadata":{"name":"pv-{ns}"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/pv"}}}`},
		{Name: "delete persistentvolume", Method: "DELETE", Path: "/api/v1/persistentvolumes/pv-{ns}"},
		{Name: "storageclass", Method: "POST", Path: "/apis/storage.k8s.io/v1/storageclasses", Body: `{"metadata":{"name":"sc-{ns}"},"provisioner":"example.com/x"}`},
		{Name: "delete storageclass", Method: "DELETE", Path: "/apis/storage.k8s.io/v1/storageclasses/sc-{ns}"},
		{Name: "csidriver", Method: "POST", Path: "/apis/storage.k8s.io/v1/csidrivers", Body: `{"metadata":{"name":"csi-{ns}.example.com"},"spec":{}}`},
		{Name: "delete csidriver", Method: "DELETE", Path: "/apis/storage.k8s.io/v1/csidrivers/csi-{ns}.example.com"},
		{Name: "hpa without metrics", Method: "POST", Path: "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers", Body: `{"metadata":{"name":"h1"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"maxReplicas":3}}`},
		{Name: "hpa with behavior", Method: "POST", Path: "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers", Body: `{"metadata":{"name":"h2"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"minReplicas":2,"maxReplicas":3,` +
			`"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}}],"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}}}`},
		{Name: "endpoints", Method: "POST", Path: "/api/v1/namespaces/{ns}/endpoints", Body: `{"metadata":{"name":"ep1"},"subsets":[{"addresses":[{"ip":"10.1.1.1"}],"ports":[{"name":"h","port":80},{"name":"u","port":53,"protocol":"UDP"}]}]}`},
		{Name: "endpointslice", Method: "POST", Path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices", Body: `{"metadata":{"name":"es1"},"addressType":"IPv4","endpoints":[{"addresses":["10.1.1.1"]}],"ports":[{"port":80}]}`},
		{Name: "limitrange", Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: `{"metadata":{"name":"lr"},"spec":{"limits":[{"type":"Container","default":{"cpu":"100m"},"max":{"memory":"1Gi","cpu":"1"},"min":{"ephemeral-storage":"1Mi"}},{"type":"Pod","max":{"cpu":"2"}}]}}`},
		{Name: "pod under a limit range", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"lrp"},"spec":{"initContainers":[{"name":"i","image":"busybox:1"}],"containers":[{"name":"c","image":"busybox:1","resources":{"requests":{"cpu":"50m"}}},{"name":"d","image":"busybox:1","resources":{"limits":{"cpu":"200m","memory":"512Mi"}}}]}}`},
		{Name: "priorityclass", Method: "POST", Path: "/apis/scheduling.k8s.io/v1/priorityclasses", Body: `{"metadata":{"name":"pc-{ns}"},"value":100}`},
		{Name: "delete priorityclass", Method: "DELETE", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/pc-{ns}"},
		{Name: "ingressclass", Method: "POST", Path: "/apis/networking.k8s.io/v1/ingressclasses", Body: `{"metadata":{"name":"ic-{ns}"},"spec":{"controller":"example.com/ic","parameters":{"apiGroup":"example.com","kind":"P","name":"p"}}}`},
		{Name: "delete ingressclass", Method: "DELETE", Path: "/apis/networking.k8s.io/v1/ingressclasses/ic-{ns}"},
		{Name: "rolebinding", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings", Body: `{"metadata":{"name":"rb"},"roleRef":{"kind":"Role","name":"r"},"subjects":[{"kind":"User","name":"u"},{"kind":"Group","name":"g"},{"kind":"ServiceAccount","name":"sa","namespace":"{ns}"}]}`},
		{Name: "clusterrolebinding", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", Body: `{"metadata":{"name":"crb-{ns}"},"roleRef":{"kind":"ClusterRole","name":"r"},"subjects":[{"kind":"User","name":"u"}]}`},
		{Name: "delete clusterrolebinding", Method: "DELETE", Path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/crb-{ns}"},
		{Name: "validatingwebhookconfiguration", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", Body: `{"metadata":{"name":"vw-{ns}"},"webhooks":[{"name":"v.example.com","clientConfig":{"service":{"namespace":"{ns}","name":"s"}},` +
			`"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}],"sideEffects":"None","admissionReviewVersions":["v1"]}]}`},
		{Name: "delete validatingwebhookconfiguration", Method: "DELETE", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/vw-{ns}"},
		{Name: "mutatingwebhookconfiguration", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", Body: `{"metadata":{"name":"mw-{ns}"},"webhooks":[{"name":"m.example.com","clientConfig":{"url":"https://example.com/m"},` +
			`"rules":[{"operations":["CREATE"],"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments"],"scope":"Namespaced"}],"sideEffects":"None","admissionReviewVersions":["v1"]}]}`},
		{Name: "delete mutatingwebhookconfiguration", Method: "DELETE", Path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mw-{ns}"},
		{Name: "validatingadmissionpolicy", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", Body: `{"metadata":{"name":"vap-{ns}"},"spec":{"matchConstraints":{"resourceRules":[{"operations":["CREATE"],"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments"]}]},"validations":[{"expression":"object.spec.replicas <= 5"}]}}`},
		{Name: "delete validatingadmissionpolicy", Method: "DELETE", Path: "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/vap-{ns}"},
		{Name: "daemonset template change", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets/ds1", ContentType: "application/merge-patch+json", Body: `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}}}`},
		{Name: "daemonset non-template change", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets/ds1", ContentType: "application/merge-patch+json", Body: `{"spec":{"minReadySeconds":5}}`},
		{Name: "job with a pod failure policy", Method: "POST", Path: "/apis/batch/v1/namespaces/{ns}/jobs", Body: `{"metadata":{"name":"jpf"},"spec":{"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]}]},` +
			`"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "persistentvolume Recycle", Method: "POST", Path: "/api/v1/persistentvolumes", Body: `{"metadata":{"name":"pvr-{ns}"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"persistentVolumeReclaimPolicy":"Recycle","nfs":{"server":"10.0.0.3","path":"/x"}}}`},
		{Name: "delete persistentvolume Recycle", Method: "DELETE", Path: "/api/v1/persistentvolumes/pvr-{ns}"},
		{Name: "resourcequota scope unfit", Method: "POST", Path: "/api/v1/namespaces/{ns}/resourcequotas", Body: `{"metadata":{"name":"rq"},"spec":{"hard":{"persistentvolumeclaims":"3"},"scopeSelector":{"matchExpressions":[{"operator":"In","scopeName":"PriorityClass","values":["high"]}]}}}`},
		{Name: "node", Method: "POST", Path: "/api/v1/nodes", Body: `{"metadata":{"name":"node-{ns}"}}`},
		{Name: "node status capacity", Method: "PATCH", Path: "/api/v1/nodes/node-{ns}/status", ContentType: "application/merge-patch+json", Body: `{"status":{"capacity":{"cpu":"4","pods":"110"}}}`},
		{Name: "node status allocatable kept", Method: "PATCH", Path: "/api/v1/nodes/node-{ns}/status", ContentType: "application/merge-patch+json", Body: `{"status":{"capacity":{"cpu":"8"},"allocatable":{"cpu":"3"}}}`},
		{Name: "node taints replaced by update", Method: "PATCH", Path: "/api/v1/nodes/node-{ns}", ContentType: "application/merge-patch+json", Body: `{"spec":{"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]}}`},
		{Name: "node with its own taints", Method: "POST", Path: "/api/v1/nodes", Body: `{"metadata":{"name":"node2-{ns}"},"spec":{"taints":[{"key":"k","effect":"NoExecute"}]}}`},
		{Name: "node with the not-ready taint", Method: "POST", Path: "/api/v1/nodes", Body: `{"metadata":{"name":"node3-{ns}"},"spec":{"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]},"status":{"capacity":{"cpu":"2"}}}`},
		{Name: "delete node", Method: "DELETE", Path: "/api/v1/nodes/node-{ns}"},
		{Name: "delete node2", Method: "DELETE", Path: "/api/v1/nodes/node2-{ns}"},
		{Name: "delete node3", Method: "DELETE", Path: "/api/v1/nodes/node3-{ns}"},
	}},
}

// scaleCases are the scale subresource's requests, recorded and replayed as defaultCases are.
var scaleCases = []writeCase{
	{Name: "scale", Steps: []writeStep{
		nsStep(),
		{Name: "deployment", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments", Body: `{"metadata":{"name":"d1"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "get", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale"},
		{Name: "update", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"d1","resourceVersion":"{rv}"},"spec":{"replicas":3}}`},
		{Name: "deployment after update", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1"},
		{Name: "update stale resourceVersion", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"metadata":{"name":"d1","resourceVersion":"1"},"spec":{"replicas":4}}`},
		{Name: "update unconditional", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"metadata":{"name":"d1"},"spec":{"replicas":4}}`},
		{Name: "update no-op", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"metadata":{"name":"d1"},"spec":{"replicas":4}}`},
		{Name: "update negative", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"metadata":{"name":"d1"},"spec":{"replicas":-1}}`},
		{Name: "update name mismatch", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"metadata":{"name":"other"},"spec":{"replicas":2}}`},
		{Name: "update bad body", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"spec":{"replicas":"many"}}`},
		{Name: "update wrong kind", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d1"},"spec":{"replicas":2}}`},
		{Name: "update status ignored", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", Body: `{"metadata":{"name":"d1"},"spec":{"replicas":5},"status":{"replicas":9}}`},
		{Name: "merge patch", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", ContentType: "application/merge-patch+json", Body: `{"spec":{"replicas":6}}`},
		{Name: "json patch", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", ContentType: "application/json-patch+json", Body: `[{"op":"replace","path":"/spec/replicas","value":7}]`},
		{Name: "strategic patch", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", ContentType: "application/strategic-merge-patch+json", Body: `{"spec":{"replicas":8}}`},
		{Name: "patch negative", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", ContentType: "application/merge-patch+json", Body: `{"spec":{"replicas":-2}}`},
		{Name: "apply", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale?fieldManager=m1", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"d1"},"spec":{"replicas":1}}`},
		{Name: "deployment after patches", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1"},
		{Name: "missing object", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/deployments/nope/scale"},
		{Name: "update missing object", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/nope/scale", Body: `{"metadata":{"name":"nope"},"spec":{"replicas":1}}`},
		{Name: "dryRun", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale?dryRun=All", Body: `{"metadata":{"name":"d1"},"spec":{"replicas":9}}`},
		{Name: "after dryRun", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale"},
		{Name: "no scale on configmaps", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps/x/scale"},
		{Name: "replicaset", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/replicasets", Body: `{"metadata":{"name":"rs1"},"spec":{"selector":{"matchExpressions":[{"key":"app","operator":"In","values":["rs"]}]},"template":{"metadata":{"labels":{"app":"rs"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "replicaset get", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/rs1/scale"},
		{Name: "replicaset update", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/rs1/scale", Body: `{"metadata":{"name":"rs1"},"spec":{"replicas":3}}`},
		{Name: "statefulset", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets", Body: `{"metadata":{"name":"ss1"},"spec":{"selector":{"matchLabels":{"app":"ss"}},"template":{"metadata":{"labels":{"app":"ss"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "statefulset get", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/ss1/scale"},
		{Name: "statefulset patch", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/ss1/scale", ContentType: "application/merge-patch+json", Body: `{"spec":{"replicas":2}}`},
		{Name: "replicationcontroller", Method: "POST", Path: "/api/v1/namespaces/{ns}/replicationcontrollers", Body: `{"metadata":{"name":"rc1"},"spec":{"replicas":1,"selector":{"app":"rc"},"template":{"metadata":{"labels":{"app":"rc"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "replicationcontroller get", Method: "GET", Path: "/api/v1/namespaces/{ns}/replicationcontrollers/rc1/scale"},
		{Name: "replicationcontroller update", Method: "PUT", Path: "/api/v1/namespaces/{ns}/replicationcontrollers/rc1/scale", Body: `{"metadata":{"name":"rc1"},"spec":{"replicas":4}}`},
		{Name: "replicationcontroller after update", Method: "GET", Path: "/api/v1/namespaces/{ns}/replicationcontrollers/rc1"},
	}},
}

// applyBodyCases are apply bodies in JSON that YAML, which the apiserver reads every apply body
// with, might read otherwise than JSON would: escapes, numbers with a fraction or an exponent,
// duplicate keys. Recorded and replayed as defaultCases are.
var applyBodyCases = []writeCase{
	{Name: "apply-bodies", Steps: []writeStep{
		nsStep(),
		{Name: "escapes", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/esc?fieldManager=m", ContentType: "application/apply-patch+yaml",
			Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"esc"},"data":{"slash":"a\/b","pair":"\ud83d\ude00","tab":"a\tb","quote":"a\"b","unicode":"\u00e9"}}`},
		{Name: "fraction", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1?fieldManager=m", ContentType: "application/apply-patch+yaml",
			Body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d1"},"spec":{"replicas":2.0,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "exponent", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1?fieldManager=m", ContentType: "application/apply-patch+yaml",
			Body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d1"},"spec":{"replicas":1e1,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox:1"}]}}}}`},
		{Name: "duplicate key", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/dup?fieldManager=m", ContentType: "application/apply-patch+yaml",
			Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1","a":"2"}}`},
		{Name: "duplicate key Strict", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/dup2?fieldManager=m&fieldValidation=Strict", ContentType: "application/apply-patch+yaml",
			Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup2"},"data":{"a":"1","a":"2"}}`},
		{Name: "plain JSON", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/plain?fieldManager=m", ContentType: "application/apply-patch+yaml",
			Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"plain","labels":{"n":"1"}},"data":{"k":"v","n":"12"}}`},
	}},
}
