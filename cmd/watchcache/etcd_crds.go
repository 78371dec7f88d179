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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/selection"
	etcdsource "github.com/watchcache/watchcache/source/etcd"
)

// crdPrefix is where the apiextensions apiserver keeps CustomResourceDefinitions, under the path
// prefix (reference/observed-etcd-layout.md, "Custom resources").
const crdPrefix = "apiextensions.k8s.io/customresourcedefinitions/"

// customResource is a custom resource serve reads from etcd: where and how its objects are stored
// (Resource, at the storage version), and the versions the apiserver serves it in.
type customResource struct {
	etcdsource.Resource
	singular string
	// versions are the served versions, in the CRD's order; the objects are the same in each
	// (conversion None), with that version's apiVersion.
	versions []crVersion
	// fields are the selectableFields' names of every served version ("spec.color" for jsonPath
	// ".spec.color"): the schema of the one cache all versions read.
	fields []string
}

// crVersion is one served version of a custom resource: its selectableFields and its
// additionalPrinterColumns (the CRD's shared ones when it has none of its own).
type crVersion struct {
	name    string
	fields  []string
	columns []apiextensionsv1.CustomResourceColumnDefinition
	// status and scale are the version's subresources (the CRD's shared ones when it has none
	// of its own); serve answers their GETs.
	status bool
	scale  *apiextensionsv1.CustomResourceSubresourceScale
}

// storedCRD is what serve reads of a stored CustomResourceDefinition. The apiserver stores CRDs as
// JSON at apiextensions.k8s.io/v1beta1 (observed on 1.37.2), whose versions carry their own
// subresources, columns and selectableFields, or share them in the spec when every version has the
// same (v1beta1's top-level fields); v1 objects read the same way (encoding/json matches
// "JSONPath" and v1's "jsonPath" alike).
type storedCRD struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Plural     string   `json:"plural"`
			Singular   string   `json:"singular"`
			Kind       string   `json:"kind"`
			ShortNames []string `json:"shortNames"`
			Categories []string `json:"categories"`
		} `json:"names"`
		Scope                    string                                      `json:"scope"`
		SelectableFields         []selectableField                           `json:"selectableFields"`
		AdditionalPrinterColumns []storedColumn                              `json:"additionalPrinterColumns"`
		Subresources             *apiextensionsv1.CustomResourceSubresources `json:"subresources"`
		Versions                 []storedVersion                             `json:"versions"`
	} `json:"spec"`
	Status struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

type storedVersion struct {
	Name                     string                                      `json:"name"`
	Served                   bool                                        `json:"served"`
	Storage                  bool                                        `json:"storage"`
	SelectableFields         []selectableField                           `json:"selectableFields"`
	AdditionalPrinterColumns []storedColumn                              `json:"additionalPrinterColumns"`
	Subresources             *apiextensionsv1.CustomResourceSubresources `json:"subresources"`
}

type selectableField struct {
	JSONPath string `json:"jsonPath"`
}

// storedColumn is an additionalPrinterColumn as v1beta1 stores it.
type storedColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
	JSONPath    string `json:"JSONPath"`
}

// customResources reads the CRDs under prefix and returns the custom resources of those that are
// Established, with their storage and served versions, and etcd's revision of the read. A CRD that cannot be read, or is not Established,
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
	cr := customResource{Resource: etcdsource.Resource{
		Prefix: s.Group + "/" + s.Names.Plural,
		Group:  s.Group, Version: s.Versions[i].Name, Kind: s.Names.Kind, Resource: s.Names.Plural,
		Namespaced: s.Scope == "Namespaced",
		ShortNames: s.Names.ShortNames, Categories: s.Names.Categories,
	}, singular: s.Names.Singular}
	for _, v := range s.Versions {
		if !v.Served {
			continue
		}
		cv := crVersion{name: v.Name}
		fields := v.SelectableFields
		if len(fields) == 0 {
			fields = s.SelectableFields
		}
		for _, f := range fields {
			// A selectableField's jsonPath is a simple path (".spec.color"); its field selector
			// name is the path without the leading dot (apiextensions validation).
			name := strings.TrimPrefix(f.JSONPath, ".")
			if name == "" || name == f.JSONPath {
				return customResource{}, fmt.Errorf("CRD %q: selectableField %q is not a path from the object's root", crd.Metadata.Name, f.JSONPath)
			}
			cv.fields = append(cv.fields, name)
			if !slices.Contains(cr.fields, name) {
				cr.fields = append(cr.fields, name)
			}
		}
		sub := v.Subresources
		if sub == nil {
			sub = s.Subresources
		}
		if sub != nil {
			cv.status, cv.scale = sub.Status != nil, sub.Scale
		}
		cols := v.AdditionalPrinterColumns
		if len(cols) == 0 {
			cols = s.AdditionalPrinterColumns
		}
		for _, c := range cols {
			cv.columns = append(cv.columns, apiextensionsv1.CustomResourceColumnDefinition{
				Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority, JSONPath: c.JSONPath,
			})
		}
		cr.versions = append(cr.versions, cv)
	}
	if len(cr.versions) == 0 {
		return customResource{}, fmt.Errorf("CRD %q serves no version", crd.Metadata.Name)
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

// infos returns what kubeapi serves of each served version: the CRD's names and scope, the
// storage version's hash in discovery, the version's printer columns
// (fake.CustomResourcePrinter, as the fake prints them) and field selectors; the objects are
// unstructured and served in the request's version (AnyVersion: one cache for all versions).
func (cr customResource) infos() ([]kubeapi.ResourceInfo, error) {
	var out []kubeapi.ResourceInfo
	for _, v := range cr.versions {
		info := kubeapi.ResourceInfo{
			Group: cr.Group, Version: v.name, Resource: cr.Resource.Resource, SingularName: cr.singular, Kind: cr.Kind,
			Namespaced: cr.Namespaced, ShortNames: cr.ShortNames, Categories: cr.Categories,
			StorageVersionHash: fake.StorageVersionHash(cr.Group, cr.Version, cr.Kind),
			Printer:            fake.CustomResourcePrinter(v.columns),
			Unstructured:       true, AnyVersion: true, QualifiedKinds: true,
		}
		// serve reads only: the subresources advertise get, and their GETs answer as the
		// apiextensions apiserver's (the object for status, its Scale for scale).
		if v.status {
			info.Subresources = append(info.Subresources, metav1.APIResource{
				Name: cr.Resource.Resource + "/status", Namespaced: cr.Namespaced, Kind: cr.Kind, Verbs: []string{"get"},
			})
			info.Views = map[string]kubeapi.View{"status": statusView}
		}
		if sc := v.scale; sc != nil {
			info.Subresources = append(info.Subresources, metav1.APIResource{
				Name: cr.Resource.Resource + "/scale", Namespaced: cr.Namespaced, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get"},
			})
			if info.Views == nil {
				info.Views = map[string]kubeapi.View{}
			}
			info.Views["scale"] = func(obj []byte) ([]byte, error) { return fake.CustomResourceScale(obj, sc) }
		}
		if !slices.Equal(v.fields, cr.fields) {
			s := selection.CustomResourceSchema(cr.Namespaced)
			for _, f := range v.fields {
				var err error
				if s, err = s.WithField(f, f); err != nil {
					return nil, fmt.Errorf("%s.%s %s: %w", cr.Resource.Resource, cr.Group, v.name, err)
				}
			}
			info.FieldSchema = s
		}
		out = append(out, info)
	}
	return out, nil
}

// statusView answers a GET of a status subresource: the whole object, as kube-apiserver and the
// apiextensions apiserver answer it.
func statusView(obj []byte) ([]byte, error) { return obj, nil }
