package watchcache

import (
	"context"
	"time"

	"github.com/watchcache/watchcache/selection"
)

// Resource describes the one resource a Cache holds.
type Resource struct {
	// Name is the plural resource name, e.g. "pods". It selects the built-in selectable fields
	// (selection.SchemaFor) and names the resource in NotFound errors.
	Name string
	// Group is the API group ("" for the core group), for NotFound errors and adapters.
	Group string
	// Namespaced says whether keys are /<namespace>/<name> (true) or /<name> (rule 6.1).
	Namespaced bool
}

// Default sizes of the snapshot and event window, the apiserver's own (rules 2.10, 5.4): snapshots
// and history live as long as the event window, DefaultEventFreshDuration = 1 min bookmark + 15 s.
//
// Cost (measured on 4 KiB pods, reference/feasibility.md): each retained snapshot holds the B-tree
// path it copied (≈3–5 KiB) plus the object version it displaced (the object's size). 10,000
// retained snapshots under churn add ≈0.1–0.15× the heap of a 100k-pod store.
const (
	DefaultWindowEvents = 10_000
	DefaultWindowAge    = 75 * time.Second
)

// Options configure a Cache. The zero value of every field is a sensible default.
type Options struct {
	// Resource is required.
	Resource Resource
	// Schema lists the selectable fields; nil means selection.SchemaFor(Resource.Name, Resource.Namespaced).
	Schema *selection.Schema
	// WindowEvents bounds how many window entries are retained: one per applied event (each with
	// its snapshot), plus the entry of the last re-list until it is evicted; 0 means
	// DefaultWindowEvents. A continue token, an Exact list or a watch older than the window gets 410.
	WindowEvents int
	// WindowAge bounds how long an event (and its snapshot) is retained after it was applied; 0
	// means DefaultWindowAge; negative means no age bound. The newest snapshot is always kept.
	WindowAge time.Duration
	// CurrentResourceVersion returns the source's current resourceVersion, for consistent reads
	// (RV="" lists wait until the cache has caught up with it; rule 1.8). nil means the cache's own
	// latest RV: a cache without a source is always consistent with itself.
	CurrentResourceVersion func(context.Context) (uint64, error)
	// History, when set, answers Exact lists and continue tokens older than the window from the
	// source's history (etcd's revisions), as the apiserver does (rule 1.3); without it they get
	// 410. source/etcd provides one (Source.History).
	History History
	// OnWait, when set, is called (on the reader's goroutine, so it must not block) each time a
	// read starts waiting for a resourceVersion the cache has not reached; an etcd source uses it
	// to request a progress notification (rule 3.3; source/etcd Source.WaitingFor).
	OnWait func(rv uint64)
	// WaitTimeout bounds waits for a resourceVersion the cache has not reached; 0 means 3 s (rule 3.3).
	WaitTimeout time.Duration
	// IgnoreLimitForRV0 reproduces the apiserver's cache, which ignores `limit` when
	// resourceVersion="0" (rule 2.6, kubernetes#125335). By default the limit is honoured.
	IgnoreLimitForRV0 bool
	// WatchQueueBytes bounds the bytes of the live events queued for one watcher (objects, plus
	// a few dozen bytes each); 0 means DefaultWatchQueueBytes. A watcher over it is closed, and
	// its client resumes from the last resourceVersion it got (rule 5.10).
	WatchQueueBytes int
	// WatchStall is how long a watcher with queued events may deliver nothing before it is
	// closed; 0 means DefaultWatchStall.
	WatchStall time.Duration
	// WatchBuffer, when > 0, also bounds the number of live events queued for one watcher, as
	// the apiserver's fixed channels do (rule 5.9); 0 means no bound on the count.
	WatchBuffer int
	// BookmarkInterval is how often watchers that allow bookmarks get one; 0 means DefaultBookmarkInterval.
	BookmarkInterval time.Duration
	// Now is the clock for window ages; nil means time.Now.
	Now func() time.Time
	// Transform, when set, rewrites each object before it is parsed and stored (e.g.
	// StripManagedFields); the stored, listed and watched bytes are its result. nil stores the
	// bytes as given.
	Transform Transform
}

func (o Options) withDefaults() Options {
	if o.Schema == nil {
		o.Schema = selection.SchemaFor(o.Resource.Name, o.Resource.Namespaced)
	}
	if o.WindowEvents <= 0 {
		o.WindowEvents = DefaultWindowEvents
	}
	if o.WindowAge == 0 {
		o.WindowAge = DefaultWindowAge
	}
	if o.WatchQueueBytes <= 0 {
		o.WatchQueueBytes = DefaultWatchQueueBytes
	}
	if o.WatchStall <= 0 {
		o.WatchStall = DefaultWatchStall
	}
	if o.WatchBuffer < 0 {
		o.WatchBuffer = 0
	}
	if o.BookmarkInterval <= 0 {
		o.BookmarkInterval = DefaultBookmarkInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
