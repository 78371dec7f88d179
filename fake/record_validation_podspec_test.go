package fake_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// validationPodSpecCases are the requests that show kube-apiserver 1.37.2's validation of the pod
// spec parts beyond validationWorkloadCases' — security contexts, affinity, tolerations, topology
// spread, DNS config, host aliases, readiness and scheduling gates, volume mount sub-paths,
// envFrom, host network ports, overhead — recorded into testdata/observed-validation-podspec.json
// (TestRecordValidationPodSpec) and replayed against the fake (TestObservedValidationPodSpec).
// Each rule has its bad request next to a good one; some bodies break several rules to show the
// causes' order. Case names start with "ps-".
var validationPodSpecCases = []writeCase{
	{Name: "ps-securitycontext", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("good", `"securityContext":{"runAsUser":1000,"runAsGroup":1000,"runAsNonRoot":true,"fsGroup":2000,"supplementalGroups":[3000],`+
			`"sysctls":[{"name":"net.core.somaxconn","value":"1024"},{"name":"kernel/shm_rmid_forced","value":"0"}],"fsGroupChangePolicy":"OnRootMismatch",`+
			`"seccompProfile":{"type":"RuntimeDefault"},"appArmorProfile":{"type":"RuntimeDefault"},"seLinuxOptions":{"level":"s0:c123,c456"}},`,
			`,"securityContext":{"runAsUser":0,"capabilities":{"add":["NET_ADMIN"],"drop":["ALL"]},"allowPrivilegeEscalation":false,"readOnlyRootFilesystem":true,`+
				`"seccompProfile":{"type":"Localhost","localhostProfile":"profiles/a.json"},"appArmorProfile":{"type":"Localhost","localhostProfile":"k8s-default"},"procMount":"Default"}`)),
		wlPost("pod ids out of range", "pods", psPod("p1", `"securityContext":{"runAsUser":-1,"runAsGroup":2147483648,"fsGroup":-5,"supplementalGroups":[1,-1]},`, ``)),
		wlPost("sysctls", "pods", psPod("p2", `"securityContext":{"sysctls":[{"name":"","value":"1"},{"name":"Bad Name","value":"1"},{"name":"kernel.msgmax","value":"1"},{"name":"kernel.msgmax","value":"2"}]},`, ``)),
		wlPost("sysctls with host network and IPC", "pods", psPod("p3", `"hostNetwork":true,"hostIPC":true,"securityContext":{"sysctls":[{"name":"net.core.somaxconn","value":"1"},{"name":"kernel.shmmax","value":"1"},{"name":"kernel.msgmax","value":"1"}]},`, ``)),
		wlPost("fsGroupChangePolicy and policies", "pods", psPod("p4", `"securityContext":{"fsGroupChangePolicy":"Sometimes","supplementalGroupsPolicy":"Bogus","seLinuxChangePolicy":"Bogus"},`, ``)),
		wlPost("seccomp profiles", "pods", psPod("p5", `"securityContext":{"seccompProfile":{"type":"Bogus"}},`,
			`,"securityContext":{"seccompProfile":{"type":"Localhost"}}},{"name":"c2","image":"busybox","securityContext":{"seccompProfile":{"type":"RuntimeDefault","localhostProfile":"a.json"}}},`+
				`{"name":"c3","image":"busybox","securityContext":{"seccompProfile":{"type":"Localhost","localhostProfile":"/abs/../a.json"}}},{"name":"c4","image":"busybox","securityContext":{"seccompProfile":{}}`)),
		wlPost("appArmor profiles", "pods", psPod("p6", `"securityContext":{"appArmorProfile":{"type":""}},`,
			`,"securityContext":{"appArmorProfile":{"type":"Localhost"}}},{"name":"c2","image":"busybox","securityContext":{"appArmorProfile":{"type":"Localhost","localhostProfile":" x "}}},`+
				`{"name":"c3","image":"busybox","securityContext":{"appArmorProfile":{"type":"Unconfined","localhostProfile":"x"}}},{"name":"c4","image":"busybox","securityContext":{"appArmorProfile":{"type":"Bogus"}}},`+
				`{"name":"c5","image":"busybox","securityContext":{"appArmorProfile":{"type":"Localhost","localhostProfile":""}}`)),
		wlPost("container ids and procMount", "pods", psPod("p7", ``, `,"securityContext":{"runAsUser":-1,"runAsGroup":-2,"procMount":"Bogus"}},{"name":"c2","image":"busybox","securityContext":{"procMount":"Unmasked"}`)),
		wlPost("privileged", "pods", psPod("p8", ``, `,"securityContext":{"privileged":true}`)),
		wlPost("CAP_SYS_ADMIN without escalation", "pods", psPod("p9", ``, `,"securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"add":["CAP_SYS_ADMIN","NET_ADMIN"]}}`)),
		wlPost("pod and container causes with a bad name", "pods", `{"metadata":{"name":"Bad_P"},"spec":{"securityContext":{"runAsUser":-1,"seccompProfile":{"type":"Bogus"}},`+
			`"tolerations":[{"key":"k","operator":"Exists","value":"v"}],"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{}}]}},`+
			`"containers":[{"name":"c","image":"busybox","ports":[{"containerPort":0}],"securityContext":{"runAsUser":-1}}]}}`),
		wlPost("init container security context", "pods", `{"metadata":{"name":"p10"},"spec":{"initContainers":[{"name":"i","image":"busybox","securityContext":{"runAsGroup":-1}}],"containers":[{"name":"c","image":"busybox"}]}}`),
		wlPost("template security context", "deployments", wlWorkload("d1", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"securityContext":{"fsGroup":-1},"containers":[{"name":"c","image":"busybox","securityContext":{"runAsUser":-1}}]}}`)),
	}},
	{Name: "ps-affinity", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("good", `"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]},{"key":"gpu","operator":"Exists"},{"key":"cores","operator":"Gt","values":["4"]}],`+
			`"matchFields":[{"key":"metadata.name","operator":"In","values":["node-1"]}]}]},"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,"preference":{"matchExpressions":[{"key":"disk","operator":"NotIn","values":["hdd"]}]}}]},`+
			`"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"kubernetes.io/hostname","namespaces":["other"]}]},`+
			`"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{"labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]},"topologyKey":"zone","namespaceSelector":{}}}]}},`, ``)),
		wlPost("no node selector terms", "pods", psPod("p1", `"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}},`, ``)),
		wlPost("node selector requirements", "pods", psPod("p2", `"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[`+
			`{"key":"a","operator":"Bogus"},{"key":"b","operator":"In"},{"key":"c","operator":"Exists","values":["x"]},{"key":"d","operator":"Gt","values":["1","2"]},{"key":"bad key","operator":"In","values":["bad value!"]}],`+
			`"matchFields":[{"key":"metadata.name","operator":"In","values":["a","b"]},{"key":"spec.nodeName","operator":"Exists"},{"key":"metadata.name","operator":"NotIn","values":["Bad_Node"]}]}]}}},`, ``)),
		wlPost("preferred weights", "pods", psPod("p3", `"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"preference":{"matchExpressions":[{"key":"a","operator":"In","values":["bad value!"]}]}},{"weight":101,"preference":{}}]}},`, ``)),
		wlPost("pod affinity terms", "pods", psPod("p4", `"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchExpressions":[{"key":"app","operator":"Bogus"}]},"namespaces":["Bad_NS"]},`+
			`{"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"bad key","namespaceSelector":{"matchExpressions":[{"key":"a","operator":"In"}]}}]},`+
			`"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"podAffinityTerm":{"topologyKey":""}}],"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"zone","labelSelector":{"matchLabels":{"bad key":"x"}}}]}},`, ``)),
		wlPost("null label selectors warn", "pods", psPod("warned", `"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"zone"}],"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"topologyKey":"zone"}}]}},`+
			`"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}],`, ``)),
		wlPost("matchLabelKeys", "pods", psPod("p5", `"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"zone","matchLabelKeys":["app","bad key"],"mismatchLabelKeys":["app"]},`+
			`{"topologyKey":"zone","matchLabelKeys":["tier"]}]}},`, ``)),
	}},
	{Name: "ps-tolerations", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("good", `"tolerations":[{"key":"k","operator":"Equal","value":"v","effect":"NoSchedule"},{"operator":"Exists"},{"key":"n","operator":"Exists","effect":"NoExecute","tolerationSeconds":30},{"key":"e","value":"v","effect":"PreferNoSchedule"}],`, ``)),
		wlPost("bad tolerations", "pods", psPod("p1", `"tolerations":[{"key":"bad key","operator":"Exists"},{"operator":"Equal","value":"v"},{"key":"k","operator":"Exists","value":"v"},{"key":"k","operator":"Bogus"},`+
			`{"key":"k","operator":"Equal","value":"bad value!","effect":"Bogus"},{"key":"k","effect":"NoSchedule","tolerationSeconds":10},{"key":"k","operator":"Lt","value":"5"}],`, ``)),
		wlPost("empty key with value", "pods", psPod("p2", `"tolerations":[{"value":"v"}],`, ``)),
		wlPost("template tolerations", "deployments", wlWorkload("d1", wlSelector+`,`+wlTemplateWith(`"tolerations":[{"key":"k","operator":"Exists","value":"v"}],`))),
	}},
	{Name: "ps-topologyspread", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("good", `"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"x"}},"minDomains":2,"nodeAffinityPolicy":"Honor","nodeTaintsPolicy":"Ignore","matchLabelKeys":["pod-template-hash"]},`+
			`{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}],`, ``)),
		wlPost("bad constraints", "pods", psPod("p1", `"topologySpreadConstraints":[{"maxSkew":0,"topologyKey":"","whenUnsatisfiable":"Bogus","minDomains":0,"nodeAffinityPolicy":"Bogus","nodeTaintsPolicy":"Sometimes"},`+
			`{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","minDomains":2,"labelSelector":{"matchExpressions":[{"key":"app","operator":"In"}]}},`+
			`{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app":"x"}},"matchLabelKeys":["app","bad key"]}],`, ``)),
		wlPost("missing fields", "pods", psPod("p2", `"topologySpreadConstraints":[{}],`, ``)),
		wlPost("template constraints", "deployments", wlWorkload("d1", wlSelector+`,`+wlTemplateWith(`"topologySpreadConstraints":[{"maxSkew":-1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}],`))),
	}},
	{Name: "ps-dns", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("good", `"dnsPolicy":"None","dnsConfig":{"nameservers":["1.1.1.1","fd00::1"],"searches":["example.com","a.example.com.","."],"options":[{"name":"ndots","value":"2"}]},`+
			`"hostAliases":[{"ip":"10.0.0.1","hostnames":["db","db.local"]}],"readinessGates":[{"conditionType":"example.com/ready"}],"imagePullSecrets":[{"name":"reg"}],`, ``)),
		wlPost("None without dnsConfig", "pods", psPod("p1", `"dnsPolicy":"None",`, ``)),
		wlPost("None without nameservers", "pods", psPod("p2", `"dnsPolicy":"None","dnsConfig":{"searches":["bad_search"]},`, ``)),
		wlPost("dnsConfig", "pods", psPod("p3", `"dnsConfig":{"nameservers":["1.1.1.1","2.2.2.2","3.3.3.3","bogus"],"searches":["Bad..Search","under_score.example.com"],"options":[{"value":"1"},{"name":"ndots"}]},`, ``)),
		wlPost("too many searches", "pods", psPod("p4", `"dnsConfig":{"searches":["`+strings.Repeat(`a.example.com","`, 32)+`b.example.com"]},`, ``)),
		wlPost("hostAliases", "pods", psPod("p5", `"hostAliases":[{"ip":"300.1.1.1","hostnames":["Bad_Host","ok"]},{"ip":"","hostnames":["x"]},{"ip":"010.0.0.1"}],`, ``)),
		wlPost("gates and pull secrets", "pods", psPod("p6", `"readinessGates":[{"conditionType":"bad type!"},{"conditionType":""}],"schedulingGates":[{"name":"g"},{"name":"g"},{"name":"bad gate!"}],"imagePullSecrets":[{"name":""}],`, ``)),
		wlPost("shareProcessNamespace with hostPID", "pods", psPod("p7", `"shareProcessNamespace":true,"hostPID":true,`, ``)),
		wlPost("host network ports", "pods", psPod("p8", `"hostNetwork":true,`, `,"ports":[{"containerPort":80},{"containerPort":81,"hostPort":82},{"containerPort":83,"hostPort":83}]`)),
		wlPost("host network ports in a template", "deployments", wlWorkload("d1", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"hostNetwork":true,"containers":[{"name":"c","image":"busybox","ports":[{"containerPort":80},{"containerPort":81,"hostPort":82}]}]}}`)),
		{Name: "pod template overhead and names", Method: "POST", Path: "/api/v1/namespaces/{ns}/podtemplates",
			Body: `{"metadata":{"name":"t1"},"template":{"spec":{"overhead":{"bogus":"-1"},"priorityClassName":"Bad_PC","runtimeClassName":"Bad_RC","preemptionPolicy":"Sometimes","containers":[{"name":"c","image":"busybox"}]}}}`},
	}},
	{Name: "ps-mounts", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("good", `"volumes":[{"name":"v","emptyDir":{}}],`, `,"volumeMounts":[{"name":"v","mountPath":"/a","subPath":"x/y"},{"name":"v","mountPath":"/b","subPathExpr":"$(POD_NAME)"},{"name":"v","mountPath":"/c","readOnly":true,"recursiveReadOnly":"Enabled"},{"name":"v","mountPath":"/d","mountPropagation":"HostToContainer"}],`+
			`"envFrom":[{"prefix":"P_","configMapRef":{"name":"cm"}},{"secretRef":{"name":"s","optional":true}}]`)),
		wlPost("sub-paths", "pods", psPod("p1", `"volumes":[{"name":"v","emptyDir":{}}],`, `,"volumeMounts":[{"name":"v","mountPath":"/a","subPath":"/abs"},{"name":"v","mountPath":"/b","subPath":"x/../../y"},{"name":"v","mountPath":"/c","subPath":"x","subPathExpr":"/y/.."}]`)),
		wlPost("propagation and read-only", "pods", psPod("p2", `"volumes":[{"name":"v","emptyDir":{}}],`, `,"volumeMounts":[{"name":"v","mountPath":"/a","mountPropagation":"Bogus"},{"name":"v","mountPath":"/b","mountPropagation":"Bidirectional"},{"name":"v","mountPath":"/c","recursiveReadOnly":"Enabled"},{"name":"v","mountPath":"/d","readOnly":true,"recursiveReadOnly":"Bogus"}]`)),
		wlPost("envFrom", "pods", psPod("p3", ``, `,"envFrom":[{"prefix":"A=B"},{"configMapRef":{"name":"cm"},"secretRef":{"name":"s"}},{"configMapRef":{"name":"Bad_CM"}},{"secretRef":{"name":""}}]`)),
	}},
	{Name: "ps-volumes", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("good", `"serviceAccountName":"default","volumes":[{"name":"a","emptyDir":{"sizeLimit":"1Gi","medium":"Memory"}},{"name":"b","hostPath":{"path":"/var/log","type":"Directory"}},`+
			`{"name":"c","secret":{"secretName":"s","defaultMode":420,"items":[{"key":"a","path":"a.txt","mode":256}]}},{"name":"d","configMap":{"name":"cm","items":[{"key":"k","path":"dir/k"}]}},`+
			`{"name":"e","persistentVolumeClaim":{"claimName":"claim"}},{"name":"f","downwardAPI":{"items":[{"path":"labels","fieldRef":{"fieldPath":"metadata.labels"}},`+
			`{"path":"cpu","resourceFieldRef":{"containerName":"c","resource":"limits.cpu","divisor":"1m"}}]}},{"name":"g","projected":{"sources":[{"secret":{"name":"s"}},{"configMap":{"name":"cm"}},`+
			`{"serviceAccountToken":{"path":"token","expirationSeconds":3600}},{"downwardAPI":{"items":[{"path":"name","fieldRef":{"fieldPath":"metadata.name"}}]}}]}},`+
			`{"name":"h","csi":{"driver":"example.com"}},{"name":"i","nfs":{"server":"s","path":"/x"}},`+
			`{"name":"j","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}],`, `,"volumeMounts":[{"name":"a","mountPath":"/a"},{"name":"j","mountPath":"/j"}]`)),
		wlPost("emptyDir, hostPath and claim", "pods", psPod("p1", `"volumes":[{"name":"a","emptyDir":{"sizeLimit":"-1Gi"}},{"name":"b","hostPath":{"path":"","type":"Bogus"}},{"name":"c","hostPath":{"path":"/a/../b","type":"Bogus"}},`+
			`{"name":"d","persistentVolumeClaim":{"claimName":""}},{"name":"e","nfs":{"server":"","path":"rel"}}],`, `,"volumeMounts":[{"name":"a","mountPath":"/a"}]`)),
		wlPost("secret and configMap items", "pods", psPod("p2", `"volumes":[{"name":"a","secret":{"defaultMode":1000,"items":[{"key":"","path":""},{"key":"k","path":"/abs"},{"key":"k","path":"../x"},{"key":"k","path":"..x"},{"key":"k","path":"p","mode":-1}]}},`+
			`{"name":"b","configMap":{"name":"","defaultMode":-1,"items":[{"key":"k","path":"a/../b"}]}}],`, ``)),
		wlPost("downwardAPI items", "pods", psPod("p3", `"volumes":[{"name":"a","downwardAPI":{"defaultMode":-1,"items":[{"path":"","fieldRef":{"fieldPath":"spec.nodeName"}},{"path":"x","fieldRef":{"fieldPath":"metadata.labels['a b']"}},{"path":"y"},`+
			`{"path":"z","fieldRef":{"fieldPath":"metadata.name"},"resourceFieldRef":{"containerName":"c","resource":"limits.cpu"}},{"path":"w","resourceFieldRef":{"resource":"limits.cpu"}},`+
			`{"path":"v","resourceFieldRef":{"containerName":"c","resource":"limits.gpu"}},{"path":"u","resourceFieldRef":{"containerName":"c","resource":"limits.cpu","divisor":"2"}},{"path":"t","fieldRef":{"fieldPath":"metadata.bogus"}}]}}],`, ``)),
		wlPost("projected sources", "pods", psPod("p4", `"volumes":[{"name":"a","projected":{"defaultMode":1000,"sources":[{"secret":{"name":""},"configMap":{"name":"cm"}},{"serviceAccountToken":{"path":""}},`+
			`{"serviceAccountToken":{"path":"t","expirationSeconds":60}},{"configMap":{"name":"cm","items":[{"key":"a","path":"dup"}]}},{"secret":{"name":"s","items":[{"key":"b","path":"dup"}]}},`+
			`{"downwardAPI":{"items":[{"path":"dup","fieldRef":{"fieldPath":"metadata.name"}}]}}]}}],`, ``)),
		wlPost("csi and ephemeral", "pods", psPod("p5", `"volumes":[{"name":"a","csi":{"driver":""}},{"name":"b","csi":{"driver":"Bad!","nodePublishSecretRef":{"name":"Bad_Name"}}},{"name":"c","csi":{"driver":"example.com","nodePublishSecretRef":{"name":""}}},`+
			`{"name":"d","ephemeral":{}},{"name":"e","ephemeral":{"volumeClaimTemplate":{"metadata":{"labels":{"a b":"c"}},"spec":{"resources":{"requests":{"storage":"0"}}}}}}],`, ``)),
		wlPost("claim of an ephemeral volume", "pods", psPod("p6", `"volumes":[{"name":"data","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}},`+
			`{"name":"ref","persistentVolumeClaim":{"claimName":"p6-data"}}],`, ``)),
		wlPost("template volumes", "deployments", wlWorkload("d1", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"volumes":[{"name":"s","secret":{}},{"name":"c","configMap":{"name":"cm","items":[{"key":"k","path":"/abs"}]}}],"containers":[{"name":"c","image":"busybox"}]}}`)),
	}},
	{Name: "ps-env", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("good", ``, `,"env":[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}},`+
			`{"name":"C","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1Mi"}}},{"name":"D","valueFrom":{"configMapKeyRef":{"name":"cm","key":"k"}}},`+
			`{"name":"E","valueFrom":{"secretKeyRef":{"name":"s","key":"k","optional":true}}},{"name":"F","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['app']"}}},`+
			`{"name":"G","valueFrom":{"resourceFieldRef":{"resource":"requests.hugepages-2Mi"}}},{"name":"H","valueFrom":{"fieldRef":{"fieldPath":"spec.host"}}}]`)),
		wlPost("field references", "pods", psPod("p1", ``, `,"env":[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"spec.restartPolicy"}}},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"bogus"}}},`+
			`{"name":"C","valueFrom":{"fieldRef":{"fieldPath":"metadata.name['x']"}}},{"name":"D","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['a b']"}}},`+
			`{"name":"E","valueFrom":{"fieldRef":{"apiVersion":"v2","fieldPath":"metadata.name"}}},{"name":"F","valueFrom":{"fieldRef":{"fieldPath":""}}},`+
			`{"name":"G","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['Example.com/A']"}}}]`)),
		wlPost("resource references", "pods", psPod("p2", ``, `,"env":[{"name":"A","valueFrom":{"resourceFieldRef":{"resource":""}}},{"name":"B","valueFrom":{"resourceFieldRef":{"resource":"limits.gpu"}}},`+
			`{"name":"C","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"2"}}},{"name":"D","valueFrom":{"resourceFieldRef":{"resource":"requests.memory","divisor":"3Mi"}}},`+
			`{"name":"E","valueFrom":{"resourceFieldRef":{"resource":"limits.hugepages-2Mi","divisor":"1m"}}}]`)),
		wlPost("key references", "pods", psPod("p3", ``, `,"env":[{"name":"A","valueFrom":{"configMapKeyRef":{"name":"","key":""}}},{"name":"B","valueFrom":{"secretKeyRef":{"name":"Bad_S","key":"bad key"}}},`+
			`{"name":"C","valueFrom":{"configMapKeyRef":{"name":"cm","key":"k"},"secretKeyRef":{"name":"s","key":""}}}]`)),
	}},
	{Name: "ps-gated", Steps: []writeStep{
		nsStep(),
		wlPost("gated", "pods", psPod("g1", psGated(`[{"name":"example.com/a"}]`, `{"zone":"a"}`, `[{"key":"k","operator":"In","values":["v"]}]`, `[{"key":"t","operator":"Exists"}]`), ``)),
		psPut("adds a gate", "g1", psGated(`[{"name":"example.com/a"},{"name":"example.com/b"}]`, `{"zone":"a"}`, `[{"key":"k","operator":"In","values":["v"]}]`, `[{"key":"t","operator":"Exists"}]`)),
		psPut("changes a node selector value", "g1", psGated(`[{"name":"example.com/a"}]`, `{"zone":"b"}`, `[{"key":"k","operator":"In","values":["v"]}]`, `[{"key":"t","operator":"Exists"}]`)),
		psPut("removes an affinity expression", "g1", psGated(`[{"name":"example.com/a"}]`, `{"zone":"a"}`, `[]`, `[{"key":"t","operator":"Exists"}]`)),
		{Name: "adds an affinity term", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/g1", Body: psPod("g1", `"schedulingGates":[{"name":"example.com/a"}],"nodeSelector":{"zone":"a"},`+
			`"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"In","values":["v"]}]},{"matchExpressions":[{"key":"x","operator":"Exists"}]}]}}},`+
			`"tolerations":[{"key":"t","operator":"Exists"}],`, ``)},
		psPut("modifies a toleration and adds a gate", "g1", psGated(`[{"name":"example.com/a"},{"name":"example.com/c"}]`, `{"zone":"a"}`, `[{"key":"k","operator":"In","values":["v"]}]`, `[{"key":"t","operator":"Equal","value":"x"}]`)),
		psPut("adds a node selector and an affinity expression", "g1", psGated(`[{"name":"example.com/a"}]`, `{"zone":"a","disk":"ssd"}`, `[{"key":"k","operator":"In","values":["v"]},{"key":"j","operator":"Exists"}]`, `[{"key":"t","operator":"Exists"}]`)),
		psPut("removes the gate", "g1", psGated(`[]`, `{"zone":"a","disk":"ssd"}`, `[{"key":"k","operator":"In","values":["v"]},{"key":"j","operator":"Exists"}]`, `[{"key":"t","operator":"Exists"}]`)),
		psPut("ungated adds a node selector", "g1", psGated(`[]`, `{"zone":"a","disk":"ssd","gpu":"yes"}`, `[{"key":"k","operator":"In","values":["v"]},{"key":"j","operator":"Exists"}]`, `[{"key":"t","operator":"Exists"}]`)),
	}},
	{Name: "ps-warnings", Steps: []writeStep{
		nsStep(),
		wlPost("node labels and null selectors", "pods", psPod("w1", `"nodeSelector":{"beta.kubernetes.io/arch":"amd64"},"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[`+
			`{"matchExpressions":[{"key":"failure-domain.beta.kubernetes.io/zone","operator":"In","values":["a"]}]}]},"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[`+
			`{"key":"node-role.kubernetes.io/master","operator":"In","values":["bad value!"]}]}}]},"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"zone"}]}},`+
			`"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"beta.kubernetes.io/instance-type","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{}}],`, ``)),
		wlPost("annotations, volumes, aliases and secrets", "pods", `{"metadata":{"name":"w2","annotations":{"scheduler.alpha.kubernetes.io/critical-pod":"","seccomp.security.alpha.kubernetes.io/pod":"runtime/default",`+
			`"container.seccomp.security.alpha.kubernetes.io/c":"runtime/default"}},"spec":{"volumes":[{"name":"g","glusterfs":{"endpoints":"e","path":"p"}},{"name":"r","cephfs":{"monitors":["m"]}}],`+
			`"hostAliases":[{"ip":"10.0.0.1","hostnames":["a"]},{"ip":"10.0.0.1","hostnames":["b"]},{"ip":"2001:db8:0:0::2","hostnames":["c"]}],"imagePullSecrets":[{"name":"r"},{"name":"r"},{"name":""}],`+
			`"dnsConfig":{"nameservers":["2001:db8:0:0::1"]},"containers":[{"name":"c","image":"busybox"}]}}`),
		wlPost("containers", "pods", psPod("w3", `"terminationGracePeriodSeconds":-1,"initContainers":[{"name":"i","image":"busybox","ports":[{"name":"http","containerPort":80}]}],`,
			`,"resources":{"limits":{"memory":"1.5","ephemeral-storage":"2.5"},"requests":{"memory":"0.5"}},"env":[{"name":"A","value":"1"},{"name":"A","value":"2"},{"name":"B","value":"x"},{"name":"B","value":"$(B)y"},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],`+
				`"ports":[{"name":"http","containerPort":80},{"containerPort":81,"hostIP":"10.0.0.1"},{"containerPort":82,"hostPort":82},{"containerPort":82,"hostPort":8282},{"containerPort":83,"hostPort":83,"hostIP":"10.0.0.1"},{"containerPort":83,"hostPort":83}]`)),
		wlPost("template warnings", "deployments", wlWorkload("d1", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"nodeSelector":{"beta.kubernetes.io/os":"linux"},"containers":[{"name":"c","image":"busybox","env":[{"name":"A","value":"1"},{"name":"A","value":"2"}]}]}}`)),
		{Name: "pod template warnings", Method: "POST", Path: "/api/v1/namespaces/{ns}/podtemplates", Body: `{"metadata":{"name":"t1"},"template":{"spec":{"terminationGracePeriodSeconds":-5,"containers":[{"name":"c","image":"busybox"}]}}}`},
		wlPost("cron job template warnings", "cronjobs", wlCronJob("cj1", `"schedule":"@daily",`, `"restartPolicy":"OnFailure","imagePullSecrets":[{"name":""}],`)),
		wlMerge("update of a warned deployment", "/apis/apps/v1/namespaces/{ns}/deployments/d1", `{"spec":{"replicas":2}}`),
		wlMerge("update of a warned pod", "/api/v1/namespaces/{ns}/pods/w3", `{"metadata":{"labels":{"a":"b"}}}`),
	}},
	{Name: "ps-more", Steps: []writeStep{
		nsStep(),
		wlPost("good resize policies", "pods", psPod("r1", ``, `,"resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"},{"resourceName":"memory","restartPolicy":"RestartContainer"}]`)),
		wlPost("bad resize policies", "pods", psPod("r2", ``, `,"resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"},{"resourceName":"cpu","restartPolicy":"Sometimes"},{"resourceName":"storage","restartPolicy":"NotRequired"},{"resourceName":"","restartPolicy":""}]`)),
		wlPost("resize policy of a pod that never restarts", "pods", psPod("r3", `"restartPolicy":"Never",`, `,"resizePolicy":[{"resourceName":"memory","restartPolicy":"RestartContainer"},{"resourceName":"cpu","restartPolicy":"NotRequired"}]`)),
		wlPost("resize policies of init containers", "pods", `{"metadata":{"name":"r4"},"spec":{"initContainers":[`+
			`{"name":"i","image":"busybox","resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"}]},`+
			`{"name":"j","image":"busybox","resizePolicy":[{"resourceName":"memory","restartPolicy":"NotRequired"}]},`+
			`{"name":"s","image":"busybox","restartPolicy":"Always","resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"},{"resourceName":"gpu","restartPolicy":"NotRequired"}]}],`+
			`"containers":[{"name":"c","image":"busybox"}]}}`),
		wlPost("stop signal without an OS", "pods", psPod("s1", ``, `,"lifecycle":{"stopSignal":"SIGTERM"}`)),
		wlPost("stop signal on linux", "pods", psPod("s2", `"os":{"name":"linux"},`, `,"lifecycle":{"stopSignal":"SIGUSR1"}`)),
		wlPost("unsupported stop signals", "pods", psPod("s3", `"os":{"name":"linux"},`, `,"lifecycle":{"stopSignal":"SIGBOGUS"}},{"name":"d","image":"busybox","lifecycle":{"stopSignal":""}`)),
		wlPost("stop signal on windows", "pods", psPod("s4", `"os":{"name":"windows"},`, `,"lifecycle":{"stopSignal":"SIGUSR1"}`)),
		wlPost("stop signal of a sidecar", "pods", `{"metadata":{"name":"s5"},"spec":{"initContainers":[{"name":"s","image":"busybox","restartPolicy":"Always","lifecycle":{"stopSignal":"SIGKILL"}}],"containers":[{"name":"c","image":"busybox"}]}}`),
		wlPost("user namespace", "pods", psPod("h1", `"hostUsers":false,`, ``)),
		wlPost("user namespace with host namespaces", "pods", psPod("h2", `"hostUsers":false,"hostNetwork":true,"hostPID":true,"hostIPC":true,`, ``)),
		wlPost("user namespace with volume devices", "pods", psPod("h3", `"hostUsers":false,"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c"}}],`, `,"volumeDevices":[{"name":"v","devicePath":"/dev/xvda"}]`)),
		wlPost("hostname override", "pods", psPod("o1", `"hostnameOverride":"my-host.example",`, ``)),
		wlPost("hostname override with FQDN and host network", "pods", psPod("o2", `"hostnameOverride":"my-host","setHostnameAsFQDN":true,"hostNetwork":true,`, ``)),
		wlPost("hostname override too long and invalid", "pods", psPod("o3", `"hostnameOverride":"`+strings.Repeat("a", 60)+`.Bad_Name",`, ``)),
		wlPost("empty hostname override", "pods", psPod("o4", `"hostnameOverride":"",`, ``)),
	}},
	{Name: "ps-devices", Steps: []writeStep{
		nsStep(),
		wlPost("good device", "pods", psPod("d1", `"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c"}}],`, `,"volumeDevices":[{"name":"v","devicePath":"/dev/xvda"}]`)),
		wlPost("device of an ephemeral volume", "pods", psPod("d2", `"volumes":[{"name":"e","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"volumeMode":"Block","resources":{"requests":{"storage":"1Gi"}}}}}}],`,
			`,"volumeDevices":[{"name":"e","devicePath":"/dev/xvdb"}]`)),
		wlPost("bad devices", "pods", psPod("d3", `"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c"}},{"name":"d","emptyDir":{}}],`,
			`,"volumeDevices":[{"name":"","devicePath":""},{"name":"v","devicePath":"/dev/a"},{"name":"v","devicePath":"/dev/a"},{"name":"d","devicePath":"/dev/../b"},{"name":"missing","devicePath":"/dev/c"}]`)),
		wlPost("devices and mounts overlap", "pods", psPod("d4", `"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c"}},{"name":"w","persistentVolumeClaim":{"claimName":"c2"}}],`,
			`,"volumeMounts":[{"name":"v","mountPath":"/data"},{"name":"w","mountPath":"/dev/xvdc"}],"volumeDevices":[{"name":"v","devicePath":"/dev/xvdc"}]`)),
		wlPost("device of an init container and a template", "deployments", wlWorkload("dd", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"volumes":[{"name":"v","configMap":{"name":"c"}}],`+
			`"initContainers":[{"name":"i","image":"busybox","volumeDevices":[{"name":"v","devicePath":"/dev/x"}]}],"containers":[{"name":"c","image":"busybox","volumeDevices":[{"name":"nope","devicePath":"rel/path"}]}]}}`)),
	}},
	{Name: "ps-podresources", Steps: []writeStep{
		nsStep(),
		wlPost("pod-level resources", "pods", psPod("r1", `"resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}},`, `,"resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"cpu":"1","memory":"1Gi"}}`)),
		wlPost("pod-level limits only", "pods", psPod("r2", `"resources":{"limits":{"cpu":"2","memory":"2Gi"}},`, ``)),
		wlPost("pod-level requests only", "pods", psPod("r3", `"resources":{"requests":{"cpu":"1"}},`, ``)),
		wlPost("pod requests below the containers'", "pods", psPod("r4", `"resources":{"requests":{"cpu":"100m"}},`, `,"resources":{"requests":{"cpu":"500m"}}`)),
		wlPost("container limit above the pod's", "pods", psPod("r5", `"resources":{"limits":{"memory":"1Gi"}},`, `,"resources":{"limits":{"memory":"2Gi"}}`)),
		wlPost("pod requests above its limits and a bad name", "pods", psPod("r6", `"resources":{"requests":{"cpu":"2"},"limits":{"cpu":"1","bogus name":"1"}},`, ``)),
		wlPost("pod-level ephemeral storage", "pods", psPod("r6b", `"resources":{"requests":{"ephemeral-storage":"1Gi"}},`, ``)),
		wlPost("pod-level extended resource", "pods", psPod("r6c", `"resources":{"requests":{"example.com/gpu":"1"}},`, ``)),
		wlPost("pod-level hugepages", "pods", psPod("r6d", `"resources":{"requests":{"hugepages-2Mi":"4Mi"},"limits":{"hugepages-2Mi":"4Mi","memory":"1Gi"}},`, ``)),
		wlPost("pod-level claims", "pods", psPod("r7", `"resources":{"claims":[{"name":"c"}],"requests":{"cpu":"1"}},`, ``)),
		wlPost("pod-level resources of a windows pod", "pods", psPod("r8", `"os":{"name":"windows"},"resources":{"requests":{"cpu":"1"}},`, ``)),
		wlPost("pod-level resources and a sidecar", "pods", `{"metadata":{"name":"r9"},"spec":{"resources":{"requests":{"cpu":"300m"}},"initContainers":[{"name":"s","image":"busybox","restartPolicy":"Always","resources":{"requests":{"cpu":"200m"}}}],"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"200m"}}}]}}`),
		{Name: "update without pod-level resources", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/r1",
			Body: psPod("r1", ``, `,"resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"cpu":"1","memory":"1Gi"}}`)},
		{Name: "update changing pod-level resources", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/r1",
			Body: psPod("r1", `"resources":{"requests":{"cpu":"2","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}},`, `,"resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"cpu":"1","memory":"1Gi"}}`)},
		wlPost("pod-level resources in a template", "deployments", wlWorkload("d1", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"resources":{"limits":{"memory":"1Gi"}},"containers":[{"name":"c","image":"busybox","resources":{"limits":{"memory":"2Gi"}}}]}}`)),
	}},
	{Name: "ps-os", Steps: []writeStep{
		nsStep(),
		wlPost("linux pod", "pods", psPod("o1", `"os":{"name":"linux"},"securityContext":{"runAsUser":1000},`, `,"securityContext":{"runAsNonRoot":true}`)),
		wlPost("windows pod", "pods", psPod("o2", `"os":{"name":"windows"},"securityContext":{"windowsOptions":{"runAsUserName":"ContainerUser"}},`, ``)),
		wlPost("OS without a name", "pods", psPod("o3", `"os":{},`, ``)),
		wlPost("unsupported OS", "pods", psPod("o4", `"os":{"name":"plan9"},"hostPID":true,`, ``)),
		wlPost("windows options on linux", "pods", psPod("o5", `"os":{"name":"linux"},"securityContext":{"windowsOptions":{"runAsUserName":"u"}},`, `,"securityContext":{"windowsOptions":{"runAsUserName":"u"}}`)),
		wlPost("linux security on windows", "pods", `{"metadata":{"name":"o6"},"spec":{"os":{"name":"windows"},"hostIPC":true,"shareProcessNamespace":false,"hostUsers":true,`+
			`"securityContext":{"runAsUser":1,"runAsGroup":1,"fsGroup":1,"supplementalGroups":[1],"seccompProfile":{"type":"RuntimeDefault"},"sysctls":[{"name":"kernel.msgmax","value":"1"}],"seLinuxOptions":{"level":"s0"}},`+
			`"initContainers":[{"name":"i","image":"busybox","securityContext":{"privileged":false,"capabilities":{}}}],`+
			`"containers":[{"name":"c","image":"busybox","securityContext":{"readOnlyRootFilesystem":true,"allowPrivilegeEscalation":false,"runAsUser":1,"procMount":"Default","seccompProfile":{"type":"RuntimeDefault"}}}]}}`),
		wlPost("windows template", "deployments", wlWorkload("d1", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"os":{"name":"windows"},"containers":[{"name":"c","image":"busybox","securityContext":{"runAsGroup":5}}]}}`)),
	}},
	{Name: "ps-claims", Steps: []writeStep{
		nsStep(),
		wlPost("resource claims", "pods", psPod("c1", `"resourceClaims":[{"name":"gpu","resourceClaimName":"my-claim"},{"name":"t","resourceClaimTemplateName":"tmpl"}],`,
			`,"resources":{"claims":[{"name":"gpu"},{"name":"t","request":"r1"}]}`)),
		wlPost("bad pod claims", "pods", psPod("c2", `"resourceClaims":[{"name":"","resourceClaimName":"x"},{"name":"a","resourceClaimName":"Bad_Name"},{"name":"a","resourceClaimTemplateName":"t"},{"name":"Bad!"},{"name":"b","resourceClaimTemplateName":"-t-"}],`, ``)),
		wlPost("bad container claims", "pods", psPod("c3", `"resourceClaims":[{"name":"gpu","resourceClaimName":"my-claim"}],`,
			`,"resources":{"claims":[{"name":""},{"name":"missing"},{"name":"gpu"},{"name":"gpu"},{"name":"gpu","request":"Bad_Req"}]}`)),
		wlPost("claim of a pod without claims", "pods", psPod("c4", ``, `,"resources":{"claims":[{"name":"x"}]}`)),
		wlPost("claims in a template", "deployments", wlWorkload("d1", wlSelector+`,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"resourceClaims":[{"name":"g"}],`+
			`"containers":[{"name":"c","image":"busybox","resources":{"claims":[{"name":"h"}]}}]}}`)),
	}},
	{Name: "ps-image", Steps: []writeStep{
		nsStep(),
		wlPost("image volume with a tag", "pods", psPod("i1", `"volumes":[{"name":"iv","image":{"reference":"quay.io/x/y:v1"}}],`, `,"volumeMounts":[{"name":"iv","mountPath":"/data"}]`)),
		wlPost("image volume without a tag", "pods", psPod("i2", `"volumes":[{"name":"iv","image":{"reference":"quay.io/x/y"}}],`, ``)),
		wlPost("image volume latest", "pods", psPod("i3", `"volumes":[{"name":"iv","image":{"reference":"busybox:latest"}}],`, ``)),
		wlPost("image volume by digest", "pods", psPod("i4", `"volumes":[{"name":"iv","image":{"reference":"busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000"}}],`, ``)),
		wlPost("image volume with a pull policy", "pods", psPod("i5", `"volumes":[{"name":"iv","image":{"reference":"busybox","pullPolicy":"Never"}}],`, ``)),
		wlPost("image volume without a reference", "pods", psPod("i6", `"volumes":[{"name":"iv","image":{}}],`, ``)),
		wlPost("image volume with a bad pull policy", "pods", psPod("i7", `"volumes":[{"name":"iv","image":{"reference":"busybox","pullPolicy":"Sometimes"}}],`, ``)),
		wlPost("image volume and another source", "pods", psPod("i8", `"volumes":[{"name":"iv","emptyDir":{},"image":{"reference":"busybox"}}],`, ``)),
	}},
	{Name: "ps-windows", Steps: []writeStep{
		nsStep(),
		wlPost("windows options", "pods", psPod("w1", `"os":{"name":"windows"},"securityContext":{"windowsOptions":{"runAsUserName":"DOMAIN\\ContainerUser","gmsaCredentialSpecName":"gmsa-spec","gmsaCredentialSpec":"{}"}},`, ``)),
		wlPost("bad windows options", "pods", `{"metadata":{"name":"w2"},"spec":{"securityContext":{"windowsOptions":{"runAsUserName":"","gmsaCredentialSpecName":"Bad_Name","gmsaCredentialSpec":""}},"containers":[`+
			`{"name":"c1","image":"busybox","securityContext":{"windowsOptions":{"runAsUserName":"a\\b\\c"}}},`+
			`{"name":"c2","image":"busybox","securityContext":{"windowsOptions":{"runAsUserName":"bad\u0001name"}}},`+
			`{"name":"c3","image":"busybox","securityContext":{"windowsOptions":{"runAsUserName":"dom*ain\\user"}}},`+
			`{"name":"c4","image":"busybox","securityContext":{"windowsOptions":{"runAsUserName":". ."}}},`+
			`{"name":"c5","image":"busybox","securityContext":{"windowsOptions":{"runAsUserName":"us@er"}}},`+
			`{"name":"c6","image":"busybox","securityContext":{"windowsOptions":{"runAsUserName":"uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"}}},`+
			`{"name":"c7","image":"busybox","securityContext":{"windowsOptions":{"runAsUserName":"domain\\"}}}]}}`),
		wlPost("host process mismatch", "pods", `{"metadata":{"name":"w3"},"spec":{"os":{"name":"windows"},"securityContext":{"windowsOptions":{"hostProcess":true}},"containers":[`+
			`{"name":"c1","image":"busybox"},{"name":"c2","image":"busybox","securityContext":{"windowsOptions":{"hostProcess":false}}}]}}`),
		wlPost("host process pod", "pods", `{"metadata":{"name":"w4"},"spec":{"os":{"name":"windows"},"hostNetwork":true,"securityContext":{"windowsOptions":{"hostProcess":true,"runAsUserName":"NT AUTHORITY\\SYSTEM"}},"containers":[{"name":"c","image":"busybox"}]}}`),
	}},
	{Name: "ps-intree", Steps: []writeStep{
		nsStep(),
		wlPost("good gitRepo", "pods", psPod("t0", `"volumes":[{"name":"v","gitRepo":{"repository":"https://example.com/r.git","directory":"d"}}],`, ``)),
		wlPost("bad gitRepo", "pods", psPod("t1", `"volumes":[{"name":"v","gitRepo":{"directory":"../d"}}],`, ``)),
		wlPost("bad gcePersistentDisk", "pods", psPod("t2", `"volumes":[{"name":"v","gcePersistentDisk":{"partition":300}}],`, ``)),
		wlPost("bad awsElasticBlockStore", "pods", psPod("t3", `"volumes":[{"name":"v","awsElasticBlockStore":{"volumeID":"v","partition":-1}}],`, ``)),
		wlPost("bad iscsi", "pods", psPod("t4", `"volumes":[{"name":"v","iscsi":{"targetPortal":"","iqn":"iqn.bad","lun":300,"chapAuthSession":true,"initiatorName":"bogus"}}],`, ``)),
		wlPost("iscsi eui and naa", "pods", psPod("t5", `"volumes":[{"name":"v","iscsi":{"targetPortal":"1.2.3.4:3260","iqn":"eui.123","lun":0,"initiatorName":"naa.123"}}],`, ``)),
		wlPost("bad glusterfs", "pods", psPod("t6", `"volumes":[{"name":"v","glusterfs":{}}],`, ``)),
		wlPost("bad flocker", "pods", psPod("t7", `"volumes":[{"name":"v","flocker":{"datasetName":"a/b","datasetUUID":"u"}}],`, ``)),
		wlPost("bad rbd", "pods", psPod("t8", `"volumes":[{"name":"v","rbd":{}}],`, ``)),
		wlPost("bad cinder", "pods", psPod("t9", `"volumes":[{"name":"v","cinder":{"secretRef":{}}}],`, ``)),
		wlPost("bad cephfs", "pods", psPod("t10", `"volumes":[{"name":"v","cephfs":{}}],`, ``)),
		wlPost("bad quobyte", "pods", psPod("t11", `"volumes":[{"name":"v","quobyte":{"registry":"nohost"}}],`, ``)),
		wlPost("bad fc", "pods", psPod("t12", `"volumes":[{"name":"v","fc":{"targetWWNs":["500a0982991b8dc5"],"wwids":["x"],"lun":300}}],`, ``)),
		wlPost("bad flexVolume", "pods", psPod("t13", `"volumes":[{"name":"v","flexVolume":{"driver":"","options":{"kubernetes.io/x":"1"}}}],`, ``)),
		wlPost("bad azureFile", "pods", psPod("t14", `"volumes":[{"name":"v","azureFile":{}}],`, ``)),
		wlPost("bad vsphereVolume", "pods", psPod("t15", `"volumes":[{"name":"v","vsphereVolume":{}}],`, ``)),
		wlPost("bad photonPersistentDisk", "pods", psPod("t16", `"volumes":[{"name":"v","photonPersistentDisk":{}}],`, ``)),
		wlPost("bad portworxVolume", "pods", psPod("t17", `"volumes":[{"name":"v","portworxVolume":{}}],`, ``)),
		wlPost("bad azureDisk", "pods", psPod("t18", `"volumes":[{"name":"v","azureDisk":{"diskName":"","diskURI":"","cachingMode":"Sometimes","kind":"Managed"}}],`, ``)),
		wlPost("azureDisk blob URI", "pods", psPod("t19", `"volumes":[{"name":"v","azureDisk":{"diskName":"d","diskURI":"/subscriptions/x","kind":"Shared"}}],`, ``)),
		wlPost("bad scaleIO", "pods", psPod("t20", `"volumes":[{"name":"v","scaleIO":{"secretRef":{"name":"s"}}}],`, ``)),
		wlPost("bad storageos", "pods", psPod("t21", `"volumes":[{"name":"v","storageos":{"volumeName":"Bad_Name","volumeNamespace":"Bad_NS","secretRef":{}}}],`, ``)),
	}},
	{Name: "ps-update", Steps: []writeStep{
		nsStep(),
		wlPost("good", "pods", psPod("u1", `"tolerations":[{"key":"a","operator":"Exists"}],`, `,"securityContext":{"runAsUser":1000}`)),
		{Name: "update adds a toleration", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/u1",
			Body: psPod("u1", `"tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists","effect":"NoExecute","tolerationSeconds":60}],`, `,"securityContext":{"runAsUser":1000}`)},
		{Name: "update with a bad toleration", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/u1",
			Body: psPod("u1", `"tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists","effect":"NoExecute","tolerationSeconds":60},{"key":"c","operator":"Bogus"}],`, `,"securityContext":{"runAsUser":1000}`)},
		{Name: "update security context", Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/u1",
			Body: psPod("u1", `"tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists","effect":"NoExecute","tolerationSeconds":60}],`, `,"securityContext":{"runAsUser":-1}`)},
		wlMerge("merge patch affinity", "/api/v1/namespaces/{ns}/pods/u1", `{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}}`),
		wlPost("good deployment", "deployments", wlWorkload("d1", wlSelector+`,`+wlTemplate)),
		wlMerge("merge patch template tolerations", "/apis/apps/v1/namespaces/{ns}/deployments/d1", `{"spec":{"template":{"spec":{"tolerations":[{"key":"k","effect":"Never"}]}}}}`),
		wlMerge("merge patch template security context", "/apis/apps/v1/namespaces/{ns}/deployments/d1", `{"spec":{"template":{"spec":{"securityContext":{"runAsUser":1000,"sysctls":[{"name":"Bad"}]}}}}}`),
	}},
}

// psPod is a pod named name with the spec fields given (a JSON fragment ending in a comma, or
// empty) and its container "c" with the fields given (a fragment starting with a comma, or empty).
func psPod(name, spec, container string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{` + spec + `"containers":[{"name":"c","image":"busybox"` + container + `}]}}`
}

// psGated is the spec fields (a JSON fragment ending in a comma) of a pod with the scheduling
// gates, node selector, required node affinity expressions (one term) and tolerations given.
func psGated(gates, nodeSelector, expressions, tolerations string) string {
	return `"schedulingGates":` + gates + `,"nodeSelector":` + nodeSelector + `,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":` +
		expressions + `}]}}},"tolerations":` + tolerations + `,`
}

// psPut replaces the pod name with one whose spec has the fields given and container "c".
func psPut(step, name, spec string) writeStep {
	return writeStep{Name: step, Method: "PUT", Path: "/api/v1/namespaces/{ns}/pods/" + name, Body: psPod(name, spec, ``)}
}

// validationPodSpecRecording is where validationPodSpecCases are recorded and replayed.
var validationPodSpecRecording = recording{cases: validationPodSpecCases, file: "testdata/observed-validation-podspec.json", markdown: "observed-validation-podspec.md",
	title: "validation of pod specs", recorder: "TestRecordValidationPodSpec", replayer: "TestObservedValidationPodSpec", source: "record_validation_podspec_test.go"}

// TestRecordValidationPodSpec records validationPodSpecCases from a kube-apiserver as
// TestRecordOracle records writeCases (WATCHCACHE_ORACLE_URL, WATCHCACHE_ORACLE_TOKEN; a fresh
// oracle).
func TestRecordValidationPodSpec(t *testing.T) { validationPodSpecRecording.record(t, oracleServer(t)) }

// podSpecKnownDifferences are the steps of validationPodSpecCases whose causes print a value the
// fake cannot print as the apiserver does, and why; they are compared as
// workloadKnownDifferences are (relaxValues).
var podSpecKnownDifferences = map[string]string{
	"ps-update/update security context":                   "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"ps-update/merge patch affinity":                      "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"ps-gated/ungated adds a node selector":               "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
	"ps-podresources/update changing pod-level resources": "the Forbidden message's diff is of the v1 JSON; the apiserver diffs its internal types (Go field names)",
}

// podSpecByDesign are the steps of validationPodSpecCases the fake answers differently on purpose,
// and why, with the status code it answers instead.
var podSpecByDesign = map[string]struct {
	why  string
	code int
}{
	"ps-securitycontext/privileged":    {"the oracle runs without --allow-privileged and refuses privileged containers; envtest and most clusters allow them, and so does the fake", http.StatusCreated},
	"ps-windows/host process mismatch": {"the oracle runs without --allow-privileged and adds that host process containers are disallowed by cluster policy to the same refusal", http.StatusUnprocessableEntity},
	"ps-windows/host process pod":      {"the oracle runs without --allow-privileged and refuses host process containers; envtest's kube-apiserver allows them, and so does the fake", http.StatusCreated},
}

// TestObservedValidationPodSpec replays the recorded validation of pod specs against the fake:
// status code, warnings and the whole body, the causes and their order included.
func TestObservedValidationPodSpec(t *testing.T) {
	validationPodSpecRecording.replay(t, noControllers, func(step string, got, want *observedStep) {
		// A gated pod's PodScheduled condition carries the time of the write: the oracle's clock,
		// not the record's.
		got.Response, want.Response = maskTransitionTimes(got.Response), maskTransitionTimes(want.Response)
		if reason, ok := podSpecKnownDifferences[step]; ok {
			t.Logf("%s: known difference: %s", step, reason)
			got.Response, want.Response = relaxValues(got.Response), relaxValues(want.Response)
		}
		if d, ok := podSpecByDesign[step]; ok {
			t.Logf("%s: different by design: %s", step, d.why)
			if got.Code != d.code {
				t.Errorf("%s: status %d, want %d", step, got.Code, d.code)
			}
			*want = *got
		}
	})
}

// maskTransitionTimes replaces conditions' lastTransitionTime in an answer by "<time>".
func maskTransitionTimes(resp json.RawMessage) json.RawMessage {
	return mapLeaves(resp, func(v any, key, _ string) any {
		if key == "lastTransitionTime" {
			return "<time>"
		}
		return v
	})
}
