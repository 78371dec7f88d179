package kubeapi

import (
	"testing"
)

// TestPrinterBranches pins branches of the printers that the recorded Tables
// (TestRecordedTables) do not reach, as k8s.io/kubernetes v1.37.2's printers take them.
func TestPrinterBranches(t *testing.T) {
	const meta = `"metadata":{"name":"x","creationTimestamp":"2026-01-10T11:00:00Z"}`
	tests := []struct {
		name, group, resource, obj string
		cell                       int // the cell checked
		want                       any
	}{
		{"job: failure target", "batch", "jobs", `{` + meta + `,"status":{"conditions":[{"type":"FailureTarget","status":"True"}]}}`, 1, "FailureTarget"},
		{"job: success criteria met", "batch", "jobs", `{` + meta + `,"status":{"conditions":[{"type":"SuccessCriteriaMet","status":"True"}]}}`, 1, "SuccessCriteriaMet"},
		{"job: the first condition of a type decides", "batch", "jobs", `{` + meta + `,"status":{"conditions":[{"type":"Complete","status":"False"},{"type":"Complete","status":"True"}]}}`, 1, "Running"},
		{"job: completed wins over deleting", "batch", "jobs", `{"metadata":{"name":"x","deletionTimestamp":"2026-01-10T11:00:00Z"},"status":{"conditions":[{"type":"Complete","status":"True"}]}}`, 1, "Complete"},
		{"job: running for", "batch", "jobs", `{` + meta + `,"status":{"startTime":"2026-01-10T11:58:00Z"}}`, 3, "2m"},
		{"cronjob: suspend unset", "batch", "cronjobs", `{` + meta + `,"spec":{"schedule":"@daily"}}`, 3, "<unset>"},
		{"hpa: container resource utilization", "autoscaling", "horizontalpodautoscalers",
			`{` + meta + `,"spec":{"metrics":[{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","target":{"type":"Utilization","averageUtilization":60}}}]},
			"status":{"currentMetrics":[{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","current":{"averageUtilization":30}}}]}}`, 2, "cpu: 30%/60%"},
		{"hpa: resource without a target utilization", "autoscaling", "horizontalpodautoscalers",
			`{` + meta + `,"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization"}}}]}}`, 2, "cpu: <unknown>/<auto>"},
		{"hpa: external average and object value", "autoscaling", "horizontalpodautoscalers",
			`{` + meta + `,"spec":{"metrics":[{"type":"External","external":{"target":{"type":"AverageValue","averageValue":"30"}}},{"type":"Object","object":{"target":{"type":"Value","value":"2k"}}}]},
			"status":{"currentMetrics":[{"type":"External","external":{"current":{"averageValue":"12"}}},{"type":"Object","object":{"current":{"value":"1500"}}}]}}`, 2, "12/30 (avg), 1500/2k"},
		{"hpa: unknown metric type", "autoscaling", "horizontalpodautoscalers", `{` + meta + `,"spec":{"metrics":[{"type":"Custom"}]}}`, 2, "<unknown type>"},
		{"hpa: no metrics", "autoscaling", "horizontalpodautoscalers", `{` + meta + `,"spec":{"maxReplicas":3}}`, 2, "<none>"},
		{"hpa: min replicas unset", "autoscaling", "horizontalpodautoscalers", `{` + meta + `,"spec":{"maxReplicas":3}}`, 3, "<unset>"},
		{"csr: no signer", "certificates.k8s.io", "certificatesigningrequests", `{` + meta + `,"spec":{}}`, 2, "<none>"},
		{"csr: approved and failed", "certificates.k8s.io", "certificatesigningrequests", `{` + meta + `,"status":{"conditions":[{"type":"Failed"},{"type":"Approved"}]}}`, 5, "Approved,Failed"},
		{"pdb: nothing set", "policy", "poddisruptionbudgets", `{` + meta + `}`, 1, "N/A"},
		{"endpoints: IPv6 address with a port", "", "endpoints", `{` + meta + `,"subsets":[{"addresses":[{"ip":"fd00::1"}],"ports":[{"port":80}]}]}`, 1, "[fd00::1]:80"},
		{"endpoints: a subset without addresses", "", "endpoints", `{` + meta + `,"subsets":[{"ports":[{"port":80}]}]}`, 1, ""},
		{"ingress: rules without hosts", "networking.k8s.io", "ingresses", `{` + meta + `,"spec":{"rules":[{},{}]}}`, 2, "*"},
		{"ingress: exactly three hosts", "networking.k8s.io", "ingresses", `{` + meta + `,"spec":{"rules":[{"host":"a"},{"host":"b"},{"host":"c"}]}}`, 2, "a,b,c"},
		{"pv: no capacity", "", "persistentvolumes", `{` + meta + `,"spec":{}}`, 1, "0"},
		{"pvc: class annotation set to empty", "", "persistentvolumeclaims", `{"metadata":{"name":"x","annotations":{"volume.beta.kubernetes.io/storage-class":""}},"spec":{"storageClassName":"fast"}}`, 5, ""},
		{"controllerrevision: a core owner", "apps", "controllerrevisions", `{"metadata":{"name":"x","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","controller":true}]}}`, 1, "pod/p"},
		{"controllerrevision: an owner that is not the controller", "apps", "controllerrevisions", `{"metadata":{"name":"x","ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"s"}]}}`, 1, "<none>"},
		{"deployment: unparseable selector", "apps", "deployments", `{` + meta + `,"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Bogus"}]}}}`, 7, "<invalid>"},
		{"ingressclass: default annotation not true", "networking.k8s.io", "ingressclasses", `{"metadata":{"name":"x","annotations":{"ingressclass.kubernetes.io/is-default-class":"True"}}}`, 0, "x"},
		{"storageclass: a get is never marked", "storage.k8s.io", "storageclasses", `{"metadata":{"name":"x","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}`, 0, "x"},
		{"apiservice: no Available condition", "apiregistration.k8s.io", "apiservices", `{` + meta + `,"status":{"conditions":[{"type":"Other","status":"True"}]}}`, 2, "Unknown"},
		{"apiservice: not available without a reason", "apiregistration.k8s.io", "apiservices", `{` + meta + `,"status":{"conditions":[{"type":"Available","status":"False"}]}}`, 2, "False"},
		{"priorityclass: no preemption policy", "scheduling.k8s.io", "priorityclasses", `{` + meta + `,"value":5}`, 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := PrinterFor(tt.group, tt.resource)
			if !ok {
				t.Fatalf("no printer for %s.%s", tt.resource, tt.group)
			}
			row := p.Row([]byte(tt.obj), tableNow)
			if tt.cell >= len(row.Cells) {
				t.Fatalf("%d cells", len(row.Cells))
			}
			if got := row.Cells[tt.cell]; got != tt.want {
				t.Errorf("cell %d (%s) = %#v, want %#v; row %q", tt.cell, p.Columns[tt.cell].Name, got, tt.want, row.Cells)
			}
		})
	}
}

// TestEffectiveDefaultClass: of several default classes a list marks the newest, the first name
// on a tie, and honours the beta annotation; none without a default.
func TestEffectiveDefaultClass(t *testing.T) {
	sc := func(name, created, annotation string) []byte {
		a := ""
		if annotation != "" {
			a = `,"annotations":{"` + annotation + `":"true"}`
		}
		return []byte(`{"metadata":{"name":"` + name + `","creationTimestamp":"` + created + `"` + a + `}}`)
	}
	const ga, beta = "storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"
	tests := []struct {
		name  string
		items [][]byte
		want  string
	}{
		{"none", [][]byte{sc("a", "2026-01-10T10:00:00Z", "")}, ""},
		{"newest", [][]byte{sc("a", "2026-01-10T10:00:00Z", ga), sc("b", "2026-01-10T11:00:00Z", beta), sc("c", "2026-01-10T12:00:00Z", "")}, "b"},
		{"tie: first name", [][]byte{sc("z", "2026-01-10T10:00:00Z", ga), sc("m", "2026-01-10T10:00:00Z", ga)}, "m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := effectiveDefaultClass(tt.items); got != tt.want {
				t.Errorf("%q, want %q", got, tt.want)
			}
		})
	}
}
