package etcd

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/internal/testdata"
)

// benchPods returns n realistic pods (internal/testdata, ~4 KiB of JSON each) as each storage
// encoder writes them, resourceVersion cleared as the apiserver's etcd3 store writes them.
func benchPods(b *testing.B, n int) map[string][][]byte {
	g := testdata.New(testdata.Config{Pods: n, Namespaces: 10, Nodes: 50, Seed: 3})
	out := map[string][][]byte{}
	for i := range n {
		var p corev1.Pod
		if err := json.Unmarshal(g.Pod(i, 0), &p); err != nil {
			b.Fatal(err)
		}
		p.ResourceVersion = ""
		p.APIVersion, p.Kind = "v1", "Pod"
		for name, enc := range storageEncoders() {
			var buf bytes.Buffer
			if err := enc.Encode(&p, &buf); err != nil {
				b.Fatal(err)
			}
			out[name] = append(out[name], buf.Bytes())
		}
	}
	return out
}

// BenchmarkDecode measures one stored pod turned into what each side holds: ours, the JSON the
// apiserver serves (decode.go: protobuf/CBOR → typed object → encoding/json, or a JSON value with
// the revision spliced in); the apiserver's, its etcd3 store's decode into a typed object with the
// revision set (runtime.Decode through the storage codec, versioner.UpdateObject) — the object its
// watch cache holds, before the conversion to the internal version (which client-go's scheme lacks)
// and before any JSON is written for a client, which the apiserver pays per request while the
// cache here pays it once per event; apiserver+json adds that encoding, for one request.
func BenchmarkDecode(b *testing.B) {
	pods := benchPods(b, 256)
	d := newDecoder(nil)
	s := scheme.Scheme
	apiserver := map[string]runtime.Decoder{
		"protobuf": protobuf.NewSerializer(s, s),
		"json":     kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{}),
	}
	for _, encoding := range []string{"protobuf", "cbor", "json"} {
		values := pods[encoding]
		size := 0
		for _, v := range values {
			size += len(v)
		}
		b.Run("ours/"+encoding, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size / len(values)))
			for i := 0; b.Loop(); i++ {
				if _, err := d.decode(values[i%len(values)], uint64(i+1)); err != nil {
					b.Fatal(err)
				}
			}
		})
		dec, ok := apiserver[encoding]
		if !ok {
			continue
		}
		for _, withJSON := range []bool{false, true} {
			name := "apiserver/" + encoding
			if withJSON {
				name = "apiserver+json/" + encoding
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size / len(values)))
				for i := 0; b.Loop(); i++ {
					obj, err := runtime.Decode(dec, values[i%len(values)])
					if err != nil {
						b.Fatal(err)
					}
					m, err := meta.Accessor(obj)
					if err != nil {
						b.Fatal(err)
					}
					m.SetResourceVersion(strconv.Itoa(i + 1))
					if withJSON {
						if _, err := json.Marshal(obj); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
