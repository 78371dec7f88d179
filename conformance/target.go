package conformance

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Target is one implementation of the read API under test, with the means to feed it: the suite
// sets up state through Writer exactly as a source feeds a cache, then asks questions through
// Reader with the Kubernetes query parameters and checks the answers.
//
// A Target serves one resource, core/v1 pods (namespaced, with the pod field selectors of rules
// 4.3 and 4.4). Each subtest gets a new Target; it is used by the subtest's goroutine and by the
// goroutines of the watches it opens, so every method must be safe for concurrent use.
type Target interface {
	Reader
	Writer
}

// Writer feeds a Target as a watch source feeds a cache. The suite stamps every object it writes
// with metadata.resourceVersion equal to the RV it passes, so a Target may store the bytes as
// given. Byte slices passed to a Writer are the Target's from then on.
type Writer interface {
	// Replace makes objects the whole state at resourceVersion rv, as a (re)list does: reads at RVs
	// below rv become too old (rules 2.10, 5.3) and running watches end without an error (rule 3.6).
	// The first Replace makes the Target ready.
	Replace(objects [][]byte, rv uint64) error
	// Apply feeds one event. ev.ResourceVersion is strictly greater than that of every event and
	// re-list before, except that a BOOKMARK may repeat the current RV. A BOOKMARK only advances
	// the RV (a progress notification, rule 3.1).
	Apply(ev Event) error
}

// Event is one change fed through Writer.Apply.
type Event struct {
	// Type is watch.Added, watch.Modified, watch.Deleted or watch.Bookmark.
	Type watch.EventType
	// Object is the object's JSON: the new state for ADDED and MODIFIED, the last state for
	// DELETED (with the delete's RV), nil for BOOKMARK.
	Object []byte
	// ResourceVersion is the event's RV.
	ResourceVersion uint64
}

// Reader issues reads with the Kubernetes query parameters. Errors must carry the apiserver's
// Status: the error, or an error it wraps, implements apierrors.APIStatus (as *apierrors.StatusError
// and client-go's errors do).
type Reader interface {
	// List lists pods in namespace ("" = all namespaces) with opts: labelSelector, fieldSelector,
	// limit, continue, resourceVersion, resourceVersionMatch and sendInitialEvents are honoured,
	// Watch is false.
	List(ctx context.Context, namespace string, opts metav1.ListOptions) (*ListResult, error)
	// Get reads one pod with the GET resourceVersion semantics (rule 6.7) and returns its JSON.
	Get(ctx context.Context, namespace, name, resourceVersion string) ([]byte, error)
	// Watch starts a watch with opts (Watch is set by the suite): labelSelector, fieldSelector,
	// resourceVersion, resourceVersionMatch, sendInitialEvents and allowWatchBookmarks are honoured.
	// Errors the apiserver returns as HTTP errors (400, 422, 429) are returned here; errors found
	// once the watch was accepted arrive as one ERROR event (rule 5.1). The stream ends when ctx
	// ends or Stop is called.
	Watch(ctx context.Context, namespace string, opts metav1.ListOptions) (Stream, error)
}

// ListResult is one page of a list: the items as JSON, in the order served, and the list's
// metadata (resourceVersion, continue, remainingItemCount).
type ListResult struct {
	Items    [][]byte
	ListMeta metav1.ListMeta
}

// Stream is a running watch.
type Stream interface {
	// Events delivers the events in order; it is closed when the watch ends, for whatever reason.
	Events() <-chan WatchEvent
	// Stop ends the watch and releases its resources; Events is closed soon after. It may be called
	// more than once and concurrently with reads from Events.
	Stop()
}

// WatchEvent is one watch event as it is on the wire.
type WatchEvent struct {
	Type watch.EventType
	// Object is the event's object as JSON: the pod for ADDED, MODIFIED and DELETED; for BOOKMARK
	// an object whose metadata carries resourceVersion (and, for the end of a watch-list's initial
	// events, the annotation k8s.io/initial-events-end: "true"); for ERROR a metav1.Status.
	Object []byte
}

// Config is what the suite asks of the Target it is about to use. Zero fields leave the Target's
// defaults; the suite always sets them, and a Target must honour them.
type Config struct {
	// WindowEvents is how many of the most recent events (each with its snapshot) the Target keeps
	// for exact reads, continue tokens and watches from an RV; older RVs must be answered with
	// 410 Gone (rules 1.18, 2.9, 5.3). The suite only relies on RVs at least twice this many
	// events old being gone, and on those of the last WindowEvents/2 events being kept.
	WindowEvents int
	// WaitTimeout bounds how long a read waits for an RV the Target has not reached before it
	// answers 504 with Retry-After 1 (rules 3.3, 3.4).
	WaitTimeout time.Duration
	// BookmarkInterval is how often a watch with allowWatchBookmarks gets a periodic bookmark
	// (rule 5.7).
	BookmarkInterval time.Duration
}
