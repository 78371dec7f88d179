// Package watchcache is an in-process Kubernetes watch cache for one resource.
//
// A Cache is fed by watch events (Apply) and re-lists (Replace) of raw JSON objects, keeps them in
// a B-tree ordered by storage key, and answers List, Get and Watch with the kube-apiserver's own
// semantics: label and field selectors, limit/continue pagination at a consistent snapshot,
// resourceVersion rules (any, not older than, exact, consistent), 410 Gone when a snapshot or event
// has left the window, and the apiserver's errors (mapped to its Status by package apistatus). Registered indexes (AddIndex) serve
// exact-match selectors on any field or label in O(log n + page) at any resourceVersion.
//
// Rules cited as "rule N.M" refer to reference/apiserver-semantics.md of the project's design notes.
package watchcache
