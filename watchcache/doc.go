// Package watchcache is an in-process Kubernetes watch cache for one resource: it holds the raw
// JSON objects a source feeds it and answers List, Get and Watch as the kube-apiserver's watch
// cache does, entirely in memory.
//
// # Feeding it
//
// New makes a Cache for one Resource (its plural name, group and scope). A source fills it with a
// re-list (Replace, or ReplaceKeyed when it knows each object's storage key) and then keeps it
// current with watch events (Apply: ADDED, MODIFIED, DELETED, BOOKMARK, in increasing
// resourceVersion order). Until the first Replace, reads fail with ErrNotReady; SetPending marks a
// cache that lost its source and is re-listing; after Stop every call fails with ErrStopped. An
// event or re-list the cache refuses (a malformed object, a resourceVersion that does not increase,
// a key that does not match the resource's scope) leaves it exactly as it was. The sources in
// source/kube (a real apiserver) and source/etcd (an apiserver's etcd) do all this.
//
// # Reading it
//
// List, Get and Watch take the apiserver's options — label and field selectors, limit and continue,
// resourceVersion and resourceVersionMatch, sendInitialEvents, bookmarks — and give the apiserver's
// answers: a list's pages are read at one snapshot, so a continue token resumes at the first
// page's resourceVersion whatever was applied since; an Exact read or a watch from a
// resourceVersion the window no longer holds gets the apiserver's 410 (ErrExpired); a read at a
// resourceVersion the cache has not reached waits for it and then times out (ErrTooLarge).
// Objects come back as the stored bytes, shared: callers must not modify them. The typed errors
// (see errors.go and the names re-exported from rvclock and selection) match errors.Is, and
// package apistatus maps every one of them to the Status the apiserver sends.
//
// # Indexes
//
// AddIndex registers an index on a selectable field (FieldIndex("spec.nodeName")) or a label key
// (LabelIndex("app")); RegisterField makes any gjson path a selectable field first. A selector
// that requires an exact value of an indexed field or label then reads that value's objects in key
// order — O(log n + page) for a page, at any resourceVersion of the window, continue pages
// included — and watches are dispatched by the same indexes. An index changes how fast a read is
// answered, never what it answers.
//
// # Concurrency
//
// Every method of a Cache is safe for concurrent use: writers (Replace, Apply, AddIndex,
// RegisterField, Stop) are serialized, and readers read immutable snapshots, so a source writes
// while any number of goroutines list and watch (Cache says what waits for what). A watcher that
// falls more than Options.WatchBuffer events behind is closed (ErrWatcherBehind) rather than
// allowed to slow Apply.
//
// Rules cited as "rule N.M" in this package refer to reference/apiserver-semantics.md of the
// project's design notes.
package watchcache
