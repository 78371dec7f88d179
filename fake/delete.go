package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/watchcache"
)

// deleteOptions reads a DELETE's options: from the body when there is one (a DeleteOptions of
// any version), else from the query; then the query's dryRun, gracePeriodSeconds and
// propagationPolicy where the body left them unset, as client-go sends both.
func deleteOptions(r *http.Request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if len(body) > 0 {
		codec := runtime.Decoder(strictCodec)
		if isProtobuf(body) {
			codec = protobufCodec
		}
		gvk := metav1.SchemeGroupVersion.WithKind("DeleteOptions")
		if _, _, err := codec.Decode(body, &gvk, opts); err != nil && !runtime.IsStrictDecodingError(err) {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	} else if err := scheme.ParameterCodec.DecodeParameters(r.URL.Query(), optionsVersion, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	return opts, nil
}

// delete serves DELETE on an object.
func (s *Server) delete(w http.ResponseWriter, r *http.Request, t target) {
	if !t.res.hasVerb("delete") {
		writeError(w, methodNotSupported(t, r.Method))
		return
	}
	opts, err := deleteOptions(r)
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	b, err := s.deleteLocked(r.Context(), t.res, t.namespace, t.name, opts)
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeBody(w, http.StatusOK, b)
}

// deleteLocked deletes one object with the apiserver's rules and returns the answer's body: the
// object while it stays (finalizers, a pod's grace period), else the deleted object or a Status
// of kind Success (returnDeleted). The caller holds s.mu.
func (s *Server) deleteLocked(ctx context.Context, r *served, namespace, name string, opts *metav1.DeleteOptions) ([]byte, error) {
	cur, err := current(ctx, r, namespace, name)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, apierrors.NewNotFound(r.gvr.GroupResource(), name)
	}
	obj, err := decodeStored(r.resourceType, cur)
	if err != nil {
		return nil, err
	}
	m, _ := meta.Accessor(obj)
	// BeforeDelete names the resource by its kind in these conflicts.
	byKind := schema.GroupResource{Group: r.gvk.Group, Resource: r.gvk.Kind}
	if p := opts.Preconditions; p != nil {
		if p.UID != nil && *p.UID != m.GetUID() {
			return nil, apierrors.NewConflict(byKind, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, m.GetUID()))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
			return nil, apierrors.NewConflict(byKind, name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, m.GetResourceVersion()))
		}
	}
	dry := dryRun(opts.DryRun)
	if ns, ok := obj.(*corev1.Namespace); ok {
		return s.deleteNamespaceLocked(ctx, r, ns, cur, dry)
	}
	if pod, ok := obj.(*corev1.Pod); ok {
		if grace, graceful := podGrace(pod, opts); graceful {
			// A pod on a node goes away when its kubelet confirms: the delete sets the deadline.
			if pod.DeletionTimestamp != nil {
				return s.finalizeAnswer(r, cur, obj)
			}
			deadline := metav1.NewTime(s.opts.Now().Add(time.Duration(grace) * time.Second).Truncate(time.Second))
			pod.DeletionTimestamp = &deadline
			pod.DeletionGracePeriodSeconds = &grace
			if pod.Generation > 0 {
				pod.Generation++
			}
			setGCFinalizers(m, opts)
			if dry {
				return encode(r.resourceType, obj)
			}
			return s.commitLocked(r, watchcache.Modified, obj)
		}
	}
	setGCFinalizers(m, opts)
	if len(m.GetFinalizers()) > 0 {
		// markAsDeleting: the object stays, with a deletionTimestamp, until its last finalizer is
		// removed; a repeated delete changes nothing.
		if m.GetDeletionTimestamp() == nil {
			if m.GetGeneration() > 0 {
				m.SetGeneration(m.GetGeneration() + 1)
			}
			now := metav1.NewTime(s.opts.Now().Truncate(time.Second))
			m.SetDeletionTimestamp(&now)
		}
		zero := int64(0)
		m.SetDeletionGracePeriodSeconds(&zero)
		b, err := encode(r.resourceType, obj)
		if err != nil || string(b) == string(cur) || dry {
			return b, err
		}
		return s.commitLocked(r, watchcache.Modified, obj)
	}
	if dry {
		return s.finalizeAnswer(r, cur, obj)
	}
	b, err := s.commitLocked(r, watchcache.Deleted, obj)
	if err != nil {
		return nil, err
	}
	return s.finalizeAnswer(r, b, obj)
}

// finalizeAnswer is the body of a delete that removed (or, dry, would remove) an object: the object
// for resources that return it, else a Status of kind Success naming it, with the resource as its
// kind (the apiserver's finalizeDelete).
func (s *Server) finalizeAnswer(r *served, b []byte, obj runtime.Object) ([]byte, error) {
	if r.returnDeleted {
		return b, nil
	}
	m, _ := meta.Accessor(obj)
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: m.GetName(), Group: r.gvr.Group, Kind: r.gvr.Resource, UID: m.GetUID()},
	}
	return json.Marshal(&st)
}

// setGCFinalizers adds the garbage collector's finalizer a propagation policy asks for
// (orphan for Orphan, foregroundDeletion for Foreground), removing the other, as the apiserver's
// deletionFinalizersForGarbageCollection does. Background (the default) adds none.
func setGCFinalizers(m metav1Object, opts *metav1.DeleteOptions) {
	orphan := opts.PropagationPolicy != nil && *opts.PropagationPolicy == metav1.DeletePropagationOrphan
	if opts.OrphanDependents != nil { //nolint:staticcheck // the deprecated field still decides, as in the apiserver
		orphan = *opts.OrphanDependents //nolint:staticcheck
	}
	foreground := opts.PropagationPolicy != nil && *opts.PropagationPolicy == metav1.DeletePropagationForeground
	hasOrphan := false
	var keep []string
	for _, f := range m.GetFinalizers() {
		switch f {
		case metav1.FinalizerOrphanDependents:
			hasOrphan = true
			continue
		case metav1.FinalizerDeleteDependents:
			continue
		}
		keep = append(keep, f)
	}
	if opts.PropagationPolicy == nil && opts.OrphanDependents == nil { //nolint:staticcheck
		orphan = hasOrphan
		foreground = !hasOrphan && hasFinalizer(m.GetFinalizers(), metav1.FinalizerDeleteDependents)
	}
	if orphan {
		keep = append(keep, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		keep = append(keep, metav1.FinalizerDeleteDependents)
	}
	if len(keep) != len(m.GetFinalizers()) || !sameSet(keep, m.GetFinalizers()) {
		m.SetFinalizers(keep)
	}
}

func hasFinalizer(fs []string, f string) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !hasFinalizer(b, x) {
			return false
		}
	}
	return true
}

// podGrace is the pods' CheckGracefulDelete: the grace period asked for, else the pod's
// terminationGracePeriodSeconds; 0 for a pod on no node or one that has finished; negative is 1.
// graceful is false when the pod goes at once.
func podGrace(pod *corev1.Pod, opts *metav1.DeleteOptions) (int64, bool) {
	var period int64
	switch {
	case opts.GracePeriodSeconds != nil:
		period = *opts.GracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds > 0 && period >= *pod.DeletionGracePeriodSeconds {
		return *pod.DeletionGracePeriodSeconds, true
	}
	return period, period > 0
}
