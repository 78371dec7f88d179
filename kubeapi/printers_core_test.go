package kubeapi

import (
	"reflect"
	"testing"
)

// TestServiceRow pins the service columns against printService (wide, as the apiserver prints).
func TestServiceRow(t *testing.T) {
	tests := []struct {
		name, obj string
		cells     []any
	}{
		{"cluster IP",
			`{"metadata":{"name":"web","creationTimestamp":"2026-01-10T11:00:00Z"},"spec":{"type":"ClusterIP","clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10"],
			"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080},{"protocol":"UDP","port":53}],"selector":{"app":"web","app-x":"y"}}}`,
			[]any{"web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP,53/UDP", "60m", "app=web,app-x=y"}},
		{"node port, external IPs",
			`{"metadata":{"name":"np","creationTimestamp":"2026-01-10T11:59:00Z"},"spec":{"type":"NodePort","clusterIPs":["10.96.1.1"],"externalIPs":["1.1.1.1","2.2.2.2"],
			"ports":[{"protocol":"TCP","port":443,"nodePort":30443}]}}`,
			[]any{"np", "NodePort", "10.96.1.1", "1.1.1.1,2.2.2.2", "443:30443/TCP", "60s", "<none>"}},
		{"load balancer, pending",
			`{"metadata":{"name":"lb","creationTimestamp":"2026-01-10T11:59:56Z"},"spec":{"type":"LoadBalancer","clusterIPs":["10.96.2.2"],"ports":[{"protocol":"TCP","port":80,"nodePort":31000}]}}`,
			[]any{"lb", "LoadBalancer", "10.96.2.2", "<pending>", "80:31000/TCP", "4s", "<none>"}},
		{"load balancer, ingress and external IPs",
			`{"metadata":{"name":"lb2","creationTimestamp":"2026-01-10T11:59:56Z"},"spec":{"type":"LoadBalancer","clusterIPs":["10.96.2.3"],"externalIPs":["9.9.9.9"]},
			"status":{"loadBalancer":{"ingress":[{"ip":"5.5.5.5"},{"hostname":"a.example.com"},{"ip":"5.5.5.5"}]}}}`,
			[]any{"lb2", "LoadBalancer", "10.96.2.3", "5.5.5.5,a.example.com,9.9.9.9", "<none>", "4s", "<none>"}},
		{"external name, headless",
			`{"metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"db.example.com","clusterIPs":["None"]}}`,
			[]any{"ext", "ExternalName", "None", "db.example.com", "<none>", "<unknown>", "<none>"}},
	}
	cols := len(ServicePrinter().Columns)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := serviceRow([]byte(tt.obj), tableNow)
			if len(row.Cells) != cols || !reflect.DeepEqual(row.Cells, tt.cells) {
				t.Fatalf("cells %q\nwant  %q", row.Cells, tt.cells)
			}
		})
	}
}

// TestConfigMapAndGenericRows pins printConfigMap (data and binaryData keys count) and the
// apiserver's default table convertor (the creation time in RFC 3339, UTC).
func TestConfigMapAndGenericRows(t *testing.T) {
	cm := ConfigMapPrinter().Row([]byte(`{"metadata":{"name":"c","creationTimestamp":"2026-01-10T10:00:00Z"},"data":{"a":"1","b":""},"binaryData":{"c":"AA=="}}`), tableNow)
	if want := []any{"c", int64(3), "120m"}; !reflect.DeepEqual(cm.Cells, want) {
		t.Errorf("configmap cells %q, want %q", cm.Cells, want)
	}
	empty := ConfigMapPrinter().Row([]byte(`{"metadata":{"name":"e","creationTimestamp":"2026-01-10T11:59:59Z"}}`), tableNow)
	if want := []any{"e", int64(0), "1s"}; !reflect.DeepEqual(empty.Cells, want) {
		t.Errorf("empty configmap cells %q, want %q", empty.Cells, want)
	}
	g := GenericPrinter().Row([]byte(`{"metadata":{"name":"w","creationTimestamp":"2026-01-10T13:00:00+02:00"}}`), tableNow)
	if want := []any{"w", "2026-01-10T11:00:00Z"}; !reflect.DeepEqual(g.Cells, want) {
		t.Errorf("generic cells %q, want %q", g.Cells, want)
	}
}
