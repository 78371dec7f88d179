package fake

import (
	"context"
	"time"

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
		zero := int64(0)
		ns.DeletionGracePeriodSeconds = &zero
		ns.Status.Phase = corev1.NamespaceTerminating
		if dry {
			return encode(r.resourceType, ns)
		}
		return s.commitLocked(r, watchcache.Modified, ns)
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
