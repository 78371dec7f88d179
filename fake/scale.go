package fake

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/watchcache/watchcache/fake/internal/patch"
)

// The scale subresource of deployments, replica sets, stateful sets and replication controllers,
// as the apiserver's scale REST serves it (reference/observed-scale.md): an autoscaling/v1 Scale
// made from the object (its name, namespace, uid, resourceVersion and creationTimestamp; spec.replicas;
// status.replicas and the selector as a string). A write goes through the Scale — decoded,
// patched and tracked in managedFields as a Scale, with the manager's subresource "scale" — and
// then sets the object's spec.replicas, which is stored with the object's update rules (a new
// generation). Field ownership moves between the object and its Scale with apimachinery's
// ScaleHandler, so that an apply to /scale conflicts with the managers of spec.replicas.

// scaleType is the Scale as a resource type, for decoding bodies with the apiserver's errors.
var scaleType = &resourceType{
	gvr:    autoscalingv1.SchemeGroupVersion.WithResource("scales"),
	gvk:    autoscalingv1.SchemeGroupVersion.WithKind("Scale"),
	goType: reflect.TypeFor[autoscalingv1.Scale](),
}

// replicasPaths map the object's API version to its replicas field, for the ScaleHandler.
func replicasPaths(gv schema.GroupVersion) managedfields.ResourcePathMappings {
	return managedfields.ResourcePathMappings{gv.String(): fieldpath.MakePathOrDie("spec", "replicas")}
}

// scaleOf returns the Scale of a stored object; withManaged adds the managedFields entries of
// the object's managers of spec.replicas, as the Scale's.
func scaleOf(r *served, obj runtime.Object, withManaged bool) (*autoscalingv1.Scale, error) {
	var (
		om       *metav1.ObjectMeta
		replicas *int32
		status   int32
		selector string
	)
	switch o := obj.(type) {
	case *appsv1.Deployment:
		om, replicas, status = &o.ObjectMeta, o.Spec.Replicas, o.Status.Replicas
		selector = labelSelectorString(o.Spec.Selector)
	case *appsv1.ReplicaSet:
		om, replicas, status = &o.ObjectMeta, o.Spec.Replicas, o.Status.Replicas
		selector = labelSelectorString(o.Spec.Selector)
	case *appsv1.StatefulSet:
		om, replicas, status = &o.ObjectMeta, o.Spec.Replicas, o.Status.Replicas
		selector = labelSelectorString(o.Spec.Selector)
	case *corev1.ReplicationController:
		om, replicas, status = &o.ObjectMeta, o.Spec.Replicas, o.Status.Replicas
		selector = labels.SelectorFromSet(o.Spec.Selector).String()
	default:
		return nil, internalError("%s has no scale subresource", r.gvk.Kind)
	}
	sc := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: autoscalingv1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{
			Name: om.Name, Namespace: om.Namespace, UID: om.UID, ResourceVersion: om.ResourceVersion,
			CreationTimestamp: om.CreationTimestamp,
		},
		Status: autoscalingv1.ScaleStatus{Replicas: status, Selector: selector},
	}
	if replicas != nil {
		sc.Spec.Replicas = *replicas
	}
	if withManaged {
		entries, err := managedfields.NewScaleHandler(om.ManagedFields, r.gvk.GroupVersion(), replicasPaths(r.gvk.GroupVersion())).ToSubresource()
		if err != nil {
			return nil, internalError("managedFields of %s %s: %v", r.gvk.Kind, om.Name, err)
		}
		sc.ManagedFields = entries
	}
	return sc, nil
}

func labelSelectorString(sel *metav1.LabelSelector) string {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return ""
	}
	return s.String()
}

// setReplicas sets an object's spec.replicas and its managedFields from a written Scale's.
func setReplicas(r *served, obj runtime.Object, sc *autoscalingv1.Scale) error {
	n := sc.Spec.Replicas
	var om *metav1.ObjectMeta
	switch o := obj.(type) {
	case *appsv1.Deployment:
		om, o.Spec.Replicas = &o.ObjectMeta, &n
	case *appsv1.ReplicaSet:
		om, o.Spec.Replicas = &o.ObjectMeta, &n
	case *appsv1.StatefulSet:
		om, o.Spec.Replicas = &o.ObjectMeta, &n
	case *corev1.ReplicationController:
		om, o.Spec.Replicas = &o.ObjectMeta, &n
	default:
		return internalError("%s has no scale subresource", r.gvk.Kind)
	}
	entries, err := managedfields.NewScaleHandler(om.ManagedFields, r.gvk.GroupVersion(), replicasPaths(r.gvk.GroupVersion())).ToParent(sc.ManagedFields)
	if err != nil {
		return internalError("managedFields of %s %s: %v", r.gvk.Kind, om.Name, err)
	}
	om.ManagedFields = entries
	return nil
}

// getScale serves GET of /scale.
func (s *Server) getScale(w http.ResponseWriter, r *http.Request, t target) {
	cur, err := current(r.Context(), t.res, t.namespace, t.name)
	if err == nil && cur == nil {
		err = apierrors.NewNotFound(t.res.gvr.GroupResource(), t.name)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	b, err := scaleAnswer(t.res, cur)
	if err != nil {
		writeError(w, err)
		return
	}
	writeBody(w, http.StatusOK, b)
}

// scaleAnswer is the Scale of a stored object as the apiserver answers it: without managedFields.
func scaleAnswer(r *served, stored []byte) ([]byte, error) {
	obj, err := decodeStored(r.resourceType, stored)
	if err != nil {
		return nil, err
	}
	sc, err := scaleOf(r, obj, false)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(sc)
	if err != nil {
		return nil, internalError("encode Scale: %v", err)
	}
	return b, nil
}

// BuiltinScale is the autoscaling/v1 Scale kube-apiserver answers for a GET of the scale
// subresource of a built-in object stored as JSON (a Deployment, ReplicaSet or StatefulSet of
// apps/v1, or a core/v1 ReplicationController; group and resource name which): its name,
// namespace, uid, resourceVersion and creationTimestamp, spec.replicas, status.replicas and the
// selector as a string, without managedFields. Another resource is an error. It may be called
// concurrently; obj is not modified.
func BuiltinScale(group, resource string, obj []byte) ([]byte, error) {
	reg, err := builtinRegistry()
	if err != nil {
		return nil, err
	}
	t := reg.byGR[schema.GroupResource{Group: group, Resource: resource}]
	if t == nil || !t.scale {
		return nil, fmt.Errorf("fake: %s.%s has no scale subresource", resource, group)
	}
	return scaleAnswer(&served{resourceType: t}, obj)
}

// writeScale serves PUT and PATCH of /scale.
func (s *Server) writeScale(w http.ResponseWriter, r *http.Request, t target) {
	var (
		dry             bool
		fieldValidation string
		manager         string
		pt              types.PatchType
	)
	q := r.URL.Query()
	if r.Method == http.MethodPatch {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		var ok bool
		if pt, ok = patchTypes[mt]; !ok {
			writeError(w, unsupportedMediaType(string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType), string(types.StrategicMergePatchType)))
			return
		}
		var opts metav1.PatchOptions
		if err := scheme.ParameterCodec.DecodeParameters(q, optionsVersion, &opts); err != nil {
			writeError(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		if errs := metav1validation.ValidatePatchOptions(&opts, pt); len(errs) > 0 {
			writeError(w, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs))
			return
		}
		dry, fieldValidation, manager = dryRun(opts.DryRun), opts.FieldValidation, opts.FieldManager
		t.admit = writeAdmission(r, opts.DryRun, opts.FieldManager, opts.FieldValidation)
		if manager == "" && pt != types.ApplyYAMLPatchType {
			manager = patch.ManagerFromUserAgent(r.UserAgent())
		}
		b, warnings, err := s.scaleObject(r, t, dry, fieldValidation, manager, pt, opts.Force != nil && *opts.Force)
		if err != nil {
			addWarnings(w, t.admit.warnings)
			writeError(w, err)
			return
		}
		addWarnings(w, append(warnings, t.admit.warnings...))
		writeBody(w, http.StatusOK, b)
		return
	}
	var opts metav1.UpdateOptions
	if err := scheme.ParameterCodec.DecodeParameters(q, optionsVersion, &opts); err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	if errs := validateUpdateOptions(&opts); len(errs) > 0 {
		writeError(w, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "UpdateOptions"}, "", errs))
		return
	}
	manager = opts.FieldManager
	if manager == "" {
		manager = patch.ManagerFromUserAgent(r.UserAgent())
	}
	t.admit = writeAdmission(r, opts.DryRun, opts.FieldManager, opts.FieldValidation)
	b, warnings, err := s.scaleObject(r, t, dryRun(opts.DryRun), opts.FieldValidation, manager, "", false)
	if err != nil {
		addWarnings(w, t.admit.warnings)
		writeError(w, err)
		return
	}
	addWarnings(w, append(warnings, t.admit.warnings...))
	writeBody(w, http.StatusOK, b)
}

// scaleObject computes the new Scale of the object t names, from a PUT body (pt "") or a patch of
// its current Scale, and stores the object with its new replicas, again on a fresh read when the
// object changed meanwhile (stale).
func (s *Server) scaleObject(r *http.Request, t target, dry bool, fieldValidation, manager string, pt types.PatchType, force bool) ([]byte, []string, error) {
	var body []byte
	var err error
	if pt == "" {
		body, err = readJSONBody(r, scaleType)
	} else {
		body, err = readBody(r)
	}
	if err != nil {
		return nil, nil, err
	}
	b, warnings, err := s.scaleOnce(r, t, body, dry, fieldValidation, manager, pt, force)
	for stale(r.Context(), err) {
		b, warnings, err = s.scaleOnce(r, t, body, dry, fieldValidation, manager, pt, force)
	}
	return b, warnings, err
}

// scaleOnce is one attempt of scaleObject on the stored object, under its lock when no webhook
// may write it.
func (s *Server) scaleOnce(r *http.Request, t target, body []byte, dry bool, fieldValidation, manager string, pt types.PatchType, force bool) ([]byte, []string, error) {
	res := t.res
	defer s.lockForAdmission(&t, t.namespace, t.name)()
	cur, err := current(r.Context(), res, t.namespace, t.name)
	if err == nil && cur == nil {
		err = apierrors.NewNotFound(res.gvr.GroupResource(), t.name)
	}
	if err != nil {
		return nil, nil, err
	}
	parent, err := decodeStored(res.resourceType, cur)
	if err != nil {
		return nil, nil, err
	}
	old, err := scaleOf(res, parent, true)
	if err != nil {
		return nil, nil, err
	}
	oldJSON, err := json.Marshal(old)
	if err != nil {
		return nil, nil, internalError("encode Scale: %v", err)
	}
	var warnings []string
	newJSON := body
	if pt != "" {
		newJSON, warnings, err = s.fields.PatchWithWarnings(oldJSON, patch.Request{
			GVK: scaleType.gvk, Subresource: "scale", Type: pt, Patch: body, FieldManager: manager, Force: force,
			Name: t.name, Namespace: t.namespace, Resource: res.gvr.GroupResource(), FieldValidation: fieldValidation,
		})
		if err != nil {
			return nil, nil, err
		}
	}
	d, err := decodeBody(scaleType, newJSON)
	if err != nil {
		return nil, nil, err
	}
	if pt == "" {
		if warnings, err = strictness(scaleType, fieldValidation, d.unknown); err != nil {
			return nil, nil, err
		}
	}
	sc := d.obj.(*autoscalingv1.Scale)
	if sc.Name != t.name {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Name, t.name))
	}
	if rv := sc.ResourceVersion; rv != "" && rv != old.ResourceVersion {
		return nil, nil, conflict(res, t.name)
	}
	if sc.UID != "" && sc.UID != old.UID {
		// The Scale's uid is the parent's update's precondition.
		return nil, nil, uidConflict(res, t, sc.UID, old.UID)
	}
	if pt == "" {
		newJSON, err := json.Marshal(sc)
		if err != nil {
			return nil, nil, internalError("encode Scale: %v", err)
		}
		tracked, err := s.fields.Update(oldJSON, newJSON, scaleType.gvk, "scale", manager)
		if err != nil {
			return nil, nil, err
		}
		sc = &autoscalingv1.Scale{}
		if err := json.Unmarshal(tracked, sc); err != nil {
			return nil, nil, internalError("decode Scale: %v", err)
		}
	}
	if sc, err = s.mutateScale(t, sc, old); err != nil {
		return nil, nil, err
	}
	if sc.Spec.Replicas < 0 {
		return nil, nil, apierrors.NewInvalid(scaleType.gvk.GroupKind(), t.name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), sc.Spec.Replicas, "must be greater than or equal to 0")})
	}
	if err := s.validateScale(t, sc, old); err != nil {
		return nil, nil, err
	}
	obj := parent.DeepCopyObject()
	if err := setReplicas(res, obj, sc); err != nil {
		return nil, nil, err
	}
	t.admit = nil // the webhooks saw the Scale; the parent's update calls none
	b, err := s.updateHeld(t, obj, parent, cur, dry, manager, true)
	if err != nil {
		return nil, nil, err
	}
	b, err = scaleAnswer(res, b)
	return b, warnings, err
}
