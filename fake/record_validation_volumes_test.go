package fake_test

import "testing"

// validationVolumeCases are the requests that show kube-apiserver 1.37.2's validation of
// persistent volumes (on create and update) and limit ranges, recorded into
// testdata/observed-validation-volumes.json (TestRecordValidationVolumes) and replayed against the
// fake (TestObservedValidationVolumes). Limit ranges' maps hold one resource per limit: the
// apiserver walks them in Go's random order. Case names start with "vol-"; persistent volumes'
// names carry their case's namespace, to stay apart from other recordings' volumes.
var validationVolumeCases = []writeCase{
	{Name: "vol-pv", Steps: []writeStep{
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
	{Name: "vol-limitrange", Steps: []writeStep{
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

// validationVolumesRecording is where validationVolumeCases are recorded and replayed.
var validationVolumesRecording = recording{cases: validationVolumeCases, file: "testdata/observed-validation-volumes.json", markdown: "observed-validation-volumes.md",
	title: "validation of persistent volumes and limit ranges", recorder: "TestRecordValidationVolumes", replayer: "TestObservedValidationVolumes", source: "record_validation_volumes_test.go"}

// TestRecordValidationVolumes records validationVolumeCases from a kube-apiserver as
// TestRecordOracle records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh
// oracle).
func TestRecordValidationVolumes(t *testing.T) { validationVolumesRecording.record(t, oracleServer(t)) }

// TestObservedValidationVolumes replays the recorded validation of persistent volumes and limit
// ranges against the fake: status code, warnings and the whole body, the causes and their order
// included.
func TestObservedValidationVolumes(t *testing.T) {
	validationVolumesRecording.replay(t, noControllers, nil)
}
