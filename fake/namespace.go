package fake

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/watchcache"
)

// defaultNamespaces are the namespaces a kube-apiserver creates when it starts.
var defaultNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// deleteNamespaceLocked is the namespaces' own delete (the apiserver's namespace REST): the first
// delete sets deletionTimestamp and phase Terminating and answers with the namespace; it goes
// only once spec.finalizers is empty, which the namespace controller arranges after deleting the
// namespace's content. The caller holds s.mu.
func (s *Server) deleteNamespaceLocked(ctx context.Context, r *served, ns *corev1.Namespace, cur []byte, dry bool) ([]byte, error) {
	if ns.DeletionTimestamp == nil {
		now := metav1.NewTime(s.opts.Now().Truncate(time.Second))
		ns.DeletionTimestamp = &now
		ns.Status.Phase = corev1.NamespaceTerminating
		if dry {
			return encodeStored(r.resourceType, ns)
		}
		b, err := s.commitLocked(r, watchcache.Modified, ns)
		if err == nil && !s.opts.NoNamespaceController {
			s.finalizeNamespaceLater(ns.Name)
		}
		return b, err
	}
	if len(ns.Spec.Finalizers) > 0 || len(ns.Finalizers) > 0 || dry {
		return cur, nil
	}
	b, err := s.commitLocked(r, watchcache.Deleted, ns)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// namespaceRetry is how often the namespace controller looks again at a terminating namespace
// whose content is still there (objects waiting for their finalizers).
const namespaceRetry = 50 * time.Millisecond

// finalizeNamespaceLater runs the namespace controller's work for a terminating namespace on a
// goroutine of its own, as kube-controller-manager does after the apiserver marked it: delete
// everything in it (each object as a DELETE would, finalizers and grace periods honoured), and once
// nothing is left, remove its "kubernetes" finalizer, which deletes it. It gives up when the
// server closes.
func (s *Server) finalizeNamespaceLater(name string) {
	s.controllers.Add(1)
	go func() {
		defer s.controllers.Done()
		t := time.NewTicker(namespaceRetry)
		defer t.Stop()
		for !s.finalizeNamespace(name) {
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
}

// finalizeNamespace deletes a terminating namespace's content and, when none is left, the
// namespace; it reports whether the work is done (or there is none).
func (s *Server) finalizeNamespace(name string) bool {
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	nsr := s.byGR[schema.GroupResource{Resource: "namespaces"}]
	cur, err := current(ctx, nsr, "", name)
	if err != nil || cur == nil {
		return true
	}
	var ns corev1.Namespace
	if err := jsonUnmarshal(cur, &ns); err != nil || ns.DeletionTimestamp == nil {
		return true
	}
	left := 0
	background := metav1.DeletePropagationBackground
	for _, r := range s.allResources() {
		if !r.namespaced {
			continue
		}
		page, err := r.cache.List(ctx, watchcache.ListOptions{Namespace: name, ResourceVersion: "0"})
		if err != nil {
			return false
		}
		for _, it := range page.Items {
			left++
			obj, itemNS := objectName(it)
			var meta struct {
				Metadata struct {
					DeletionTimestamp *metav1.Time `json:"deletionTimestamp"`
				} `json:"metadata"`
			}
			if jsonUnmarshal(it, &meta) == nil && meta.Metadata.DeletionTimestamp != nil {
				continue // waiting for its finalizers or its grace period
			}
			_, _ = s.deleteLocked(ctx, r, itemNS, obj, &metav1.DeleteOptions{PropagationPolicy: &background}, false)
		}
	}
	if left > 0 {
		return false
	}
	ns.Spec.Finalizers = nil
	if _, err := s.commitLocked(nsr, watchcache.Modified, &ns); err != nil {
		return false
	}
	if len(ns.Finalizers) == 0 {
		_, _ = s.commitLocked(nsr, watchcache.Deleted, &ns)
	}
	return true
}
