package fake

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	certificatesv1 "k8s.io/api/certificates/v1"
	"net/http"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/fake/internal/patch"
	"github.com/watchcache/watchcache/watchcache"
)

// optionsVersion is the group/version whose conversions decode metav1's write options from a
// query (metav1.AddToGroupVersion registers them in every version of client-go's scheme).
var optionsVersion = schema.GroupVersion{Version: "v1"}

// readJSONBody reads a create or update body and returns it as JSON, whatever the media type the
// request sent it in.
func readJSONBody(r *http.Request, t *resourceType) ([]byte, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	return bodyJSON(r, body, t)
}

// readJSONBodyStrict is readJSONBody that also returns the strict decoding problems the JSON no
// longer shows (bodyJSONStrict).
func readJSONBodyStrict(r *http.Request, t *resourceType) ([]byte, []string, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, nil, err
	}
	return bodyJSONStrict(r, body, t)
}

// readBody reads a request body up to the apiserver's limit.
func readBody(r *http.Request) ([]byte, error) {
	b, err := readAll(io.LimitReader(r.Body, maxBodyBytes+1), min(max(r.ContentLength, 0), maxBodyBytes))
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to read the body: %v", err))
	}
	if len(b) > maxBodyBytes {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", maxBodyBytes))
	}
	return b, nil
}

// readAll is io.ReadAll starting with room for size bytes and the read that finds the end: a
// request states its body's length (client-go's always do), and io.ReadAll starts at 512 bytes
// and grows.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the larger capacity
		}
	}
}

// dryRun reports whether the options ask for a dry run (validated to be "All" by then).
func dryRun(values []string) bool { return len(values) > 0 }

// strictness applies fieldValidation to a body's unknown or duplicate fields: Strict fails the
// request with the apiserver's 400; Warn (the default) returns them as warnings; Ignore drops them.
func strictness(t *resourceType, fieldValidation string, unknown []string) ([]string, error) {
	if len(unknown) == 0 {
		return nil, nil
	}
	switch fieldValidation {
	case metav1.FieldValidationIgnore:
		return nil, nil
	case metav1.FieldValidationStrict:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: strict decoding error: %s",
			t.gvk.Kind, t.gvk.Version, t.gvk.Kind, strings.Join(unknown, ", ")))
	default:
		// A YAML strict error lists one problem a line: each is a warning of its own.
		var out []string
		for _, u := range unknown {
			if rest, ok := strings.CutPrefix(u, "yaml: unmarshal errors:\n"); ok {
				for _, line := range strings.Split(rest, "\n") {
					out = append(out, strings.TrimSpace(line))
				}
				continue
			}
			out = append(out, u)
		}
		return out, nil
	}
}

// current returns the stored object of a resource, or nil when there is none: the newest version
// the cache holds, as a Get at resourceVersion "0" reads it, which never waits (ctx is not
// needed). It reads through Cache.Newest, which publishes no snapshot: a Get would publish one at
// every write, since the fake reads each object it writes (a create's commit checks that none is
// stored), and the next create would then copy the B-tree's nodes on its path.
func current(_ context.Context, r *served, namespace, name string) ([]byte, error) {
	b, ok, err := r.cache.Newest(namespace, name)
	if err != nil {
		return nil, internalError("read %s %s/%s: %v", r.gvr.Resource, namespace, name, err)
	}
	if !ok {
		return nil, nil
	}
	return b, nil
}

// commitLocked stores one change of an object as one event at the next resourceVersion, which it
// writes into the object's metadata first. The caller holds s.mu across its read of the object and
// this write (deletes, deletecollection, the namespace controller); writes that hold the object's
// lock instead use commit (lock.go).
func (s *Server) commitLocked(r *served, typ watchcache.EventType, obj runtime.Object) ([]byte, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, internalError("%s: %v", r.gvk.Kind, err)
	}
	rv := s.rv.Load() + 1
	m.SetResourceVersion(rvString(rv))
	b, err := encodeStored(r.resourceType, obj)
	if err != nil {
		return nil, err
	}
	if err := r.cache.Apply(watchcache.Event{Type: typ, Object: b, ResourceVersion: rv}); err != nil {
		return nil, internalError("store %s %s: %v", r.gvr.Resource, m.GetName(), err)
	}
	s.rv.Store(rv)
	s.committedLocked(r, typ, b, rv)
	return b, nil
}

// committedLocked runs what follows every stored change, under the lock that stored it: a custom
// resource's other versions and its CRD's bookkeeping, a CRD's serving, and the garbage
// collector's graph. The caller holds s.mu.
func (s *Server) committedLocked(r *served, typ watchcache.EventType, b []byte, rv uint64) {
	var gm gcMeta
	if s.gc != nil {
		gm = gcMetaOf(b)
	}
	s.committedMetaLocked(r, typ, b, rv, gm)
}

// committedMetaLocked is committedLocked with the collector's view of the object's metadata read
// before the lock was taken (gcMetaOf; anything when the collector is off), so that the parse
// does not lengthen the server-wide lock's hold.
func (s *Server) committedMetaLocked(r *served, typ watchcache.EventType, b []byte, rv uint64, gm gcMeta) {
	switch {
	case r.custom != nil:
		s.customCommittedLocked(r, typ, b, rv)
	case r.gvr.GroupResource() == crdGR:
		s.crdCommittedLocked(r, typ, b)
	}
	s.observeMetaLocked(r, typ, gm)
}

// admitNamespace is the apiserver's NamespaceLifecycle admission for a create in namespace ns: the
// namespace must exist (404 for the namespace) and must not be terminating (403 with the cause
// NamespaceTerminating). Like the admission plugin, it reads the namespace without a lock: a
// create racing the namespace's deletion may land in it, and the namespace controller deletes it.
func (s *Server) admitNamespace(ctx context.Context, r *served, ns, name string) error {
	if !r.namespaced || ns == "" {
		return nil
	}
	nsr := s.byGR[schema.GroupResource{Resource: "namespaces"}]
	b, err := current(ctx, nsr, "", ns)
	if err != nil {
		return err
	}
	if b == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, ns)
	}
	// Two fields decide, so they are looked up in the stored JSON: decoding the whole namespace
	// (its managedFields too) was a tenth of a create's CPU.
	if namespaceTerminating(b) {
		err := apierrors.NewForbidden(r.gvr.GroupResource(), name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", ns),
			Field:   "metadata.namespace",
		})
		return err
	}
	return nil
}

// namespaceTerminating reports whether a stored namespace is being deleted (a deletionTimestamp
// that is not null) or is in the Terminating phase.
func namespaceTerminating(b []byte) bool {
	// A view of the stored bytes, which never change: gjson.GetBytes would copy what it finds.
	j := unsafe.String(unsafe.SliceData(b), len(b))
	if dt := gjson.Get(j, "metadata.deletionTimestamp"); dt.Exists() && dt.Type != gjson.Null {
		return true
	}
	return gjson.Get(j, "status.phase").String() == string(corev1.NamespaceTerminating)
}

// validate runs the per-kind validation after the ObjectMeta causes the caller found (metaErrs),
// and then, when there are none, the user's validation hook. subresource is the written
// subresource ("" or "status"). As the apiserver's validators, it answers one 422 with the
// metadata causes first, then the kind's, each cause once: the apiserver validates some fields
// twice and lists them once (reference/observed-validation-workloads.md, wl-pod / update clears
// image and breaks a label).
func (s *Server) validate(ctx context.Context, op Operation, r *served, obj, old runtime.Object, name, subresource string, metaErrs field.ErrorList) error {
	errs := append(metaErrs, s.validateKind(ctx, op, r, obj, old, subresource)...)
	if len(errs) == 0 && s.opts.Validate != nil {
		errs = s.opts.Validate(op, r.gvr, obj, old)
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(eventsGroupKind(r.gvk.GroupKind()), name, declarativeLast(obj, uniqueCauses(errs)))
	}
	return nil
}

// uniqueCauses drops the errors that repeat an earlier one (type, field, value and detail). The
// apiserver's handwritten validators report some causes twice (an HPA metric's unsupported type,
// a quota scope unfit for a resource); it answers each once, as the declarative validation's
// filter of the handwritten causes goes through an aggregate error, which drops repeated messages.
func uniqueCauses(errs field.ErrorList) field.ErrorList {
	seen := make(map[string]bool, len(errs))
	out := errs[:0:0]
	for _, e := range errs {
		if k := e.Error(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// kindWarnings are the warnings a kind's strategy gives for an object it creates (old nil) or
// updates (WarningsOnCreate, WarningsOnUpdate): a persistent volume's deprecated Recycle policy,
// a new pod's spec and a template's (podWarnings; a template's on update only when the spec
// changes, as its generation does), a TLS secret's pair that does not load, a CSI driver's token
// requests without serviceAccountTokenInSecrets, a webhook configuration's matchConditions when
// the fake does not evaluate them (matchConditionWarnings).
func (s *Server) kindWarnings(obj, old runtime.Object) []string {
	if s.opts.WebhookMatchConditions == nil {
		if w := matchConditionWarnings(obj); w != nil {
			return w
		}
	}
	template := func(t *corev1.PodTemplateSpec, prefix *field.Path) []string {
		if t == nil || (old != nil && !specChanged(obj, old)) {
			return nil
		}
		return podWarnings(&t.Spec, t.Annotations, prefix)
	}
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		if o.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
			return []string{"spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."}
		}
	case *corev1.Pod:
		// The pod strategy warns on create only: pods are updated often, and by controllers.
		if old == nil {
			return podWarnings(&o.Spec, o.Annotations, nil)
		}
	case *corev1.PodTemplate:
		if old != nil && equality.Semantic.DeepEqual(o.Template, old.(*corev1.PodTemplate).Template) {
			return nil
		}
		return podWarnings(&o.Template.Spec, o.Template.Annotations, field.NewPath("template"))
	case *corev1.ReplicationController:
		return template(o.Spec.Template, field.NewPath("spec", "template"))
	case *appsv1.Deployment:
		return template(&o.Spec.Template, field.NewPath("spec", "template"))
	case *appsv1.ReplicaSet:
		return template(&o.Spec.Template, field.NewPath("spec", "template"))
	case *appsv1.StatefulSet:
		return template(&o.Spec.Template, field.NewPath("spec", "template"))
	case *appsv1.DaemonSet:
		return template(&o.Spec.Template, field.NewPath("spec", "template"))
	case *batchv1.Job:
		return template(&o.Spec.Template, field.NewPath("spec", "template"))
	case *batchv1.CronJob:
		return template(&o.Spec.JobTemplate.Spec.Template, field.NewPath("spec", "jobTemplate", "spec", "template"))
	case *storagev1.CSIDriver:
		// The strategy warns on update only when the token requests change.
		if old != nil && equality.Semantic.DeepEqual(o.Spec.TokenRequests, old.(*storagev1.CSIDriver).Spec.TokenRequests) {
			return nil
		}
		if len(o.Spec.TokenRequests) > 0 && o.Spec.ServiceAccountTokenInSecrets == nil {
			return []string{csiDriverTokenWarning}
		}
	case *corev1.Secret:
		if o.Type != corev1.SecretTypeTLS {
			return nil
		}
		// The strategy sees the data with stringData merged in, as decoding merges it.
		data := func(k string) []byte {
			if v, ok := o.StringData[k]; ok {
				return []byte(v)
			}
			return o.Data[k]
		}
		if _, err := tls.X509KeyPair(data(corev1.TLSCertKey), data(corev1.TLSPrivateKeyKey)); err != nil {
			return []string{err.Error()}
		}
	case *corev1.PersistentVolumeClaim:
		var out []string
		for _, l := range []struct {
			name string
			list corev1.ResourceList
		}{{"requests", o.Spec.Resources.Requests}, {"limits", o.Spec.Resources.Limits}} {
			if q := l.list[corev1.ResourceStorage]; q.MilliValue()%1000 != 0 {
				out = append(out, fmt.Sprintf("spec.resources.%s[storage]: fractional byte value %q is invalid, must be an integer", l.name, q.String()))
			}
		}
		return out
	}
	return nil
}

// create serves POST on a collection.
func (s *Server) create(w http.ResponseWriter, r *http.Request, t target) {
	if !t.res.hasVerb("create") {
		writeError(w, methodNotSupported(t, r.Method))
		return
	}
	var opts metav1.CreateOptions
	if err := decodeOptions(r, &opts); err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	// Options a client left empty (most do) are valid, and their validation allocates.
	if opts.FieldManager != "" || opts.DryRun != nil || opts.FieldValidation != "" {
		if errs := metav1validation.ValidateCreateOptions(&opts); len(errs) > 0 {
			writeError(w, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "CreateOptions"}, "", errs))
			return
		}
	}
	body, problems, err := readJSONBodyStrict(r, t.res.resourceType)
	if err != nil {
		writeError(w, err)
		return
	}
	t.bodyProblems = problems
	t.admit = writeAdmission(r, opts.DryRun, opts.FieldManager, opts.FieldValidation)
	ctx := r.Context()
	if isCSR(t) {
		ctx = s.withRequester(r, t)
	}
	obj, warnings, err := s.createObject(ctx, t, body, opts, patch.ManagerFromUserAgent(r.UserAgent()))
	// Warnings go with a refusal too: the apiserver sends those its handler, the strategy and the
	// webhooks gave before the write failed, the webhooks' last.
	addWarnings(w, warnings)
	addWarnings(w, t.admit.warnings)
	if err != nil {
		writeError(w, err)
		return
	}
	writeBody(w, http.StatusCreated, obj)
}

// createObject decodes, admits, validates and stores a new object, returning its JSON as stored
// (or as it would be, for a dry run) and the warnings for the client.
func (s *Server) createObject(ctx context.Context, t target, body []byte, opts metav1.CreateOptions, defaultManager string) ([]byte, []string, error) {
	r := t.res
	d, err := decodeBody(r.resourceType, body)
	if err != nil {
		return nil, nil, err
	}
	warnings, err := strictness(r.resourceType, opts.FieldValidation, append(t.bodyProblems, d.unknown...))
	if err != nil {
		return nil, nil, err
	}
	m, err := meta.Accessor(d.obj)
	if err != nil {
		return nil, nil, internalError("%s: %v", r.gvk.Kind, err)
	}
	if err := matchNamespace(r, t.namespace, m); err != nil {
		return nil, nil, err
	}
	if m.GetResourceVersion() != "" {
		// The storage layer's error, which the apiserver answers as a bare 500.
		return nil, nil, statusError(http.StatusInternalServerError, "", "resourceVersion should not be set on objects to be created")
	}
	manager := opts.FieldManager
	if manager == "" {
		manager = defaultManager
	}
	// As the apiserver's handler, the field manager sees the object as decoded and defaulted, before
	// the strategy, admission and the registry add what no manager owns.
	if err := s.trackCreate(r, d.obj, manager); err != nil {
		return nil, nil, err
	}
	if err := s.admitNamespace(ctx, r, m.GetNamespace(), m.GetName()); err != nil {
		return nil, nil, err
	}
	if err := admitCustom(r, m.GetName()); err != nil {
		return nil, nil, err
	}
	if d.obj, m, err = s.admitNew(ctx, t, d.obj, m); err != nil {
		return nil, nil, err
	}
	// The strategy warns about the object as admission left it.
	kind := s.kindWarnings(d.obj, nil)
	generated := m.GetName() == "" && m.GetGenerateName() != ""
	for attempt := 0; ; attempt++ {
		obj, om := d.obj, m
		if generated {
			// Each attempt starts from the object as decoded, as the apiserver's retries do: an
			// attempt's service allocation does not carry over.
			obj = d.obj.DeepCopyObject()
			om, _ = meta.Accessor(obj)
			om.SetName(s.generateName(m.GetGenerateName()))
		}
		unlock := s.lockForAdmission(&t, om.GetNamespace(), om.GetName())
		b, err := s.createHeld(ctx, t, obj, om, dryRun(opts.DryRun), true)
		unlock()
		if !generated || !isAlreadyExists(err) || attempt+1 >= generateNameAttempts {
			if err == nil || errors.As(err, new(validatedError)) {
				// The strategy's warnings come after its validation, before validating
				// admission and storage, whose refusals carry them.
				warnings = append(warnings, kind...)
			}
			return b, warnings, err
		}
	}
}

// admitNew runs a new object through the mutating admission the fake reproduces, in the
// apiserver's order — LimitRanger's defaults, Priority (which reads what a pod states before
// admitCreate's defaults), the other built-in plugins (admitCreate), then the mutating webhooks,
// which see the object before the registry fills in its uid and creation time — and then the
// registry's create preparation. Every create path takes it: a POST, a PUT that creates, an apply
// of a missing object.
func (s *Server) admitNew(ctx context.Context, t target, obj runtime.Object, m metav1Object) (runtime.Object, metav1Object, error) {
	s.admitLimitRanges(ctx, obj)
	if err := s.admitPriority(ctx, obj); err != nil {
		return nil, nil, err
	}
	admitCreate(obj, m)
	obj, m, err := s.mutateCreate(t, obj)
	if err != nil {
		return nil, nil, err
	}
	s.fillSystemFields(m)
	prepareCreate(t.res.resourceType, obj, m)
	if csr, ok := obj.(*certificatesv1.CertificateSigningRequest); ok {
		prepareCSRCreate(ctx, csr)
	}
	return obj, m, nil
}

// createNamed admits, validates and stores a new object of a name that does not exist, whose
// managedFields and system fields are set and whose strategy ran. The caller holds the object's
// lock, unless webhooks are configured (lockForAdmission).
func (s *Server) createNamed(ctx context.Context, t target, obj runtime.Object, m metav1Object, dry bool) ([]byte, error) {
	if err := s.admitNamespace(ctx, t.res, m.GetNamespace(), m.GetName()); err != nil {
		return nil, err
	}
	return s.createHeld(ctx, t, obj, m, dry, false)
}

// validatedError is the refusal of a write that passed validation: by validating admission or
// storage (a name that exists).
type validatedError struct{ error }

func (e validatedError) Unwrap() error { return e.error }

// createHeld validates and stores a new object whose namespace was admitted, in the apiserver's
// order: a service's allocation, then one 422 of ObjectMeta's and the kind's causes, then (when
// checkExists; the caller may have looked already) the 409 of a name that exists. The caller holds
// the object's lock, unless webhooks are configured (lockForAdmission): a validating webhook
// that creates the object itself makes the commit answer that 409, as etcd's create does.
func (s *Server) createHeld(ctx context.Context, t target, obj runtime.Object, m metav1Object, dry, checkExists bool) ([]byte, error) {
	r := t.res
	if svc, ok := obj.(*corev1.Service); ok {
		release, err := s.admitService(contextBackground(), r, svc, nil)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	if err := s.validate(contextBackground(), Create, r, obj, nil, m.GetName(), "", validateMeta(r.resourceType, m)); err != nil {
		return nil, err
	}
	if err := s.admitValidating(ctx, t, admissionv1.Create, obj, nil, dry); err != nil {
		return nil, validatedError{err}
	}
	if j, ok := obj.(*batchv1.Job); ok {
		// The apiserver answers with the job it stored, read back and defaulted again
		// (reference/observed-defaults.md, job: the template's generated labels are the job's).
		defaultJobLabels(j)
	}
	if dry {
		if checkExists {
			cur, err := current(ctx, r, m.GetNamespace(), m.GetName())
			if err != nil {
				return nil, err
			}
			if cur != nil {
				return nil, validatedError{alreadyExists(r, m.GetName())}
			}
		}
		return encodeStored(r.resourceType, obj)
	}
	// commit finds a name that exists (it compares the stored object with none under the
	// server-wide lock) and answers its 409, so a write does not read the cache for it first.
	var b []byte
	var err error
	if t.lockCommit {
		b, err = s.commitLocking(r, watchcache.Added, obj, nil, nil)
	} else {
		b, err = s.commit(r, watchcache.Added, obj, nil)
	}
	if checkExists && isAlreadyExists(err) {
		return nil, validatedError{err}
	}
	return b, err
}

// admitValidating runs the validating admission the fake reproduces, after validation, in the
// apiserver's order: LimitRanger's bounds, Priority's one global default class, the validating
// webhooks, then ResourceQuota (the last), which charges the write unless dry. old is nil on
// create.
func (s *Server) admitValidating(ctx context.Context, t target, op admissionv1.Operation, obj, old runtime.Object, dry bool) error {
	r, subresource := t.res, t.subresource
	if err := s.checkLimitRanges(ctx, r, obj, old, subresource); err != nil {
		return err
	}
	if subresource == "" {
		if err := s.admitPriorityClass(ctx, obj); err != nil {
			return err
		}
	}
	if err := s.admitClaimResize(ctx, obj, old, subresource); err != nil {
		return err
	}
	if err := s.admitResize(ctx, t, obj, old); err != nil {
		return err
	}
	if err := s.validateWebhooks(t, op, obj, old); err != nil {
		return err
	}
	return s.admitQuota(ctx, r, obj, old, subresource, dry)
}

// alreadyExists is the apiserver's 409 for a create of a name that exists.
func alreadyExists(r *served, name string) error {
	return apierrors.NewAlreadyExists(r.gvr.GroupResource(), name)
}

// conflict is the apiserver's 409 for a write made against a version that is no longer stored.
func conflict(r *served, name string) error {
	return apierrors.NewConflict(r.gvr.GroupResource(), name, fmt.Errorf("%s", optimisticLockMessage))
}

// matchNamespace is the apiserver's EnsureObjectNamespaceMatchesRequestNamespace: an object
// without a namespace gets the request's, a cluster-scoped one none, and a different one is 400.
func matchNamespace(r *served, requestNamespace string, m metav1Object) error {
	if !r.namespaced {
		requestNamespace = ""
	}
	switch ns := m.GetNamespace(); {
	case ns == requestNamespace:
	case ns == "":
		m.SetNamespace(requestNamespace)
	case requestNamespace == "":
		m.SetNamespace("")
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// isAlreadyExists is apierrors.IsAlreadyExists, which allocates its errors.As target even for a
// nil error, the answer of nearly every create.
func isAlreadyExists(err error) bool {
	return err != nil && apierrors.IsAlreadyExists(err)
}

// decodeOptions decodes a write's query into its options (CreateOptions, UpdateOptions). A query
// clients leave empty (client-go sends none for empty options) decodes to nothing, as
// DecodeParameters returns at once for no parameters, without parsing it into a map first.
func decodeOptions(r *http.Request, opts runtime.Object) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	return scheme.ParameterCodec.DecodeParameters(r.URL.Query(), optionsVersion, opts)
}
