package fake

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FuzzDecodeBody feeds arbitrary bodies to the decoder of every write: it must either decode an
// object of the resource's type or fail with a Status error (never panic, never another error).
func FuzzDecodeBody(f *testing.F) {
	for _, seed := range []string{
		`{"metadata":{"name":"a"},"data":{"k":"v"}}`,
		`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"extra":1}`,
		`{"kind":"Secret","apiVersion":"v1"}`,
		`{"apiVersion":"apps/v1"}`,
		`{"metadata":`, `[]`, ``, "k8s\x00\x0a\x02v1",
		`{"metadata":{"name":"a"},"data":{"a":"1","a":"2"}}`,
	} {
		f.Add([]byte(seed))
	}
	reg, err := builtinRegistry()
	if err != nil {
		f.Fatal(err)
	}
	cm := reg.byGR[schema.GroupResource{Resource: "configmaps"}]
	pod := reg.byGR[schema.GroupResource{Resource: "pods"}]
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, rt := range []*resourceType{cm, pod} {
			d, err := decodeBody(rt, body)
			if err != nil {
				if _, ok := err.(apierrors.APIStatus); !ok {
					t.Fatalf("%s: error %T %v carries no Status", rt.gvk.Kind, err, err)
				}
				continue
			}
			if d.obj == nil || d.obj.GetObjectKind() == nil {
				t.Fatalf("%s: no object and no error", rt.gvk.Kind)
			}
			if _, err := encodeStored(rt, d.obj); err != nil {
				t.Fatalf("%s: a decoded object does not encode: %v", rt.gvk.Kind, err)
			}
		}
	})
}
