package fake_test

import (
	"regexp"
	"strings"
	"testing"
)

// The content types of the patch steps below.
const (
	mergePatch     = "application/merge-patch+json"
	strategicPatch = "application/strategic-merge-patch+json"
	jsonPatch      = "application/json-patch+json"
	applyPatch     = "application/apply-patch+yaml"
)

const replicaSetBody = `{"metadata":{"name":"r1"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`

const statefulSetBody = `{"metadata":{"name":"s1","labels":{"a":"1"}},"spec":{"serviceName":"svc","selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox","env":[{"name":"A","value":"1"}]}]}}}}`

// moreWriteCases are writes of every patch type to the less common kinds and their status and
// scale subresources (stateful sets, cron jobs, ingresses, network policies, endpoint slices,
// leases, replica sets, replication controllers, daemon sets, jobs, roles, autoscalers, webhook
// configurations, flow control, dynamic resource allocation, volume attributes classes),
// certificate signing requests and their approval, services' load balancer status, a namespace's
// status, events of both APIs, a claim's resize admission, lists by resourceVersionMatch after
// writes, deletecollection's answers, options and paths across kinds, write options and methods a
// resource lacks, the status of nodes, volumes, disruption budgets, volume attachments and quotas,
// controller revisions, CSI nodes and storage capacities, cluster trust bundles, and strict
// decoding of YAML bodies. Recorded from a kube-apiserver 1.37.2 into
// testdata/observed-writes-more.json (TestRecordOracleWritesMore), replayed by
// TestObservedWritesMore.
var moreWriteCases = []writeCase{
	{Name: "statefulset", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets", Body: statefulSetBody},
		{Name: "strategic patch of env", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1", ContentType: strategicPatch, Body: `{"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"B","value":"2"}]}]}}}}`},
		{Name: "merge patch of replicas", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1", ContentType: mergePatch, Body: `{"spec":{"replicas":4}}`},
		{Name: "json patch adding ordinals", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1", ContentType: jsonPatch, Body: `[{"op":"add","path":"/spec/ordinals","value":{"start":2}}]`},
		{Name: "json patch of serviceName", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1", ContentType: jsonPatch, Body: `[{"op":"replace","path":"/spec/serviceName","value":"other"}]`},
		{Name: "apply", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s1"},"spec":{"replicas":2}}`},
		{Name: "apply of status", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1/status?fieldManager=st", ContentType: applyPatch, Body: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s1"},"status":{"replicas":1,"availableReplicas":1,"readyReplicas":1}}`},
		{Name: "scale", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1/scale"},
		{Name: "apply of scale", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1/scale?fieldManager=sc", ContentType: applyPatch, Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s1"},"spec":{"replicas":3}}`},
		{Name: "apply of scale by another manager", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1/scale?fieldManager=sc2", ContentType: applyPatch, Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s1"},"spec":{"replicas":5}}`},
		{Name: "json patch of scale", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1/scale", ContentType: jsonPatch, Body: `[{"op":"replace","path":"/spec/replicas","value":6}]`},
		{Name: "update of scale with status", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1/scale", Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s1"},"spec":{"replicas":7},"status":{"replicas":9,"selector":"x=y"}}`},
		{Name: "read", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1"},
		{Name: "forced apply of status with spec and labels", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1/status?fieldManager=st&force=true", ContentType: applyPatch, Body: `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s1","labels":{"z":"1"}},"spec":{"replicas":1},"status":{"replicas":2}}`},
		{Name: "read again", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/statefulsets/s1"},
	}},
	{Name: "cronjob", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs", Body: `{"metadata":{"name":"c1"},"spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}}`},
		{Name: "strategic patch suspending", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs/c1", ContentType: strategicPatch, Body: `{"spec":{"suspend":true}}`},
		{Name: "json patch of a bad schedule", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs/c1", ContentType: jsonPatch, Body: `[{"op":"replace","path":"/spec/schedule","value":"nope"}]`},
		{Name: "merge patch of timeZone", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs/c1", ContentType: mergePatch, Body: `{"spec":{"timeZone":"Europe/Paris"}}`},
		{Name: "apply", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs/c1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c1"},"spec":{"schedule":"0 * * * *","successfulJobsHistoryLimit":1}}`},
		{Name: "merge patch of status", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs/c1/status", ContentType: mergePatch, Body: `{"status":{"lastScheduleTime":"2026-01-01T00:00:00Z","active":[{"kind":"Job","name":"j","namespace":"{ns}"}]}}`},
		{Name: "read", Method: "GET", Path: "/apis/batch/v1/namespaces/{ns}/cronjobs/c1"},
	}},
	{Name: "ingress", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses", Body: `{"metadata":{"name":"i1"},"spec":{"rules":[{"host":"a.example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"s","port":{"number":80}}}}]}}]}}`},
		{Name: "strategic patch of rules", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses/i1", ContentType: strategicPatch, Body: `{"spec":{"rules":[{"host":"b.example.com","http":{"paths":[{"path":"/b","pathType":"Exact","backend":{"service":{"name":"s","port":{"name":"http"}}}}]}}]}}`},
		{Name: "json patch adding tls", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses/i1", ContentType: jsonPatch, Body: `[{"op":"add","path":"/spec/tls","value":[{"hosts":["b.example.com"],"secretName":"t"}]}]`},
		{Name: "apply", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses/i1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"i1"},"spec":{"ingressClassName":"nginx"}}`},
		{Name: "apply of status", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses/i1/status?fieldManager=lb", ContentType: applyPatch, Body: `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"i1"},"status":{"loadBalancer":{"ingress":[{"hostname":"lb.example.com","ports":[{"port":443,"protocol":"TCP"}]}]}}}`},
		{Name: "status with a bad ip", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses/i1/status", ContentType: mergePatch, Body: `{"status":{"loadBalancer":{"ingress":[{"ip":"300.1.1.1"}]}}}`},
		{Name: "status with bad ips and hostnames", Method: "PUT", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses/i1/status", Body: `{"metadata":{"name":"i1"},"spec":{"defaultBackend":{"service":{"name":"s","port":{"number":80}}}},"status":{"loadBalancer":{"ingress":[{"ip":"01.2.3.4"},{"hostname":"10.0.0.1"},{"hostname":"a..b"}]}}}`},
		{Name: "read", Method: "GET", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses/i1"},
	}},
	{Name: "service-lb", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s1"},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}`},
		{Name: "status ip without ipMode", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s1/status", ContentType: mergePatch, Body: `{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}`},
		{Name: "status with bad points", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s1/status", ContentType: mergePatch, Body: `{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.x","ipMode":"Bogus"},{"hostname":"1.2.3.4","ipMode":"VIP"},{"hostname":"Bad_Host"}]}}}`},
		{Name: "apply of status by another manager", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s1/status?fieldManager=lb", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s1"},"status":{"loadBalancer":{"ingress":[{"ip":"5.6.7.8","ipMode":"Proxy","ports":[{"port":80,"protocol":"TCP"}]}]}}}`},
		{Name: "forced apply of status", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s1/status?fieldManager=lb&force=true", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s1"},"status":{"loadBalancer":{"ingress":[{"ip":"5.6.7.8","ipMode":"Proxy","ports":[{"port":80,"protocol":"TCP"}]}]}}}`},
		{Name: "cluster ip service", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s2"},"spec":{"ports":[{"port":80}]}}`},
		{Name: "load balancer status of a cluster ip service", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s2/status", ContentType: mergePatch, Body: `{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}`},
	}},
	{Name: "networkpolicy", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies", Body: `{"metadata":{"name":"n1"},"spec":{"podSelector":{},"ingress":[{"from":[{"podSelector":{"matchLabels":{"a":"b"}}}]}]}}`},
		{Name: "strategic patch of ingress", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/n1", ContentType: strategicPatch, Body: `{"spec":{"ingress":[{"ports":[{"port":80}]}]}}`},
		{Name: "strategic patch of egress and policy types", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/n1", ContentType: strategicPatch, Body: `{"spec":{"egress":[{"to":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}}]}],"policyTypes":["Ingress","Egress"]}}`},
		{Name: "json patch of a bad endPort", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/n1", ContentType: jsonPatch, Body: `[{"op":"add","path":"/spec/ingress/0/ports/0/endPort","value":10}]`},
		{Name: "apply", Method: "PATCH", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/n1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"n1"},"spec":{"podSelector":{"matchLabels":{"x":"y"}}}}`},
		{Name: "no status subresource", Method: "GET", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/n1/status"},
		{Name: "read", Method: "GET", Path: "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/n1"},
	}},
	{Name: "endpointslice", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices", Body: `{"metadata":{"name":"e1","labels":{"kubernetes.io/service-name":"s"}},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"name":"http","port":80}]}`},
		{Name: "strategic patch of endpoints", Method: "PATCH", Path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/e1", ContentType: strategicPatch, Body: `{"endpoints":[{"addresses":["10.0.0.2"],"conditions":{"ready":true}}]}`},
		{Name: "merge patch of addressType", Method: "PATCH", Path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/e1", ContentType: mergePatch, Body: `{"addressType":"IPv6"}`},
		{Name: "json patch adding a port", Method: "PATCH", Path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/e1", ContentType: jsonPatch, Body: `[{"op":"add","path":"/ports/-","value":{"name":"https","port":443}}]`},
		{Name: "apply", Method: "PATCH", Path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/e1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"e1"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.9"],"nodeName":"n"}]}`},
		{Name: "read", Method: "GET", Path: "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/e1"},
	}},
	{Name: "lease", Steps: []writeStep{
		nsStep(),
		{Name: "create", Method: "POST", Path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases", Body: `{"metadata":{"name":"l1"},"spec":{"holderIdentity":"a","leaseDurationSeconds":15}}`},
		{Name: "strategic patch", Method: "PATCH", Path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/l1", ContentType: strategicPatch, Body: `{"spec":{"holderIdentity":"b","leaseTransitions":1,"renewTime":"2026-01-01T00:00:00.000000Z"}}`},
		{Name: "merge patch of negative values", Method: "PATCH", Path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/l1", ContentType: mergePatch, Body: `{"spec":{"leaseTransitions":-1,"leaseDurationSeconds":0}}`},
		{Name: "json patch adding a strategy", Method: "PATCH", Path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/l1", ContentType: jsonPatch, Body: `[{"op":"add","path":"/spec/strategy","value":"OldestEmulationVersion"}]`},
		{Name: "apply", Method: "PATCH", Path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/l1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l1"},"spec":{"holderIdentity":"c"}}`},
		{Name: "apply creating", Method: "PATCH", Path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/l2?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l2"},"spec":{"holderIdentity":"c","acquireTime":"2026-01-01T00:00:00.123456Z"}}`},
		{Name: "read", Method: "GET", Path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/l1"},
	}},
	{Name: "flowcontrol", Steps: []writeStep{
		{Name: "limited priority level", Method: "POST", Path: "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", Body: `{"metadata":{"name":"pl-{ns}"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":5,"limitResponse":{"type":"Reject"}}}}`},
		{Name: "queuing priority level", Method: "POST", Path: "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", Body: `{"metadata":{"name":"plq-{ns}"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{"queues":16}}}}}`},
		{Name: "flow schema", Method: "POST", Path: "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", Body: `{"metadata":{"name":"fs-{ns}"},"spec":{"priorityLevelConfiguration":{"name":"pl-{ns}"},"rules":[{"subjects":[{"kind":"User","user":{"name":"bob"}}],"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"namespaces":["*"]}]}]}}`},
		{Name: "delete flow schema", Method: "DELETE", Path: "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/fs-{ns}"},
		{Name: "delete limited", Method: "DELETE", Path: "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/pl-{ns}"},
		{Name: "delete queuing", Method: "DELETE", Path: "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/plq-{ns}"},
	}},
	{Name: "dra", Steps: []writeStep{
		nsStep(),
		{Name: "device class", Method: "POST", Path: "/apis/resource.k8s.io/v1/deviceclasses", Body: `{"metadata":{"name":"dc-{ns}"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"x.example.com\""}}]}}`},
		{Name: "claim", Method: "POST", Path: "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims", Body: `{"metadata":{"name":"rc1"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"dc-{ns}","tolerations":[{"key":"k","effect":"NoSchedule"}]}},{"name":"any","firstAvailable":[{"name":"a","deviceClassName":"dc-{ns}"},{"name":"b","deviceClassName":"dc-{ns}","allocationMode":"All"}]}]}}}`},
		{Name: "claim spec change", Method: "PATCH", Path: "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims/rc1", ContentType: mergePatch, Body: `{"spec":{"devices":{"requests":[{"name":"gpu2","exactly":{"deviceClassName":"dc-{ns}"}}]}}}`},
		{Name: "claim labels", Method: "PATCH", Path: "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims/rc1", ContentType: mergePatch, Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "claim status", Method: "PATCH", Path: "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims/rc1/status", ContentType: mergePatch, Body: `{"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"x.example.com","pool":"p","device":"d","tolerations":[{"key":"k","effect":"NoSchedule"}]}]}}}}`},
		{Name: "template", Method: "POST", Path: "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaimtemplates", Body: `{"metadata":{"name":"t1"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"dc-{ns}","count":2}}]}}}}`},
		{Name: "read claim", Method: "GET", Path: "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims/rc1"},
		{Name: "delete class", Method: "DELETE", Path: "/apis/resource.k8s.io/v1/deviceclasses/dc-{ns}"},
	}},
	{Name: "vac", Steps: []writeStep{
		{Name: "create", Method: "POST", Path: "/apis/storage.k8s.io/v1/volumeattributesclasses", Body: `{"metadata":{"name":"vac-{ns}"},"driverName":"d.example.com","parameters":{"a":"b"}}`},
		{Name: "parameters changed", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/volumeattributesclasses/vac-{ns}", ContentType: mergePatch, Body: `{"parameters":{"a":"c"}}`},
		{Name: "driver and parameters changed", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/volumeattributesclasses/vac-{ns}", ContentType: mergePatch, Body: `{"driverName":"e.example.com","parameters":null}`},
		{Name: "labels changed", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/volumeattributesclasses/vac-{ns}", ContentType: mergePatch, Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "update without the finalizer", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/volumeattributesclasses/vac-{ns}", ContentType: mergePatch, Body: `{"metadata":{"finalizers":null}}`},
		{Name: "delete", Method: "DELETE", Path: "/apis/storage.k8s.io/v1/volumeattributesclasses/vac-{ns}"},
	}},
	{Name: "csr", Steps: []writeStep{
		{Name: "create as someone else, approved", Method: "POST", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests", Body: `{"metadata":{"name":"csr-{ns}"},"spec":{"request":"` + csrRequest + `","signerName":"example.com/signer","usages":["client auth"],"username":"mallory","groups":["g"]},"status":{"conditions":[{"type":"Approved","status":"True"}]}}`},
		{Name: "create invalid", Method: "POST", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests", Body: `{"metadata":{"name":"csr2-{ns}"},"spec":{"request":"aGVsbG8=","usages":["bogus","bogus"],"expirationSeconds":60}}`},
		{Name: "create with a malformed signer name", Method: "POST", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests", Body: `{"metadata":{"name":"csr3-{ns}"},"spec":{"request":"` + csrRequest + `","signerName":"example/Bad_Signer/x","usages":[]}}`},
		{Name: "create with a bad signer name", Method: "POST", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests", Body: `{"metadata":{"name":"csr3-{ns}"},"spec":{"request":"` + csrRequest + `","signerName":"example/Bad_Signer","usages":["client auth"]}}`},
		{Name: "merge patch of the spec", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}", ContentType: mergePatch, Body: `{"metadata":{"labels":{"a":"b"}},"spec":{"usages":["server auth"]}}`},
		{Name: "merge patch of the status", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}", ContentType: mergePatch, Body: `{"status":{"conditions":[{"type":"Approved","status":"True"}]}}`},
		{Name: "approval through the status", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/status", ContentType: mergePatch, Body: `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","message":"m"}]}}`},
		{Name: "approval subresource", Method: "GET", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/approval"},
		{Name: "approved and denied", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/approval", ContentType: mergePatch, Body: `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","message":"m"},{"type":"Denied","status":"True"}]}}`},
		{Name: "bad conditions", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/approval", ContentType: mergePatch, Body: `{"status":{"conditions":[{"type":"Approved","status":"False"},{"type":"X","status":"Maybe"},{"type":"X"},{"status":"True"}]}}`},
		{Name: "approval with a certificate", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/approval", ContentType: mergePatch, Body: `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","message":"m"}],"certificate":"aGVsbG8="}}`},
		{Name: "approval removed", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/approval", ContentType: mergePatch, Body: `{"status":{"conditions":[]}}`},
		{Name: "certificate that does not parse", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/status", ContentType: mergePatch, Body: `{"status":{"certificate":"aGVsbG8="}}`},
		{Name: "certificate on the main resource", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}", ContentType: mergePatch, Body: `{"status":{"certificate":"aGVsbG8="}}`},
		{Name: "json patch adding Failed", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/status", ContentType: jsonPatch, Body: `[{"op":"add","path":"/status/conditions/-","value":{"type":"Failed","status":"True","reason":"F"}}]`},
		{Name: "apply of status", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/status?fieldManager=signer", ContentType: applyPatch, Body: `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"csr-{ns}"},"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","message":"m"},{"type":"Failed","status":"True","reason":"F"},{"type":"Y","status":"False"}]}}`},
		{Name: "read", Method: "GET", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}"},
		{Name: "update of approval denying", Method: "PUT", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}/approval", Body: `{"metadata":{"name":"csr-{ns}"},"spec":{"request":"` + csrRequest + `","signerName":"example.com/signer","usages":["client auth"]},"status":{"conditions":[{"type":"Denied","status":"True"}]}}`},
		{Name: "delete", Method: "DELETE", Path: "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-{ns}"},
	}},
	{Name: "scale", Steps: []writeStep{
		nsStep(),
		{Name: "replica set", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/replicasets", Body: replicaSetBody},
		{Name: "apply of scale", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/r1/scale?fieldManager=a", ContentType: applyPatch, Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"r1"},"spec":{"replicas":2}}`},
		{Name: "apply of replicas by another manager", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/r1?fieldManager=b", ContentType: applyPatch, Body: `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r1"},"spec":{"replicas":3}}`},
		{Name: "strategic patch of scale", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/r1/scale", ContentType: strategicPatch, Body: `{"spec":{"replicas":4}}`},
		{Name: "update of scale with a stale resourceVersion", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/r1/scale", Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"r1","resourceVersion":"1"},"spec":{"replicas":5}}`},
		{Name: "update of scale with another uid", Method: "PUT", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/r1/scale", Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"r1","uid":"x"},"spec":{"replicas":5}}`},
		{Name: "forced apply of scale with labels", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/r1/scale?fieldManager=c&force=true", ContentType: applyPatch, Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"r1","labels":{"x":"y"}},"spec":{"replicas":6}}`},
		{Name: "read replica set", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/replicasets/r1"},
		{Name: "replication controller", Method: "POST", Path: "/api/v1/namespaces/{ns}/replicationcontrollers", Body: `{"metadata":{"name":"rc1"},"spec":{"replicas":1,"selector":{"app":"a"},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
		{Name: "apply of its scale", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/replicationcontrollers/rc1/scale?fieldManager=a", ContentType: applyPatch, Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"rc1"},"spec":{"replicas":2}}`},
		{Name: "json patch of negative replicas", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/replicationcontrollers/rc1/scale", ContentType: jsonPatch, Body: `[{"op":"replace","path":"/spec/replicas","value":-1}]`},
		{Name: "read replication controller", Method: "GET", Path: "/api/v1/namespaces/{ns}/replicationcontrollers/rc1"},
		{Name: "apply of status with more ready than replicas", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/replicationcontrollers/rc1/status?fieldManager=ctl", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc1"},"status":{"replicas":1,"readyReplicas":2}}`},
		{Name: "dry run apply of a missing deployment's scale", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/nope/scale?fieldManager=a&dryRun=All", ContentType: applyPatch, Body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"nope"},"spec":{"replicas":2}}`},
	}},
	{Name: "list", Steps: []writeStep{
		nsStep(),
		{Name: "c1", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c1","labels":{"a":"1"}}}`},
		{Name: "c2", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c2","labels":{"a":"2"}}}`},
		{Name: "Exact at the last resourceVersion", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps?resourceVersionMatch=Exact&resourceVersion={rv}"},
		{Name: "NotOlderThan with a selector", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps?resourceVersionMatch=NotOlderThan&resourceVersion={rv}&labelSelector=a%3D2"},
		{Name: "limit", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps?limit=1&resourceVersionMatch=NotOlderThan&resourceVersion={rv}"},
		{Name: "resourceVersion 0 by field", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps?resourceVersion=0&fieldSelector=metadata.name%3Dc1"},
		{Name: "unknown field selector", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps?fieldSelector=data.x%3D1"},
		{Name: "watch with Exact", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps?watch=true&resourceVersionMatch=Exact&resourceVersion={rv}"},
		{Name: "watch-list", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1"},
	}},
	{Name: "namespace-status", Steps: []writeStep{
		nsStep(),
		{Name: "finalize adding a finalizer", Method: "PUT", Path: "/api/v1/namespaces/{ns}/finalize", Body: `{"metadata":{"name":"{ns}"},"spec":{"finalizers":["kubernetes","example.com/x"]}}`},
		{Name: "status Terminating without deletion", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/status", ContentType: mergePatch, Body: `{"status":{"phase":"Terminating"}}`},
		{Name: "apply of the name label", Method: "PATCH", Path: "/api/v1/namespaces/{ns}?fieldManager=m", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{ns}","labels":{"kubernetes.io/metadata.name":"other","x":"y"}}}`},
		{Name: "read namespace", Method: "GET", Path: "/api/v1/namespaces/{ns}"},
		{Name: "service account", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts", Body: `{"metadata":{"name":"sa1"}}`},
		{Name: "token too short", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1/token", Body: `{"spec":{"expirationSeconds":10}}`},
		{Name: "service account token secret", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"t1","annotations":{"kubernetes.io/service-account.name":"sa1"}},"type":"kubernetes.io/service-account-token"}`},
		{Name: "service account token secret without its annotation", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"t2"},"type":"kubernetes.io/service-account-token"}`},
		{Name: "docker config secret", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"t3"},"type":"kubernetes.io/dockerconfigjson","stringData":{".dockerconfigjson":"{}"}}`},
		{Name: "persistent volume", Method: "POST", Path: "/api/v1/persistentvolumes", Body: `{"metadata":{"name":"pv-{ns}"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp"}}}`},
		{Name: "volume status", Method: "PATCH", Path: "/api/v1/persistentvolumes/pv-{ns}/status", ContentType: mergePatch, Body: `{"status":{"phase":"Bound"}}`},
		{Name: "read volume", Method: "GET", Path: "/api/v1/persistentvolumes/pv-{ns}"},
	}},
	{Name: "events", Steps: []writeStep{
		nsStep(),
		{Name: "v1 event", Method: "POST", Path: "/api/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"e1"},"involvedObject":{"kind":"Pod","name":"p","namespace":"{ns}"},"reason":"R","message":"m","type":"Normal","count":3,"firstTimestamp":"2026-01-01T00:00:00Z","source":{"component":"c"}}`},
		{Name: "v1 event of another namespace", Method: "POST", Path: "/api/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"e2"},"involvedObject":{"kind":"Pod","name":"p","namespace":"other"},"type":"Bogus"}`},
		{Name: "v1 event without the involved object's namespace", Method: "POST", Path: "/api/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"e3"},"involvedObject":{"kind":"Node","name":"n"}}`},
		{Name: "v1 event named outside DNS rules", Method: "POST", Path: "/api/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"Bad_Name:x"},"involvedObject":{"kind":"Pod","name":"p","namespace":"{ns}"}}`},
		{Name: "v1 event with eventTime and missing fields", Method: "POST", Path: "/api/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"e4"},"involvedObject":{"kind":"Pod","name":"p"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingComponent":"Bad Comp"}`},
		{Name: "v1 event with eventTime and a short series", Method: "POST", Path: "/api/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"e5"},"involvedObject":{"kind":"Pod","name":"p","namespace":"{ns}"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingComponent":"example.com/c","reportingInstance":"i","action":"A","reason":"R","series":{"count":1}}`},
		{Name: "v1 event update", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/events/e1", ContentType: mergePatch, Body: `{"reason":"R2","message":"m2","count":4,"involvedObject":{"name":"q"}}`},
		{Name: "v1 event update to another namespace", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/events/e1", ContentType: mergePatch, Body: `{"involvedObject":{"namespace":"x"}}`},
		{Name: "events.k8s.io event", Method: "POST", Path: "/apis/events.k8s.io/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"n1"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"a.example.com/c","reportingInstance":"i","action":"A","reason":"R","type":"Normal","note":"n","regarding":{"kind":"Pod","name":"p","namespace":"{ns}"}}`},
		{Name: "events.k8s.io event invalid", Method: "POST", Path: "/apis/events.k8s.io/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"n2"},"reason":"R","type":"Bogus","deprecatedCount":2,"deprecatedFirstTimestamp":"2026-01-01T00:00:00Z","deprecatedLastTimestamp":"2026-01-01T00:00:00Z","deprecatedSource":{"host":"h"},"series":{"count":1,"lastObservedTime":"2026-01-01T00:00:00.000000Z"}}`},
		{Name: "events.k8s.io event without eventTime", Method: "POST", Path: "/apis/events.k8s.io/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"n3"},"reason":"R","type":"Normal","regarding":{"kind":"Pod","name":"p","namespace":"{ns}"}}`},
		{Name: "events.k8s.io event named outside DNS rules", Method: "POST", Path: "/apis/events.k8s.io/v1/namespaces/{ns}/events", Body: `{"metadata":{"name":"Bad_Name"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"a.example.com/c","reportingInstance":"i","action":"A","reason":"R","type":"Normal","regarding":{"kind":"Pod","name":"p","namespace":"{ns}"}}`},
		{Name: "events.k8s.io event update of immutable fields", Method: "PATCH", Path: "/apis/events.k8s.io/v1/namespaces/{ns}/events/n1", ContentType: mergePatch, Body: `{"note":"changed","reason":"R2","type":"Warning","action":"B","reportingInstance":"j","series":{"count":1}}`},
		{Name: "events.k8s.io event series update", Method: "PATCH", Path: "/apis/events.k8s.io/v1/namespaces/{ns}/events/n1", ContentType: mergePatch, Body: `{"series":{"count":2,"lastObservedTime":"2026-01-01T00:00:01.000000Z"}}`},
		{Name: "events.k8s.io missing event", Method: "GET", Path: "/apis/events.k8s.io/v1/namespaces/{ns}/events/nope"},
		{Name: "events.k8s.io patch of a missing event", Method: "PATCH", Path: "/apis/events.k8s.io/v1/namespaces/{ns}/events/nope", ContentType: mergePatch, Body: `{}`},
	}},
	{Name: "deletecollection", Steps: []writeStep{
		nsStep(),
		{Name: "c1 with a finalizer", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c1","labels":{"k":"a"},"finalizers":["example.com/f"]}}`},
		{Name: "c2", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c2","labels":{"k":"b"}}}`},
		{Name: "c3", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c3"}}`},
		{Name: "dry run orphaning", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?dryRun=All&propagationPolicy=Orphan"},
		{Name: "foreground by label", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?labelSelector=k%3Da&propagationPolicy=Foreground"},
		{Name: "bad label selector", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?labelSelector=k%3D%3D%3Da"},
		{Name: "bad field selector", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?fieldSelector=spec.x%3Da"},
		{Name: "options in the body", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?labelSelector=k%3Db", Body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan","dryRun":["All"]}`},
		{Name: "list", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps"},
		{Name: "uid precondition", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"preconditions":{"uid":"x"}}`},
		{Name: "limit", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?limit=1"},
		{Name: "list after the limit", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps"},
		{Name: "bad grace period", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/pods?gracePeriodSeconds=-5"},
		{Name: "bad propagationPolicy", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?propagationPolicy=Bogus"},
		{Name: "everything", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps"},
		{Name: "list at the end", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps"},
	}},
	{Name: "deletecollection-kinds", Steps: []writeStep{
		nsStep(),
		{Name: "pod on a node", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1","labels":{"a":"1"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod on no node", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p2","labels":{"a":"2"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "dry run", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/pods?dryRun=All"},
		{Name: "by node with a grace period", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/pods?fieldSelector=spec.nodeName%3Dn1&gracePeriodSeconds=30"},
		{Name: "pods", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods"},
		{Name: "all pods", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/pods"},
		{Name: "pods again", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods"},
		{Name: "namespaces, which have none", Method: "DELETE", Path: "/api/v1/namespaces?labelSelector=x%3Dy"},
		{Name: "nodes by label", Method: "DELETE", Path: "/api/v1/nodes?labelSelector=sweep%3D{ns}"},
		{Name: "deployments orphaning", Method: "DELETE", Path: "/apis/apps/v1/namespaces/{ns}/deployments?propagationPolicy=Orphan"},
		{Name: "claim", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c1"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "claims", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims"},
		{Name: "events", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/events"},
		{Name: "services", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/services"},
		{Name: "bad continue token", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?continue=abc"},
		{Name: "watch parameter", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?watch=true"},
		{Name: "options that do not decode", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"gracePeriodSeconds":"x"}`},
		{Name: "a ConfigMap as options", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"kind":"ConfigMap","apiVersion":"v1"}`},
		{Name: "delete with a Pod as options", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/x", Body: `{"kind":"Pod","apiVersion":"v1"}`},
		{Name: "delete with apps/v1 DeleteOptions", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/x", Body: `{"kind":"DeleteOptions","apiVersion":"apps/v1"}`},
		{Name: "delete with meta.k8s.io/v1 DeleteOptions", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/x", Body: `{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1"}`},
		{Name: "create of a read-only resource", Method: "POST", Path: "/api/v1/componentstatuses", Body: `{}`},
		{Name: "update of a read-only resource", Method: "PUT", Path: "/api/v1/componentstatuses/x", Body: `{}`},
		{Name: "delete of a scale", Method: "DELETE", Path: "/apis/apps/v1/namespaces/{ns}/deployments/x/scale"},
		{Name: "create of a scale", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments/x/scale", Body: `{}`},
		{Name: "delete of a status", Method: "DELETE", Path: "/apis/apps/v1/namespaces/{ns}/deployments/x/status"},
		{Name: "patch of an access review", Method: "PATCH", Path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x", ContentType: mergePatch, Body: `{}`},
		{Name: "deletecollection of access reviews", Method: "DELETE", Path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"},
	}},
	{Name: "options-and-methods", Steps: []writeStep{
		nsStep(),
		{Name: "fieldManager too long", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps?fieldManager=" + longFieldManager, Body: `{"metadata":{"name":"c1"}}`},
		{Name: "fieldManager not printable", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps?fieldManager=a%0Ab", Body: `{"metadata":{"name":"c1"}}`},
		{Name: "dry run Strict", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps?dryRun=All&fieldValidation=Strict", Body: `{"metadata":{"name":"c1"},"x":1}`},
		{Name: "create", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c1"}}`},
		{Name: "patch with a fieldManager too long", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c1?fieldManager=" + longFieldManager, ContentType: mergePatch, Body: `{}`},
		{Name: "patch dryRun=Bogus", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c1?dryRun=Bogus", ContentType: mergePatch, Body: `{}`},
		{Name: "update dryRun=Bogus", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/c1?dryRun=Bogus", Body: `{"metadata":{"name":"c1"}}`},
		{Name: "delete dryRun=Bogus", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/c1?dryRun=Bogus"},
		{Name: "delete gracePeriodSeconds=-1", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/c1?gracePeriodSeconds=-1"},
		{Name: "delete with orphanDependents and a policy", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/c1", Body: `{"orphanDependents":true,"propagationPolicy":"Background"}`},
		{Name: "patch of a status as text/plain", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/x/status", ContentType: "text/plain", Body: `{}`},
		{Name: "forced apply without a fieldManager", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c1?force=true", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"}}`},
		{Name: "apply as CBOR", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c1?fieldManager=m", ContentType: "application/apply-patch+cbor", Body: `{}`},
		{Name: "dry run delete of the namespace", Method: "DELETE", Path: "/api/v1/namespaces/{ns}?dryRun=All"},
		{Name: "namespace", Method: "GET", Path: "/api/v1/namespaces/{ns}"},
	}},
	{Name: "patch-kinds", Steps: []writeStep{
		nsStep(),
		{Name: "svc", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s1"},"spec":{"ports":[{"name":"a","port":53,"protocol":"TCP"},{"name":"b","port":53,"protocol":"UDP"}]}}`},
		{Name: "svc smp ports", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s1", ContentType: strategicPatch, Body: `{"spec":{"ports":[{"port":53,"protocol":"UDP","name":"bb","targetPort":5353}]}}`},
		{Name: "svc smp delete port", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s1", ContentType: strategicPatch, Body: `{"spec":{"ports":[{"$patch":"delete","port":53,"protocol":"TCP"}]}}`},
		{Name: "svc apply ports", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/services/s1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s1"},"spec":{"ports":[{"name":"c","port":80,"protocol":"TCP"}]}}`},
		{Name: "svc read", Method: "GET", Path: "/api/v1/namespaces/{ns}/services/s1"},
		{Name: "ds", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets", Body: `{"metadata":{"name":"d1"},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox"},{"name":"d","image":"busybox"}]}}}}`},
		{Name: "ds smp order", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets/d1", ContentType: strategicPatch, Body: `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"d"},{"name":"c"}],"containers":[{"name":"c","image":"nginx"}]}}}}`},
		{Name: "ds smp strategy retainKeys", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets/d1", ContentType: strategicPatch, Body: `{"spec":{"updateStrategy":{"$retainKeys":["type"],"type":"OnDelete"}}}`},
		{Name: "ds status apply", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets/d1/status?fieldManager=ctl", ContentType: applyPatch, Body: `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d1"},"status":{"currentNumberScheduled":1,"desiredNumberScheduled":1,"numberMisscheduled":0,"numberReady":2}}`},
		{Name: "ds read", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/daemonsets/d1"},
		{Name: "role", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles", Body: `{"metadata":{"name":"r1"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}`},
		{Name: "role smp rules", Method: "PATCH", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles/r1", ContentType: strategicPatch, Body: `{"rules":[{"verbs":["list"],"apiGroups":[""],"resources":["configmaps"]}]}`},
		{Name: "role apply", Method: "PATCH", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles/r1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r1"},"rules":[{"verbs":["watch"],"apiGroups":[""],"resources":["secrets"]}]}`},
		{Name: "job", Method: "POST", Path: "/apis/batch/v1/namespaces/{ns}/jobs", Body: `{"metadata":{"name":"j1"},"spec":{"suspend":true,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`},
		{Name: "job status apply", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/jobs/j1/status?fieldManager=ctl", ContentType: applyPatch, Body: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j1"},"status":{"conditions":[{"type":"Suspended","status":"True","lastProbeTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`},
		{Name: "job status bad", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/jobs/j1/status", ContentType: mergePatch, Body: `{"status":{"succeeded":-1,"active":-2,"startTime":"2026-01-01T00:00:00Z"}}`},
		{Name: "job status counters", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/jobs/j1/status", ContentType: mergePatch, Body: `{"status":{"active":1,"failed":2,"succeeded":3}}`},
		{Name: "job status fewer failed, more ready than active", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/jobs/j1/status", ContentType: mergePatch, Body: `{"status":{"failed":1,"ready":2,"terminating":-1}}`},
		{Name: "job unsuspend", Method: "PATCH", Path: "/apis/batch/v1/namespaces/{ns}/jobs/j1", ContentType: mergePatch, Body: `{"spec":{"suspend":false}}`},
		{Name: "job read", Method: "GET", Path: "/apis/batch/v1/namespaces/{ns}/jobs/j1"},
		{Name: "pvc", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c1"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "pvc resize", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c1", ContentType: mergePatch, Body: `{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`},
		{Name: "pvc status apply", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c1/status?fieldManager=ctl", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c1"},"status":{"phase":"Bound","capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"]}}`},
		{Name: "pvc resize after bound", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c1", ContentType: mergePatch, Body: `{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`},
		{Name: "pvc shrink", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c1", ContentType: mergePatch, Body: `{"spec":{"resources":{"requests":{"storage":"500Mi"}}}}`},
		{Name: "expandable class", Method: "POST", Path: "/apis/storage.k8s.io/v1/storageclasses", Body: `{"metadata":{"name":"sc-{ns}"},"provisioner":"p.example.com","allowVolumeExpansion":true}`},
		{Name: "pvc of the class", Method: "POST", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims", Body: `{"metadata":{"name":"c2"},"spec":{"storageClassName":"sc-{ns}","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
		{Name: "pvc of the class bound", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c2/status", ContentType: mergePatch, Body: `{"status":{"phase":"Bound","capacity":{"storage":"1Gi"}}}`},
		{Name: "pvc of the class grown", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c2", ContentType: mergePatch, Body: `{"spec":{"resources":{"requests":{"storage":"3Gi"}}}}`},
		{Name: "pvc of the class other class", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c2", ContentType: mergePatch, Body: `{"metadata":{"annotations":{"volume.beta.kubernetes.io/storage-class":"other"}},"spec":{"resources":{"requests":{"storage":"4Gi"}}}}`},
		{Name: "pvc of the class back to Pending", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c2/status", ContentType: mergePatch, Body: `{"status":{"phase":"Pending"}}`},
		{Name: "pvc of the class grown while pending", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/persistentvolumeclaims/c2", ContentType: mergePatch, Body: `{"spec":{"resources":{"requests":{"storage":"5Gi"}}}}`},
		{Name: "delete class", Method: "DELETE", Path: "/apis/storage.k8s.io/v1/storageclasses/sc-{ns}"},
		{Name: "hpa apply", Method: "PATCH", Path: "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers/h1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h1"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"maxReplicas":3,"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"Utilization","averageUtilization":50}}}]}}`},
		{Name: "hpa smp metrics", Method: "PATCH", Path: "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers/h1", ContentType: strategicPatch, Body: `{"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}]}}`},
		{Name: "hpa status apply", Method: "PATCH", Path: "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers/h1/status?fieldManager=ctl", ContentType: applyPatch, Body: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h1"},"status":{"desiredReplicas":2,"currentReplicas":1,"conditions":[{"type":"AbleToScale","status":"True"}]}}`},
		{Name: "vwc", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", Body: `{"metadata":{"name":"vwc-{ns}"},"webhooks":[{"name":"a.example.com","clientConfig":{"url":"https://a.example.com"},"sideEffects":"None","admissionReviewVersions":["v1"],"rules":[{"operations":["CREATE"],"apiGroups":["x.example.com"],"apiVersions":["v1"],"resources":["things"]}]}]}`},
		{Name: "vwc smp", Method: "PATCH", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/vwc-{ns}", ContentType: strategicPatch, Body: `{"webhooks":[{"name":"a.example.com","timeoutSeconds":3},{"name":"b.example.com","clientConfig":{"url":"https://b.example.com"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`},
		{Name: "vwc delete", Method: "DELETE", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/vwc-{ns}"},
	}},
	{Name: "status-and-apply-kinds", Steps: []writeStep{
		nsStep(),
		{Name: "node", Method: "POST", Path: "/api/v1/nodes", Body: `{"metadata":{"name":"n-{ns}"},"spec":{"taints":[{"key":"a","effect":"NoSchedule"}]}}`},
		{Name: "node smp taints", Method: "PATCH", Path: "/api/v1/nodes/n-{ns}", ContentType: strategicPatch, Body: `{"spec":{"taints":[{"key":"b","effect":"NoExecute"}]}}`},
		{Name: "node status apply", Method: "PATCH", Path: "/api/v1/nodes/n-{ns}/status?fieldManager=kubelet", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n-{ns}"},"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}],"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":"n"}],"capacity":{"cpu":"2","pods":"110"}}}`},
		{Name: "node status smp addresses", Method: "PATCH", Path: "/api/v1/nodes/n-{ns}/status", ContentType: strategicPatch, Body: `{"status":{"addresses":[{"type":"ExternalIP","address":"1.2.3.4"}]}}`},
		{Name: "node read", Method: "GET", Path: "/api/v1/nodes/n-{ns}"},
		{Name: "node delete", Method: "DELETE", Path: "/api/v1/nodes/n-{ns}"},
		{Name: "pv", Method: "POST", Path: "/api/v1/persistentvolumes", Body: `{"metadata":{"name":"pv-{ns}"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp"}}}`},
		{Name: "pv smp claimRef", Method: "PATCH", Path: "/api/v1/persistentvolumes/pv-{ns}", ContentType: strategicPatch, Body: `{"spec":{"claimRef":{"namespace":"{ns}","name":"c1"}}}`},
		{Name: "pv grow", Method: "PATCH", Path: "/api/v1/persistentvolumes/pv-{ns}", ContentType: mergePatch, Body: `{"spec":{"capacity":{"storage":"2Gi"}}}`},
		{Name: "pv status apply", Method: "PATCH", Path: "/api/v1/persistentvolumes/pv-{ns}/status?fieldManager=ctl", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-{ns}"},"status":{"phase":"Bound"}}`},
		{Name: "pv read", Method: "GET", Path: "/api/v1/persistentvolumes/pv-{ns}"},
		{Name: "cm immutable", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"im"},"immutable":true,"data":{"a":"b"},"binaryData":{"c":"aGk="}}`},
		{Name: "cm immutable patch", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/im", ContentType: jsonPatch, Body: `[{"op":"replace","path":"/data/a","value":"c"}]`},
		{Name: "cm immutable unset", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/im", ContentType: mergePatch, Body: `{"immutable":false}`},
		{Name: "cm immutable labels", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/im", ContentType: mergePatch, Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "secret apply stringData", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/secrets/s1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"stringData":{"a":"b"},"type":"Opaque"}`},
		{Name: "secret apply stringData again", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/secrets/s1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"stringData":{"a":"c"}}`},
		{Name: "secret type change", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/secrets/s1", ContentType: mergePatch, Body: `{"type":"kubernetes.io/tls"}`},
		{Name: "pdb", Method: "POST", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", Body: `{"metadata":{"name":"p1"},"spec":{"maxUnavailable":1,"selector":{"matchLabels":{"a":"b"}}}}`},
		{Name: "pdb status apply", Method: "PATCH", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/p1/status?fieldManager=ctl", ContentType: applyPatch, Body: `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p1"},"status":{"currentHealthy":1,"desiredHealthy":1,"disruptionsAllowed":-1,"expectedPods":1,"conditions":[{"type":"DisruptionAllowed","status":"False","reason":"R","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`},
		{Name: "pdb smp selector", Method: "PATCH", Path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/p1", ContentType: strategicPatch, Body: `{"spec":{"selector":{"matchLabels":{"c":"d"}}}}`},
		{Name: "pc", Method: "POST", Path: "/apis/scheduling.k8s.io/v1/priorityclasses", Body: `{"metadata":{"name":"pc-{ns}"},"value":10}`},
		{Name: "pc apply value", Method: "PATCH", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/pc-{ns}?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"pc-{ns}"},"value":11}`},
		{Name: "pc delete", Method: "DELETE", Path: "/apis/scheduling.k8s.io/v1/priorityclasses/pc-{ns}"},
		{Name: "ep", Method: "POST", Path: "/api/v1/namespaces/{ns}/endpoints", Body: `{"metadata":{"name":"e1"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`},
		{Name: "ep smp", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/endpoints/e1", ContentType: strategicPatch, Body: `{"subsets":[{"addresses":[{"ip":"10.0.0.2"}],"ports":[{"port":81}]}]}`},
		{Name: "sa apply", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/serviceaccounts/sa1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa1"},"automountServiceAccountToken":false,"imagePullSecrets":[{"name":"x"}]}`},
		{Name: "cr agg", Method: "PATCH", Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles/cr-{ns}?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"cr-{ns}"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"agg":"{ns}"}}]}}`},
		{Name: "cr agg read", Method: "GET", Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles/cr-{ns}"},
		{Name: "cr delete", Method: "DELETE", Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles/cr-{ns}"},
		{Name: "rc", Method: "POST", Path: "/apis/node.k8s.io/v1/runtimeclasses", Body: `{"metadata":{"name":"rt-{ns}"},"handler":"runc","overhead":{"podFixed":{"cpu":"100m"}}}`},
		{Name: "rc handler", Method: "PATCH", Path: "/apis/node.k8s.io/v1/runtimeclasses/rt-{ns}", ContentType: mergePatch, Body: `{"handler":"kata"}`},
		{Name: "rc delete", Method: "DELETE", Path: "/apis/node.k8s.io/v1/runtimeclasses/rt-{ns}"},
	}},
	{Name: "revisions-and-status", Steps: []writeStep{
		nsStep(),
		{Name: "cr", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/controllerrevisions", Body: `{"metadata":{"name":"r1"},"data":{"a":1},"revision":1}`},
		{Name: "cr data change", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/controllerrevisions/r1", ContentType: mergePatch, Body: `{"data":{"a":2}}`},
		{Name: "cr revision change", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/controllerrevisions/r1", ContentType: mergePatch, Body: `{"revision":-2}`},
		{Name: "cr no revision", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/controllerrevisions", Body: `{"metadata":{"name":"r2"}}`},
		{Name: "va", Method: "POST", Path: "/apis/storage.k8s.io/v1/volumeattachments", Body: `{"metadata":{"name":"va-{ns}"},"spec":{"attacher":"a.example.com","nodeName":"n","source":{"persistentVolumeName":"pv"}}}`},
		{Name: "va status", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/volumeattachments/va-{ns}/status", ContentType: mergePatch, Body: `{"status":{"attached":true,"attachmentMetadata":{"":"x"},"attachError":{"message":"m","time":"2026-01-01T00:00:00Z","errorCode":-1}}}`},
		{Name: "va delete", Method: "DELETE", Path: "/apis/storage.k8s.io/v1/volumeattachments/va-{ns}"},
		{Name: "rq apply", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/resourcequotas/q1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q1"},"spec":{"hard":{"pods":"5"}}}`},
		{Name: "rq status bad", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/resourcequotas/q1/status", ContentType: mergePatch, Body: `{"status":{"hard":{"pods":"-1"},"used":{"bogus/x y":"1"}}}`},
		{Name: "lr apply", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/limitranges/l1?fieldManager=ap", ContentType: applyPatch, Body: `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"l1"},"spec":{"limits":[{"type":"Container","max":{"cpu":"1"}}]}}`},
		{Name: "lr smp", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/limitranges/l1", ContentType: strategicPatch, Body: `{"spec":{"limits":[{"type":"Pod","max":{"cpu":"2"}}]}}`},
		{Name: "secret immutable", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"s1"},"immutable":true,"stringData":{"a":"b"}}`},
		{Name: "secret immutable change", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/secrets/s1", ContentType: mergePatch, Body: `{"stringData":{"a":"c"}}`},
		{Name: "pt", Method: "POST", Path: "/api/v1/namespaces/{ns}/podtemplates", Body: `{"metadata":{"name":"pt"},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}`},
		{Name: "pt put", Method: "PUT", Path: "/api/v1/namespaces/{ns}/podtemplates/pt", Body: `{"metadata":{"name":"pt"},"template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}}`},
		{Name: "pt generation", Method: "GET", Path: "/api/v1/namespaces/{ns}/podtemplates/pt"},
	}},
	{Name: "csistorage", Steps: []writeStep{
		nsStep(),
		{Name: "csinode", Method: "POST", Path: "/apis/storage.k8s.io/v1/csinodes", Body: `{"metadata":{"name":"cn-{ns}"},"spec":{"drivers":[{"name":"d.example.com","nodeID":"n","topologyKeys":["topology.example.com/zone"],"allocatable":{"count":3}}]}}`},
		{Name: "csinode invalid", Method: "POST", Path: "/apis/storage.k8s.io/v1/csinodes", Body: `{"metadata":{"name":"cn2-{ns}"},"spec":{"drivers":[{"name":"Bad_Driver","nodeID":"","allocatable":{"count":-1},"topologyKeys":["","a/b/c","x","x"]},{"name":"Bad_Driver","nodeID":"n"}]}}`},
		{Name: "csinode count change", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/csinodes/cn-{ns}", ContentType: jsonPatch, Body: `[{"op":"replace","path":"/spec/drivers/0/allocatable/count","value":5}]`},
		{Name: "csinode add driver", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/csinodes/cn-{ns}", ContentType: jsonPatch, Body: `[{"op":"add","path":"/spec/drivers/-","value":{"name":"e.example.com","nodeID":"m"}}]`},
		{Name: "csinode delete", Method: "DELETE", Path: "/apis/storage.k8s.io/v1/csinodes/cn-{ns}"},
		{Name: "csc", Method: "POST", Path: "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities", Body: `{"metadata":{"name":"c1"},"storageClassName":"sc","capacity":"1Gi","nodeTopology":{"matchLabels":{"zone":"a"}}}`},
		{Name: "csc invalid", Method: "POST", Path: "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities", Body: `{"metadata":{"name":"c2"},"storageClassName":"Bad_Class","capacity":"-1","nodeTopology":{"matchExpressions":[{"key":"zone","operator":"Bogus"}]}}`},
		{Name: "csc no class", Method: "POST", Path: "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities", Body: `{"metadata":{"name":"c3"}}`},
		{Name: "csc capacity change", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities/c1", ContentType: mergePatch, Body: `{"capacity":"-2Gi","maximumVolumeSize":"1Gi"}`},
		{Name: "csc class and topology change", Method: "PATCH", Path: "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities/c1", ContentType: mergePatch, Body: `{"storageClassName":"other","nodeTopology":{"matchLabels":{"zone":"b"}}}`},
		{Name: "csc read", Method: "GET", Path: "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities/c1"},
	}},
	{Name: "trustbundle", Steps: []writeStep{
		{Name: "without signer", Method: "POST", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles", Body: `{"metadata":{"name":"ctb-{ns}"},"spec":{"trustBundle":"` + trustCA + `"}}`},
		{Name: "colon without signer", Method: "POST", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles", Body: `{"metadata":{"name":"a:ctb-{ns}"},"spec":{"trustBundle":"` + trustCA + `"}}`},
		{Name: "with signer", Method: "POST", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles", Body: `{"metadata":{"name":"example.com:signer:ctb-{ns}"},"spec":{"signerName":"example.com/signer","trustBundle":"` + trustCA + `"}}`},
		{Name: "wrong prefix", Method: "POST", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles", Body: `{"metadata":{"name":"ctb2-{ns}"},"spec":{"signerName":"example.com/signer","trustBundle":"` + trustCA + `"}}`},
		{Name: "bad signer", Method: "POST", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles", Body: `{"metadata":{"name":"x:ctb3-{ns}"},"spec":{"signerName":"x","trustBundle":"` + trustCA + `"}}`},
		{Name: "not pem", Method: "POST", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles", Body: `{"metadata":{"name":"ctb4-{ns}"},"spec":{"trustBundle":"x"}}`},
		{Name: "not a ca", Method: "POST", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles", Body: `{"metadata":{"name":"ctb5-{ns}"},"spec":{"trustBundle":"` + trustLeaf + trustCA + `"}}`},
		{Name: "duplicate", Method: "POST", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles", Body: `{"metadata":{"name":"ctb6-{ns}"},"spec":{"trustBundle":"` + trustCA + trustCA + `"}}`},
		{Name: "labels update", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles/ctb-{ns}", ContentType: mergePatch, Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "bundle update", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles/ctb-{ns}", ContentType: mergePatch, Body: `{"spec":{"trustBundle":"y"}}`},
		{Name: "signer update", Method: "PATCH", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles/example.com:signer:ctb-{ns}", ContentType: mergePatch, Body: `{"spec":{"signerName":"example.com/other"}}`},
		{Name: "delete", Method: "DELETE", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles/ctb-{ns}"},
		{Name: "delete signer", Method: "DELETE", Path: "/apis/certificates.k8s.io/v1/clustertrustbundles/example.com:signer:ctb-{ns}"},
	}},
	{Name: "all-namespaces", Steps: []writeStep{
		{Name: "create", Method: "POST", Path: "/api/v1/configmaps", Body: `{"metadata":{"name":"x"}}`},
		{Name: "update of the collection", Method: "PUT", Path: "/api/v1/configmaps", Body: `{"metadata":{"name":"x"}}`},
		{Name: "patch of the collection", Method: "PATCH", Path: "/apis/apps/v1/deployments", ContentType: mergePatch, Body: `{}`},
		{Name: "deletecollection", Method: "DELETE", Path: "/apis/apps/v1/deployments"},
		{Name: "dry run deletecollection", Method: "DELETE", Path: "/api/v1/secrets?dryRun=All"},
		{Name: "delete of a name", Method: "DELETE", Path: "/api/v1/configmaps/x"},
		{Name: "update of a name", Method: "PUT", Path: "/api/v1/configmaps/x", Body: `{"metadata":{"name":"x"}}`},
		{Name: "patch of a status", Method: "PATCH", Path: "/apis/apps/v1/deployments/x/status", ContentType: mergePatch, Body: `{}`},
	}},
	{Name: "strict", Steps: []writeStep{
		nsStep(),
		{Name: "unknown nested fields Strict", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments?fieldValidation=Strict", Body: `{"metadata":{"name":"d1"},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox","bogus":1,"ports":[{"containerPort":80,"bad":2}]}]}}}}`},
		{Name: "duplicate nested fields Strict", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments?fieldValidation=Strict", Body: `{"metadata":{"name":"d1","labels":{"a":"1","a":"2"}},"spec":{"replicas":1,"replicas":2,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox","image":"x"}]}}}}`},
		{Name: "duplicate and unknown fields Warn", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments", Body: `{"metadata":{"name":"d1","labels":{"a":"1","a":"2"}},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"busybox","bogus":1}]}}}}`},
		{Name: "service unknown fields Strict", Method: "POST", Path: "/api/v1/namespaces/{ns}/services?fieldValidation=Strict", Body: `{"metadata":{"name":"s1"},"spec":{"ports":[{"port":80,"targetPortt":8080}],"typo":1}}`},
		{Name: "strategic patch unknown field Strict", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1?fieldValidation=Strict", ContentType: strategicPatch, Body: `{"spec":{"template":{"spec":{"containers":[{"name":"c","bogus":1}]}}}}`},
		{Name: "apply duplicate field Strict", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1?fieldValidation=Strict&fieldManager=m", ContentType: applyPatch, Body: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  replicas: 1\n  replicas: 2\n"},
		{Name: "apply unknown field Strict", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1?fieldValidation=Strict&fieldManager=m", ContentType: applyPatch, Body: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d1\nspec:\n  bogus: 2\n"},
		{Name: "create for updates", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"s1"},"spec":{"ports":[{"port":80}]}}`},
		{Name: "update unknown field Strict", Method: "PUT", Path: "/api/v1/namespaces/{ns}/services/s1?fieldValidation=Strict", Body: `{"metadata":{"name":"s1"},"spec":{"ports":[{"port":80}]},"extra":{"a":1}}`},
		{Name: "YAML duplicate key Strict", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps?fieldValidation=Strict", ContentType: "application/yaml", Body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  a: b\n  a: c\nbogus: 1\n"},
		{Name: "YAML duplicate key Warn", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", ContentType: "application/yaml", Body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  a: b\n  a: c\nbogus: 1\n"},
		{Name: "YAML duplicate keys Ignore", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps?fieldValidation=Ignore", ContentType: "application/yaml", Body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y2\n  name: y2\ndata:\n  a: b\n"},
		{Name: "YAML update duplicate keys Strict", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/y1?fieldValidation=Strict", ContentType: "application/yaml", Body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\n  labels:\n    x: a\n    x: b\ndata:\n  a: b\n"},
		{Name: "YAML update duplicate keys Warn", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/y1", ContentType: "application/yaml", Body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\n  labels:\n    x: a\n    x: b\n    y: a\n    y: b\ndata:\n  a: b\n"},
		{Name: "protobuf Content-Type with a JSON body", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", ContentType: "application/vnd.kubernetes.protobuf", Body: `{"metadata":{"name":"pb1"},"data":{"a":"b"}}`},
		{Name: "protobuf Content-Type with a JSON body on update", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/y1", ContentType: "application/vnd.kubernetes.protobuf", Body: `{"metadata":{"name":"y1"},"data":{"a":"b"}}`},
		{Name: "JSON Content-Type with a protobuf body", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", ContentType: "application/json", Body: "k8s\x00\n\x0b"},
	}},
}

var moreWritesRecording = recording{cases: moreWriteCases, file: "testdata/observed-writes-more.json", markdown: "observed-writes-more.md",
	title: "writes to more kinds", recorder: "TestRecordOracleWritesMore", replayer: "TestObservedWritesMore", source: "record_writes_more_test.go"}

// TestRecordOracleWritesMore records moreWriteCases from a fresh kube-apiserver as
// TestRecordOracle records writeCases.
func TestRecordOracleWritesMore(t *testing.T) { moreWritesRecording.record(t, oracleServer(t)) }

// TestObservedWritesMore replays the recorded writes against the fake. A continue token holds
// the list's resourceVersion, and a CSR condition's times the server's clock, which differ
// between the two servers as the normalized ones do; the recorder was the oracle's admin, a
// request without credentials is the fake's.
func TestObservedWritesMore(t *testing.T) {
	moreWritesRecording.replay(t, noControllers, func(_ string, got, want *observedStep) {
		for _, s := range []*observedStep{got, want} {
			s.Response = continueToken.ReplaceAll(s.Response, []byte(`"continue":"<token>"`))
			s.Response = mapLeaves(s.Response, func(v any, key, _ string) any {
				if (key == "lastUpdateTime" || key == "lastTransitionTime") && v != nil {
					return "<time>"
				}
				return v
			})
		}
		want.Response = []byte(strings.ReplaceAll(string(want.Response), `"username":"oracle-admin"`, `"username":"admin"`))
	})
}

// continueToken matches a list's continue token in an answer.
var continueToken = regexp.MustCompile(`"continue":\s*"[^"]+"`)

// longFieldManager is a field manager longer than the 128 characters the apiserver allows.
const longFieldManager = "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm"

// trustCA and trustLeaf are a self-signed CA certificate and a certificate that is no CA (ECDSA
// P-256), JSON-escaped PEM as a ClusterTrustBundle's trustBundle holds it.
const (
	trustCA   = "-----BEGIN CERTIFICATE-----\\nMIIBezCCASGgAwIBAgIURJ7sFQK4uBDc4nD3XsMS32sxiHYwCgYIKoZIzj0EAwIw\\nEzERMA8GA1UEAwwIc3dlZXAtY2EwHhcNMjYxMjA3MTkwOTA0WhcNMzYxMjA0MTkw\\nOTA0WjATMREwDwYDVQQDDAhzd2VlcC1jYTBZMBMGByqGSM49AgEGCCqGSM49AwEH\\nA0IABE+yVMEKISK3BigH8HFLRYnaWIV1bGXuARjyFHTs2nw6n4B4JgnUnC0MjbhE\\nYH3UaxsTFjXWWhq0pdLwfWquHQajUzBRMB0GA1UdDgQWBBS2GGUHXX1RdFtLSj4i\\nF0WLyv1YXzAfBgNVHSMEGDAWgBS2GGUHXX1RdFtLSj4iF0WLyv1YXzAPBgNVHRMB\\nAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQDBm1vRXNUogoBLpE12kOu99wU1\\nkIX0GYslIKRT0lDd7AIgU2/AeJ/DR9w/H64E5wDd5Em4XPdfcan+N0Mj3fA0vn8=\\n-----END CERTIFICATE-----\\n"
	trustLeaf = "-----BEGIN CERTIFICATE-----\\nMIIBcDCCARagAwIBAgIUQ1HgCjnSdq1McOtmc30PO1a/ILowCgYIKoZIzj0EAwIw\\nDzENMAsGA1UEAwwEbGVhZjAeFw0yNjEyMDcxOTA5MDRaFw0zNjEyMDQxOTA5MDRa\\nMA8xDTALBgNVBAMMBGxlYWYwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQeKWKB\\nH1IKxTz6wfwUdEgj7go3MzVAVTHjhqT05ZF2bb9vEHZQJDVyXjBomKkXQoqto6Fd\\n5QVzMKQrjRjk3CLCo1AwTjAdBgNVHQ4EFgQUXc+Wsd7yWwr3bjGRA5Rv/3igMusw\\nHwYDVR0jBBgwFoAUXc+Wsd7yWwr3bjGRA5Rv/3igMuswDAYDVR0TAQH/BAIwADAK\\nBggqhkjOPQQDAgNIADBFAiEA+a7sghK5bBoiVf3JPn81nD/+tbTwFOc4CgXI2rh6\\ncdUCIEZWxAbb/ehkmWGh663ZKDUixS7vFTOliLe3copTNUxg\\n-----END CERTIFICATE-----\\n"
)

// csrRequest is a PKCS#10 request of CN=alice, O=dev (an ECDSA P-256 key), PEM in base64 as a
// CSR's spec.request holds it.
const csrRequest = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIYU1JR0FBZ0VBTUI0eERqQU1CZ05WQkFNTUJXRnNhV05sTVF3d0NnWURWUVFLREFOa1pYWXdXVEFUQmdjcQpoa2pPUFFJQkJnZ3Foa2pPUFFNQkJ3TkNBQVRhVldaTUxnbUdac0o5akxKa0lBYWlYMGx2cDdHSEc4VHNWQnBtCmRmRExuKzJNbjB3Z3NOcGYyemZ4enZIREJVRWZkeElscnhrMnJtUEFBcTMvVHpFVG9BQXdDZ1lJS29aSXpqMEUKQXdJRFNRQXdSZ0loQU44RlEwQklhaGs1VmxMQXYyYjdVL2FxaVlnUEltRE1SOENhL2NVRnZlQ2FBaUVBeTRORQpwRm51NDBsRVpNTjg5V29nZElKYmo3d00yVi9FSVpGMlRxbTllaFk9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="
