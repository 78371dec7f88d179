package selection

import "testing"

// Rule 4.3: the core kinds with their own field-label conversion accept exactly their fields,
// answer others with "field label not supported", and select on their strategies' values (found
// side by side with kube-apiserver 1.37.2, oracle-compare/RESULTS.md D4).
func TestCoreKindSchemas(t *testing.T) {
	tests := []struct {
		resource, obj, selector string
		match                   bool
		err                     string
	}{
		{"namespaces", `{"metadata":{"name":"a"},"status":{"phase":"Active"}}`, "status.phase=Active", true, ""},
		{"namespaces", `{"metadata":{"name":"a"},"status":{"phase":"Active"}}`, "metadata.namespace=x", false, "field label not supported: metadata.namespace"},
		{"services", `{"metadata":{"name":"k","namespace":"default"},"spec":{"clusterIP":"10.96.0.1","type":"ClusterIP"}}`, "spec.clusterIP=10.96.0.1,spec.type=ClusterIP", true, ""},
		{"services", `{"metadata":{"name":"k","namespace":"default"}}`, "spec.clusterIPs=x", false, "field label not supported: spec.clusterIPs"},
		{"secrets", `{"metadata":{"name":"s","namespace":"a"},"type":"Opaque"}`, "type=Opaque", true, ""},
		{"replicationcontrollers", `{"metadata":{"name":"r","namespace":"a"}}`, "status.replicas=0", true, ""},
		{"replicationcontrollers", `{"metadata":{"name":"r","namespace":"a"},"status":{"replicas":3}}`, "status.replicas=3", true, ""},
		{"events", `{"metadata":{"name":"e","namespace":"a"},"involvedObject":{"kind":"Pod","name":"p"},"source":{"component":"kubelet"},"reason":"Started","type":"Normal"}`,
			"involvedObject.kind=Pod,involvedObject.name=p,source=kubelet,reason=Started,type=Normal", true, ""},
		{"events", `{"metadata":{"name":"e","namespace":"a"}}`, "message=x", false, "field label not supported: message"},
	}
	for _, tt := range tests {
		t.Run(tt.resource+"/"+tt.selector, func(t *testing.T) {
			s := SchemaFor(tt.resource, tt.resource != "namespaces")
			sel, err := s.ParseFields(tt.selector)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("ParseFields(%q) = %v, want %q", tt.selector, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			obj, err := s.Extract([]byte(tt.obj))
			if err != nil {
				t.Fatal(err)
			}
			if got := sel.Matches(obj.Fields); got != tt.match {
				t.Fatalf("Matches = %v, want %v (fields %q)", got, tt.match, obj.Fields)
			}
		})
	}
}
