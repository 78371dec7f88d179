package fake

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/watchcache/watchcache/fake/internal/patch"
)

// patchTypes are the patch media types the apiserver accepts for built-in resources.
var patchTypes = map[string]types.PatchType{
	string(types.JSONPatchType):           types.JSONPatchType,
	string(types.MergePatchType):          types.MergePatchType,
	string(types.StrategicMergePatchType): types.StrategicMergePatchType,
	string(types.ApplyYAMLPatchType):      types.ApplyYAMLPatchType,
}

// patchTypeOf returns the patch type of a Content-Type header, by its media type. A header that
// is one of patchTypes' keys as it is (lowercase, without parameters: client-go's) is its own
// media type, which spares mime.ParseMediaType's map of parameters.
func patchTypeOf(contentType string) (types.PatchType, bool) {
	if pt, ok := patchTypes[contentType]; ok {
		return pt, true
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	pt, ok := patchTypes[mt]
	return pt, ok
}

// patch serves PATCH on an object or its status: the patch engine computes the new state from
// the stored one (or, for an apply, from nothing), which then goes through the update rules
// (or the create rules, for an apply that creates).
func (s *Server) patch(w http.ResponseWriter, r *http.Request, t target) {
	if !t.res.hasVerb("patch") {
		writeError(w, methodNotSupported(t, r.Method))
		return
	}
	pt, ok := patchTypeOf(r.Header.Get("Content-Type"))
	switch {
	case !ok && t.res.custom == nil:
		// go-restful routes a built-in resource's PATCH by its Content-Type, and refuses one it
		// does not consume before any handler runs, tersely (reference/observed-patch.md).
		writeError(w, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
			Reason: metav1.StatusReasonUnsupportedMediaType, Message: "415: Unsupported Media Type", Details: &metav1.StatusDetails{}}})
		return
	case !ok:
		// The custom resource handler lists what it accepts: no strategic merge.
		writeError(w, unsupportedMediaType(string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType)))
		return
	}
	opts, err := readPatchOptions(r.URL.RawQuery, pt)
	if err != nil {
		writeError(w, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeError(w, err)
		return
	}
	manager := opts.FieldManager
	if manager == "" && pt != types.ApplyYAMLPatchType {
		manager = patch.ManagerFromUserAgent(r.UserAgent())
	}
	req := patch.Request{
		GVK: t.res.gvk, Subresource: t.subresource, Type: pt, Patch: body,
		FieldManager: manager, Force: opts.Force != nil && *opts.Force,
		Name: t.name, Namespace: t.namespace, Resource: t.res.gvr.GroupResource(),
		FieldValidation: opts.FieldValidation,
	}
	t.admit = writeAdmission(r, opts.DryRun, opts.FieldManager, opts.FieldValidation)
	b, code, warnings, err := s.patchObject(r, t, req, opts)
	if err != nil {
		addWarnings(w, t.admit.warnings)
		writeError(w, err)
		return
	}
	addWarnings(w, append(warnings, t.admit.warnings...))
	writeBody(w, code, b)
}

// patchObject applies a patch to the stored object and stores the result, again on a fresh read
// when the object changed meanwhile (stale).
func (s *Server) patchObject(r *http.Request, t target, req patch.Request, opts metav1.PatchOptions) ([]byte, int, []string, error) {
	b, code, warnings, err := s.patchOnce(r, t, req, opts)
	for stale(r.Context(), err) {
		b, code, warnings, err = s.patchOnce(r, t, req, opts)
	}
	return b, code, warnings, err
}

// patchOnce is one attempt of patchObject, under the object's lock when no webhook may write it.
func (s *Server) patchOnce(r *http.Request, t target, req patch.Request, opts metav1.PatchOptions) ([]byte, int, []string, error) {
	ctx := r.Context()
	defer s.lockForAdmission(&t, t.namespace, t.name)()
	cur, err := current(ctx, t.res, t.namespace, t.name)
	if err != nil {
		return nil, 0, nil, err
	}
	if cur == nil && (req.Type != types.ApplyYAMLPatchType || t.subresource != "") {
		return nil, 0, nil, apierrors.NewNotFound(t.res.gvr.GroupResource(), t.name)
	}
	var old runtime.Object
	if cur != nil {
		if old, err = decodeStored(t.res.resourceType, cur); err != nil {
			return nil, 0, nil, err
		}
	}
	// The engine applies fieldValidation to the patch and returns Warn's warnings. It works on the
	// decoded object, which it leaves as it is.
	obj, warnings, err := s.fields.PatchObject(old, req)
	if errors.Is(err, patch.ErrAborted) {
		// As kube-apiserver: no response at all. The deferred unlock runs as the panic unwinds, and
		// net/http closes the connection without logging for this sentinel.
		panic(http.ErrAbortHandler)
	}
	if err != nil {
		return nil, 0, nil, err
	}
	if u, ok := obj.(*unstructured.Unstructured); ok && t.res.custom != nil {
		// A custom resource: pruned and defaulted by its schema, as a body is; the fields pruning
		// drops are the fieldValidation warnings (reference/observed-crds.md, validation / merge
		// patch unknown field).
		pruned, err := strictness(t.res.resourceType, opts.FieldValidation, t.res.custom.schema.prune(u.Object))
		if err != nil {
			return nil, 0, nil, err
		}
		applySchemaDefaults(u.Object, t.res.custom.schema.structural)
		warnings = append(warnings, pruned...)
	} else if reflect.TypeOf(obj) != reflect.PointerTo(t.res.goType) {
		// Not the resource's Go type: through JSON, as a body.
		b, err := encode(t.res.resourceType, obj)
		if err != nil {
			return nil, 0, nil, err
		}
		d, err := decodeBody(t.res.resourceType, b)
		if err != nil {
			return nil, 0, nil, err
		}
		obj = d.obj
	} else {
		applyDefaults(obj) // as the apiserver defaults the patched object it decodes
	}
	s.stampManagedFieldsOf(old, obj) // old is cur decoded (nil when cur is)
	if t.subresource == "" {
		warnings = append(warnings, s.kindWarnings(obj, old)...)
	}
	dry := dryRun(opts.DryRun)
	if cur == nil {
		b, err := s.createPatched(ctx, t, obj, dry)
		return b, http.StatusCreated, warnings, err
	}
	b, err := s.updateHeld(t, obj, old, cur, dry, req.FieldManager, true)
	return b, http.StatusOK, warnings, err
}

// createPatched creates the object an apply made from nothing, with the create rules. The caller
// holds the object's lock, unless webhooks are configured (lockForAdmission).
func (s *Server) createPatched(ctx context.Context, t target, obj runtime.Object, dry bool) ([]byte, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, internalError("%s: %v", t.res.gvk.Kind, err)
	}
	if m.GetName() != t.name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), t.name))
	}
	if err := matchNamespace(t.res, t.namespace, m); err != nil {
		return nil, err
	}
	if obj, m, err = s.admitNew(ctx, t, obj, m); err != nil {
		return nil, err
	}
	return s.createNamed(ctx, t, obj, m, dry)
}
