package selection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// podJSON returns a realistic pod as an apiserver serves it — compact, keys in struct order,
// managedFields from three managers, labels, annotations, owner reference, projected token
// volume, status with conditions, container statuses and podIPs — with the given number of
// containers. With one container it is 4,105 bytes, the average pod of reference/feasibility.md
// (3,952 B); each container adds about 1 KB.
func podJSON(containers int) []byte {
	var specC, statusC, mfC strings.Builder
	for i := range containers {
		if i > 0 {
			specC.WriteByte(',')
			statusC.WriteByte(',')
			mfC.WriteByte(',')
		}
		fmt.Fprintf(&specC, `{"name":"app-%[1]d","image":"registry.example.com/team/app-%[1]d:v1.42.%[1]d",
			"ports":[{"name":"http-%[1]d","containerPort":%[2]d,"protocol":"TCP"}],
			"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},
			"volumeMounts":[{"name":"kube-api-access-x7k2p","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],
			"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}`,
			i, 8080+i)
		fmt.Fprintf(&statusC, `{"name":"app-%[1]d","state":{"running":{"startedAt":"2026-03-01T10:00:0%[1]dZ"}},"lastState":{},
			"ready":true,"restartCount":0,"image":"registry.example.com/team/app-%[1]d:v1.42.%[1]d",
			"imageID":"registry.example.com/team/app-%[1]d@sha256:3f1c9b2e8a7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b",
			"containerID":"containerd://9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8%[1]d","started":true}`, i)
		fmt.Fprintf(&mfC, `"k:{\"name\":\"app-%[1]d\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},"f:resources":{},"f:volumeMounts":{}}`, i)
	}
	raw := `{"kind":"Pod","apiVersion":"v1",
	"metadata":{"name":"web-7d9f8b6c5d-x2k4q","generateName":"web-7d9f8b6c5d-","namespace":"team-a",
		"uid":"4b0c1f5e-2d3a-4c8b-9e7f-1a2b3c4d5e6f","resourceVersion":"123456789","creationTimestamp":"2026-03-01T09:59:58Z",
		"labels":{"app":"web","app.kubernetes.io/name":"web","app.kubernetes.io/part-of":"shop","pod-template-hash":"7d9f8b6c5d","tier":"frontend","version":"v1.42"},
		"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-02-28T12:00:00Z","prometheus.io/scrape":"true"},
		"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f8b6c5d","uid":"9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b","controller":true,"blockOwnerDeletion":true}],
		"managedFields":[
			{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-03-01T09:59:58Z","fieldsType":"FieldsV1",
			 "fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{},"f:tier":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b\"}":{}}},
			 "f:spec":{"f:containers":{` + mfC.String() + `},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}},
			{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2026-03-01T10:00:05Z","fieldsType":"FieldsV1","subresource":"status",
			 "fieldsV1":{"f:status":{"f:conditions":{},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.244.3.17\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}}]},
	"spec":{"volumes":[{"name":"kube-api-access-x7k2p","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
		{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
		{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}}],
		"containers":[` + specC.String() + `],
		"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",
		"serviceAccountName":"web","serviceAccount":"web","nodeName":"node-0042","securityContext":{},
		"schedulerName":"default-scheduler",
		"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
			{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
		"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},
	"status":{"phase":"Running","conditions":[
		{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-03-01T09:59:58Z"},
		{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-03-01T10:00:05Z"},
		{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-03-01T10:00:05Z"},
		{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-03-01T09:59:58Z"}],
		"hostIP":"10.0.3.42","hostIPs":[{"ip":"10.0.3.42"}],"podIP":"10.244.3.17","podIPs":[{"ip":"10.244.3.17"},{"ip":"fd00:10:244:3::11"}],
		"startTime":"2026-03-01T09:59:58Z","containerStatuses":[` + statusC.String() + `],"qosClass":"Burstable"}}`
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// pod4K is the headline fixture: a 4 KiB pod.
var pod4K = podJSON(1)
