package peers

// Query is one list request, in the Kubernetes string syntax, that every peer answers.
type Query struct {
	FieldSelector string // e.g. "spec.nodeName=node-42,status.phase=Running"
	LabelSelector string // e.g. "app=web"
	Limit         int64  // ≤ 0: everything
	Continue      string // a continue token (ours and the apiserver cache)
}

// PodKeyPrefix is where the apiserver keeps pods in etcd, and the key the apiserver storage
// layer passes for an all-namespaces list.
const (
	EtcdPrefix     = "/registry"
	ResourcePrefix = "/pods/"
)
