package fuzz

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Keys. The model holds every object under a storage key relative to the resource root (rule 6.1),
// "/<namespace>/<name>" for its namespaced pods.
//
// An event or a re-list object may carry the key (the source's storage key, as etcd's). It must
// then be "/" + namespace + "/" + name in valid UTF-8, with the name a path segment (rule 6.3) and
// the namespace a path segment or empty ("//<name>"); any other key rejects the event or the whole
// re-list (errKey) and changes nothing. A valid key decides alone where the object is: whatever
// its metadata says, the event replaces or deletes the object under that key, and the object keeps
// its own metadata.name, even an invalid one, and metadata.namespace, even none. An event without a
// key is keyed by its metadata, which must then have a namespace and a name that are path segments.
// An event with the key its metadata makes is the same event as one without a key.
//
// What the key decides: the order of lists and initial events, continue tokens and
// remainingItemCount (all by key), which namespace-scoped list or watch reaches the object (the
// prefix "/<namespace>/" of its key: an object under "//<name>" only from all namespaces), and
// which object an event replaces or deletes (the delete event's own object is what watchers get,
// rule 5.5, whatever metadata it carries).
//
// What the object decides: everything a selector reads. A field selector on metadata.namespace or
// metadata.name matches the object's own fields, as the apiserver's GetAttrs reads them.
//
// Both, where the apiserver narrows a request by its field selector: an all-namespaces request
// requiring metadata.namespace=X reads only the keys under "/X/" (rule 4.6), and a request with a
// namespace (given or so narrowed) requiring metadata.name=N reads only the key "/<namespace>/N"
// (rules 1.10, 4.6, 5.12: a list without a continue token, and a watch, both its initial events and
// its events since an RV). The selector still applies, so such a request selects an object only if
// its key and its fields both say X (and N).
//
// A continue token resuming after a key "//<name>" starts with "//", which rule 2.3's path.Clean
// check refuses (the apiserver's cacher writes tokens relative to "/pods"): the next page is a 400.

// errKey is returned for a key the model rejects.
var errKey = errors.New("model: invalid key")

// checkKey applies the key rule above to a key given with an event or a re-list object.
func checkKey(key string) error {
	if !utf8.ValidString(key) {
		return fmt.Errorf("%w: %q is not valid UTF-8", errKey, key)
	}
	rest, ok := strings.CutPrefix(key, "/")
	if !ok {
		return fmt.Errorf("%w: %q does not start with /", errKey, key)
	}
	ns, name, ok := strings.Cut(rest, "/")
	if !ok || (ns != "" && !validSegment(ns)) || !validSegment(name) {
		return fmt.Errorf("%w: %q is not /<namespace>/<name>", errKey, key)
	}
	return nil
}

// KeyedObject is an object of a re-list with the key the source stores it under ("": the object's
// metadata makes the key).
type KeyedObject struct {
	Key string
	Raw []byte
}
