package watchcache

import "testing"

// TestSpliceRV: a resourceVersion written into an object that has none goes where the apiserver's
// encoding of ObjectMeta has it (after name, generateName, namespace, selfLink and uid), so an
// object applied without one reads as kube-apiserver writes it; existing ones are replaced in place.
func TestSpliceRV(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"after uid", `{"kind":"Pod","metadata":{"name":"a","namespace":"n","uid":"u","creationTimestamp":null}}`,
			`{"kind":"Pod","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"7","creationTimestamp":null}}`},
		{"last", `{"metadata":{"name":"a","uid":"u"}}`, `{"metadata":{"name":"a","uid":"u","resourceVersion":"7"}}`},
		{"first", `{"metadata":{"labels":{"uid":"x"}}}`, `{"metadata":{"resourceVersion":"7","labels":{"uid":"x"}}}`},
		{"only", `{"metadata":{}}`, `{"metadata":{"resourceVersion":"7"}}`},
		{"blank", `{"metadata":{ }}`, `{"metadata":{ "resourceVersion":"7"}}`},
		{"replaced", `{"metadata":{"labels":{},"resourceVersion":"3"}}`, `{"metadata":{"labels":{},"resourceVersion":"7"}}`},
		{"last metadata decides", `{"metadata":{"name":"a"},"metadata":{"name":"b","generation":2}}`,
			`{"metadata":{"name":"a"},"metadata":{"name":"b","resourceVersion":"7","generation":2}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := spliceRV([]byte(tt.in), 7)
			if err != nil || string(got) != tt.want {
				t.Fatalf("spliceRV = %s, %v\nwant       %s", got, err, tt.want)
			}
		})
	}
}
