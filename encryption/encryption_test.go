package encryption

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"
)

// config is an EncryptionConfiguration as a cluster admin writes it: secrets with aescbc (then
// identity, to read what was written before), configmaps with secretbox, the apps group with
// aesgcm. The keys are test keys.
const config = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aescbc:
      keys:
      - name: key1
        secret: MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=
  - identity: {}
- resources: [configmaps]
  providers:
  - secretbox:
      keys:
      - name: sb1
        secret: ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA=
- resources: ["*.apps"]
  providers:
  - aesgcm:
      keys:
      - name: gcm1
        secret: MDEyMzQ1Njc4OWFiY2RlZg==
`

// TestTransform: values the apiserver's own transformers wrote for each configured resource (the
// write path: TransformToStorage with the etcd key as authenticated data) read back to the stored
// bytes through Transform; plain values pass; a value moved to another key, or encrypted for a
// resource the configuration does not cover, fails.
func TestTransform(t *testing.T) {
	file := filepath.Join(t.TempDir(), "encryption.yaml")
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr, err := Load(ctx, file, "/registry")
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte("k8s\x00\n\x0c\n\x02v1\x12\x06Secret\x12\x00")
	write := func(gr schema.GroupResource, key string) []byte {
		t.Helper()
		out, err := tr.static.TransformerForResource(gr).TransformToStorage(ctx, plain, value.DefaultContext(key))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name   string
		gr     schema.GroupResource
		key    string
		prefix string
	}{
		{"secrets, aescbc", schema.GroupResource{Resource: "secrets"}, "/registry/secrets/ns/s", "k8s:enc:aescbc:v1:key1:"},
		{"configmaps, secretbox", schema.GroupResource{Resource: "configmaps"}, "/registry/configmaps/ns/c", "k8s:enc:secretbox:v1:sb1:"},
		{"deployments, aesgcm by group", schema.GroupResource{Group: "apps", Resource: "deployments"}, "/registry/deployments/ns/d", "k8s:enc:aesgcm:v1:gcm1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := write(tt.gr, tt.key)
			if !bytes.HasPrefix(stored, []byte(tt.prefix)) {
				t.Fatalf("stored %q, want prefix %q", stored[:min(len(stored), 30)], tt.prefix)
			}
			got, err := tr.Transform(ctx, tt.key, stored)
			if err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("Transform = %q, %v; want the plain value", got, err)
			}
		})
	}
	t.Run("plain values pass", func(t *testing.T) {
		if got, err := tr.Transform(ctx, "/registry/pods/ns/p", plain); err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("Transform = %q, %v", got, err)
		}
	})
	t.Run("authenticated data is the key", func(t *testing.T) {
		stored := write(schema.GroupResource{Group: "apps", Resource: "deployments"}, "/registry/deployments/ns/d")
		if _, err := tr.Transform(ctx, "/registry/deployments/ns/other", stored); err == nil {
			t.Fatal("a value moved to another key decrypted")
		}
	})
	t.Run("resource without a provider", func(t *testing.T) {
		stored := write(schema.GroupResource{Resource: "secrets"}, "/registry/example.com/widgets/ns/w")
		_, err := tr.Transform(ctx, "/registry/example.com/widgets/ns/w", stored)
		if err == nil || !strings.Contains(err.Error(), "widgets.example.com") {
			t.Fatalf("Transform of a value no provider of widgets.example.com wrote: %v", err)
		}
	})
}

func TestResourceOf(t *testing.T) {
	tr := newTransformers(nil, "/registry")
	for key, want := range map[string]schema.GroupResource{
		"/registry/secrets/ns/a":                                     {Resource: "secrets"},
		"/registry/services/specs/ns/a":                              {Resource: "services"},
		"/registry/minions/n":                                        {Resource: "nodes"},
		"/registry/deployments/ns/d":                                 {Group: "apps", Resource: "deployments"},
		"/registry/example.com/widgets/ns/w":                         {Group: "example.com", Resource: "widgets"},
		"/registry/apiextensions.k8s.io/customresourcedefinitions/x": {Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"},
	} {
		if got, ok := tr.resourceOf(key); !ok || got != want {
			t.Errorf("resourceOf(%q) = %v, %v; want %v", key, got, ok, want)
		}
	}
	if _, ok := tr.resourceOf("/other/secrets/a"); ok {
		t.Error("a key outside the path prefix has a resource")
	}
}
