// Package etcd feeds watch caches from the etcd keyspace of a kube-apiserver, as the apiserver's own
// cacher is fed (reference/apiserver-semantics.md, "Data flow"; rules 1.8, 3.1, 3.3, 6.1).
//
// The value of `/registry/pods/<namespace>/<name>` is the pod as the apiserver's storage codec wrote
// it, with metadata.resourceVersion cleared — protobuf (`k8s\x00`, the default storage media type),
// CBOR or JSON (`--storage-media-type`) — and the object's resourceVersion is the key's etcd mod
// revision. The source holds every object as the JSON the apiserver serves: a protobuf or CBOR value
// is decoded once into its k8s.io/api type (Options.Scheme) and written with encoding/json, fields
// in struct order; a JSON value is kept as stored. Either way the mod revision is set as
// metadata.resourceVersion where the apiserver's encoder writes it. A Source lists each registered prefix
// with paged Range requests pinned at one revision and hands the objects to Cache.ReplaceKeyed with
// their mod revisions written into metadata.resourceVersion; then it watches the prefix from the
// next revision with previous values and progress notifications:
//
//	etcd event                            cache
//	PUT, create revision == mod revision  Apply(ADDED, value, mod revision, key)
//	PUT, otherwise                        Apply(MODIFIED, value, mod revision, key)
//	DELETE                                Apply(DELETED, previous value, delete revision, key)
//	progress notification                 Apply(BOOKMARK, header revision)      (rule 3.1)
//	watch broken                          watch again from the last revision + 1, no re-list
//	revision compacted                    Cache.SetPending, then re-list        (rule 3.6)
//
// Every object goes to the cache with its key: the etcd key without the path and resource prefixes
// (`/registry/pods/ns/name` → `/ns/name`, rule 6.1; watchcache.Event.Key). The etcd key decides where
// the cache holds the object, not its metadata, so the cache holds what etcd holds even when the two
// disagree (an object written without metadata.namespace under a namespaced key), as the
// apiserver's etcd3 store serves it.
//
// Values that cannot be decoded — encrypted at rest (`k8s:enc:`) without Options.Transform,
// protobuf of a kind the scheme lacks, malformed — are skipped; Stats and Source.Skips count them,
// and each reason is logged once per resource.
// Values written through a transformer are read through Options.Transform (the apiserver's
// TransformFromStorage, keyed by the etcd key) before they are decoded; one it fails on is skipped
// the same way. Source.Unreadable lists the keys etcd holds that the cache therefore lacks, so that
// a store can fail a list over them as the apiserver's etcd3 store does instead of silently
// answering without them; the cache itself keeps serving what it holds.
//
// # Consistent reads
//
// A consistent read (List with resourceVersion "") first asks the source for etcd's current revision
// and waits until the cache has reached it (rule 1.8). Pass Source.CurrentResourceVersion as
// watchcache.Options.CurrentResourceVersion. A cache only learns that etcd moved on from events of its
// own prefix, so a write to another resource would leave it waiting out its 3 s timeout; that is why
// the running source also requests a progress notification from etcd (rule 3.3), which arrives as a
// bookmark and advances the cache's clock without a write. While reads find the caches behind etcd,
// the request goes out together with the Get, so that a read after another resource's write costs
// about one etcd round trip; one request is in flight at a time, shared by concurrent reads, and it
// is repeated every 100 ms until every cache has reached the revision or the wait timed out. Pass
// Source.WaitingFor as watchcache.Options.OnWait so that reads at an exact resourceVersion get the
// same requests.
package etcd
