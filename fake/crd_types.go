package fake

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// crdTypeConverter returns the type converter server-side apply uses for one version of a custom
// resource: the version's schema with metadata typed as ObjectMeta, so that apply merges
// list-maps (x-kubernetes-list-type: map) by their keys, labels and annotations key by key,
// and treats an x-kubernetes-int-or-string field as a scalar of either type.
func crdTypeConverter(gvk schema.GroupVersionKind, vs *versionSchema) (managedfields.TypeConverter, error) {
	root := *vs.openapi
	props := make(map[string]spec.Schema, len(root.Properties)+3)
	for k, v := range root.Properties {
		props[k] = v
	}
	props["apiVersion"] = *spec.StringProperty()
	props["kind"] = *spec.StringProperty()
	props["metadata"] = spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/definitions/" + objectMetaName)}}
	root.Properties = props
	root.Type = spec.StringOrArray{"object"}
	root.AddExtension("x-kubernetes-group-version-kind", []any{
		map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind},
	})
	tc, err := managedfields.NewTypeConverter(map[string]*spec.Schema{
		gvk.Kind:       &root,
		objectMetaName: objectMetaSchema(),
	}, false)
	if err != nil {
		return nil, fmt.Errorf("fake: type of %v: %w", gvk, err)
	}
	return tc, nil
}

const objectMetaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// objectMetaSchema is ObjectMeta as server-side apply sees it: labels and annotations are
// granular maps, finalizers a set, ownerReferences a list-map keyed by uid, managedFields atomic.
func objectMetaSchema() *spec.Schema {
	str := *spec.StringProperty()
	integer := *spec.Int64Property()
	stringMap := *spec.MapProperty(spec.StringProperty())
	finalizers := *spec.ArrayProperty(spec.StringProperty())
	finalizers.AddExtension("x-kubernetes-list-type", "set")
	owner := spec.Schema{SchemaProps: spec.SchemaProps{
		Type:     spec.StringOrArray{"object"},
		Required: []string{"apiVersion", "kind", "name", "uid"},
		Properties: map[string]spec.Schema{
			"apiVersion": str, "kind": str, "name": str, "uid": str,
			"controller": *spec.BoolProperty(), "blockOwnerDeletion": *spec.BoolProperty(),
		},
	}}
	owners := *spec.ArrayProperty(&owner)
	owners.AddExtension("x-kubernetes-list-type", "map")
	owners.AddExtension("x-kubernetes-list-map-keys", []any{"uid"})
	managed := *spec.ArrayProperty(&spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}})
	managed.AddExtension("x-kubernetes-list-type", "atomic")
	managed.Items.Schema.AddExtension("x-kubernetes-preserve-unknown-fields", true)
	managed.Items.Schema.AddExtension("x-kubernetes-map-type", "atomic")
	return &spec.Schema{SchemaProps: spec.SchemaProps{
		Type: spec.StringOrArray{"object"},
		Properties: map[string]spec.Schema{
			"name": str, "generateName": str, "namespace": str, "selfLink": str, "uid": str,
			"resourceVersion": str, "creationTimestamp": str, "deletionTimestamp": str,
			"generation": integer, "deletionGracePeriodSeconds": integer,
			"labels": stringMap, "annotations": stringMap,
			"finalizers": finalizers, "ownerReferences": owners, "managedFields": managed,
		},
	}}
}
