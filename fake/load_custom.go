package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/watchcache"
)

// Custom resources in Options.Objects: their kinds are served only once the CRDs are installed,
// so they are stored after them, in their order in Objects, each at the next resourceVersion. Each
// goes through what a create does to a custom resource — pruning of unknown fields, the schema's
// defaults, the schema's and Options.Validate's validation — and is kept otherwise as a seed is:
// its uid, creationTimestamp and status when it has them, no managedFields, its namespace need not
// exist. An object that fails is an error of NewServer, naming it and giving the apiserver's
// answer.

// customSeed is an object of Options.Objects whose kind is not built in.
type customSeed struct {
	index int // in Options.Objects
	obj   runtime.Object
	gvk   schema.GroupVersionKind
}

// isCustomSeed reports whether an object of Options.Objects names a kind no built-in resource
// serves, to be stored once the CRDs are installed.
func (s *Server) isCustomSeed(obj runtime.Object) (schema.GroupVersionKind, bool) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() || gvk.Kind == "" {
		return gvk, false
	}
	_, builtin := s.byGVK[gvk]
	return gvk, !builtin
}

// customFor returns the served custom resource of a kind, or nil.
func (s *Server) customFor(gvk schema.GroupVersionKind) *served {
	s.crds.mu.RLock()
	defer s.crds.mu.RUnlock()
	for _, r := range s.crds.served {
		if r.gvk == gvk {
			return r
		}
	}
	return nil
}

// loadCustom stores the custom resources of Options.Objects. It runs after installCRDs, before
// the server serves.
func (s *Server) loadCustom(seeds []customSeed) error {
	for _, sd := range seeds {
		if err := s.storeCustomSeed(sd); err != nil {
			m, _ := meta.Accessor(sd.obj)
			name := ""
			if m != nil {
				name = m.GetName()
				if ns := m.GetNamespace(); ns != "" {
					name = ns + "/" + name
				}
			}
			return fmt.Errorf("fake: Objects[%d]: %s %s: %w", sd.index, sd.gvk.Kind, name, err)
		}
	}
	return nil
}

func (s *Server) storeCustomSeed(sd customSeed) error {
	r := s.customFor(sd.gvk)
	if r == nil {
		return fmt.Errorf("no served resource of kind %s (no CRD of Options.CRDs or CRDDirectoryPaths defines it)", sd.gvk)
	}
	body, err := json.Marshal(sd.obj)
	if err != nil {
		return err
	}
	d, err := decodeBody(r.resourceType, body) // prunes and defaults
	if err != nil {
		return err
	}
	m, err := meta.Accessor(d.obj)
	if err != nil {
		return err
	}
	ns := m.GetNamespace()
	if !r.namespaced {
		ns = ""
	} else if ns == "" {
		ns = metav1.NamespaceDefault
	}
	m.SetNamespace(ns)
	m.SetResourceVersion("")
	if m.GetUID() == "" {
		m.SetUID(s.names.uid())
	}
	if ts := m.GetCreationTimestamp(); ts.IsZero() {
		m.SetCreationTimestamp(metav1.NewTime(s.opts.Now().Truncate(time.Second)))
	}
	if r.generation && m.GetGeneration() == 0 {
		m.SetGeneration(1)
	}
	if err := s.validate(contextBackground(), Create, r, d.obj, nil, m.GetName(), "", validateMeta(r.resourceType, m)); err != nil {
		return err
	}
	unlock := s.lockObject(r, ns, m.GetName())
	defer unlock()
	cur, err := current(context.Background(), r, ns, m.GetName())
	if err != nil {
		return err
	}
	if cur != nil {
		return fmt.Errorf("%s %s/%s twice", r.gvr.Resource, ns, m.GetName())
	}
	_, err = s.commit(r, watchcache.Added, d.obj, nil)
	return err
}
