package fake_test

import (
	"strings"
	"testing"
)

// validationKindCases are the requests that show kube-apiserver 1.37.2's validation of
// persistent volumes, limit ranges and nodes (on create and update), of jobs' pod failure and
// success policies, of claims' data sources, of admission webhook configurations, of HPAs'
// container resource metrics and of volume attachments, CSI drivers and runtime classes, and the
// LimitRanger admission plugin's bounds, recorded into
// testdata/observed-validation-kinds.json (TestRecordValidationKinds) and replayed against the
// fake (TestObservedValidationKinds). Limit ranges' maps hold one resource per limit: the
// apiserver walks them in Go's random order, as are nodes' capacities. Case names start with
// "kind-"; persistent volumes' and nodes' names carry their case's namespace, to stay apart from
// other recordings' objects.
var validationKindCases = []writeCase{
	{Name: "kind-pv", Steps: []writeStep{
		nsStep(),
		volPost("good", `{"metadata":{"name":"{ns}-good"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce","ReadOnlyMany"],"persistentVolumeReclaimPolicy":"Retain",`+
			`"hostPath":{"path":"/data","type":"DirectoryOrCreate"},"storageClassName":"standard","volumeMode":"Filesystem","claimRef":{"namespace":"{ns}","name":"claim"}}}`),
		volPost("good local", `{"metadata":{"name":"{ns}-local"},"spec":{"capacity":{"storage":"10Gi"},"accessModes":["ReadWriteOncePod"],"local":{"path":"/mnt/disk"},`+
			`"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["node-1"]}]}]}}}}`),
		volPost("good csi", `{"metadata":{"name":"{ns}-csi"},"spec":{"capacity":{"storage":"5Gi"},"accessModes":["ReadWriteMany"],"csi":{"driver":"example.com.csi","volumeHandle":"vol-1"},"persistentVolumeReclaimPolicy":"Delete"}}`),
		volPost("empty spec", `{"metadata":{"name":"{ns}-p1"},"spec":{}}`),
		volPost("capacity not storage", `{"metadata":{"name":"{ns}-p2"},"spec":{"capacity":{"cpu":"1"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/a"}}}`),
		volPost("capacity not positive", `{"metadata":{"name":"{ns}-p3"},"spec":{"capacity":{"storage":"-1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/a"}}}`),
		volPost("capacity zero", `{"metadata":{"name":"{ns}-p4"},"spec":{"capacity":{"storage":"0"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/a"}}}`),
		volPost("access modes, policy, class, mode", `{"metadata":{"name":"{ns}-p5"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOncePod","ReadWriteOnce","Bogus"],`+
			`"persistentVolumeReclaimPolicy":"Keep","hostPath":{"path":"/a"},"storageClassName":"Bad_Class","volumeMode":"Bogus"}}`),
		volPost("several sources", `{"metadata":{"name":"{ns}-p6"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/a"},"nfs":{"server":"s","path":"/x"},`+
			`"flexVolume":{"driver":"example.com/flex"},"csi":{"driver":"example.com","volumeHandle":"h"}}}`),
		volPost("source contents", `{"metadata":{"name":"{ns}-p7"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"nfs":{"server":"","path":"relative"}}}`),
		volPost("hostPath contents", `{"metadata":{"name":"{ns}-p8"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/a/../b","type":"Bogus"}}}`),
		volPost("hostPath without path", `{"metadata":{"name":"{ns}-p9"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":""}}}`),
		volPost("recycle of /", `{"metadata":{"name":"{ns}-p10"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/"},"persistentVolumeReclaimPolicy":"Recycle"}}`),
		volPost("local without node affinity", `{"metadata":{"name":"{ns}-p11"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"local":{"path":"../disk"}}}`),
		volPost("node affinity", `{"metadata":{"name":"{ns}-p12"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"local":{"path":""},"nodeAffinity":{}}}`),
		volPost("node affinity terms", `{"metadata":{"name":"{ns}-p13"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/a"},`+
			`"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"Bogus"},{"key":"k","operator":"In","values":["bad value!"]}]}]}}}}`),
		volPost("csi contents", `{"metadata":{"name":"{ns}-p14"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"csi":{"driver":"","volumeHandle":""}}}`),
		volPost("csi driver name", `{"metadata":{"name":"{ns}-p15"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"csi":{"driver":"Bad_Driver!","volumeHandle":"h","nodePublishSecretRef":{"name":""}}}}`),
		volPost("bad name and spec", `{"metadata":{"name":"Bad_PV"},"spec":{"accessModes":["Bogus"]}}`),
		{Name: "update capacity and policy", Method: "PUT", Path: "/api/v1/persistentvolumes/{ns}-good", Body: `{"metadata":{"name":"{ns}-good"},"spec":{"capacity":{"storage":"2Gi"},"accessModes":["ReadWriteOnce"],` +
			`"persistentVolumeReclaimPolicy":"Delete","hostPath":{"path":"/data","type":"DirectoryOrCreate"},"storageClassName":"other","volumeMode":"Filesystem"}}`},
		{Name: "update volume mode", Method: "PUT", Path: "/api/v1/persistentvolumes/{ns}-good", Body: `{"metadata":{"name":"{ns}-good"},"spec":{"capacity":{"storage":"2Gi"},"accessModes":["ReadWriteOnce"],` +
			`"persistentVolumeReclaimPolicy":"Delete","hostPath":{"path":"/data","type":"DirectoryOrCreate"},"storageClassName":"other","volumeMode":"Block"}}`},
		{Name: "update source", Method: "PUT", Path: "/api/v1/persistentvolumes/{ns}-good", Body: `{"metadata":{"name":"{ns}-good"},"spec":{"capacity":{"storage":"2Gi"},"accessModes":["ReadWriteOnce"],` +
			`"persistentVolumeReclaimPolicy":"Delete","hostPath":{"path":"/other"},"storageClassName":"other","volumeMode":"Filesystem"}}`},
		volMerge("merge patch node affinity", "{ns}-local", `{"spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["node-2"]}]}]}}}}`),
		volMerge("merge patch to Recycle", "{ns}-csi", `{"spec":{"persistentVolumeReclaimPolicy":"Recycle"}}`),
		volMerge("merge patch bad access mode", "{ns}-csi", `{"spec":{"accessModes":["Sometimes"]}}`),
		{Name: "apply without capacity", Method: "PATCH", Path: "/api/v1/persistentvolumes/{ns}-applied?fieldManager=vol", ContentType: "application/apply-patch+yaml",
			Body: `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"{ns}-applied"},"spec":{"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/a"}}}`},
	}},
	{Name: "kind-limitrange", Steps: []writeStep{
		nsStep(),
		lrPost("good", "good", `{"type":"Container","max":{"cpu":"2"}},{"type":"Pod","max":{"memory":"4Gi"}},{"type":"PersistentVolumeClaim","min":{"storage":"1Gi"}},`+
			`{"type":"example.com/custom","max":{"example.com/widgets":"3"}}`),
		lrPost("good bounds", "bounds", `{"type":"Container","max":{"cpu":"2"},"min":{"cpu":"100m"},"default":{"cpu":"500m"},"defaultRequest":{"cpu":"200m"},"maxLimitRequestRatio":{"cpu":"4"}}`),
		lrPost("types", "l1", `{"type":"Bogus"},{"type":"a b"},{"type":"Container"},{"type":"Container"},{"type":""}`),
		lrPost("pod defaults", "l2", `{"type":"Pod","default":{"cpu":"1"},"defaultRequest":{"cpu":"1"}}`),
		lrPost("claim without storage bounds", "l3", `{"type":"PersistentVolumeClaim","default":{"storage":"1Gi"}}`),
		lrPost("resource names", "l4", `{"type":"Container","max":{"bogus":"1"}},{"type":"PersistentVolumeClaim","min":{"bogus":"1"}},{"type":"Pod","max":{"a b":"1"}},{"type":"Container","default":{"pods":"1"}}`),
		lrPost("min above max", "l5", `{"type":"Container","min":{"cpu":"2"},"max":{"cpu":"1"}}`),
		lrPost("defaults outside bounds", "l6", `{"type":"Container","min":{"memory":"1Gi"},"max":{"memory":"2Gi"},"default":{"memory":"3Gi"},"defaultRequest":{"memory":"512Mi"}}`),
		lrPost("default request above default and max", "l7", `{"type":"Container","max":{"cpu":"1"},"default":{"cpu":"500m"},"defaultRequest":{"cpu":"2"}}`),
		lrPost("default below min", "l8", `{"type":"Container","min":{"cpu":"1"},"default":{"cpu":"500m"}}`),
		lrPost("ratios", "l9", `{"type":"Container","maxLimitRequestRatio":{"cpu":"500m"}},{"type":"Pod","min":{"memory":"1Gi"},"max":{"memory":"2Gi"},"maxLimitRequestRatio":{"memory":"3"}}`),
		lrPost("hugepages default and request", "l10", `{"type":"Container","default":{"hugepages-2Mi":"4Mi"},"defaultRequest":{"hugepages-2Mi":"2Mi"}}`),
		lrPost("bad name and type", "Bad_LR", `{"type":"Bogus"}`),
		{Name: "update bounds", Method: "PUT", Path: "/api/v1/namespaces/{ns}/limitranges/bounds", Body: lrBody("bounds", `{"type":"Container","max":{"cpu":"100m"},"min":{"cpu":"1"}}`)},
		{Name: "merge patch type", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/limitranges/good", ContentType: "application/merge-patch+json", Body: `{"spec":{"limits":[{"type":"Bogus"}]}}`},
	}},
	{Name: "kind-node", Steps: []writeStep{
		nsStep(),
		nodePost("good", `{"metadata":{"name":"{ns}-good"},"spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"},{"key":"dedicated","value":"gpu","effect":"NoExecute"}],`+
			`"podCIDRs":["10.244.1.0/24","fd00:10:244:1::/64"],"providerID":"fake://node-1"},"status":{"capacity":{"cpu":"4"}}}`),
		nodePost("good without spec", `{"metadata":{"name":"{ns}-bare"}}`),
		nodePost("taints", `{"metadata":{"name":"{ns}-n1"},"spec":{"taints":[{"key":"bad key","value":"bad value!","effect":"Bogus"},{"key":"k","effect":""},`+
			`{"key":"k","value":"a","effect":"NoSchedule"},{"key":"k","value":"b","effect":"NoSchedule"},{"key":"","effect":"NoExecute"}]}}`),
		nodePost("podCIDR invalid", `{"metadata":{"name":"{ns}-n2"},"spec":{"podCIDRs":["10.0.0.0/33","10.1.0.1/24"]}}`),
		nodePost("podCIDRs of one family", `{"metadata":{"name":"{ns}-n3"},"spec":{"podCIDRs":["10.0.0.0/24","10.1.0.0/24"]}}`),
		nodePost("three podCIDRs", `{"metadata":{"name":"{ns}-n4"},"spec":{"podCIDRs":["10.0.0.0/24","fd00::/64","10.1.0.0/24"]}}`),
		nodePost("negative capacity", `{"metadata":{"name":"{ns}-n5"},"status":{"capacity":{"memory":"-1Gi"},"allocatable":{"pods":"1500m"}}}`),
		nodePost("bad name and taint", `{"metadata":{"name":"Bad_Node"},"spec":{"taints":[{"key":"k","effect":"Never"}]}}`),
		{Name: "update podCIDRs and providerID", Method: "PUT", Path: "/api/v1/nodes/{ns}-good", Body: `{"metadata":{"name":"{ns}-good"},"spec":{"podCIDRs":["10.244.2.0/24"],"providerID":"fake://node-2"}}`},
		{Name: "update clears providerID", Method: "PUT", Path: "/api/v1/nodes/{ns}-good", Body: `{"metadata":{"name":"{ns}-good"},"spec":{"podCIDRs":["10.244.1.0/24","fd00:10:244:1::/64"]}}`},
		{Name: "update sets podCIDR and providerID", Method: "PUT", Path: "/api/v1/nodes/{ns}-bare", Body: `{"metadata":{"name":"{ns}-bare"},"spec":{"podCIDRs":["10.244.3.0/24"],"providerID":"fake://bare","unschedulable":true}}`},
		{Name: "update taints", Method: "PUT", Path: "/api/v1/nodes/{ns}-bare", Body: `{"metadata":{"name":"{ns}-bare"},"spec":{"podCIDRs":["10.244.3.0/24"],"providerID":"fake://bare","taints":[{"key":"k","effect":"Bogus"}]}}`},
		{Name: "merge patch duplicate taints", Method: "PATCH", Path: "/api/v1/nodes/{ns}-bare", ContentType: "application/merge-patch+json",
			Body: `{"spec":{"taints":[{"key":"k","effect":"NoSchedule"},{"key":"k","value":"v","effect":"NoSchedule"}]}}`},
		{Name: "status update", Method: "PUT", Path: "/api/v1/nodes/{ns}-bare/status", Body: `{"metadata":{"name":"{ns}-bare"},"status":{"capacity":{"cpu":"-2"},` +
			`"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"InternalIP","address":"10.0.0.1"}]}}`},
		{Name: "status update good", Method: "PUT", Path: "/api/v1/nodes/{ns}-bare/status", Body: `{"metadata":{"name":"{ns}-bare"},"status":{"capacity":{"cpu":"2"},"allocatable":{"pods":"110"},` +
			`"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":"bare"}]}}`},
	}},
	{Name: "kind-job", Steps: []writeStep{
		nsStep(),
		jobPost("good pod failure policy", "j1", `"podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":{"containerName":"c","operator":"In","values":[1,2]}},`+
			`{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]},{"action":"Count","onExitCodes":{"operator":"NotIn","values":[0]}}]},`, `"Never"`),
		jobPost("good indexed", "j2", `"completionMode":"Indexed","completions":5,"parallelism":2,"backoffLimitPerIndex":1,"maxFailedIndexes":2,"managedBy":"example.com/jobs",`+
			`"successPolicy":{"rules":[{"succeededIndexes":"0-2,4","succeededCount":2}]},"podFailurePolicy":{"rules":[{"action":"FailIndex","onExitCodes":{"operator":"In","values":[42]}}]},`, `"Never"`),
		jobPost("pod failure policy rules", "j3", `"podFailurePolicy":{"rules":[{"action":""},{"action":"Bogus","onExitCodes":{"operator":"In","values":[0,3,3,1]},"onPodConditions":[{"type":"X"}]},`+
			`{"action":"FailIndex","onExitCodes":{"containerName":"nope","operator":"Between","values":[]}},{"action":"Ignore","onPodConditions":[{"type":"bad type!","status":"Maybe"}]},`+
			`{"action":"Count","onExitCodes":{"values":[1]}}]},`, `"Never"`),
		jobPost("pod failure policy with OnFailure", "j4", `"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]}]},`, `"OnFailure"`),
		jobPost("success policy without indexed mode", "j5", `"completions":3,"successPolicy":{"rules":[{"succeededCount":1}]},`, `"Never"`),
		jobPost("success policy rules", "j6", `"completionMode":"Indexed","completions":5,"successPolicy":{"rules":[{},{"succeededIndexes":"1-0"},{"succeededIndexes":"7"},{"succeededIndexes":"a,b"},`+
			`{"succeededCount":-1},{"succeededCount":10},{"succeededIndexes":"0-1","succeededCount":3},{"succeededIndexes":"1-2-3"},{"succeededIndexes":"3,1"}]},`, `"Never"`),
		jobPost("success policy without rules", "j7", `"completionMode":"Indexed","completions":5,"successPolicy":{"rules":[]},`, `"Never"`),
		jobPost("indexed limits and managedBy", "j8", `"completionMode":"Indexed","completions":5,"parallelism":100001,"backoffLimitPerIndex":1,"maxFailedIndexes":6,"managedBy":"bad",`, `"Never"`),
	}},
	{Name: "kind-pvc", Steps: []writeStep{
		nsStep(),
		pvcPost("snapshot source", "c1", `"dataSource":{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"snap"}`),
		pvcPost("populator reference", "c2", `"dataSourceRef":{"apiGroup":"example.com","kind":"Widget","name":"w"}`),
		pvcPost("other source dropped", "c3", `"dataSource":{"kind":"Widget","name":"w"}`),
		pvcPost("claim source", "c4", `"dataSource":{"kind":"PersistentVolumeClaim","name":"c1"}`),
		pvcPost("reference fields", "c5", `"dataSourceRef":{"apiGroup":"Bad_Group","kind":"","name":""}`),
		pvcPost("reference kind of the core group", "c6", `"dataSourceRef":{"kind":"Widget","name":"w"}`),
		pvcPost("namespaced reference with a source", "c7", `"dataSource":{"kind":"PersistentVolumeClaim","name":"c1"},"dataSourceRef":{"kind":"PersistentVolumeClaim","name":"c1","namespace":"Bad_NS"}`),
		pvcPost("source and reference differ", "c8", `"dataSource":{"kind":"PersistentVolumeClaim","name":"c1"},"dataSourceRef":{"kind":"PersistentVolumeClaim","name":"c2"}`),
		wlPost("claim template source", "statefulsets", wlWorkload("ss1", wlSelector+`,`+wlTemplate+`,"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],`+
			`"resources":{"requests":{"storage":"1Gi"}},"dataSourceRef":{"kind":"Widget","name":""}}}]`)),
		wlPost("ephemeral claim source", "pods", psPod("p1", `"volumes":[{"name":"e","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},`+
			`"dataSource":{"kind":"PersistentVolumeClaim","name":""}}}}}],`, ``)),
		{Name: "update source", Method: "PUT", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c1", Body: pvcBody("c1", `"dataSource":{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"other"}`)},
		{Name: "update without source fields", Method: "PUT", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c4", Body: pvcBody("c4", `"volumeMode":"Filesystem"`)},
	}},
	{Name: "kind-webhook", Steps: []writeStep{
		nsStep(),
		vwcPost("good validating", "good", `{"name":"v.example.com","rules":[{"operations":["CREATE","UPDATE"],"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments","deployments/status"],"scope":"Namespaced"}],`+
			`"clientConfig":{"service":{"namespace":"system","name":"webhook","path":"/validate-apps-v1","port":9443}},"sideEffects":"None","admissionReviewVersions":["v1"],"matchConditions":[{"name":"exclude","expression":"true"}]}`),
		{Name: "good mutating", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
			Body: `{"metadata":{"name":"{ns}-good"},"webhooks":[{"name":"m.example.com","clientConfig":{"url":"https://example.com/mutate"},"reinvocationPolicy":"IfNeeded","sideEffects":"NoneOnDryRun","admissionReviewVersions":["v1","v1beta1"]}]}`},
		vwcPost("webhook fields", "w1", `{"name":"bad","rules":[{"operations":[],"apiGroups":[],"apiVersions":[""],"resources":[]}],"failurePolicy":"Sometimes","matchPolicy":"Bogus","timeoutSeconds":31,`+
			`"namespaceSelector":{"matchExpressions":[{"key":"a","operator":"Bogus"}]},"clientConfig":{"url":"https://example.com","service":{"namespace":"system","name":"webhook"}},"admissionReviewVersions":[]}`),
		vwcPost("rules and versions", "w2", `{"name":"w.example.com","rules":[{"operations":["*","CREATE","PATCH"],"apiGroups":["*","apps"],"apiVersions":["*","v1"],"resources":["*/*","pods"],"scope":"Everywhere"}],`+
			`"clientConfig":{"service":{"namespace":"system","name":"webhook"}},"sideEffects":"Some","admissionReviewVersions":["v1","v1","v9","Bad_V"]}`),
		vwcPost("resource wildcards", "w3", `{"name":"w.example.com","rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods/*","pods/status","*/status","services/status",""]},`+
			`{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["*","pods"]}],"clientConfig":{"service":{"namespace":"system","name":"webhook"}},"sideEffects":"None","admissionReviewVersions":["v2"]}`),
		vwcPost("urls", "w4", `{"name":"a.example.com","clientConfig":{"url":"http://example.com"},"sideEffects":"None","admissionReviewVersions":["v1"]},`+
			`{"name":"b.example.com","clientConfig":{"url":"https:///path"},"sideEffects":"None","admissionReviewVersions":["v1"]},`+
			`{"name":"c.example.com","clientConfig":{"url":"https://user@example.com/x?q=1#frag"},"sideEffects":"None","admissionReviewVersions":["v1"]},`+
			`{"name":"d.example.com","clientConfig":{"url":"https://exa mple.com/%zz"},"sideEffects":"None","admissionReviewVersions":["v1"]},{"name":"e.example.com","clientConfig":{},"sideEffects":"None","admissionReviewVersions":["v1"]}`),
		vwcPost("services", "w5", `{"name":"a.example.com","clientConfig":{"service":{"namespace":"","name":"","port":70000,"path":"noslash//x"}},"sideEffects":"None","admissionReviewVersions":["v1"]},`+
			`{"name":"b.example.com","clientConfig":{"service":{"namespace":"s","name":"w","path":"//"}},"sideEffects":"None","admissionReviewVersions":["v1"]},`+
			`{"name":"c.example.com","clientConfig":{"service":{"namespace":"s","name":"w","path":"/a/Bad_Seg/"}},"sideEffects":"None","admissionReviewVersions":["v1"]}`),
		vwcPost("duplicate names and match conditions", "w6", `{"name":"a.example.com","clientConfig":{"service":{"namespace":"s","name":"w"}},"sideEffects":"None","admissionReviewVersions":["v1"],`+
			`"matchConditions":[{"name":"","expression":""},{"name":"x","expression":"true"},{"name":"x","expression":"true"},{"name":"bad name!","expression":"  "}]},`+
			`{"name":"a.example.com","clientConfig":{"service":{"namespace":"s","name":"w"}},"sideEffects":"None","admissionReviewVersions":["v1"]}`),
		{Name: "mutating reinvocation", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
			Body: `{"metadata":{"name":"{ns}-m2"},"webhooks":[{"name":"m.example.com","clientConfig":{"url":"https://example.com/mutate"},"reinvocationPolicy":"Sometimes","sideEffects":"Unknown","admissionReviewVersions":["v1"]}]}`},
		{Name: "merge patch side effects", Method: "PATCH", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/{ns}-good", ContentType: "application/merge-patch+json",
			Body: `{"webhooks":[{"name":"v.example.com","clientConfig":{"service":{"namespace":"system","name":"webhook"}},"sideEffects":"Some","admissionReviewVersions":["v1"]}]}`},
	}},
	{Name: "kind-hpa", Steps: []writeStep{
		nsStep(),
		hpaPost("good", "h1", `{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","target":{"type":"Utilization","averageUtilization":60}}}`),
		hpaPost("container resource names", "h2", `{"type":"ContainerResource","containerResource":{"name":"bogus","container":"app","target":{"type":"Utilization","averageUtilization":60}}},`+
			`{"type":"ContainerResource","containerResource":{"name":"a b","container":"app","target":{"type":"AverageValue","averageValue":"1"}}},`+
			`{"type":"ContainerResource","containerResource":{"name":"example.com/gpu","container":"app","target":{"type":"AverageValue","averageValue":"1"}}},`+
			`{"type":"ContainerResource","containerResource":{"name":"pods","container":"app","target":{"type":"AverageValue","averageValue":"1"}}}`),
	}},
	{Name: "kind-storage", Steps: []writeStep{
		nsStep(),
		clusterPost("good attachment", "storage.k8s.io/v1/volumeattachments", `{"metadata":{"name":"{ns}-va"},"spec":{"attacher":"example.com.csi","source":{"persistentVolumeName":"pv-1"},"nodeName":"node-1"}}`),
		clusterPost("attachment without source", "storage.k8s.io/v1/volumeattachments", `{"metadata":{"name":"{ns}-va1"},"spec":{"attacher":"","source":{},"nodeName":"Bad_Node"}}`),
		clusterPost("attachment with both sources", "storage.k8s.io/v1/volumeattachments", `{"metadata":{"name":"{ns}-va2"},"spec":{"attacher":"Bad!","source":{"persistentVolumeName":"pv-1",`+
			`"inlineVolumeSpec":{"csi":{"driver":"d","volumeHandle":"h"}}},"nodeName":"node-1"},"status":{"attached":false,"attachError":{"message":"x","errorCode":-1}}}`),
		clusterPost("attachment source fields", "storage.k8s.io/v1/volumeattachments", `{"metadata":{"name":"{ns}-va3"},"spec":{"attacher":"example.com","source":{"persistentVolumeName":""},"nodeName":"node-1"}}`),
		clusterPost("attachment inline spec", "storage.k8s.io/v1/volumeattachments", `{"metadata":{"name":"{ns}-va4"},"spec":{"attacher":"example.com","source":{"inlineVolumeSpec":{"capacity":{"storage":"1Gi"},`+
			`"claimRef":{"name":"c"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/a"},"persistentVolumeReclaimPolicy":"Delete","storageClassName":"sc","volumeMode":"Block","nodeAffinity":{}}},"nodeName":"node-1"}}`),
		{Name: "merge patch attachment node", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/volumeattachments/{ns}-va", ContentType: "application/merge-patch+json", Body: `{"spec":{"nodeName":"node-2"}}`},
		clusterPost("good driver", "storage.k8s.io/v1/csidrivers", `{"metadata":{"name":"{ns}.example.com"},"spec":{"attachRequired":false,"fsGroupPolicy":"File","tokenRequests":[{"audience":"a","expirationSeconds":3600}],"volumeLifecycleModes":["Persistent","Ephemeral"]}}`),
		clusterPost("driver fields", "storage.k8s.io/v1/csidrivers", `{"metadata":{"name":"{ns}-bad.example.com"},"spec":{"fsGroupPolicy":"Sometimes","tokenRequests":[{"audience":"a","expirationSeconds":60},{"audience":"a"},{"audience":"b","expirationSeconds":5000000000}],`+
			`"volumeLifecycleModes":["Forever"],"nodeAllocatableUpdatePeriodSeconds":5,"serviceAccountTokenInSecrets":true}}`),
		clusterPost("driver name", "storage.k8s.io/v1/csidrivers", `{"metadata":{"name":"{ns}-`+strings.Repeat("d", 64)+`"},"spec":{}}`),
		{Name: "merge patch driver", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/csidrivers/{ns}.example.com", ContentType: "application/merge-patch+json", Body: `{"spec":{"attachRequired":true,"volumeLifecycleModes":["Persistent"]}}`},
		clusterPost("good runtime class", "node.k8s.io/v1/runtimeclasses", `{"metadata":{"name":"{ns}-rc"},"handler":"runc","overhead":{"podFixed":{"cpu":"100m"}},"scheduling":{"nodeSelector":{"runtime":"runc"},"tolerations":[{"key":"k","operator":"Exists"}]}}`),
		clusterPost("runtime class fields", "node.k8s.io/v1/runtimeclasses", `{"metadata":{"name":"{ns}-rc1"},"handler":"Bad_Handler","overhead":{"podFixed":{"memory":"-1"}},`+
			`"scheduling":{"nodeSelector":{"bad key":"v"},"tolerations":[{"key":"k","operator":"Exists"},{"key":"k","operator":"Exists","tolerationSeconds":5},{"operator":"Equal"}]}}`),
		clusterPost("runtime class without handler", "node.k8s.io/v1/runtimeclasses", `{"metadata":{"name":"{ns}-rc2"}}`),
		{Name: "merge patch runtime class handler", Method: "PATCH", Path: "/apis/node.k8s.io/v1/runtimeclasses/{ns}-rc", ContentType: "application/merge-patch+json", Body: `{"handler":"crun"}`},
	}},
	{Name: "kind-limitranger", Steps: []writeStep{
		nsStep(),
		lrPost("limit range", "bounds", `{"type":"Container","min":{"cpu":"100m"},"max":{"memory":"1Gi"},"maxLimitRequestRatio":{"memory":"2"}},{"type":"Pod","max":{"cpu":"2"}},`+
			`{"type":"PersistentVolumeClaim","min":{"storage":"1Gi"},"max":{"storage":"10Gi"}}`),
		wlPost("pod within bounds", "pods", lrPod("p1", `{"requests":{"cpu":"200m","memory":"512Mi"},"limits":{"cpu":"500m","memory":"768Mi"}}`)),
		wlPost("request below min", "pods", lrPod("p2", `{"requests":{"cpu":"50m","memory":"512Mi"},"limits":{"cpu":"500m","memory":"768Mi"}}`)),
		wlPost("limit above max", "pods", lrPod("p3", `{"requests":{"cpu":"200m","memory":"1Gi"},"limits":{"cpu":"500m","memory":"2Gi"}}`)),
		wlPost("ratio above max", "pods", lrPod("p4", `{"requests":{"cpu":"200m","memory":"256Mi"},"limits":{"cpu":"500m","memory":"1Gi"}}`)),
		wlPost("pod without cpu limit", "pods", lrPod("p5", `{"requests":{"cpu":"200m","memory":"512Mi"},"limits":{"memory":"768Mi"}}`)),
		wlPost("pod limit above max", "pods", `{"metadata":{"name":"p6"},"spec":{"containers":[`+
			`{"name":"a","image":"busybox","resources":{"requests":{"cpu":"200m","memory":"512Mi"},"limits":{"cpu":"1500m","memory":"768Mi"}}},`+
			`{"name":"b","image":"busybox","resources":{"requests":{"cpu":"200m","memory":"512Mi"},"limits":{"cpu":"1","memory":"768Mi"}}}]}}`),
		wlPost("several violations", "pods", lrPod("p7", `{"requests":{"cpu":"10m","memory":"100Mi"},"limits":{"cpu":"3","memory":"4Gi"}}`)),
		wlPost("invalid and out of bounds", "pods", `{"metadata":{"name":"p8"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"10m"}}}]}}`),
		{Name: "claim below min", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c1"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"500Mi"}}}}`},
		{Name: "claim above max", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c2"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"20Gi"}}}}`},
		{Name: "claim within bounds", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c3"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"5Gi"}}}}`},
	}},
}

// lrPod is a pod with one container of the resources given (a JSON object).
func lrPod(name, resources string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"busybox","resources":` + resources + `}]}}`
}

// clusterPost creates a cluster-scoped object of the group/version/resource path given.
func clusterPost(step, resource, body string) writeStep {
	return writeStep{Name: step, Method: "POST", Path: "/apis/" + resource, Body: body}
}

// hpaPost creates an autoscaling/v2 HorizontalPodAutoscaler of a deployment with the metrics given
// (a JSON fragment of list items).
func hpaPost(step, name, metrics string) writeStep {
	return writeStep{Name: step, Method: "POST", Path: "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers",
		Body: `{"metadata":{"name":"` + name + `"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"maxReplicas":3,"metrics":[` + metrics + `]}}`}
}

// vwcPost creates a validating webhook configuration with the webhooks given (a JSON fragment of
// list items).
func vwcPost(step, name, webhooks string) writeStep {
	return writeStep{Name: step, Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
		Body: `{"metadata":{"name":"{ns}-` + name + `"},"webhooks":[` + webhooks + `]}`}
}

// pvcBody is a claim named name with a storage request, an access mode and the spec fields given
// (a JSON fragment).
func pvcBody(name, spec string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},` + spec + `}}`
}

// pvcPost creates a claim in the case's namespace.
func pvcPost(step, name, spec string) writeStep {
	return writeStep{Name: step, Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: pvcBody(name, spec)}
}

// jobPost creates a job named name with the spec fields given (a JSON fragment ending in a comma)
// and the pod restart policy given (a JSON string).
func jobPost(step, name, spec, restartPolicy string) writeStep {
	return writeStep{Name: step, Method: "POST", Path: "/apis/batch/v1/namespaces/{ns}/jobs",
		Body: `{"metadata":{"name":"` + name + `"},"spec":{` + spec + `"template":{"spec":{"restartPolicy":` + restartPolicy + `,"containers":[{"name":"c","image":"busybox"}]}}}}`}
}

// nodePost creates a node.
func nodePost(name, body string) writeStep {
	return writeStep{Name: name, Method: "POST", Path: "/api/v1/nodes", Body: body}
}

// volPost creates a persistent volume.
func volPost(name, body string) writeStep {
	return writeStep{Name: name, Method: "POST", Path: "/api/v1/persistentvolumes", Body: body}
}

// volMerge is a JSON merge patch of the persistent volume pv.
func volMerge(name, pv, body string) writeStep {
	return writeStep{Name: name, Method: "PATCH", Path: "/api/v1/persistentvolumes/" + pv, ContentType: "application/merge-patch+json", Body: body}
}

// lrBody is a limit range named name with the limits given (a JSON fragment of list items).
func lrBody(name, limits string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{"limits":[` + limits + `]}}`
}

// lrPost creates a limit range in the case's namespace.
func lrPost(step, name, limits string) writeStep {
	return writeStep{Name: step, Method: "POST", Path: "/api/v1/namespaces/{ns}/limitranges", Body: lrBody(name, limits)}
}

// validationKindsRecording is where validationKindCases are recorded and replayed.
var validationKindsRecording = recording{cases: validationKindCases, file: "testdata/observed-validation-kinds.json", markdown: "observed-validation-kinds.md",
	title: "validation of more kinds", recorder: "TestRecordValidationKinds", replayer: "TestObservedValidationKinds", source: "record_validation_kinds_test.go"}

// TestRecordValidationKinds records validationKindCases from a kube-apiserver as
// TestRecordOracle records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh
// oracle).
func TestRecordValidationKinds(t *testing.T) { validationKindsRecording.record(t, oracleServer(t)) }

// TestObservedValidationKinds replays the recorded validation of persistent volumes, limit ranges
// and nodes against the fake: status code, warnings and the whole body, the causes and their order
// included.
func TestObservedValidationKinds(t *testing.T) {
	validationKindsRecording.replay(t, noControllers, func(step string, got, want *observedStep) {
		if step != "kind-webhook/good validating" {
			return
		}
		// A webhook with matchConditions: the fake, which does not evaluate their CEL, says so
		// with one warning the apiserver does not give.
		t.Log("known difference: the fake warns that it does not evaluate matchConditions")
		if len(got.Warnings) == 1 && strings.Contains(got.Warnings[0], "does not evaluate matchConditions") {
			got.Warnings = nil
		}
	})
}
