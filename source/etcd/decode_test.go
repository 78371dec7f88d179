package etcd

import (
	"errors"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name, value string
		rev         uint64
		want        string // "" means ErrUndecodable
	}{
		{"apiserver JSON, no resourceVersion", `{"kind":"Pod","metadata":{"name":"a","namespace":"n"}}` + "\n", 42,
			`{"kind":"Pod","metadata":{"name":"a","namespace":"n","resourceVersion":"42"}}`},
		// ObjectMeta's order: name, generateName, namespace, selfLink, uid, resourceVersion,
		// generation, creationTimestamp, ... (the apiserver's Get answers, kubeapi/testdata/oracle).
		{"after uid, before generation", `{"metadata":{"name":"a","uid":"u","generation":1,"creationTimestamp":"t"}}`, 3,
			`{"metadata":{"name":"a","uid":"u","resourceVersion":"3","generation":1,"creationTimestamp":"t"}}`},
		{"before creationTimestamp", `{"metadata":{"name":"a","generateName":"a-","namespace":"n","uid":"u","creationTimestamp":"t","labels":{"uid":"x"}}}`, 3,
			`{"metadata":{"name":"a","generateName":"a-","namespace":"n","uid":"u","resourceVersion":"3","creationTimestamp":"t","labels":{"uid":"x"}}}`},
		{"first when only later fields", `{"metadata":{"labels":{"a":"b"}}}`, 3, `{"metadata":{"resourceVersion":"3","labels":{"a":"b"}}}`},
		{"resourceVersion after labels replaced there", `{"metadata":{"name":"a","labels":{},"resourceVersion":"1"}}`, 3,
			`{"metadata":{"name":"a","labels":{},"resourceVersion":"3"}}`},
		{"resourceVersion replaced", `{"metadata":{"name":"a","resourceVersion":"7"},"spec":{}}`, 9,
			`{"metadata":{"name":"a","resourceVersion":"9"},"spec":{}}`},
		{"empty metadata", `{"metadata":{}}`, 1, `{"metadata":{"resourceVersion":"1"}}`},
		{"blank metadata", `{"metadata":{ }}`, 1, `{"metadata":{ "resourceVersion":"1"}}`},
		{"nested resourceVersion is not metadata's", `{"spec":{"metadata":{"resourceVersion":"3"}},"metadata":{"name":"a"}}`, 5,
			`{"spec":{"metadata":{"resourceVersion":"3"}},"metadata":{"name":"a","resourceVersion":"5"}}`},
		{"protobuf", "k8s\x00\n\x02v1\x12\x03Pod", 1, ""},
		{"encrypted", "k8s:enc:aescbc:v1:key1:\x01\x02", 1, ""},
		{"cbor", "\xd9\xd9\xf7\xa1", 1, ""},
		{"empty", " \n", 1, ""},
		{"array", `[1]`, 1, ""},
		{"no metadata", `{"kind":"Pod"}`, 1, ""},
		{"metadata not an object", `{"metadata":"x"}`, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decode([]byte(tt.value), tt.rev)
			if tt.want == "" {
				if !errors.Is(err, ErrUndecodable) {
					t.Fatalf("decode = %q, %v; want ErrUndecodable", got, err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("decode = %s, %v\nwant     %s", got, err, tt.want)
			}
		})
	}
}

func TestDecodeDoesNotAlias(t *testing.T) {
	value := []byte(`{"metadata":{"name":"a","resourceVersion":"1"}}`)
	got, err := decode(value, 1)
	if err != nil {
		t.Fatal(err)
	}
	value[2] = 'X'
	if got[2] == 'X' {
		t.Fatal("decode returned a slice of the etcd value")
	}
}
