package watchcache

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/watchcache/watchcache/selection"
)

// A record's key is its storage key relative to the resource root (rule 6.1): "/<namespace>/<name>"
// for a namespaced resource, "/<name>" for a cluster-scoped one. It decides where the object is
// stored and replaced, which namespace lists, counts and watches it, and where a continue token
// resumes.
//
// By default the key is made from the object's metadata (metadataKey), which must then fit the
// resource's scope. A source that knows where an object is stored gives the key itself
// (Event.Key, Object.Key; source/etcd passes the etcd key), and then the key decides: the object
// is held as the source holds it, whatever its metadata says, as the apiserver's etcd3 store holds
// whatever was written under a key. Selectors still read the object (see Event.Key).

// checkKey validates a key given by the source: "/<namespace>/<name>" (namespaced) or "/<name>"
// (cluster-scoped), with each segment a valid path segment (rule 6.3), in valid UTF-8 (keys appear
// in continue tokens, which are JSON).
//
// The namespace segment may be empty ("//<name>"): the apiserver's watch cache keys a namespaced
// object without metadata.namespace there (storage.NamespaceKeyFunc), and the apiserver's storage
// tests write such objects. The object is then listed, counted and watched only across all
// namespaces: no namespace-scoped request names the empty namespace. A continue token that resumes
// right after such a key starts with "//", which the apiserver's DecodeContinue refuses (path.Clean,
// rule 2.3) and so does the cache: as in the apiserver, a paged list stops there with a 400.
func checkKey(key string, namespaced bool) error {
	rest, ok := strings.CutPrefix(key, "/")
	if !ok || !utf8.ValidString(key) {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	if !namespaced {
		if !validName(rest) {
			return fmt.Errorf("%w: %q is not /<name> for a cluster-scoped resource", ErrInvalidKey, key)
		}
		return nil
	}
	ns, name, ok := strings.Cut(rest, "/")
	if !ok || (ns != "" && !validName(ns)) || !validName(name) {
		return fmt.Errorf("%w: %q is not /<namespace>/<name> for a namespaced resource", ErrInvalidKey, key)
	}
	return nil
}

// metadataKey returns the key of an object by its metadata, checking that the metadata fits the
// resource's scope: a valid name, and a valid namespace exactly when the resource is namespaced.
func metadataKey(obj selection.Object, namespaced bool) (string, error) {
	if !validName(obj.Name) {
		return "", fmt.Errorf("%w: %q", ErrInvalidName, obj.Name)
	}
	if namespaced && obj.Namespace == "" {
		return "", fmt.Errorf("%w: %s has no metadata.namespace", ErrNamespaceMismatch, obj.Name)
	}
	if !namespaced && obj.Namespace != "" {
		return "", fmt.Errorf("%w: cluster-scoped %s has metadata.namespace %q", ErrNamespaceMismatch, obj.Name, obj.Namespace)
	}
	if namespaced && !validName(obj.Namespace) {
		return "", fmt.Errorf("%w: namespace %q", ErrInvalidName, obj.Namespace)
	}
	return objectKey(obj.Namespace, obj.Name), nil
}

// keyNamespace returns the namespace segment of a key followed by "/" ("/ns/name" → "ns/",
// "//name" → "/"), or "" for a cluster-scoped key ("/name"). It is a substring of key: no
// allocation. The trailing "/" makes namespaces sort as their keys do (see nsCount).
func keyNamespace(key string) string {
	i := strings.IndexByte(key[1:], '/')
	if i < 0 {
		return ""
	}
	return key[1 : i+2]
}

// objectKey is the store key of an object (rule 6.1, relative to the resource root).
func objectKey(namespace, name string) string {
	if namespace == "" {
		return "/" + name
	}
	return "/" + namespace + "/" + name
}

// requestKey is the store key a Get or Newest of namespace and name reads. Unlike objectKey, which
// keys an object by its metadata, a namespaced resource's key keeps the namespace segment when
// namespace is empty: "//<name>", where an object keyed so is stored (checkKey).
func requestKey(namespaced bool, namespace, name string) string {
	if namespaced {
		return "/" + namespace + "/" + name
	}
	return "/" + name
}

// validName reports whether name is a valid path segment (rule 6.3).
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/%")
}

// listPrefix returns the list root for a namespace, narrowed by an exact metadata.namespace
// requirement of the field selector when the request names no namespace (rule 4.6).
func listPrefix(namespaced bool, namespace string, f selection.FieldSelector) string {
	if !namespaced {
		return "/"
	}
	if namespace == "" {
		if ns, ok := f.Requires("metadata.namespace"); ok && validName(ns) {
			namespace = ns
		}
	}
	if namespace == "" {
		return "/"
	}
	return "/" + namespace + "/"
}

// singleKey returns the only key a request without a continue token reads when its field selector
// requires an exact metadata.name and its namespace is known (rules 1.10, 4.6, 5.12): prefix+name,
// or "" when there is no such requirement or the request spans all namespaces. The selector still
// applies: an object stored under that key (Event.Key) whose metadata names another is not selected.
func singleKey(prefix string, namespaced bool, f selection.FieldSelector) string {
	if name, ok := f.Requires("metadata.name"); ok && (prefix != "/" || !namespaced) {
		return prefix + name
	}
	return ""
}

// scopeNamespace is the namespace of a list root ("/ns/" → "ns", "/" → "").
func scopeNamespace(prefix string) string {
	if len(prefix) <= 2 {
		return ""
	}
	return prefix[1 : len(prefix)-1]
}

// inScope reports whether key is under the list root prefix.
func inScope(prefix, key string) bool {
	return len(key) >= len(prefix) && key[:len(prefix)] == prefix
}
