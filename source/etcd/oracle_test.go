package etcd

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/scheme"
)

// TestDecodeAsTheApiserverServes: the values kube-apiserver 1.37.2 wrote to etcd with JSON
// storage (kubeapi/testdata/oracle/*.etcd: the value, then its mod revision), decoded with their
// revision, are byte for byte the apiserver's own Get answers for the same objects
// (kubeapi/testdata/oracle/get-*.http) — resourceVersion where ObjectMeta's encoding puts it, nothing
// else changed. reference/record-fidelity.sh records both.
func TestDecodeAsTheApiserverServes(t *testing.T) {
	d := newDecoder(scheme.Scheme)
	for _, kind := range []string{"pod", "configmap", "service", "namespace", "node"} {
		t.Run(kind, func(t *testing.T) {
			raw, err := os.ReadFile("../../kubeapi/testdata/oracle/" + kind + ".etcd")
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
			rev, err := strconv.ParseUint(string(lines[len(lines)-1]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			value := bytes.Join(lines[:len(lines)-1], []byte("\n"))
			get, err := os.ReadFile("../../kubeapi/testdata/oracle/get-" + kind + ".http")
			if err != nil {
				t.Fatal(err)
			}
			_, body, _ := strings.Cut(string(get), "\n\n")
			got, err := d.decode(value, rev)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimSuffix(body, "\n"); string(got) != want {
				t.Fatalf("decoded value differs from the apiserver's get:\n got %s\nwant %s", got, want)
			}
		})
	}
}
