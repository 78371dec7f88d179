package fake

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/watchcache"
)

// Store writes objects as the new state of their keys, bypassing admission, validation and
// every other rule of the write path: each object's JSON is stored as given (with its
// metadata.resourceVersion set to the next value of the server's counter) as one ADDED or MODIFIED
// event. It is for seeding and simulating controllers (watchcache serve's generated cluster and
// its churn), not for tests of a client's writes, which should go through the API.
//
// Safe for concurrent use with everything else; the objects' bytes become the server's.
func (s *Server) Store(gvr schema.GroupVersionResource, objects ...[]byte) error {
	r := s.res[gvr.Group+"/"+gvr.Version+"/"+gvr.Resource]
	if r == nil {
		return fmt.Errorf("fake: store: %s is not served", gvr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, obj := range objects {
		rv := s.rv.Load() + 1
		// The cache decides ADDED or MODIFIED from its state.
		if err := r.cache.Apply(watchcache.Event{Type: watchcache.Modified, Object: obj, ResourceVersion: rv}); err != nil {
			return fmt.Errorf("fake: store %s: %w", gvr.Resource, err)
		}
		s.rv.Store(rv)
	}
	return nil
}

// Remove deletes an object, bypassing finalizers and every other rule (see Store), as one DELETED
// event at the next resourceVersion. Removing an object that does not exist does nothing.
func (s *Server) Remove(gvr schema.GroupVersionResource, namespace, name string) error {
	r := s.res[gvr.Group+"/"+gvr.Version+"/"+gvr.Resource]
	if r == nil {
		return fmt.Errorf("fake: remove: %s is not served", gvr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := contextBackground()
	cur, err := current(ctx, r, namespace, name)
	if err != nil || cur == nil {
		return err
	}
	rv := s.rv.Load() + 1
	if err := r.cache.Apply(watchcache.Event{Type: watchcache.Deleted, Object: cur, ResourceVersion: rv}); err != nil {
		if errors.Is(err, watchcache.ErrUnknownKey) {
			return nil
		}
		return fmt.Errorf("fake: remove %s %s/%s: %w", gvr.Resource, namespace, name, err)
	}
	s.rv.Store(rv)
	return nil
}
