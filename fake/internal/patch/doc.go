// Package patch applies JSON patches, JSON merge patches, strategic merge patches and
// server-side apply to stored objects, and records field ownership (metadata.managedFields) for
// every write, with the semantics and errors of kube-apiserver 1.37.
//
// It is the patch stage of a writable fake apiserver: the caller keeps the objects (as JSON),
// parses the HTTP request into a Request, and runs its own update path (resourceVersion
// preconditions, immutable metadata, strategies, storage) on what Patch returns — the same split
// as the apiserver's patch handler and its REST storage. Merging is never written here: JSON and
// merge patches are evanphx/json-patch (the apiserver's library), strategic merge is
// apimachinery's strategicpatch over the kind's Go struct, and apply and managedFields are
// apimachinery's managedfields with client-go's type converter for built-in kinds (a deduced
// one, every field granular but lists atomic, for kinds the scheme does not know).
//
// Every Patcher method is safe for concurrent use. Objects are passed and returned as JSON;
// nothing the caller passes is retained or modified.
//
// Known differences from the apiserver: no defaulting (client-go's scheme has no defaulting
// functions, so a patch that adds, say, a container gets no imagePullPolicy, and the fields the
// apiserver would default are not recorded in managedFields); no CBOR apply.
package patch
