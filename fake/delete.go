package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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
		// Any version's DeleteOptions (the apiserver accepts meta.k8s.io/v1 and each group's).
		var err error
		if isProtobuf(body) {
			gvk := optionsVersion.WithKind("DeleteOptions")
			_, _, err = protobufCodec.Decode(body, &gvk, opts)
		} else {
			err = json.Unmarshal(body, opts)
		}
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if k := opts.Kind; k != "" && k != "DeleteOptions" && opts.APIVersion != "" {
			// The options' scheme decodes no other kind.
			return nil, apierrors.NewBadRequest(fmt.Sprintf("no kind %q is registered for version %q in scheme \"pkg/runtime/scheme.go:111\"", k, opts.APIVersion))
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
	t.admit = &admissionRequest{ctx: r.Context(), w: w}
	b, err := s.deleteAdmitted(r.Context(), t, t.name, opts, false)
	addWarnings(w, deleteWarnings(t.res, opts))
	if err != nil {
		writeError(w, err)
		return
	}
	writeBody(w, http.StatusOK, b)
}

// deleteAdmitted deletes the object name of t's resource once its webhooks admitted it, as the
// apiserver's store's Delete does: the webhooks run before the object's lock is taken (one may
// write the object through the server), and the delete then deletes the version they saw, or,
// when the object changed meanwhile, has the webhooks admit the one stored now (admitDelete
// again), as the storage's delete runs its validation, admission included, again after its
// compare failed. A dry run compares nothing: the apiserver's dry-run storage validates what it
// read once, stores nothing and answers with that. collection is deleteLocked's.
func (s *Server) deleteAdmitted(ctx context.Context, t target, name string, opts *metav1.DeleteOptions, collection bool) ([]byte, error) {
	dry := dryRun(opts.DryRun)
	admitted, err := s.admitDelete(t, name, opts, false)
	for err == nil {
		unlock := s.lockObject(t.res, t.namespace, name)
		s.mu.Lock()
		stale := false
		if admitted != nil && !dry {
			cur, _ := current(ctx, t.res, t.namespace, name)
			stale = !sameBytes(cur, admitted)
		}
		var b []byte
		switch {
		case dry && admitted != nil:
			// The dry-run storage answers with the object it read before the webhooks ran.
			b, err = s.deleteStoredLocked(ctx, t.res, name, admitted, opts, collection)
		case !stale:
			b, err = s.deleteLocked(ctx, t.res, t.namespace, name, opts, collection)
		}
		s.mu.Unlock()
		unlock()
		if !stale {
			return b, err
		}
		if err = ctx.Err(); err == nil {
			admitted, err = s.admitDelete(t, name, opts, true)
		}
	}
	return nil, err
}

// deleteLocked deletes one object with the apiserver's rules and returns the answer's body: the
// object while it stays (finalizers, a pod's grace period), else the deleted object or a Status
// of kind Success (returnDeleted). The caller holds s.mu.
//
// collection says the delete is one of a deletecollection, which answers with the objects.
func (s *Server) deleteLocked(ctx context.Context, r *served, namespace, name string, opts *metav1.DeleteOptions, collection bool) ([]byte, error) {
	cur, err := current(ctx, r, namespace, name)
	if err != nil {
		return nil, err
	}
	return s.deleteStoredLocked(ctx, r, name, cur, opts, collection)
}

// deleteStoredLocked is deleteLocked of the object as cur holds it (nil: not found), which a dry
// run may have read before it last changed.
func (s *Server) deleteStoredLocked(ctx context.Context, r *served, name string, cur []byte, opts *metav1.DeleteOptions, collection bool) ([]byte, error) {
	if !collection && r.gvr.GroupResource() == priorityClassesGR && isSystemPriorityClass(name) {
		// The priority class registry's own delete refuses, before it looks the class up; a
		// deletecollection goes through the generic store's and deletes them.
		return nil, apierrors.NewForbidden(priorityClassesGR, name, errSystemPriorityClass)
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
	if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		return s.deleteCRDLocked(ctx, r, crd, cur, dry)
	}
	if pod, ok := obj.(*corev1.Pod); ok && pod.DeletionTimestamp == nil {
		// Pods delete gracefully (their strategy's CheckGracefulDelete): the delete first sets
		// deletionTimestamp (now + the grace period), the grace period and generation+1; a pod on a
		// node then stays until its kubelet confirms, any other goes at once, answering with the
		// pod as last stored.
		grace := podGrace(pod, opts)
		deadline := metav1.NewTime(s.opts.Now().Add(time.Duration(grace) * time.Second).Truncate(time.Second))
		pod.DeletionTimestamp = &deadline
		pod.DeletionGracePeriodSeconds = &grace
		if pod.Generation > 0 {
			pod.Generation++
		}
		setGCFinalizers(r, m, opts)
		if dry {
			return encodeStored(r.resourceType, obj)
		}
		b, err := s.commitLocked(r, watchcache.Modified, obj)
		if err != nil || grace > 0 || len(pod.Finalizers) > 0 {
			return b, err
		}
		if _, err := s.commitLocked(r, watchcache.Deleted, obj); err != nil {
			return nil, err
		}
		return b, nil
	}
	if pod, ok := obj.(*corev1.Pod); ok && pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds > 0 {
		if grace := podGrace(pod, opts); grace >= *pod.DeletionGracePeriodSeconds || len(pod.Finalizers) > 0 {
			return s.finalizeAnswer(r, cur, obj, collection) // graceful deletion pending
		}
		// A shorter grace period: 0 (a kubelet's confirmation) records it, then deletes.
		zero := int64(0)
		now := metav1.NewTime(s.opts.Now().Truncate(time.Second))
		pod.DeletionGracePeriodSeconds, pod.DeletionTimestamp = &zero, &now
		if dry {
			return encodeStored(r.resourceType, obj)
		}
		b, err := s.commitLocked(r, watchcache.Modified, obj)
		if err != nil {
			return nil, err
		}
		if _, err := s.commitLocked(r, watchcache.Deleted, obj); err != nil {
			return nil, err
		}
		return s.finalizeAnswer(r, b, obj, collection)
	}
	setGCFinalizers(r, m, opts)
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
		b, err := encodeStored(r.resourceType, obj)
		if err != nil || string(b) == string(cur) || dry {
			return b, err
		}
		return s.commitLocked(r, watchcache.Modified, obj)
	}
	if dry {
		return s.finalizeAnswer(r, cur, obj, collection)
	}
	b, err := s.commitLocked(r, watchcache.Deleted, obj)
	if err != nil {
		return nil, err
	}
	return s.finalizeAnswer(r, b, obj, collection)
}

// finalizeAnswer is the body of a delete that removed (or, dry, would remove) an object: the object
// for resources that return it, else a Status of kind Success naming it, with the resource as its
// kind (the apiserver's finalizeDelete).
func (s *Server) finalizeAnswer(r *served, b []byte, obj runtime.Object, collection bool) ([]byte, error) {
	if r.returnDeleted || collection {
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
// deletionFinalizersForGarbageCollection does. Background adds none; a delete that names no
// policy keeps the object's finalizers' choice, else takes the resource's default
// (defaultGCPolicy); a resource without garbage collection (events) ignores the policy.
func setGCFinalizers(r *served, m metav1Object, opts *metav1.DeleteOptions) {
	def := defaultGCPolicy(r.gvr)
	if def == gcUnsupported {
		return
	}
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
		orphan = orphan || (!foreground && def == gcOrphanDependents)
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
func podGrace(pod *corev1.Pod, opts *metav1.DeleteOptions) int64 {
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
	return period
}
