package etcd

import (
	"context"
	"fmt"
	"path"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Resource is a resource as a kube-apiserver stores it in etcd and serves it: where its objects are
// (Prefix, the resourcePrefix Source.Add takes), the group, version and kind they are stored as,
// its scope, and the names discovery gives it. It is a plain value.
type Resource struct {
	// Prefix is the path under --etcd-prefix: "pods", "minions", "services/specs",
	// "apiextensions.k8s.io/customresourcedefinitions".
	Prefix string
	// Group, Version and Kind are those the apiserver serves the objects as (its group's preferred
	// version), which is also their storage version unless StorageVersion says otherwise.
	Group, Version, Kind string
	// Resource is the plural name in URLs, e.g. "nodes".
	Resource string
	// Namespaced says whether keys are Prefix/<namespace>/<name> (else Prefix/<name>).
	Namespaced bool
	// ShortNames and Categories are what discovery advertises (kubectl get deploy, get all).
	ShortNames, Categories []string
	// StorageVersion, when not empty, is the older version of Group the objects are stored at:
	// the apiserver stores a kind at the version the previous release served, so that a rollback
	// can read it, and converts it to Version when it serves it (ServedAs does).
	StorageVersion string
}

// layout is a Resource without its StorageVersion, so that builtin reads as a table.
type layout struct {
	Prefix, Group, Version, Kind, Resource string
	Namespaced                             bool
	ShortNames, Categories                 []string
}

// storedOlder are the storage versions of the built-in resources stored at an older version than
// served, by prefix (k8s.io/kubernetes test/integration/etcd/data.go ExpectedGVK for 1.37, checked
// on the oracle: reference/observed-etcd-layout.md, "Stored at an older version").
var storedOlder = map[string]string{
	"clustertrustbundles":      "v1beta1",
	"podcertificaterequests":   "v1beta1",
	"devicetaintrules":         "v1beta2",
	"storageversionmigrations": "v1beta1",
}

// builtin is the storage layout of the built-in resources a kube-apiserver 1.37 serves with its
// default flags, at each group's preferred version (the storage version of each but those of
// storedOlder). Facts:
// k8s.io/kubernetes pkg/kubeapiserver/default_storage_factory_builder.go (the prefix is the
// resource name, group left out, except SpecialDefaultResourcePrefixes: controllers,
// services/endpoints, minions, services/specs, ingress; events.k8s.io events cohabit with core
// events), test/integration/etcd/data.go (ExpectedEtcdPath, ExpectedGVK), and the oracle's
// discovery and etcd keys (reference/observed-etcd-layout.md). events.k8s.io/v1 is left out: its
// objects are the core events, stored as v1 Event, which only the apiserver's conversion turns
// into the other schema. apiservices (the aggregator's, stored as JSON: its types have no protobuf
// encoding and are not in client-go's scheme) are served as stored.
var builtin = []layout{
	{"configmaps", "", "v1", "ConfigMap", "configmaps", true, []string{"cm"}, nil},
	{"services/endpoints", "", "v1", "Endpoints", "endpoints", true, []string{"ep"}, nil},
	{"events", "", "v1", "Event", "events", true, []string{"ev"}, nil},
	{"limitranges", "", "v1", "LimitRange", "limitranges", true, []string{"limits"}, nil},
	{"namespaces", "", "v1", "Namespace", "namespaces", false, []string{"ns"}, nil},
	{"minions", "", "v1", "Node", "nodes", false, []string{"no"}, nil},
	{"persistentvolumeclaims", "", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true, []string{"pvc"}, nil},
	{"persistentvolumes", "", "v1", "PersistentVolume", "persistentvolumes", false, []string{"pv"}, nil},
	{"pods", "", "v1", "Pod", "pods", true, []string{"po"}, []string{"all"}},
	{"podtemplates", "", "v1", "PodTemplate", "podtemplates", true, nil, nil},
	{"controllers", "", "v1", "ReplicationController", "replicationcontrollers", true, []string{"rc"}, []string{"all"}},
	{"resourcequotas", "", "v1", "ResourceQuota", "resourcequotas", true, []string{"quota"}, nil},
	{"secrets", "", "v1", "Secret", "secrets", true, nil, nil},
	{"serviceaccounts", "", "v1", "ServiceAccount", "serviceaccounts", true, []string{"sa"}, nil},
	{"services/specs", "", "v1", "Service", "services", true, []string{"svc"}, []string{"all"}},

	{"mutatingadmissionpolicies", "admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy", "mutatingadmissionpolicies", false, nil, []string{"api-extensions"}},
	{"mutatingadmissionpolicybindings", "admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", false, nil, []string{"api-extensions"}},
	{"mutatingwebhookconfigurations", "admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false, nil, []string{"api-extensions"}},
	{"validatingadmissionpolicies", "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", false, nil, []string{"api-extensions"}},
	{"validatingadmissionpolicybindings", "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", false, nil, []string{"api-extensions"}},
	{"validatingwebhookconfigurations", "admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false, nil, []string{"api-extensions"}},
	{"apiregistration.k8s.io/apiservices", "apiregistration.k8s.io", "v1", "APIService", "apiservices", false, nil, []string{"api-extensions"}},
	{"controllerrevisions", "apps", "v1", "ControllerRevision", "controllerrevisions", true, nil, nil},
	{"daemonsets", "apps", "v1", "DaemonSet", "daemonsets", true, []string{"ds"}, []string{"all"}},
	{"deployments", "apps", "v1", "Deployment", "deployments", true, []string{"deploy"}, []string{"all"}},
	{"replicasets", "apps", "v1", "ReplicaSet", "replicasets", true, []string{"rs"}, []string{"all"}},
	{"statefulsets", "apps", "v1", "StatefulSet", "statefulsets", true, []string{"sts"}, []string{"all"}},
	{"horizontalpodautoscalers", "autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true, []string{"hpa"}, []string{"all"}},
	{"cronjobs", "batch", "v1", "CronJob", "cronjobs", true, []string{"cj"}, []string{"all"}},
	{"jobs", "batch", "v1", "Job", "jobs", true, nil, []string{"all"}},
	{"certificatesigningrequests", "certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", false, []string{"csr"}, nil},
	{"clustertrustbundles", "certificates.k8s.io", "v1", "ClusterTrustBundle", "clustertrustbundles", false, nil, nil},
	{"podcertificaterequests", "certificates.k8s.io", "v1", "PodCertificateRequest", "podcertificaterequests", true, nil, nil},
	{"leases", "coordination.k8s.io", "v1", "Lease", "leases", true, nil, nil},
	{"endpointslices", "discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true, nil, nil},
	{"flowschemas", "flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", false, nil, nil},
	{"prioritylevelconfigurations", "flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", false, nil, nil},
	{"ingressclasses", "networking.k8s.io", "v1", "IngressClass", "ingressclasses", false, nil, nil},
	{"ingress", "networking.k8s.io", "v1", "Ingress", "ingresses", true, []string{"ing"}, nil},
	{"ipaddresses", "networking.k8s.io", "v1", "IPAddress", "ipaddresses", false, []string{"ip"}, nil},
	{"networkpolicies", "networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true, []string{"netpol"}, nil},
	{"servicecidrs", "networking.k8s.io", "v1", "ServiceCIDR", "servicecidrs", false, nil, nil},
	{"runtimeclasses", "node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false, nil, nil},
	{"poddisruptionbudgets", "policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, []string{"pdb"}, nil},
	{"clusterrolebindings", "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false, nil, nil},
	{"clusterroles", "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false, nil, nil},
	{"rolebindings", "rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, nil, nil},
	{"roles", "rbac.authorization.k8s.io", "v1", "Role", "roles", true, nil, nil},
	{"deviceclasses", "resource.k8s.io", "v1", "DeviceClass", "deviceclasses", false, nil, nil},
	{"devicetaintrules", "resource.k8s.io", "v1", "DeviceTaintRule", "devicetaintrules", false, nil, nil},
	{"resourceclaims", "resource.k8s.io", "v1", "ResourceClaim", "resourceclaims", true, nil, nil},
	{"resourceclaimtemplates", "resource.k8s.io", "v1", "ResourceClaimTemplate", "resourceclaimtemplates", true, nil, nil},
	{"resourceslices", "resource.k8s.io", "v1", "ResourceSlice", "resourceslices", false, nil, nil},
	{"priorityclasses", "scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false, []string{"pc"}, nil},
	{"csidrivers", "storage.k8s.io", "v1", "CSIDriver", "csidrivers", false, nil, nil},
	{"csinodes", "storage.k8s.io", "v1", "CSINode", "csinodes", false, nil, nil},
	{"csistoragecapacities", "storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", true, nil, nil},
	{"storageclasses", "storage.k8s.io", "v1", "StorageClass", "storageclasses", false, []string{"sc"}, nil},
	{"volumeattachments", "storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", false, nil, nil},
	{"volumeattributesclasses", "storage.k8s.io", "v1", "VolumeAttributesClass", "volumeattributesclasses", false, []string{"vac"}, nil},
	{"storageversionmigrations", "storagemigration.k8s.io", "v1", "StorageVersionMigration", "storageversionmigrations", false, nil, nil},
}

// Builtin returns the storage layout of the built-in resources of a kube-apiserver 1.37 with its
// default flags (see Resource), in group then resource order. The slice and its contents are new
// on every call.
func Builtin() []Resource {
	out := make([]Resource, len(builtin))
	for i, l := range builtin {
		out[i] = Resource{
			Prefix: l.Prefix, Group: l.Group, Version: l.Version, Kind: l.Kind, Resource: l.Resource, Namespaced: l.Namespaced,
			ShortNames: append([]string(nil), l.ShortNames...), Categories: append([]string(nil), l.Categories...),
			StorageVersion: storedOlder[l.Prefix],
		}
	}
	return out
}

// PrefixCount is one resource prefix found under the path prefix, with its number of keys.
type PrefixCount struct {
	Prefix string // the resource prefix, as Resource.Prefix
	Keys   int64
}

// ScanPrefixes returns the resource prefixes etcd holds keys under pathPrefix ("/registry"), in
// key order, with their key counts. A key's resource prefix is the longest Prefix of known
// (e.g. Builtin) it lies under; else its first segment, or its first two when the first names a
// group (contains a dot: "apiextensions.k8s.io/customresourcedefinitions", "example.com/widgets"),
// as the apiserver lays out its groups and custom resources. It reads no values: one key-only read
// of one key and one count per prefix, so its cost grows with the number of prefixes, not keys.
func ScanPrefixes(ctx context.Context, cli *clientv3.Client, pathPrefix string, known []Resource) ([]PrefixCount, error) {
	root := path.Join("/", pathPrefix) + "/"
	end := clientv3.GetPrefixRangeEnd(root)
	var out []PrefixCount
	for from := root; ; {
		resp, err := cli.Get(ctx, from, clientv3.WithRange(end), clientv3.WithLimit(1), clientv3.WithKeysOnly())
		if err != nil {
			return out, fmt.Errorf("etcd: scan %s from %q: %w", root, from, err)
		}
		if len(resp.Kvs) == 0 {
			return out, nil
		}
		prefix := resourcePrefixOf(strings.TrimPrefix(string(resp.Kvs[0].Key), root), known)
		cnt, err := cli.Get(ctx, root+prefix+"/", clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithRev(resp.Header.Revision))
		if err != nil {
			return out, fmt.Errorf("etcd: count %s%s: %w", root, prefix, err)
		}
		if cnt.Count > 0 {
			out = append(out, PrefixCount{Prefix: prefix, Keys: cnt.Count})
		}
		// The next key after every key of the prefix; a key equal to the prefix itself (no
		// slash after it) is counted with nothing and skipped.
		next := clientv3.GetPrefixRangeEnd(root + prefix + "/")
		if next <= from {
			return out, nil
		}
		from = next
	}
}

// resourcePrefixOf returns the resource prefix of a key relative to the path prefix.
func resourcePrefixOf(rel string, known []Resource) string {
	best := ""
	for _, r := range known {
		if strings.HasPrefix(rel, r.Prefix+"/") && len(r.Prefix) > len(best) {
			best = r.Prefix
		}
	}
	if best != "" {
		return best
	}
	first, rest, ok := strings.Cut(rel, "/")
	if !ok {
		return rel
	}
	// Two segments for a group, and beside a known prefix of two ("services/other" next to
	// "services/specs"), so that skipping past the prefix never skips a known one.
	twoSegments := strings.Contains(first, ".")
	for _, r := range known {
		twoSegments = twoSegments || strings.HasPrefix(r.Prefix, first+"/")
	}
	if twoSegments {
		if second, _, ok := strings.Cut(rest, "/"); ok {
			return first + "/" + second
		}
	}
	return first
}
