// Package watchcache is an in-process Kubernetes watch cache for one resource.
//
// A Cache is fed by watch events (Apply) and re-lists (Replace) of raw JSON objects, keeps them in
// a B-tree ordered by storage key, and answers List, Get and Watch with the kube-apiserver's own
// semantics: label and field selectors, limit/continue pagination at a consistent snapshot,
// resourceVersion rules (any, not older than, exact, consistent), 410 Gone when a snapshot or event
// has left the window, and the apiserver's errors (mapped to its Status by package apistatus). Registered indexes (AddIndex) serve
// exact-match selectors on any field or label in O(log n + page) at any resourceVersion.
//
// Every applied event is parsed once (selection.Schema.Extract); the record it produces — key,
// resourceVersion, bytes, interned labels, selectable field values — is immutable and shared by
// every snapshot that contains it. Each key has a cell that chains its versions within the window;
// the store B-tree holds the cells, so an update that keeps a key's label set writes its cell and
// no tree node, and every snapshot reads the version at its own RV. Snapshots are O(1)
// copy-on-write clones of the B-trees, published whenever a reader needs the newest state and at
// least every 128 events; the state at any other RV of the window is read through the nearest
// published one and an overlay of the keys written in between. The window is bounded
// (Options.WindowEvents, Options.WindowAge); a version's link to the previous one is cut once the
// event that made it has left the window and no running read is in an older snapshot. An index
// whose values have many keys (a label such as app) holds cells too, and is not written by an
// update that keeps the key's value; one whose values have a few keys (spec.nodeName) holds
// records, which its pages read directly.
//
// Rules cited as "rule N.M" refer to reference/apiserver-semantics.md of the project's design notes.
package watchcache
