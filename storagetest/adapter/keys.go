package adapter

import (
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apiserver/pkg/storage"
)

// scope is what a storage key means to the cache.
//
//	namespaced, recursive      "/pods/"          all namespaces
//	                           "/pods/ns/"       namespace ns
//	                           "/pods/ns/x/"     nothing can match (keys have two segments)
//	namespaced, non-recursive  "/pods/ns/name"   one object
//	                           anything else     nothing can match ("/pods/", "/pods/ns", …)
//	cluster-scoped             "/pods/" (recursive), "/pods/name" (non-recursive); the rest: nothing
type scope struct {
	namespace string
	name      string // non-recursive: the object's name
	single    bool   // non-recursive: at most one object
	none      bool   // no object can have a key under this one
}

// parseScope maps a prepared key (storage.PrepareKey: recursive keys end in "/") to a scope.
func (s *Store) parseScope(preparedKey string, recursive bool) scope {
	rest := strings.TrimPrefix(preparedKey, s.resourcePrefix)
	if recursive {
		rest = strings.TrimSuffix(rest, "/")
		switch {
		case rest == "":
			return scope{}
		case s.namespaced && !strings.Contains(rest, "/"):
			return scope{namespace: rest}
		}
		return scope{none: true}
	}
	parts := strings.Split(rest, "/")
	switch {
	case s.namespaced && len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return scope{namespace: parts[0], name: parts[1], single: true}
	case !s.namespaced && len(parts) == 1 && parts[0] != "":
		return scope{name: parts[0], single: true}
	}
	return scope{single: true, none: true}
}

// fieldSelector is the request's field selector restricted to the scope: a single object adds
// metadata.name=<name>; an empty scope adds metadata.name= (no stored object has an empty name: the
// cache rejects such objects), so the request still goes through the cache's resourceVersion
// handling and answers an empty list, or a watch that never delivers an object.
func (sc scope) fieldSelector(f fields.Selector) string {
	var terms []string
	if f != nil && !f.Empty() {
		terms = append(terms, f.String())
	}
	switch {
	case sc.none:
		terms = append(terms, "metadata.name=")
	case sc.single:
		terms = append(terms, "metadata.name="+fields.EscapeValue(sc.name))
	}
	return strings.Join(terms, ",")
}

// narrow applies rule 4.6 the way the cache does: an all-namespaces request whose field selector
// requires one namespace is a request in that namespace. The adapter does it itself so that it knows
// the root the cache's continue tokens are relative to.
func (s *Store) narrow(sc scope, f fields.Selector) scope {
	if !s.namespaced || sc.namespace != "" || sc.single || sc.none || f == nil {
		return sc
	}
	if ns, ok := f.RequiresExactMatch("metadata.namespace"); ok && validSegment(ns) {
		sc.namespace = ns
	}
	return sc
}

// cacheRoot is the storage key the cache's list root corresponds to, ending in "/".
func (s *Store) cacheRoot(sc scope) string {
	if sc.namespace == "" {
		return s.resourcePrefix
	}
	return s.resourcePrefix + sc.namespace + "/"
}

// objectKey is the storage key of an object.
func (s *Store) objectKey(namespace, name string) string {
	if s.namespaced {
		return s.resourcePrefix + namespace + "/" + name
	}
	return s.resourcePrefix + name
}

func validSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/%")
}

// prepareKey validates a key as the apiserver's stores do (empty, ".." and prefix checks).
func (s *Store) prepareKey(key string, recursive bool) (string, error) {
	return storage.PrepareKey(s.resourcePrefix, key, recursive)
}
