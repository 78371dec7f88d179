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
type Event struct {
	Type            EventType
	Object          []byte
	ResourceVersion uint64
}
