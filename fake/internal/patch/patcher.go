package patch

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsapply "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration"
)

// Request is one patch of one object: what the apiserver's patch handler gets from the URL, the
// Content-Type header and the PatchOptions query parameters.
type Request struct {
	// GVK is the kind the object is served as; the patch is applied to that version.
	GVK schema.GroupVersionKind
	// Subresource is "" for the main resource or "status".
	Subresource string
	// Type is the Content-Type of the body without parameters: types.JSONPatchType,
	// types.MergePatchType, types.StrategicMergePatchType or types.ApplyPatchType
	// (application/apply-patch+yaml).
	Type types.PatchType
	// Patch is the request body.
	Patch []byte
	// FieldManager is the manager recorded in managedFields: the fieldManager query parameter, or
	// for non-apply patches without one, ManagerFromUserAgent of the request's User-Agent. Apply
	// requires it to be set by the client (the apiserver answers 422 otherwise).
	FieldManager string
	// Force is the force query parameter; only apply accepts it.
	Force bool

	// Name and Namespace are the object's name and namespace from the URL ("" namespace for a
	// cluster-scoped resource). When Name is empty it is taken from the current object; apply
	// creating an object needs it.
	Name      string
	Namespace string
	// Resource names the resource in NotFound and Conflict messages (e.g. deployments.apps).
	// When empty, messages use the lower-cased kind.
	Resource schema.GroupResource
	// FieldValidation is the fieldValidation query parameter: "Strict" rejects unknown or
	// duplicate fields with the apiserver's errors, "Warn" (and "", the apiserver's default)
	// accepts them with a warning each (PatchWithWarnings), "Ignore" accepts them silently.
	FieldValidation string
}

// Patcher applies patches and records field ownership as the kube-apiserver's patch handler and
// field manager do, for the kinds of one scheme.
//
// A Patcher is safe for concurrent use by any number of goroutines: it keeps only a cache of
// per-kind field managers, which are themselves safe to share, as the apiserver shares one per
// resource across requests. Callers must serialise writes to one object themselves (Patch is a
// pure function of current and the request).
type Patcher struct {
	scheme *runtime.Scheme
	// defaulter defaults what a patch decodes and what the field manager merges, as the
	// apiserver's decoder and field manager do with its scheme's defaulting functions.
	defaulter runtime.ObjectDefaulter
	// typed is built on the first need of a built-in kind's field manager: building it (the
	// OpenAPI models of every built-in kind) costs most of a process's first server, which a test
	// that never patches nor reads managedFields should not pay.
	typed      func() managedfields.TypeConverter
	deduced    managedfields.TypeConverter
	serializer *kjson.Serializer
	strict     *kjson.Serializer

	managers sync.Map // managerKey -> *fieldManager
	kinds    sync.Map // schema.GroupVersionKind -> kind, for the scheme's kinds
	customs  sync.Map // schema.GroupVersionKind -> *CustomType

	// apiextensions types the kinds of apiextensions.k8s.io (CustomResourceDefinitions), which
	// client-go's type converter does not know: without it their writes lose managedFields. It is
	// built on first need, as typed is.
	apiextensions func() managedfields.TypeConverter

	// full makes the field managers of built-in kinds only as the apiserver builds them, without
	// their lean twins (fieldManager), for tests that compare the two.
	full bool

	// preparing is set by Prepare; prepared is closed when the build Prepare started ends.
	prepare   sync.Once
	preparing atomic.Bool
	prepared  chan struct{}
}

// defaulterFunc is a function as a runtime.ObjectDefaulter.
type defaulterFunc func(runtime.Object)

// Default calls f.
func (f defaulterFunc) Default(obj runtime.Object) { f(obj) }

type managerKey struct {
	gvk         schema.GroupVersionKind
	subresource string
}

// New returns a Patcher for the kinds registered in scheme (normally client-go's
// kubernetes/scheme.Scheme). Kinds the scheme does not know are patched as custom resources:
// unstructured, every field atomic for apply, no strategic merge.
func New(scheme *runtime.Scheme) (*Patcher, error) {
	return NewWithDefaults(scheme, scheme.Default)
}

// NewWithDefaults is New with the defaulting of the apiserver, which client-go's scheme lacks:
// defaults is called on every object a patch produces, before the field manager compares it with
// the live object (so that defaulted fields a patch changes are owned by its manager, as they are
// on the apiserver), and by the field manager after an apply. It must be safe for concurrent use.
func NewWithDefaults(scheme *runtime.Scheme, defaults func(runtime.Object)) (*Patcher, error) {
	if scheme == nil {
		return nil, fmt.Errorf("patch: nil scheme")
	}
	return &Patcher{
		scheme:        scheme,
		defaulter:     defaulterFunc(defaults),
		typed:         sync.OnceValue(func() managedfields.TypeConverter { return applyconfigurations.NewTypeConverter(scheme) }),
		apiextensions: sync.OnceValue(func() managedfields.TypeConverter { return apiextensionsapply.NewTypeConverter(scheme) }),
		deduced:       managedfields.NewDeducedTypeConverter(),
		prepared:      make(chan struct{}),
		serializer:    kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{}),
		strict:        kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Strict: true}),
	}, nil
}

// Prepare starts building the built-in kinds' type converter in the background, once per
// Patcher, for a caller that knows a write of a built-in kind is coming but not yet when: a
// controller's first write of a Deployment follows its informers' start by client-go's cache
// sync polls (100 ms each), with the CPU idle, while building the converter (parsing client-go's
// schema of every built-in kind twice, once to validate it) takes about 100 ms (a second under
// -race) that the first write would otherwise wait for. A write that comes before the build ends
// waits for it, as it would without Prepare. Prepare returns at once and is safe for concurrent
// use.
func (p *Patcher) Prepare() {
	p.prepare.Do(func() {
		p.preparing.Store(true)
		go func() {
			defer close(p.prepared)
			p.typed()
		}()
	})
}

// WaitPrepared returns when the build Prepare started has ended, at once if Prepare was never
// called, so that a caller can stop without leaving the build running (a leak checker at the end
// of a test binary would report it).
func (p *Patcher) WaitPrepared() {
	if p.preparing.Load() {
		<-p.prepared
	}
}

// Patch returns the patched object as JSON, with managedFields updated for req.FieldManager.
// current is the stored object's JSON, or nil when the object does not exist: apply to the main
// resource then creates it, everything else answers 404. Errors are *apierrors.StatusError with kube-apiserver's codes,
// reasons and messages, except ErrAborted, on which
// the caller aborts the request as the apiserver does.
//
// Patch does what the apiserver's patch handler does before storage: it validates the options,
// applies the patch, decodes the result into the kind, updates managedFields and checks the name
// and namespace against the URL. What the storage layer and the resource's strategy do next is
// the caller's: the resourceVersion precondition (a metadata.resourceVersion in the patch that
// differs from current's is kept in the result, for the caller's 409), immutable metadata,
// resetting status on the main resource and spec on the status subresource, generation, and
// detecting a no-op.
func (p *Patcher) Patch(current []byte, req Request) ([]byte, error) {
	out, _, err := p.PatchWithWarnings(current, req)
	return out, err
}

// PatchWithWarnings is Patch that also returns the warnings the apiserver sends as Warning
// headers: under fieldValidation Warn (the default), one per unknown or duplicate field.
func (p *Patcher) PatchWithWarnings(current []byte, req Request) ([]byte, []string, error) {
	fc := newFieldCheck(req.FieldValidation)
	out, err := p.patch(current, req, fc)
	return out, fc.warnings, err
}

func (p *Patcher) patch(current []byte, req Request, fc *fieldCheck) ([]byte, error) {
	k, err := p.kindOf(req.GVK)
	if err != nil {
		return nil, err
	}
	var live runtime.Object
	if current != nil {
		if live, err = p.decode(k, current); err != nil {
			return nil, internalError(fmt.Errorf("decoding the stored object: %w", err))
		}
	}
	out, err := p.patchLive(k, live, req, fc)
	if err != nil {
		return nil, err
	}
	b, err := p.encode(k, out)
	if err != nil {
		return nil, internalError(err)
	}
	return b, nil
}

// PatchObject is PatchWithWarnings on a decoded object, which spares a server that keeps
// objects decoded an encoding and a decoding per patch: live is the stored object in the kind's
// Go type (nil when there is none), which PatchObject does not change; the result is the patched
// object, with its managedFields.
func (p *Patcher) PatchObject(live runtime.Object, req Request) (runtime.Object, []string, error) {
	k, err := p.kindOf(req.GVK)
	if err != nil {
		return nil, nil, err
	}
	live = ofKind(live, k.gvk)
	fc := newFieldCheck(req.FieldValidation)
	out, err := p.patchLive(k, live, req, fc)
	if err != nil {
		return nil, nil, err
	}
	return out, fc.warnings, nil
}

// patchLive applies a patch to a decoded live object (nil for none), which it may change.
func (p *Patcher) patchLive(k kind, live runtime.Object, req Request, fc *fieldCheck) (runtime.Object, error) {
	if err := validateOptions(req); err != nil {
		return nil, err
	}
	// An apply body that reads strictly needs no other check (readApplyBody).
	var cfg map[string]any
	if req.Type == types.ApplyPatchType {
		cfg, _ = readApplyBody(req.Patch)
	}
	if cfg == nil {
		if err := validateBody(req.Type, req.Patch); err != nil {
			return nil, err
		}
	}
	fm, err := p.fieldManager(k, req.Subresource)
	if err != nil {
		return nil, internalError(err)
	}
	name := req.Name
	if name == "" && live != nil {
		if a, err := meta.Accessor(live); err == nil {
			name = a.GetName()
		}
	}

	var out runtime.Object
	switch req.Type {
	case types.JSONPatchType, types.MergePatchType:
		if live == nil {
			return nil, apierrors.NewNotFound(p.resource(req), name)
		}
		out, err = p.jsonPatch(k, fm, live, req, fc)
	case types.StrategicMergePatchType:
		if live == nil {
			return nil, apierrors.NewNotFound(p.resource(req), name)
		}
		out, err = p.strategicPatch(k, fm, live, req, fc)
	case types.ApplyPatchType:
		if live == nil && req.Subresource != "" {
			// A subresource never creates its object.
			return nil, apierrors.NewNotFound(p.resource(req), name)
		}
		out, err = p.apply(k, fm, live, req, fc, cfg)
	default:
		err = unsupportedMediaType(k)
	}
	if errors.Is(err, ErrAborted) {
		return nil, err
	}
	if err != nil {
		return nil, asStatus(err)
	}
	if err := p.checkIdentity(out, live, name, req); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(k.gvk)
	return out, nil
}

// Update records a non-apply write in managedFields as the apiserver does on create (old == nil)
// and update, for manager (the fieldManager parameter, or ManagerFromUserAgent of the
// User-Agent). It returns new's JSON with managedFields set; old is not changed. subresource is
// "" or "status".
func (p *Patcher) Update(old, new []byte, gvk schema.GroupVersionKind, subresource, manager string) ([]byte, error) {
	k, err := p.kindOf(gvk)
	if err != nil {
		return nil, err
	}
	fm, err := p.fieldManager(k, subresource)
	if err != nil {
		return nil, internalError(err)
	}
	newObj, err := p.decode(k, new)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("decoding the new object: %v", err))
	}
	var liveObj runtime.Object
	if old == nil {
		liveObj = k.empty()
	} else if liveObj, err = p.decode(k, old); err != nil {
		return nil, internalError(fmt.Errorf("decoding the stored object: %w", err))
	}
	out := fm.UpdateNoErrors(liveObj, newObj, manager)
	b, err := p.encode(k, out)
	if err != nil {
		return nil, internalError(err)
	}
	return b, nil
}

// UpdateObject is Update on decoded objects: old is the stored object in the kind's Go type (nil
// for a create), which it does not change; new is the written one, whose managedFields it sets.
// It returns the object to store (new, or a copy of it).
func (p *Patcher) UpdateObject(old, new runtime.Object, gvk schema.GroupVersionKind, subresource, manager string) (runtime.Object, error) {
	k, err := p.kindOf(gvk)
	if err != nil {
		return nil, err
	}
	fm, err := p.fieldManager(k, subresource)
	if err != nil {
		return nil, internalError(err)
	}
	new.GetObjectKind().SetGroupVersionKind(k.gvk)
	if old == nil {
		return fm.create(k.empty(), new, manager), nil
	}
	return fm.UpdateNoErrors(ofKind(old, k.gvk), new, manager), nil
}

// ofKind returns obj with its kind set to gvk without changing obj: obj itself when it already
// says gvk, else a copy. The patches and the field manager only read the live object (the
// field manager's contract: "liveObj is not mutated"), so a stored object decoded for the write
// is not copied again.
func ofKind(obj runtime.Object, gvk schema.GroupVersionKind) runtime.Object {
	if obj == nil || obj.GetObjectKind().GroupVersionKind() == gvk {
		return obj
	}
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj
}

// kind is what the Patcher knows of one GVK.
type kind struct {
	gvk schema.GroupVersionKind
	// typed is false for kinds the scheme does not know (custom resources).
	typed bool
	new   func() runtime.Object
}

func (k kind) empty() runtime.Object {
	o := k.new()
	o.GetObjectKind().SetGroupVersionKind(k.gvk)
	return o
}

func (p *Patcher) kindOf(gvk schema.GroupVersionKind) (kind, error) {
	if gvk.Kind == "" || gvk.Version == "" {
		return kind{}, apierrors.NewBadRequest(fmt.Sprintf("patch: incomplete kind %q", gvk.String()))
	}
	if k, ok := p.kinds.Load(gvk); ok {
		return k.(kind), nil
	}
	if p.scheme.Recognizes(gvk) {
		proto, err := p.scheme.New(gvk)
		if err != nil {
			return kind{}, internalError(fmt.Errorf("patch: creating a %v: %w", gvk, err))
		}
		// Only a scheme's kinds are kept: a kind it does not know yet may be registered later.
		k := kind{gvk: gvk, typed: true, new: proto.DeepCopyObject}
		p.kinds.Store(gvk, k)
		return k, nil
	}
	return kind{gvk: gvk, new: func() runtime.Object { return &unstructured.Unstructured{Object: map[string]any{}} }}, nil
}

func (p *Patcher) fieldManager(k kind, subresource string) (*fieldManager, error) {
	key := managerKey{k.gvk, subresource}
	if fm, ok := p.managers.Load(key); ok {
		return fm.(*fieldManager), nil
	}
	fm := &fieldManager{}
	var err error
	custom := p.customType(k.gvk)
	status := (k.typed && hasStatus(p.scheme, k.gvk)) || (custom != nil && custom.Status)
	reset := resetFields(k.gvk, subresource, status)
	// typedManager builds a built-in kind's field manager as the apiserver does, lean and bare.
	typedManager := func(tc managedfields.TypeConverter) (err error) {
		if fm.full, err = managedfields.NewDefaultFieldManager(tc, p.scheme, p.defaulter, p.scheme, k.gvk, k.gvk.GroupVersion(), subresource, reset); err != nil {
			return err
		}
		if p.full {
			return nil
		}
		if fm.lean, err = managedfields.NewDefaultFieldManager(leanConverter{tc}, sameVersion{p.scheme}, p.defaulter, p.scheme, k.gvk, k.gvk.GroupVersion(), subresource, reset); err != nil {
			return err
		}
		bare := bareConverter{tc, &validatedTypes{}, &converted{}}
		fm.reapply = &reapply{conv: bare, converted: bare.converted, gvk: k.gvk, version: fieldpath.APIVersion(k.gvk.GroupVersion().String()), subresource: subresource, reset: reset}
		fm.bare, err = managedfields.NewDefaultFieldManager(bare, sameVersion{p.scheme}, p.defaulter, p.scheme, k.gvk, k.gvk.GroupVersion(), subresource, reset)
		return err
	}
	switch {
	case k.typed && k.gvk.Group == apiextensionsv1.GroupName:
		err = typedManager(p.apiextensions())
	case k.typed:
		tc := p.typed()
		if _, terr := tc.ObjectToTyped(k.empty()); terr != nil {
			// A kind of the scheme that client-go's models lack (autoscaling/v1 Scale, which the
			// apiserver's OpenAPI models have): its fields are deduced from the object.
			tc = p.deduced
		}
		err = typedManager(tc)
	case custom != nil:
		fm.full, err = managedfields.NewDefaultCRDFieldManager(custom.TypeConverter, unstructuredConvertor{}, schemaDefaults{custom.Default}, unstructuredCreater{}, k.gvk, k.gvk.GroupVersion(), subresource, reset)
	default:
		fm.full, err = managedfields.NewDefaultCRDFieldManager(p.deduced, unstructuredConvertor{}, noDefaults{}, unstructuredCreater{}, k.gvk, k.gvk.GroupVersion(), subresource, reset)
	}
	if err != nil {
		return nil, fmt.Errorf("patch: field manager for %v: %w", k.gvk, err)
	}
	got, _ := p.managers.LoadOrStore(key, fm)
	return got.(*fieldManager), nil
}

// decode reads a stored object into the kind's type.
func (p *Patcher) decode(k kind, data []byte) (runtime.Object, error) {
	into := k.empty()
	if !k.typed {
		u := into.(*unstructured.Unstructured)
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		u.SetGroupVersionKind(k.gvk)
		return u, nil
	}
	obj, _, err := p.serializer.Decode(data, &k.gvk, into)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(k.gvk)
	return obj, nil
}

// encode writes obj as the apiserver serves it: apiVersion and kind first, then the fields in
// the type's order.
func (p *Patcher) encode(k kind, obj runtime.Object) ([]byte, error) {
	obj.GetObjectKind().SetGroupVersionKind(k.gvk)
	var buf bytes.Buffer
	if err := p.serializer.Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("patch: encoding %v: %w", k.gvk, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (p *Patcher) resource(req Request) schema.GroupResource {
	if req.Resource.Resource != "" {
		return req.Resource
	}
	return schema.GroupResource{Group: req.GVK.Group, Resource: lower(req.GVK.Kind)}
}

// checkIdentity does what the apiserver checks after patching and before storage: an object that
// did not exist may not be given a uid, and the name and namespace must be the URL's.
func (p *Patcher) checkIdentity(out, live runtime.Object, name string, req Request) error {
	a, err := meta.Accessor(out)
	if err != nil {
		return internalError(err)
	}
	if live == nil && a.GetUID() != "" {
		return apierrors.NewConflict(p.resource(req), name,
			fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", a.GetUID()))
	}
	switch ns := a.GetNamespace(); {
	case ns == req.Namespace:
	case ns == "":
		a.SetNamespace(req.Namespace)
	case req.Namespace == "":
		a.SetNamespace("")
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if name == "" {
		// No URL name and no stored object: the apply configuration names the object.
		return nil
	}
	if a.GetName() != name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", a.GetName(), name))
	}
	return nil
}

// validateOptions rejects the PatchOptions the apiserver rejects, with its 422 on PatchOptions.
// Options found valid are remembered (validOptions): ValidatePatchOptions builds a field path for
// each of its checks before it makes it, and a client sends the same options with every write.
func validateOptions(req Request) error {
	k := optionsKey{req.FieldManager, req.FieldValidation, req.Force, req.Type}
	if validOptions.has(k) {
		return nil
	}
	if err := validateOptionsOnce(req); err != nil {
		return err
	}
	validOptions.add(k)
	return nil
}

// validateOptionsOnce is validateOptions without the memo.
func validateOptionsOnce(req Request) error {
	opts := &metav1.PatchOptions{FieldManager: req.FieldManager, FieldValidation: req.FieldValidation}
	if req.Force {
		force := true
		opts.Force = &force
	}
	if errs := validation.ValidatePatchOptions(opts, req.Type); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs)
	}
	return nil
}

// internalError is how the apiserver answers an error that is not a Status: 500, no reason, the
// error's text as the message.
func internalError(err error) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: err.Error(),
	}}
}

// asStatus returns err as a *StatusError, mapping other errors as the apiserver does.
func asStatus(err error) *apierrors.StatusError {
	if se, ok := err.(*apierrors.StatusError); ok {
		return se
	}
	if s, ok := err.(apierrors.APIStatus); ok {
		return &apierrors.StatusError{ErrStatus: s.Status()}
	}
	return internalError(err)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
