// Package encryption reads values a kube-apiserver encrypted at rest, for source/etcd: it loads the
// apiserver's own EncryptionConfiguration file (--encryption-provider-config) with k8s.io/apiserver
// and decrypts each value with the transformer the apiserver uses for its resource, the etcd key as
// authenticated data, exactly as the apiserver's etcd3 store reads it.
//
//	tr, err := encryption.Load(ctx, "/etc/kubernetes/encryption-config.yaml", "/registry")
//	src := etcd.New(client, etcd.Options{Transform: tr.Transform})
//
// It is a module of its own because k8s.io/apiserver (with its KMS clients) is heavy, and most users
// of source/etcd read clusters that do not encrypt, or only encrypt secrets they do not serve.
package encryption

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/server/options/encryptionconfig"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/watchcache/watchcache/source/etcd"
)

// encryptedPrefix starts every value an encryption provider wrote (k8s.io/apiserver
// storage/value/encrypt: "k8s:enc:<provider>:v1:<name>:").
var encryptedPrefix = []byte("k8s:enc:")

// Transformers decrypts values with the providers of an EncryptionConfiguration, per resource.
// Its Transform is safe for concurrent use (the apiserver's transformers are).
type Transformers struct {
	static   encryptionconfig.StaticTransformers
	root     string                          // "/registry/"
	byPrefix map[string]schema.GroupResource // resource prefix → resource, for built-in resources
}

// Load reads an EncryptionConfiguration file as the apiserver does (the same validation, the same
// providers: aescbc, aesgcm, secretbox, kms v1/v2, identity) for an apiserver whose --etcd-prefix is
// pathPrefix. KMS plugins are dialled as the apiserver dials them, with goroutines that live until
// ctx ends.
func Load(ctx context.Context, file, pathPrefix string) (*Transformers, error) {
	cfg, err := encryptionconfig.LoadEncryptionConfig(ctx, file, false, "watchcache")
	if err != nil {
		return nil, fmt.Errorf("encryption: %s: %w", file, err)
	}
	return newTransformers(cfg.Transformers, pathPrefix), nil
}

func newTransformers(m map[schema.GroupResource]value.Transformer, pathPrefix string) *Transformers {
	t := &Transformers{
		static:   encryptionconfig.StaticTransformers(m),
		root:     path.Join("/", pathPrefix) + "/",
		byPrefix: map[string]schema.GroupResource{},
	}
	for _, r := range etcd.Builtin() {
		t.byPrefix[r.Prefix] = schema.GroupResource{Group: r.Group, Resource: r.Resource}
	}
	return t
}

// Transform is etcd.Options.Transform: a value not encrypted at rest is returned as it is; an
// encrypted one is decrypted by the transformer the configuration names for its resource (found
// from the key: a built-in resource's storage prefix, or <group>/<resource> of a custom resource),
// with the key as authenticated data. It fails when no configured provider holds the value's key.
func (t *Transformers) Transform(ctx context.Context, key string, v []byte) ([]byte, error) {
	if !bytes.HasPrefix(v, encryptedPrefix) {
		return v, nil
	}
	gr, ok := t.resourceOf(key)
	if !ok {
		return nil, fmt.Errorf("encryption: %s is not under %s", key, t.root)
	}
	out, _, err := t.static.TransformerForResource(gr).TransformFromStorage(ctx, v, value.DefaultContext(key))
	if err != nil {
		return nil, fmt.Errorf("encryption: %s (%s): %w", key, gr, err)
	}
	return out, nil
}

// resourceOf maps an etcd key to the resource whose configuration encrypted it.
func (t *Transformers) resourceOf(key string) (schema.GroupResource, bool) {
	rel, ok := strings.CutPrefix(key, t.root)
	if !ok {
		return schema.GroupResource{}, false
	}
	best := ""
	for p := range t.byPrefix {
		if strings.HasPrefix(rel, p+"/") && len(p) > len(best) {
			best = p
		}
	}
	if best != "" {
		return t.byPrefix[best], true
	}
	group, rest, ok := strings.Cut(rel, "/")
	if !ok {
		return schema.GroupResource{}, false
	}
	resource, _, _ := strings.Cut(rest, "/")
	return schema.GroupResource{Group: group, Resource: resource}, true
}
