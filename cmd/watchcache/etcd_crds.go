package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/selection"
	etcdsource "github.com/watchcache/watchcache/source/etcd"
)

// crdPrefix is where the apiextensions apiserver keeps CustomResourceDefinitions, under the path
// prefix (reference/observed-etcd-layout.md, "Custom resources").
const crdPrefix = "apiextensions.k8s.io/customresourcedefinitions/"

// customResource is a custom resource serve reads from etcd: where and how its objects are stored,
// and the selectableFields of its storage version.
type customResource struct {
	etcdsource.Resource
	// fields are the selectableFields' names ("spec.color" for jsonPath ".spec.color").
	fields []string
}

// storedCRD is what serve reads of a stored CustomResourceDefinition. The apiserver stores CRDs as
// JSON at apiextensions.k8s.io/v1beta1 (observed on 1.37.2), whose versions carry their own
// subresources, columns and selectableFields, or share them in the spec when every version has the
// same (v1beta1's top-level fields); v1 objects read the same way.
type storedCRD struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Plural     string   `json:"plural"`
			Kind       string   `json:"kind"`
			ShortNames []string `json:"shortNames"`
			Categories []string `json:"categories"`
		} `json:"names"`
		Scope            string            `json:"scope"`
		SelectableFields []selectableField `json:"selectableFields"`
		Versions         []storedVersion   `json:"versions"`
	} `json:"spec"`
	Status struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

type storedVersion struct {
	Name             string            `json:"name"`
	Served           bool              `json:"served"`
	Storage          bool              `json:"storage"`
	SelectableFields []selectableField `json:"selectableFields"`
}

type selectableField struct {
	JSONPath string `json:"jsonPath"`
}

// customResources reads the CRDs under prefix and returns the custom resources of those that are
// Established, each at its storage version (the version its objects are stored in; serve serves
// that one), and etcd's revision of the read. A CRD that cannot be read, or is not Established,
// is logged and left out.
//
// transform, when set, is the source's Options.Transform: CRDs encrypted at rest are read through it.
func customResources(ctx context.Context, cli *clientv3.Client, prefix string, transform func(context.Context, string, []byte) ([]byte, error), log *slog.Logger) ([]customResource, int64, error) {
	key := path.Join(prefix, crdPrefix) + "/"
	resp, err := cli.Get(ctx, key, clientv3.WithPrefix())
	if err != nil {
		return nil, 0, fmt.Errorf("etcd %v: read the CustomResourceDefinitions: %w", cli.Endpoints(), err)
	}
	var out []customResource
	for _, kv := range resp.Kvs {
		value := kv.Value
		if transform != nil {
			v, err := transform(ctx, string(kv.Key), value)
			if err != nil {
				log.Warn("custom resource not served", "crd", strings.TrimPrefix(string(kv.Key), key), "err", err)
				continue
			}
			value = v
		}
		cr, err := parseCRD(value)
		if err != nil {
			log.Warn("custom resource not served", "crd", strings.TrimPrefix(string(kv.Key), key), "err", err)
			continue
		}
		out = append(out, cr)
	}
	slices.SortFunc(out, func(a, b customResource) int { return strings.Compare(a.Prefix, b.Prefix) })
	return out, resp.Header.Revision, nil
}

// parseCRD returns the custom resource of a stored CRD, or why it is not served.
func parseCRD(value []byte) (customResource, error) {
	if len(value) > 0 && value[0] != '{' {
		return customResource{}, fmt.Errorf("not JSON (%d bytes; encrypted, or an encoding serve does not read for CRDs)", len(value))
	}
	var crd storedCRD
	if err := json.Unmarshal(value, &crd); err != nil {
		return customResource{}, fmt.Errorf("decode: %w", err)
	}
	s := crd.Spec
	if s.Group == "" || s.Names.Plural == "" || s.Names.Kind == "" {
		return customResource{}, fmt.Errorf("CRD %q has no group, plural or kind", crd.Metadata.Name)
	}
	established := false
	for _, c := range crd.Status.Conditions {
		if c.Type == "Established" && c.Status == "True" {
			established = true
		}
	}
	if !established {
		return customResource{}, fmt.Errorf("CRD %q is not Established", crd.Metadata.Name)
	}
	i := slices.IndexFunc(s.Versions, func(v storedVersion) bool { return v.Storage })
	if i < 0 {
		return customResource{}, fmt.Errorf("CRD %q has no storage version", crd.Metadata.Name)
	}
	v := s.Versions[i]
	if !v.Served {
		return customResource{}, fmt.Errorf("CRD %q does not serve its storage version %s", crd.Metadata.Name, v.Name)
	}
	cr := customResource{Resource: etcdsource.Resource{
		Prefix: s.Group + "/" + s.Names.Plural,
		Group:  s.Group, Version: v.Name, Kind: s.Names.Kind, Resource: s.Names.Plural,
		Namespaced: s.Scope == "Namespaced",
		ShortNames: s.Names.ShortNames, Categories: s.Names.Categories,
	}}
	fields := v.SelectableFields
	if len(fields) == 0 {
		fields = s.SelectableFields
	}
	for _, f := range fields {
		// A selectableField's jsonPath is a simple path (".spec.color"); its field selector name is
		// the path without the leading dot (apiextensions validation).
		name := strings.TrimPrefix(f.JSONPath, ".")
		if name == "" || name == f.JSONPath {
			return customResource{}, fmt.Errorf("CRD %q: selectableField %q is not a path from the object's root", crd.Metadata.Name, f.JSONPath)
		}
		cr.fields = append(cr.fields, name)
	}
	return cr, nil
}

// schema returns the selection schema of the custom resource: metadata.name, metadata.namespace for
// a namespaced one, and its selectableFields.
func (cr customResource) schema() (*selection.Schema, error) {
	s := selection.CustomResourceSchema(cr.Namespaced)
	for _, f := range cr.fields {
		var err error
		if s, err = s.WithField(f, f); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", cr.Resource.Resource, cr.Group, err)
		}
	}
	return s, nil
}
