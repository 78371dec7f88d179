package main

import (
	"context"
	"crypto/aes"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
)

// aescbcConfig encrypts secrets with aescbc key1 and reads what was written before with identity,
// as a cluster that turned encryption on does.
const aescbcConfig = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aescbc:
      keys:
      - name: key1
        secret: MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=
  - identity: {}
`

// TestServeEncryptedSecrets: an etcd holding a secret encrypted with aescbc (written as the
// apiserver's transformer writes it: the etcd key as authenticated data) beside a plain one is
// served whole with --encryption-provider-config, and without it only the plain secret is.
func TestServeEncryptedSecrets(t *testing.T) {
	cli, endpoint := startEtcd(t)
	put := etcdPut(t, cli)
	secret := func(name, data string) string {
		return `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"` + name + `","namespace":"default","uid":"uid-` + name + `"},"data":{"k":"` + base64.StdEncoding.EncodeToString([]byte(data)) + `"},"type":"Opaque"}`
	}
	put("/registry/secrets/default/plain", secret("plain", "in the clear"))
	key, _ := base64.StdEncoding.DecodeString("MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	tr := value.NewPrefixTransformers(nil, value.PrefixTransformer{Prefix: []byte("k8s:enc:aescbc:v1:key1:"), Transformer: aestransformer.NewCBCTransformer(block)})
	const sealedKey = "/registry/secrets/default/sealed"
	sealed, err := tr.TransformToStorage(context.Background(), []byte(secret("sealed", "kept secret")), value.DefaultContext(sealedKey))
	if err != nil {
		t.Fatal(err)
	}
	put(sealedKey, string(sealed))
	cfg := writeTemp(t, "encryption.yaml", aescbcConfig)

	type secretList struct {
		Items []struct {
			Metadata struct{ Name string }
			Data     map[string]string
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want map[string]string // name → decoded data
	}{
		{"with the configuration", []string{"--encryption-provider-config", cfg}, map[string]string{"plain": "in the clear", "sealed": "kept secret"}},
		{"without", nil, map[string]string{"plain": "in the clear"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, _ := startServe(t, append([]string{"--etcd-endpoints", endpoint, "--resources", "secrets"}, tc.args...)...)
			var l secretList
			if code := getJSON(t, url+"/api/v1/namespaces/default/secrets", &l); code != 200 {
				t.Fatalf("list secrets: %d", code)
			}
			got := map[string]string{}
			for _, it := range l.Items {
				b, _ := base64.StdEncoding.DecodeString(it.Data["k"])
				got[it.Metadata.Name] = string(b)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("secrets %v, want %v", got, tc.want)
			}
			for n, d := range tc.want {
				if got[n] != d {
					t.Fatalf("secrets %v, want %v", got, tc.want)
				}
			}
			// The etcd source's figures are in /metrics: its counters and each cache's lag.
			_, _, m := get(t, http.DefaultClient, url+"/metrics", "")
			for _, want := range []string{`watchcache_resource_version_lag{group="",resource="secrets"} `, `watchcache_source_lists_total{source="etcd"} 1`} {
				if !strings.Contains(m, want) {
					t.Errorf("/metrics lacks %s", want)
				}
			}
		})
	}
	t.Run("a bad configuration is an error at start", func(t *testing.T) {
		bad := writeTemp(t, "bad.yaml", "kind: Nope\n")
		err := run(t.Context(), []string{"serve", "--listen", "127.0.0.1:0", "--etcd-endpoints", endpoint, "--encryption-provider-config", bad}, io.Discard, io.Discard)
		if err == nil {
			t.Fatal("no error")
		}
	})
}
