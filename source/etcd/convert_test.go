package etcd

import (
	"testing"
)

// TestServedAs: an object of a resource stored at an older version is served at the version the
// apiserver serves, with the fields the served version lacks dropped, as its conversion drops
// them; an object already at it, and resources stored as served, are left as they are.
func TestServedAs(t *testing.T) {
	byPrefix := map[string]Resource{}
	for _, r := range Builtin() {
		byPrefix[r.Prefix] = r
	}
	for _, tc := range []struct {
		name, prefix, in, want string
	}{
		{"older version", "podcertificaterequests",
			`{"kind":"PodCertificateRequest","apiVersion":"certificates.k8s.io/v1beta1","metadata":{"name":"r","namespace":"ns","resourceVersion":"7"},"spec":{"signerName":"example.com/s","podName":"p","podUID":"u","serviceAccountName":"default","serviceAccountUID":"s","nodeName":"n","nodeUID":"nu","pkixPublicKey":"AAE=","proofOfPossession":"AAI=","stubPKCS10Request":"AAM="},"status":{}}`,
			`{"kind":"PodCertificateRequest","apiVersion":"certificates.k8s.io/v1","metadata":{"name":"r","namespace":"ns","resourceVersion":"7"},"spec":{"signerName":"example.com/s","podName":"p","podUID":"u","serviceAccountName":"default","serviceAccountUID":"s","nodeName":"n","nodeUID":"nu","stubPKCS10Request":"AAM="},"status":{}}`},
		{"already served", "devicetaintrules",
			`{"kind":"DeviceTaintRule","apiVersion":"resource.k8s.io/v1","metadata":{"name":"x"},"spec":{"z":1}}`,
			`{"kind":"DeviceTaintRule","apiVersion":"resource.k8s.io/v1","metadata":{"name":"x"},"spec":{"z":1}}`},
		{"not JSON", "storageversionmigrations", `{"kind":`, `{"kind":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := ServedAs(byPrefix[tc.prefix])
			if tr == nil {
				t.Fatalf("no transform for %s", tc.prefix)
			}
			if got := string(tr([]byte(tc.in))); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if ServedAs(byPrefix["pods"]) != nil {
		t.Error("pods, stored as served, got a transform")
	}
}
