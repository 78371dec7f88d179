package kubeapi

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/selection"
	"github.com/watchcache/watchcache/watchcache"
)

// ResourceInfo describes a resource as discovery shows it and as its URLs and responses name it.
// It is a plain value; Register copies it.
type ResourceInfo struct {
	// Group is the API group, "" for the core group served under /api/v1.
	Group string
	// Version is the API version, e.g. "v1".
	Version string
	// Resource is the plural resource name used in URLs, e.g. "pods".
	Resource string
	// SingularName is the singular name, e.g. "pod"; "" means the lower-case Kind.
	SingularName string
	// Kind is the kind of one object, e.g. "Pod"; it names watch bookmarks and objects stored
	// without a kind.
	Kind string
	// ListKind is the kind of a list, e.g. "PodList"; "" means Kind + "List".
	ListKind string
	// Namespaced says whether objects live in namespaces (/namespaces/{ns}/{resource}/{name}).
	Namespaced bool
	// ShortNames are kubectl's abbreviations, e.g. "po".
	ShortNames []string
	// Categories group resources for kubectl, e.g. "all".
	Categories []string
	// Verbs are the verbs discovery advertises; nil means get, list and watch (all this server does).
	Verbs []string
	// Printer renders the resource as a Table for kubectl get; nil means GenericPrinter (Name,
	// Created At: the apiserver's default table convertor).
	Printer *Printer
	// Unstructured says the resource's lists are unstructured, as a custom resource's are: items
	// keep their kind and apiVersion, and metadata.continue is written even when empty.
	Unstructured bool
	// AnyVersion says the cache may hold the resource's objects in other versions of its group
	// (a custom resource's versions without conversion, served from one cache of the stored
	// objects, which keep the apiVersion they were written at): each object is served with this
	// version's apiVersion, as the apiserver's conversion "None" serves it. The cache may then be
	// registered in each version.
	AnyVersion bool
	// FieldSchema, when set, is the field selectors this version accepts, checked before the
	// cache's (whose schema must hold them all): a custom resource's versions may each have
	// selectableFields of their own while served from one cache. A selector it refuses gets the
	// apiserver's 400 ("field label not supported: <f>"). nil: the cache's schema alone.
	FieldSchema *selection.Schema
	// StorageVersionHash is discovery's hash of the storage version ("" lists none).
	StorageVersionHash string
	// Subresources are listed in discovery after the resource, as the apiserver lists
	// "pods/status" (Name is the full "resource/subresource"); the aggregated document nests
	// them in the resource's entry, in this order.
	Subresources []metav1.APIResource
	// Views answer a GET of a subresource (the last segment of .../{name}/{subresource}) from
	// the stored object: "status" of a custom resource is the object itself, "scale" its
	// autoscaling/v1 Scale. A subresource without a view answers the apiserver's 404: naming the
	// object for an Unstructured resource (the apiextensions apiserver's), the generic one of an
	// unknown path otherwise (kube-apiserver's). Views are read-only: writes to a subresource get
	// the 405 every write gets.
	Views map[string]View
	// Convert, when set, turns each object the cache holds into the object this resource
	// serves: the cache then holds the resource of the same name and scope in another group,
	// whose storage the apiserver shares (events.k8s.io/v1 Events are the core/v1 Events of
	// /registry/events, converted). Tables and metadata are read from the cache's object;
	// protobuf is not offered (JSON and YAML are). It may be called concurrently and must not
	// modify obj; an object it cannot convert is served as the cache holds it.
	Convert func(obj []byte) ([]byte, error)
	// FieldLabels, with Convert, maps each field selector label this resource accepts to the
	// cache's ("regarding.name" → "involvedObject.name"), as the apiserver's field label
	// conversion does; any other label gets its 400 ("field label not supported: <f>").
	FieldLabels map[string]string
	// QualifiedKinds says the aggregated discovery document names the resource's group and
	// version in its responseKind, and in that of each subresource whose entry names none, as
	// the apiextensions apiserver does for a custom resource; false leaves them empty, as
	// kube-apiserver does for a built-in one. The legacy documents name them in neither case.
	QualifiedKinds bool
	// Warning is the deprecation warning sent with every answer about the resource, as the
	// apiserver's `Warning: 299 - "<text>"` header; "" means the built-in one of the group,
	// version and resource (v1 endpoints and componentstatuses have one), if any.
	Warning string
	// Model is the resource's OpenAPI schema when no recorded document has it (a custom
	// resource's): /openapi/v3 and /openapi/v2 then publish it as apiextensions does. nil leaves
	// such a resource out of them.
	Model *Model
}

// View turns a stored object into the answer of a subresource GET. It may be called
// concurrently and must not modify obj.
type View func(obj []byte) ([]byte, error)

// builtinWarnings are the deprecation warnings kube-apiserver 1.37.2 sends for the listable
// built-in resources (testdata/oracle/warnings.txt).
var builtinWarnings = map[schema.GroupVersionResource]string{
	{Version: "v1", Resource: "endpoints"}:         "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
	{Version: "v1", Resource: "componentstatuses"}: "v1 ComponentStatus is deprecated in v1.19+",
}

// DeprecationWarning is the deprecation warning kube-apiserver 1.37.2 sends with every answer
// about a built-in resource, or "" for none.
func DeprecationWarning(gvr schema.GroupVersionResource) string { return builtinWarnings[gvr] }

// GroupVersion returns the apiVersion of the resource's objects: "v1" for the core group,
// "group/version" otherwise.
func (i ResourceInfo) GroupVersion() string {
	if i.Group == "" {
		return i.Version
	}
	return i.Group + "/" + i.Version
}

// withDefaults fills the derived fields and checks the required ones.
func (i ResourceInfo) withDefaults() (ResourceInfo, error) {
	var errs []error
	if i.Version == "" {
		errs = append(errs, errors.New("version is empty"))
	}
	if i.Resource == "" || strings.ContainsAny(i.Resource, "/%") {
		errs = append(errs, fmt.Errorf("invalid resource name %q", i.Resource))
	}
	if i.Kind == "" {
		errs = append(errs, errors.New("kind is empty"))
	}
	if strings.Contains(i.Group, "/") {
		errs = append(errs, fmt.Errorf("invalid group %q", i.Group))
	}
	if err := errors.Join(errs...); err != nil {
		return i, err
	}
	if i.ListKind == "" {
		i.ListKind = i.Kind + "List"
	}
	if i.SingularName == "" {
		i.SingularName = strings.ToLower(i.Kind)
	}
	if i.Verbs == nil {
		i.Verbs = []string{"get", "list", "watch"}
	}
	if i.Printer == nil {
		i.Printer = GenericPrinter()
	}
	if i.Warning == "" {
		i.Warning = builtinWarnings[schema.GroupVersionResource{Group: i.Group, Version: i.Version, Resource: i.Resource}]
	}
	i.ShortNames = append([]string(nil), i.ShortNames...)
	i.Categories = append([]string(nil), i.Categories...)
	i.Verbs = append([]string(nil), i.Verbs...)
	return i, nil
}

// checkCache verifies that a cache holds the resource the info describes: same plural name, group
// and scope (the cache's keys and selectable fields depend on them).
func (i ResourceInfo) checkCache(c *watchcache.Cache) error {
	r := c.Resource()
	if r.Name != i.Resource || (r.Group != i.Group && i.Convert == nil) || r.Namespaced != i.Namespaced {
		return fmt.Errorf("kubeapi: cache holds %+v, not %s.%s (namespaced=%t)", r, i.Resource, i.Group, i.Namespaced)
	}
	return nil
}

// CoreResources returns the descriptions of common core/v1 resources — pods, nodes, namespaces,
// configmaps, secrets, services, endpoints, events, serviceaccounts, persistentvolumes,
// persistentvolumeclaims — with their kinds, scope, short names and categories as a
// kube-apiserver 1.37 advertises them, and their Table printers (PrinterFor).
// The slice is new on every call.
func CoreResources() []ResourceInfo {
	core := func(resource, kind string, namespaced bool, short []string, categories ...string) ResourceInfo {
		return ResourceInfo{
			Version: "v1", Resource: resource, Kind: kind, Namespaced: namespaced,
			ShortNames: short, Categories: categories,
		}
	}
	rs := []ResourceInfo{
		core("pods", "Pod", true, []string{"po"}, "all"),
		core("nodes", "Node", false, []string{"no"}),
		core("namespaces", "Namespace", false, []string{"ns"}),
		core("configmaps", "ConfigMap", true, []string{"cm"}),
		core("secrets", "Secret", true, nil),
		core("services", "Service", true, []string{"svc"}, "all"),
		core("endpoints", "Endpoints", true, []string{"ep"}),
		core("events", "Event", true, []string{"ev"}),
		core("serviceaccounts", "ServiceAccount", true, []string{"sa"}),
		core("persistentvolumes", "PersistentVolume", false, []string{"pv"}),
		core("persistentvolumeclaims", "PersistentVolumeClaim", true, []string{"pvc"}),
	}
	for i := range rs {
		rs[i].Printer, _ = PrinterFor("", rs[i].Resource)
	}
	return rs
}

// CoreResource returns the entry of CoreResources for a plural name.
func CoreResource(resource string) (ResourceInfo, bool) {
	for _, r := range CoreResources() {
		if r.Resource == resource {
			return r, true
		}
	}
	return ResourceInfo{}, false
}
