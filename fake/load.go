package fake

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// load stores the default namespaces and Options.Objects, each at the next resourceVersion,
// and makes every cache ready with one re-list at the last one.
func (s *Server) load() error {
	objs := make([]runtime.Object, 0, len(defaultNamespaces)+len(s.opts.Objects))
	if !s.opts.NoDefaultNamespaces {
		for _, name := range defaultNamespaces {
			objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	}
	objs = append(objs, s.opts.Objects...)
	byRes := make(map[*served][][]byte)
	seen := make(map[string]bool, len(objs))
	var rv uint64
	for i, obj := range objs {
		r, err := s.servedFor(obj)
		if err != nil {
			return fmt.Errorf("fake: Objects[%d]: %w", i-len(objs)+len(s.opts.Objects), err)
		}
		obj = obj.DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("fake: Objects[%d]: %w", i, err)
		}
		if !r.namespaced {
			m.SetNamespace("")
		} else if m.GetNamespace() == "" {
			m.SetNamespace(metav1.NamespaceDefault)
		}
		key := r.gvr.String() + "/" + m.GetNamespace() + "/" + m.GetName()
		if seen[key] {
			if _, isNS := obj.(*corev1.Namespace); isNS && i >= len(objs)-len(s.opts.Objects) {
				// An Objects namespace replaces a default one of the same name.
				continue
			}
			return fmt.Errorf("fake: Objects: %s %s/%s twice", r.gvr.Resource, m.GetNamespace(), m.GetName())
		}
		seen[key] = true
		if uid, ts := m.GetUID(), m.GetCreationTimestamp(); uid == "" || ts.IsZero() {
			dt, grace := m.GetDeletionTimestamp(), m.GetDeletionGracePeriodSeconds()
			s.fillSystemFields(m)
			m.SetDeletionTimestamp(dt)
			m.SetDeletionGracePeriodSeconds(grace)
			if uid != "" {
				m.SetUID(uid)
			}
			if !ts.IsZero() {
				m.SetCreationTimestamp(ts)
			}
		}
		if ns, ok := obj.(*corev1.Namespace); ok {
			if ns.Status.Phase == "" {
				ns.Status.Phase = corev1.NamespaceActive
			}
			if len(ns.Spec.Finalizers) == 0 {
				ns.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
			}
			setNamespaceNameLabel(ns)
		}
		if r.generation && m.GetGeneration() == 0 {
			m.SetGeneration(1)
		}
		rv++
		m.SetResourceVersion(rvString(rv))
		b, err := encode(r.resourceType, obj)
		if err != nil {
			return err
		}
		byRes[r] = append(byRes[r], b)
	}
	// An empty store is at revision 1, as a new etcd is: a list must have a resourceVersion.
	rv = max(rv, 1)
	for _, r := range s.order {
		if err := r.cache.Replace(byRes[r], rv); err != nil {
			return fmt.Errorf("fake: load %s: %w", r.gvr.Resource, err)
		}
	}
	s.rv.Store(rv)
	return nil
}

// servedFor returns the resource of a typed object, from its kind or its Go type.
func (s *Server) servedFor(obj runtime.Object) (*served, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			return nil, fmt.Errorf("unknown kind of %T: %v", obj, err)
		}
		gvk = gvks[0]
	}
	for _, r := range s.order {
		if r.gvk == gvk {
			return r, nil
		}
	}
	return nil, fmt.Errorf("no served resource of kind %s", gvk)
}
