package fake

import (
	"context"
	"encoding/json"
	"fmt"
	certificatesv1 "k8s.io/api/certificates/v1"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/watchcache/watchcache/fake/internal/patch"
	"github.com/watchcache/watchcache/watchcache"
)

// optimisticLockMessage is the apiserver's message for a write at a stale resourceVersion
// (storage.OptimisticLockErrorMsg).
const optimisticLockMessage = "the object has been modified; please apply your changes to the latest version and try again"

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// update serves PUT on an object or its status.
func (s *Server) update(w http.ResponseWriter, r *http.Request, t target) {
	if !t.res.hasVerb("update") {
		writeError(w, methodNotSupported(t, r.Method))
		return
	}
	var opts metav1.UpdateOptions
	if err := decodeOptions(r, &opts); err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	if errs := validateUpdateOptions(&opts); len(errs) > 0 {
		writeError(w, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "UpdateOptions"}, "", errs))
		return
	}
	body, problems, err := readJSONBodyStrict(r, t.res.resourceType)
	if err != nil {
		writeError(w, err)
		return
	}
	d, err := decodeBody(t.res.resourceType, body)
	if err != nil {
		writeError(w, err)
		return
	}
	warnings, err := strictness(t.res.resourceType, opts.FieldValidation, append(problems, d.unknown...))
	if err != nil {
		writeError(w, err)
		return
	}
	manager := opts.FieldManager
	if manager == "" {
		manager = patch.ManagerFromUserAgent(r.UserAgent())
	}
	t.admit = writeAdmission(r, opts.DryRun, opts.FieldManager, opts.FieldValidation)
	b, created, kw, err := s.updateObject(r.Context(), t, d.obj, dryRun(opts.DryRun), manager)
	for stale(r.Context(), err) {
		// Again from the body as sent: the last attempt changed its object.
		if d, err = decodeBody(t.res.resourceType, body); err == nil {
			b, created, kw, err = s.updateObject(r.Context(), t, d.obj, dryRun(opts.DryRun), manager)
		}
	}
	warnings = append(warnings, kw...)
	if err != nil {
		addWarnings(w, t.admit.warnings)
		writeError(w, err)
		return
	}
	addWarnings(w, append(warnings, t.admit.warnings...))
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	writeBody(w, code, b)
}

// updateObject stores obj as the new state of the object t names (its status only, for the
// status subresource), with the apiserver's update rules; created says a missing object was
// created (resources that allow create on update). A staleError says the object changed while
// the update was computed: the caller runs it again on a fresh obj.
func (s *Server) updateObject(ctx context.Context, t target, obj runtime.Object, dry bool, manager string) ([]byte, bool, []string, error) {
	r := t.res
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, false, nil, internalError("%s: %v", r.gvk.Kind, err)
	}
	if m.GetName() != t.name {
		return nil, false, nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), t.name))
	}
	if err := matchNamespace(r, t.namespace, m); err != nil {
		return nil, false, nil, err
	}
	defer s.lockForAdmission(&t, t.namespace, t.name)()
	cur, err := current(ctx, r, t.namespace, t.name)
	if err != nil {
		return nil, false, nil, err
	}
	if cur == nil {
		if !r.createOnUpdate || t.subresource != "" {
			return nil, false, nil, apierrors.NewNotFound(r.gvr.GroupResource(), t.name)
		}
		if m.GetResourceVersion() != "" {
			// An RV names a version that does not exist: the apiserver's conflict for a precondition
			// on a missing object.
			return nil, false, nil, conflict(r, t.name)
		}
		if err := s.trackCreate(r, obj, manager); err != nil {
			return nil, false, nil, err
		}
		if obj, m, err = s.admitNew(ctx, t, obj, m); err != nil {
			return nil, false, nil, err
		}
		b, err := s.createNamed(ctx, t, obj, m, dry)
		return b, true, s.kindWarnings(obj, nil), err
	}
	old, err := decodeStored(r.resourceType, cur)
	if err != nil {
		return nil, false, nil, err
	}
	var warnings []string
	if t.subresource == "" {
		warnings = s.kindWarnings(obj, old)
	}
	b, err := s.updateHeld(t, obj, old, cur, dry, manager, false)
	return b, false, warnings, err
}

// uidConflict is the storage layer's precondition failure of an update whose body names another
// uid than the stored object's, as the apiserver words it.
func uidConflict(r *served, t target, uid, stored types.UID) error {
	return apierrors.NewConflict(r.gvr.GroupResource(), t.name,
		fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: %v, UID in object meta: %v",
			storageKey(r, t.namespace, t.name), uid, stored))
}

// updateHeld applies the update rules to a decoded new state of an existing object and stores
// it: resourceVersion precondition, immutable metadata, the strategy (status, generation),
// validation, finalizers, and the deletion of an object whose last finalizer went. A no-op keeps
// the stored object and its resourceVersion. patched says the patch engine already recorded the
// write in managedFields. The caller holds the object's lock, unless webhooks are configured
// (lockForAdmission); oldJSON is the stored object it read, which the commit compares.
func (s *Server) updateHeld(t target, obj, old runtime.Object, oldJSON []byte, dry bool, manager string, patched bool) ([]byte, error) {
	return s.updateWith(s.commitFor(t), t, obj, old, oldJSON, dry, manager, patched, true)
}

// updateLocked is updateHeld for a caller that holds s.mu across its read and this write (the
// garbage collector, a custom resource's scale): it commits under the lock it holds, and runs no
// validating admission (quota admission commits the quotas' status, which takes s.mu).
func (s *Server) updateLocked(t target, obj, old runtime.Object, oldJSON []byte, dry bool, manager string, patched bool) ([]byte, error) {
	return s.updateWith(s.commitHeld, t, obj, old, oldJSON, dry, manager, patched, false)
}

// commitHeld is commitEncoded for a caller that holds s.mu: the stored object cannot have changed
// since it was read under the same lock, so it is not compared, and b is not used (this path is
// not a hot one).
func (s *Server) commitHeld(r *served, typ watchcache.EventType, obj runtime.Object, _, _ []byte) ([]byte, error) {
	return s.commitLocked(r, typ, obj)
}

// updateWith is the update's rules, storing with commit (commitEncoded's signature: the object,
// its encoding or nil, and the stored JSON it replaces); admit runs the validating admission.
func (s *Server) updateWith(commit func(r *served, typ watchcache.EventType, obj runtime.Object, b, stored []byte) ([]byte, error),
	t target, obj, old runtime.Object, oldJSON []byte, dry bool, manager string, patched, admit bool) ([]byte, error) {
	r := t.res
	m, _ := meta.Accessor(obj)
	om, _ := meta.Accessor(old)
	// The field manager sees the object the client sent, before the strategy resets or keeps what
	// no manager owns (the apiserver's order).
	if !patched {
		if err := s.track(r, obj, old, t.subresource, manager); err != nil {
			return nil, err
		}
	}
	if p, ok := obj.(*corev1.Pod); ok && t.subresource == "" {
		// The DefaultTolerationSeconds and Priority admission plugins admit updates too: a pod
		// written without the tolerations, priority and preemption policy it got on create gets
		// them again.
		admitPodTolerations(p)
		op := old.(*corev1.Pod)
		if p.Spec.Priority == nil {
			p.Spec.Priority = op.Spec.Priority
		}
		if p.Spec.PreemptionPolicy == nil {
			p.Spec.PreemptionPolicy = op.Spec.PreemptionPolicy
		}
	}
	if isPodSubresource(t, "resize") {
		// LimitRanger defaults a resized pod's containers as a new pod's, before the webhooks;
		// the resize strategy then keeps the stored metadata, its annotation included
		// (reference/observed-admission.md, resizedefaults).
		s.admitLimitRanges(contextBackground(), obj)
	}
	// The mutating webhooks see the object as sent, and are called before the resourceVersion
	// is checked: a stale update calls them, then conflicts (reference/observed-webhooks.md,
	// whmutate / stale update).
	obj, err := s.mutateUpdate(t, obj, old)
	if err != nil {
		return nil, err
	}
	m, _ = meta.Accessor(obj)
	switch rv := m.GetResourceVersion(); {
	case rv == "" && !r.unconditionalUpdate:
		// The store names the resource, not the kind, in this one.
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: r.gvr.Group, Kind: r.gvr.Resource}, t.name, field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), int64(0), "must be specified for an update")})
	case rv != "" && rv != om.GetResourceVersion():
		return nil, conflict(r, t.name)
	}
	if uid := m.GetUID(); uid != "" && uid != om.GetUID() {
		return nil, uidConflict(r, t, uid, om.GetUID())
	}
	// An unconditional update is made against the stored version (the store's GuaranteedUpdate).
	m.SetResourceVersion(om.GetResourceVersion())
	// BeforeUpdate: generation, uid, creationTimestamp, deletionTimestamp and its grace period
	// are the stored ones whatever the request says.
	m.SetGeneration(om.GetGeneration())
	if csr, ok := obj.(*certificatesv1.CertificateSigningRequest); ok {
		prepareCSRUpdate(csr, old.(*certificatesv1.CertificateSigningRequest), t.subresource, metav1.NewTime(s.opts.Now().Truncate(time.Second)))
	} else if p, ok := obj.(*corev1.Pod); ok && t.subresource == "ephemeralcontainers" {
		obj = prepareEphemeralContainersUpdate(p, old.(*corev1.Pod))
	} else if p, ok := obj.(*corev1.Pod); ok && t.subresource == "resize" {
		obj = prepareResizeUpdate(p, old.(*corev1.Pod))
	} else {
		obj = prepareUpdate(r.resourceType, obj, old, t.subresource)
	}
	if svc, ok := obj.(*corev1.Service); ok && t.subresource == "" {
		release, err := s.admitService(contextBackground(), r, svc, old.(*corev1.Service))
		if err != nil {
			return nil, err
		}
		defer release()
	}
	m, _ = meta.Accessor(obj)
	if m.GetUID() == "" {
		m.SetUID(om.GetUID())
	}
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	if om.GetDeletionTimestamp() != nil {
		m.SetDeletionTimestamp(om.GetDeletionTimestamp())
	}
	if om.GetDeletionGracePeriodSeconds() != nil && m.GetDeletionGracePeriodSeconds() == nil {
		m.SetDeletionGracePeriodSeconds(om.GetDeletionGracePeriodSeconds())
	}
	if r.generation && !generationOnCreateOnly[r.gvr.GroupResource()] && t.subresource != "status" && specChanged(obj, old) {
		m.SetGeneration(om.GetGeneration() + 1)
	}
	// The ObjectMeta update validation includes "no new finalizers" once deletion started; its
	// causes and the kind's are one 422.
	errs := validateMetaUpdate(m, om)
	errs = append(errs, validateKindUpdate(r, obj, old)...)
	if err := s.validate(contextBackground(), Update, r, obj, old, t.name, t.subresource, errs); err != nil {
		return nil, err
	}
	// The validating admission runs before the store tells a no-op, as in the store's update;
	// the writes of the server's own controllers only meet the webhooks (none, without a request).
	if admit {
		if err := s.admitValidating(contextBackground(), t, admissionv1.Update, obj, old, dry); err != nil {
			return nil, err
		}
	} else if err := s.validateWebhooks(t, admissionv1.Update, obj, old); err != nil {
		return nil, err
	}
	b, err := encodeStored(r.resourceType, obj)
	if err != nil {
		return nil, err
	}
	if string(b) == string(oldJSON) {
		return oldJSON, nil // a no-op writes nothing (the apiserver's GuaranteedUpdate)
	}
	if m.GetDeletionTimestamp() != nil && len(m.GetFinalizers()) == 0 && !namespaceFinalizing(obj) {
		// The last finalizer went: the update deletes the object (the store's
		// ShouldDeleteDuringUpdate), and answers with its last state; watchers see the object as
		// it was stored before, as etcd's delete reports the previous value
		// (reference/observed-gc.md, foreground / owner's events).
		if dry {
			return b, nil
		}
		if _, err := commit(r, watchcache.Deleted, old, nil, oldJSON); err != nil {
			return nil, err
		}
		m.SetResourceVersion(om.GetResourceVersion()) // the delete's, which commit gave old
		return encodeStored(r.resourceType, obj)
	}
	if dry {
		return b, nil
	}
	return commit(r, watchcache.Modified, obj, b, oldJSON)
}

// validateKindUpdate is the per-resource update validation the fake reproduces that the
// apiserver runs before the spec's (a pod's, after it, is validateWorkloadKind's): a service's
// cluster IP may not change (reference/observed-defaults.md), a namespace's spec.finalizers must
// be valid names (reference/observed-computed.md, finalize).
func validateKindUpdate(r *served, obj, old runtime.Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Namespace:
		return validateNamespaceFinalizers(o)
	case *corev1.Service:
		return validateServiceUpdate(o, old.(*corev1.Service))
	}
	return nil
}

// storageKey is the object's etcd key in a kube-apiserver with the default prefix, which storage
// errors name.
func storageKey(r *served, namespace, name string) string {
	if r.namespaced {
		return "/registry/" + r.gvr.Resource + "/" + namespace + "/" + name
	}
	return "/registry/" + r.gvr.Resource + "/" + name
}

// validateUpdateOptions is metav1validation.ValidateUpdateOptions, which builds its fields' paths
// before it validates them: options a client left empty (most do) are valid without it.
func validateUpdateOptions(opts *metav1.UpdateOptions) field.ErrorList {
	if opts.FieldManager == "" && opts.DryRun == nil && opts.FieldValidation == "" {
		return nil
	}
	return metav1validation.ValidateUpdateOptions(opts)
}
