package watchcache

// EventType is the type of a watch event, with the Kubernetes wire names.
type EventType string

// Event types (k8s.io/apimachinery/pkg/watch names).
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// Event is one change fed to the cache by its source.
//
// Object is the object's raw JSON: the new state for ADDED and MODIFIED, the last state for
// DELETED, ignored for BOOKMARK. The cache keeps the bytes: the caller must not modify them after
// Apply. ResourceVersion is the event's RV (the etcd revision of the change); it is authoritative
// and is written into metadata.resourceVersion of the stored object. When it is 0, the object's own
// metadata.resourceVersion is used.
//
// Key, when set, is where the source stores the object: its key relative to the resource root,
// "/<namespace>/<name>" for a namespaced resource and "/<name>" for a cluster-scoped one (rule
// 6.1; source/etcd passes the etcd key without its prefixes). The key then decides where the object
// is stored, replaced or (DELETED) removed, and which namespace lists, counts and watches it; the
// object's metadata.namespace and metadata.name need not match it, so the cache holds what the
// source holds, as the apiserver's etcd3 store serves what is stored under a key. (The apiserver's
// watch cache keys objects by their metadata, storage.NamespaceKeyFunc, as the cache does without a
// Key.) The namespace segment may be empty, "//<name>": an object stored without a namespace, which
// only all-namespaces requests reach. A key of another form is rejected with ErrInvalidKey. When
// Key is "", the object's metadata makes the key and must fit the resource's scope
// (ErrInvalidName, ErrNamespaceMismatch).
//
// Selectors read the object, not the key: a field selector on metadata.namespace or metadata.name
// matches the object's own field, as in the apiserver, whose etcd3 store and watch cache both
// filter on the attributes of the decoded object (GetAttrs). An all-namespaces request whose field
// selector requires namespace X still reads only the keys of X (rule 4.6, as the apiserver's
// registry narrows it), so it selects an object only when both its key and its metadata.namespace
// say X; likewise a request with a namespace whose field selector requires name N reads only the
// key "/<namespace>/N" (a list without a continue token, and a watch: rules 1.10, 5.12), so it
// selects an object only when both its key and its metadata.name say N.
type Event struct {
	Type            EventType
	Object          []byte
	ResourceVersion uint64
	Key             string
}

// Object is one object of a re-list (Cache.ReplaceKeyed): its raw JSON and, optionally, the key
// the source stores it under, with the meaning of Event.Key ("": the object's metadata decides).
// The cache keeps Raw: the caller must not modify it after the call.
type Object struct {
	Key string
	Raw []byte
}
