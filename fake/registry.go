package fake

import (
	"embed"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// discoveryFiles are the aggregated discovery documents a kube-apiserver 1.37.2 serves at /api and
// /apis (recorded by reference/record-writes.sh); they are the registry of resources.
//
//go:embed testdata/discovery/aggregated-api.json testdata/discovery/aggregated-apis.json
var discoveryFiles embed.FS

// resourceType is one served resource: its names as discovery gives them and what the write path
// needs to know about it.
type resourceType struct {
	gvr        schema.GroupVersionResource
	gvk        schema.GroupVersionKind
	singular   string
	namespaced bool
	verbs      []string
	shortNames []string
	categories []string
	// status and scale say whether the resource has those subresources.
	status, scale bool
	// goType is the struct type of one object in client-go's scheme.
	goType reflect.Type
	// generation says whether the apiserver sets metadata.generation (1 on create, +1 on a change
	// of anything but metadata and status); returnDeleted whether DELETE answers with the deleted
	// object rather than a Status. Both are per-resource facts of the apiserver's registry.
	generation, returnDeleted bool
	// createOnUpdate says whether a PUT of a missing object creates it; unconditionalUpdate whether
	// a PUT may omit metadata.resourceVersion (the strategies' AllowCreateOnUpdate and
	// AllowUnconditionalUpdate).
	createOnUpdate, unconditionalUpdate bool
	// custom is set for a custom resource: its CRD's version (crd.go).
	custom *customVersion
}

// newObject returns a new, empty object of the resource's Go type.
func (t *resourceType) newObject() runtime.Object {
	return reflect.New(t.goType).Interface().(runtime.Object)
}

// hasVerb reports whether discovery lists verb for the resource.
func (t *resourceType) hasVerb(verb string) bool {
	for _, v := range t.verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// generationResources are the resources whose strategies set metadata.generation, from the
// apiserver's registry (k8s.io/kubernetes v1.37.2 pkg/registry, PrepareForCreate), confirmed for
// pods, deployments and configmaps (none) in reference/observed-writes.md.
var generationResources = map[schema.GroupResource]bool{
	{Group: "", Resource: "pods"}:                                                          true,
	{Group: "", Resource: "podtemplates"}:                                                  true,
	{Group: "", Resource: "replicationcontrollers"}:                                        true,
	{Group: "apps", Resource: "daemonsets"}:                                                true,
	{Group: "apps", Resource: "deployments"}:                                               true,
	{Group: "apps", Resource: "replicasets"}:                                               true,
	{Group: "apps", Resource: "statefulsets"}:                                              true,
	{Group: "batch", Resource: "jobs"}:                                                     true,
	{Group: "batch", Resource: "cronjobs"}:                                                 true,
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:                           true,
	{Group: "policy", Resource: "poddisruptionbudgets"}:                                    true,
	{Group: "networking.k8s.io", Resource: "networkpolicies"}:                              true,
	{Group: "networking.k8s.io", Resource: "ingresses"}:                                    true,
	{Group: "networking.k8s.io", Resource: "ingressclasses"}:                               true,
	{Group: "discovery.k8s.io", Resource: "endpointslices"}:                                true,
	{Group: "scheduling.k8s.io", Resource: "priorityclasses"}:                              true,
	{Group: "resource.k8s.io", Resource: "resourceslices"}:                                 true,
	{Group: "resource.k8s.io", Resource: "deviceclasses"}:                                  true,
	{Group: "resource.k8s.io", Resource: "devicetaintrules"}:                               true,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                       true,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}:       true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     true,
}

// generationOnCreateOnly are the generationResources whose strategies set generation 1 on create
// and leave it on update (the priority class strategy's PrepareForUpdate does nothing;
// reference/observed-priority.md, global default updated).
var generationOnCreateOnly = map[schema.GroupResource]bool{
	{Group: "scheduling.k8s.io", Resource: "priorityclasses"}: true,
}

// returnDeletedResources are the resources whose DELETE answers with the deleted object
// (ReturnDeletedObject in the apiserver's registry, k8s.io/kubernetes v1.37.2); the others answer
// with a Status of kind Success (reference/observed-writes.md, delete).
var returnDeletedResources = map[schema.GroupResource]bool{
	{Group: "", Resource: "namespaces"}:                            true,
	{Group: "", Resource: "persistentvolumes"}:                     true,
	{Group: "", Resource: "persistentvolumeclaims"}:                true,
	{Group: "", Resource: "pods"}:                                  true,
	{Group: "", Resource: "podtemplates"}:                          true,
	{Group: "", Resource: "resourcequotas"}:                        true,
	{Group: "", Resource: "services"}:                              true,
	{Group: "", Resource: "serviceaccounts"}:                       true,
	{Group: "resource.k8s.io", Resource: "deviceclasses"}:          true,
	{Group: "resource.k8s.io", Resource: "resourceclaims"}:         true,
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}: true,
	{Group: "resource.k8s.io", Resource: "resourceslices"}:         true,
	{Group: "storage.k8s.io", Resource: "csidrivers"}:              true,
	{Group: "storage.k8s.io", Resource: "csinodes"}:                true,
	{Group: "storage.k8s.io", Resource: "storageclasses"}:          true,
	{Group: "storage.k8s.io", Resource: "volumeattachments"}:       true,
	{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}: true,
}

// createOnUpdateResources are the resources whose strategies allow a PUT to create
// (AllowCreateOnUpdate, k8s.io/kubernetes v1.37.2 pkg/registry).
var createOnUpdateResources = map[schema.GroupResource]bool{
	{Group: "node.k8s.io", Resource: "runtimeclasses"}:                    true,
	{Group: "rbac.authorization.k8s.io", Resource: "roles"}:               true,
	{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}:        true,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}:        true,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}: true,
	{Group: "coordination.k8s.io", Resource: "leases"}:                    true,
	{Group: "coordination.k8s.io", Resource: "leasecandidates"}:           true,
	{Group: "", Resource: "limitranges"}:                                  true,
	{Group: "", Resource: "events"}:                                       true,
	{Group: "events.k8s.io", Resource: "events"}:                          true,
	{Group: "", Resource: "services"}:                                     true,
	{Group: "", Resource: "endpoints"}:                                    true,
}

// conditionalUpdateResources are the resources whose strategies require metadata.resourceVersion
// on a PUT (AllowUnconditionalUpdate false, k8s.io/kubernetes v1.37.2 pkg/registry).
var conditionalUpdateResources = map[schema.GroupResource]bool{
	{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:                     true,
	{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}:                        true,
	{Group: "node.k8s.io", Resource: "runtimeclasses"}:                                     true,
	{Group: "policy", Resource: "poddisruptionbudgets"}:                                    true,
	{Group: "storage.k8s.io", Resource: "csidrivers"}:                                      true,
	{Group: "storage.k8s.io", Resource: "csistoragecapacities"}:                            true,
	{Group: "storage.k8s.io", Resource: "volumeattachments"}:                               true,
	{Group: "storage.k8s.io", Resource: "csinodes"}:                                        true,
	{Group: "coordination.k8s.io", Resource: "leases"}:                                     true,
	{Group: "coordination.k8s.io", Resource: "leasecandidates"}:                            true,
	{Group: "internal.apiserver.k8s.io", Resource: "storageversions"}:                      true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   true,
	{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   true,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     true,
}

// registry is the parsed discovery: every resource of the recorded documents whose kind client-go's
// scheme knows, in the preferred (first listed) version of its group only, since one store holds
// one version (the fake converts between none).
type registry struct {
	types []*resourceType
	// byPath maps "group/version/resource" to its type.
	byPath map[string]*resourceType
	byGR   map[schema.GroupResource]*resourceType
}

var (
	loadRegistryOnce sync.Once
	loadedRegistry   *registry
	loadRegistryErr  error
)

// builtinRegistry returns the registry, parsed once per process.
func builtinRegistry() (*registry, error) {
	loadRegistryOnce.Do(func() { loadedRegistry, loadRegistryErr = parseRegistry() })
	return loadedRegistry, loadRegistryErr
}

func parseRegistry() (*registry, error) {
	reg := &registry{byPath: map[string]*resourceType{}, byGR: map[schema.GroupResource]*resourceType{}}
	for _, name := range []string{"testdata/discovery/aggregated-api.json", "testdata/discovery/aggregated-apis.json"} {
		b, err := discoveryFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("fake: registry: %w", err)
		}
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, fmt.Errorf("fake: registry %s: %w", name, err)
		}
		for _, g := range list.Items {
			if len(g.Versions) == 0 {
				continue
			}
			v := g.Versions[0]
			for _, r := range v.Resources {
				if t := newResourceType(g.Name, v.Version, r); t != nil {
					reg.types = append(reg.types, t)
					reg.byPath[t.gvr.Group+"/"+t.gvr.Version+"/"+t.gvr.Resource] = t
					reg.byGR[t.gvr.GroupResource()] = t
				}
			}
		}
	}
	if len(reg.types) == 0 {
		return nil, fmt.Errorf("fake: registry: no resources")
	}
	return reg, nil
}

// newResourceType returns the type of a discovered resource, or nil if client-go's scheme does not
// know its kind (an aggregated API's, such as apiregistration.k8s.io's APIServices) or if it is
// not stored (no list verb: reviews such as tokenreviews, and bindings, which the apiserver
// computes rather than stores).
func newResourceType(group, version string, r apidiscoveryv2.APIResourceDiscovery) *resourceType {
	if r.ResponseKind == nil || !slices.Contains(r.Verbs, "list") {
		return nil
	}
	gvk := schema.GroupVersionKind{Group: group, Version: version, Kind: r.ResponseKind.Kind}
	goType, ok := scheme.Scheme.AllKnownTypes()[gvk]
	if !ok {
		return nil
	}
	gr := schema.GroupResource{Group: group, Resource: r.Resource}
	t := &resourceType{
		gvr:           gr.WithVersion(version),
		gvk:           gvk,
		singular:      r.SingularResource,
		namespaced:    r.Scope == apidiscoveryv2.ScopeNamespace,
		verbs:         append([]string(nil), r.Verbs...),
		shortNames:    append([]string(nil), r.ShortNames...),
		categories:    append([]string(nil), r.Categories...),
		goType:        goType,
		generation:    generationResources[gr],
		returnDeleted: returnDeletedResources[gr],

		createOnUpdate:      createOnUpdateResources[gr],
		unconditionalUpdate: !conditionalUpdateResources[gr],
	}
	for _, s := range r.Subresources {
		switch s.Subresource {
		case "status":
			t.status = true
		case "scale":
			t.scale = true
		}
	}
	return t
}

// BuiltinSubresources reports whether kube-apiserver 1.37.2's discovery lists a status and a
// scale subresource for the built-in resource of group and resource (any served version: the
// registry's recorded documents). A resource the registry does not know has neither. It may be
// called concurrently.
func BuiltinSubresources(group, resource string) (status, scale bool) {
	reg, err := builtinRegistry()
	if err != nil {
		return false, false
	}
	t := reg.byGR[schema.GroupResource{Group: group, Resource: resource}]
	if t == nil {
		return false, false
	}
	return t.status, t.scale
}
