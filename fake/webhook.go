package fake

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/fake/internal/patch"
	"github.com/watchcache/watchcache/watchcache"
)

// Admission webhooks: the fake calls the MutatingWebhookConfigurations and
// ValidatingWebhookConfigurations it stores as kube-apiserver 1.37.2's MutatingAdmissionWebhook
// and ValidatingAdmissionWebhook plugins do (reference/observed-webhooks.md): for the creates,
// updates (PUT and every patch, server-side apply included), deletes and deletecollections sent
// to the API, on the objects and the subresources the webhooks' rules name. Mutating webhooks run
// after the fake's other admission and before validation, in the order of their configurations'
// names, their JSON patches applied, and those with reinvocationPolicy IfNeeded called once more
// when a later webhook changed the object; validating webhooks run after validation. This file
// chooses and orders the webhooks; webhook_call.go calls one.
//
// Writes the fake makes itself (its garbage collector and namespace controller, Store,
// Options.Objects), service accounts' tokens and custom resources' scale subresource call no
// webhook; pods' bindings and evictions do (admitComputed).

var (
	mutatingWebhooksGR   = schema.GroupResource{Group: admissionregistrationv1.GroupName, Resource: "mutatingwebhookconfigurations"}
	validatingWebhooksGR = schema.GroupResource{Group: admissionregistrationv1.GroupName, Resource: "validatingwebhookconfigurations"}
)

// webhookUser is who the webhooks are told sends every request: the fake authenticates nobody,
// and its clients act as a cluster's admin.
var webhookUser = authenticationv1.UserInfo{Username: "admin", UID: "6d1c1b6e-3f0e-4a51-9d8e-0a2b7c4f5e10", Groups: []string{"system:masters", "system:authenticated"}}

// admissionRequest is what a write sent to the API tells its webhooks beyond the object: the
// request's options, where its warnings go, and whether it is one delete of a deletecollection
// (whose reviews name no object, as the apiserver's). A nil *admissionRequest is a write the fake
// makes itself, which calls no webhook.
type admissionRequest struct {
	ctx context.Context
	// w receives the webhooks' warnings as Warning headers; when nil, they are kept in warnings
	// for the handler, which sends them after the write's own (those of its decoding).
	w                             http.ResponseWriter
	warnings                      []string
	dryRun                        []string
	fieldManager, fieldValidation string
	deleteOptions                 *metav1.DeleteOptions
	collection                    bool
}

// writeAdmission is the admissionRequest of a create, update or patch with these options; the
// handler sends its warnings.
func writeAdmission(r *http.Request, dryRun []string, fieldManager, fieldValidation string) *admissionRequest {
	return &admissionRequest{ctx: r.Context(), dryRun: dryRun, fieldManager: fieldManager, fieldValidation: fieldValidation}
}

// isDryRun reports whether the request is a dry run (its options', or its DeleteOptions').
func (a *admissionRequest) isDryRun() bool {
	return dryRun(a.dryRun) || (a.deleteOptions != nil && dryRun(a.deleteOptions.DryRun))
}

// warn passes a webhook's warnings to the client.
func (a *admissionRequest) warn(warnings []string) {
	if a.w != nil {
		addWarnings(a.w, warnings)
		return
	}
	a.warnings = append(a.warnings, warnings...)
}

// operationOptions are the options the webhooks of op receive: a patch's become UpdateOptions, or
// CreateOptions for an apply that creates, as the apiserver converts them.
func (a *admissionRequest) operationOptions(op admissionv1.Operation) runtime.Object {
	tm := func(kind string) metav1.TypeMeta { return metav1.TypeMeta{Kind: kind, APIVersion: "meta.k8s.io/v1"} }
	switch op {
	case admissionv1.Create:
		return &metav1.CreateOptions{TypeMeta: tm("CreateOptions"), DryRun: a.dryRun, FieldManager: a.fieldManager, FieldValidation: a.fieldValidation}
	case admissionv1.Update:
		return &metav1.UpdateOptions{TypeMeta: tm("UpdateOptions"), DryRun: a.dryRun, FieldManager: a.fieldManager, FieldValidation: a.fieldValidation}
	}
	opts := metav1.DeleteOptions{}
	if a.deleteOptions != nil {
		opts = *a.deleteOptions
	}
	opts.TypeMeta = tm("DeleteOptions")
	return &opts
}

// webhook is one webhook of a configuration, mutating or validating.
type webhook struct {
	configuration string
	mutating      bool
	name          string
	clientConfig  admissionregistrationv1.WebhookClientConfig
	rules         []admissionregistrationv1.RuleWithOperations
	failurePolicy *admissionregistrationv1.FailurePolicyType
	namespaceSel  *metav1.LabelSelector
	objectSel     *metav1.LabelSelector
	sideEffects   *admissionregistrationv1.SideEffectClass
	timeout       *int32
	reinvoke      bool
	// matchConditions are evaluated by Options.WebhookMatchConditions (conditionsHold).
	matchConditions []admissionregistrationv1.MatchCondition
}

// ignoresFailures says a failure to call the webhook lets the request through.
func (h *webhook) ignoresFailures() bool {
	return h.failurePolicy != nil && *h.failurePolicy == admissionregistrationv1.Ignore
}

// webhooks returns the stored webhooks of one kind, configurations in name order and each
// configuration's webhooks in their order, as the apiserver calls them.
func (s *Server) webhooks(ctx context.Context, mutating bool) ([]webhook, error) {
	gr := validatingWebhooksGR
	if mutating {
		gr = mutatingWebhooksGR
	}
	r := s.servedGR(gr)
	if r == nil || r.cache.Len() == 0 {
		return nil, nil // the common case, a write without webhooks, costs no list
	}
	page, err := r.cache.List(ctx, watchcache.ListOptions{ResourceVersion: "0"})
	if err != nil || len(page.Items) == 0 {
		return nil, err
	}
	var out []webhook
	for _, it := range page.Items {
		obj, err := decodeStored(r.resourceType, it)
		if err != nil {
			return nil, err
		}
		switch c := obj.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			for _, h := range c.Webhooks {
				out = append(out, webhook{configuration: c.Name, mutating: true, name: h.Name, clientConfig: h.ClientConfig,
					rules: h.Rules, failurePolicy: h.FailurePolicy, namespaceSel: h.NamespaceSelector, objectSel: h.ObjectSelector,
					sideEffects: h.SideEffects, timeout: h.TimeoutSeconds, matchConditions: h.MatchConditions,
					reinvoke: h.ReinvocationPolicy != nil && *h.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy})
			}
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			for _, h := range c.Webhooks {
				out = append(out, webhook{configuration: c.Name, name: h.Name, clientConfig: h.ClientConfig,
					rules: h.Rules, failurePolicy: h.FailurePolicy, namespaceSel: h.NamespaceSelector, objectSel: h.ObjectSelector,
					sideEffects: h.SideEffects, timeout: h.TimeoutSeconds, matchConditions: h.MatchConditions})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b webhook) int { return strings.Compare(a.configuration, b.configuration) })
	return out, nil
}

// anyWebhooks reports whether a webhook configuration is stored.
func (s *Server) anyWebhooks() bool {
	return s.mayHaveWebhooks(true) || s.mayHaveWebhooks(false)
}

// mayHaveWebhooks reports whether a configuration of mutating (else validating) webhooks is
// stored, which webhooks lists: without one, a write's admission builds no attributes.
func (s *Server) mayHaveWebhooks(mutating bool) bool {
	gr := validatingWebhooksGR
	if mutating {
		gr = mutatingWebhooksGR
	}
	r := s.servedGR(gr)
	return r != nil && r.cache.Len() > 0
}

// admissionAttributes are what a webhook is matched against and told: the operation on an object
// (or, for a delete, the old object alone) of a resource.
type admissionAttributes struct {
	op  admissionv1.Operation
	res *served
	// typ is the objects' kind and encoding: the resource's, or a Scale's for a scale
	// subresource; gvr is the resource the request names (the bindings collection is a
	// resource of its own, served by pods' binding).
	typ         *resourceType
	gvr         schema.GroupVersionResource
	subresource string
	name        string
	namespace   string
	obj, old    runtime.Object
}

// ruleMatches reports whether one of the rules names the operation on the resource (the
// apiserver's rules.Matcher): operations, API groups and versions with "*"; resources as
// "name", "name/subresource", "*" (no subresource), "*/sub", "name/*" and "*/*"; the scope, where
// a namespace counts as cluster-scoped. Rules name the version the fake serves: a rule of another
// version of the same resource matches nothing (the fake has no conversions to send it in that
// version), whatever the matchPolicy.
func ruleMatches(rules []admissionregistrationv1.RuleWithOperations, op admissionv1.Operation, gvr schema.GroupVersionResource, subresource string, namespaced bool) bool {
	for _, r := range rules {
		if !anyOf(r.Operations, admissionregistrationv1.OperationType(op), admissionregistrationv1.OperationAll) ||
			!anyOf(r.APIGroups, gvr.Group, "*") || !anyOf(r.APIVersions, gvr.Version, "*") {
			continue
		}
		resourceOK := false
		for _, res := range r.Resources {
			name, sub, _ := strings.Cut(res, "/")
			if (name == "*" || name == gvr.Resource) && (sub == "*" || sub == subresource) {
				resourceOK = true
				break
			}
		}
		if !resourceOK {
			continue
		}
		isNamespace := gvr.Group == "" && gvr.Resource == "namespaces"
		switch {
		case r.Scope == nil || *r.Scope == admissionregistrationv1.AllScopes:
		case *r.Scope == admissionregistrationv1.NamespacedScope && (!namespaced || isNamespace):
			continue
		case *r.Scope == admissionregistrationv1.ClusterScope && namespaced && !isNamespace:
			continue
		}
		return true
	}
	return false
}

// exemptFromWebhooks reports whether writes of the kind call no webhook: the admission
// configuration kinds, so that a webhook cannot keep itself from being changed or removed (the
// apiserver's IsExemptAdmissionConfigurationResource).
func exemptFromWebhooks(gvk schema.GroupVersionKind) bool {
	if gvk.Group != admissionregistrationv1.GroupName {
		return false
	}
	switch gvk.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}

// anyOf reports whether list holds one of the values.
func anyOf[T comparable](list []T, values ...T) bool {
	for _, v := range values {
		if slices.Contains(list, v) {
			return true
		}
	}
	return false
}

// selects reports whether a webhook's label selector selects an object's labels; a nil selector
// selects everything, as the defaulted empty one does.
func selects(sel *metav1.LabelSelector, set map[string]string) (bool, error) {
	if sel == nil {
		return true, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(set)), nil
}

// labelsOf returns an object's labels, nil for no object.
func labelsOf(obj runtime.Object) map[string]string {
	if obj == nil {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return m.GetLabels()
}

// matches reports whether the webhook is called for the attributes: its rules, then its
// namespaceSelector (the labels of the object's namespace; of the object itself for a namespace;
// not applied to other cluster-scoped objects), then its objectSelector (the new or the old
// object's labels), then its matchConditions (conditionsHold).
func (s *Server) matches(adm *admissionRequest, h *webhook, a *admissionAttributes) (bool, error) {
	ctx := adm.ctx
	if exemptFromWebhooks(a.typ.gvk) || !ruleMatches(h.rules, a.op, a.gvr, a.subresource, a.res.namespaced) {
		return false, nil
	}
	var nsLabels map[string]string
	switch {
	case a.res.gvr.GroupResource() == namespacesGR && a.res.custom == nil:
		nsLabels = labelsOf(a.obj)
		if a.obj == nil {
			nsLabels = labelsOf(a.old)
		}
	case a.res.namespaced && a.namespace != "":
		b, err := current(ctx, s.servedGR(namespacesGR), "", a.namespace)
		if err != nil {
			return false, err
		}
		if b != nil {
			ns, err := decodeStored(s.servedGR(namespacesGR).resourceType, b)
			if err != nil {
				return false, err
			}
			nsLabels = labelsOf(ns)
		}
	}
	if a.res.namespaced || a.res.gvr.GroupResource() == namespacesGR {
		ok, err := selects(h.namespaceSel, nsLabels)
		if err != nil || !ok {
			return false, apiInternal(err)
		}
	}
	okNew, err := selects(h.objectSel, labelsOf(a.obj))
	if err != nil {
		return false, apiInternal(err)
	}
	okOld, err := selects(h.objectSel, labelsOf(a.old))
	if err != nil {
		return false, apiInternal(err)
	}
	if (a.obj == nil || !okNew) && (a.old == nil || !okOld) {
		return false, nil
	}
	return s.conditionsHold(adm, h, a)
}

// apiInternal is the apiserver's 500 for an unexpected error, nil for nil.
func apiInternal(err error) error {
	if err == nil {
		return nil
	}
	return apierrors.NewInternalError(err)
}

// mutate runs the mutating webhooks that match the write on obj and returns the object they
// made (obj itself when none changed it). Those with reinvocationPolicy IfNeeded are called a
// second time, once, when a webhook after them changed the object.
func (s *Server) mutate(t target, op admissionv1.Operation, obj, old runtime.Object) (runtime.Object, error) {
	if t.admit == nil || !s.mayHaveWebhooks(true) {
		return obj, nil
	}
	return s.mutateAttributes(t, t.attributes(op, obj, old))
}

// mutateAttributes is mutate of the attributes' object.
func (s *Server) mutateAttributes(t target, a *admissionAttributes) (runtime.Object, error) {
	hooks, err := s.webhooks(t.admit.ctx, true)
	if err != nil || len(hooks) == 0 {
		return a.obj, err
	}
	var reinvoke []int // the IfNeeded webhooks called so far, then those to call again
	again := map[int]bool{}
	for i := range hooks {
		called, changed, err := s.callIfMatches(t, &hooks[i], a)
		if err != nil {
			return nil, err
		}
		if changed {
			for _, j := range reinvoke {
				again[j] = true
			}
		}
		if called && hooks[i].reinvoke {
			reinvoke = append(reinvoke, i)
		}
	}
	for i := range hooks {
		// The second call is matched again, on the object as it now is: a webhook the changes
		// took out of its selectors is not called again (nor is one they brought in called at
		// all), as in the apiserver's reinvocation.
		if again[i] {
			if _, _, err := s.callIfMatches(t, &hooks[i], a); err != nil {
				return nil, err
			}
		}
	}
	return a.obj, nil
}

// callIfMatches calls a mutating webhook if it matches the attributes, saying whether it did and
// whether it changed the object.
func (s *Server) callIfMatches(t target, h *webhook, a *admissionAttributes) (called, changed bool, err error) {
	ok, err := s.matches(t.admit, h, a)
	if err != nil || !ok {
		return false, false, err
	}
	changed, err = s.callMutating(t, h, a)
	return true, changed, err
}

// validateWebhooks runs the validating webhooks that match the write; the first refusal, in the
// webhooks' order, fails it. The apiserver calls them in parallel and answers with one of their
// refusals, so its answer differs only when two refuse.
func (s *Server) validateWebhooks(t target, op admissionv1.Operation, obj, old runtime.Object) error {
	if t.admit == nil || !s.mayHaveWebhooks(false) {
		return nil
	}
	return s.validateAttributes(t, t.attributes(op, obj, old))
}

// validateAttributes is validateWebhooks of the attributes.
func (s *Server) validateAttributes(t target, a *admissionAttributes) error {
	hooks, err := s.webhooks(t.admit.ctx, false)
	if err != nil || len(hooks) == 0 {
		return err
	}
	// All are matched before any is called, as the apiserver's dispatcher does: a matchCondition
	// that fails to evaluate refuses the request before a webhook can.
	var relevant []*webhook
	for i := range hooks {
		ok, err := s.matches(t.admit, &hooks[i], a)
		if err != nil {
			return err
		}
		if ok {
			relevant = append(relevant, &hooks[i])
		}
	}
	for _, h := range relevant {
		if _, err := s.call(t.admit, h, a); err != nil {
			return err
		}
	}
	return nil
}

// admitDelete runs the webhooks of a delete of the stored object t names (t.name, or name within
// a deletecollection) on the object as stored: mutating ones (which may not patch it), then
// validating ones; it returns the stored object they saw. A missing object, or one whose
// preconditions fail, calls none: the delete answers for it.
//
// again says the object changed since the last admission of this delete: the apiserver's storage
// delete runs the admission (mutating and validating webhooks both, AdmissionToValidateObjectDeleteFunc)
// in its precondition check and runs the check again after its compare failed, where a
// precondition the object now fails is the storage's conflict.
func (s *Server) admitDelete(t target, name string, opts *metav1.DeleteOptions, again bool) ([]byte, error) {
	if t.admit == nil {
		return nil, nil
	}
	cur, err := current(t.admit.ctx, t.res, t.namespace, name)
	if err != nil || cur == nil {
		return nil, nil
	}
	old, err := decodeStored(t.res.resourceType, cur)
	if err != nil {
		return nil, err
	}
	m, _ := meta.Accessor(old)
	if p := opts.Preconditions; p != nil && ((p.UID != nil && *p.UID != m.GetUID()) || (p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion())) {
		if again {
			return nil, storagePreconditionFailed(t.res, t.namespace, name, p, m)
		}
		return nil, nil
	}
	t.name = name
	if t.res.gvr.GroupResource() == namespacesGR && (opts.Preconditions == nil || opts.Preconditions.UID == nil) {
		// The namespace registry's delete makes its uid a precondition before admission.
		c := *opts
		c.Preconditions = &metav1.Preconditions{UID: ptrTo(m.GetUID())}
		if opts.Preconditions != nil {
			c.Preconditions.ResourceVersion = opts.Preconditions.ResourceVersion
		}
		opts = &c
	}
	t.admit.deleteOptions = opts
	if _, err := s.mutate(t, admissionv1.Delete, nil, old); err != nil {
		return nil, err
	}
	return cur, s.validateWebhooks(t, admissionv1.Delete, nil, old)
}

// storagePreconditionFailed is the storage layer's conflict of a delete whose preconditions the
// object, read again after it changed, fails: worded as etcd3's Preconditions.Check, not as the
// registry's check of the object it read first.
func storagePreconditionFailed(r *served, namespace, name string, p *metav1.Preconditions, m metav1.Object) error {
	what, want, got := "ResourceVersion", "", m.GetResourceVersion()
	if p.UID != nil && *p.UID != m.GetUID() {
		what, want, got = "UID", string(*p.UID), string(m.GetUID())
	} else if p.ResourceVersion != nil {
		want = *p.ResourceVersion
	}
	return apierrors.NewConflict(r.gvr.GroupResource(), name,
		fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: %s in precondition: %v, %s in object meta: %v",
			storageKey(r, namespace, name), what, want, what, got))
}

// attributes are the target's attributes for an operation on obj (old, for an update or a
// delete). A deletecollection's deletes name no object, as the apiserver's.
func (t target) attributes(op admissionv1.Operation, obj, old runtime.Object) *admissionAttributes {
	a := &admissionAttributes{op: op, res: t.res, typ: t.res.resourceType, gvr: t.res.gvr, subresource: t.subresource, name: t.name, namespace: t.namespace, obj: obj, old: old}
	if obj != nil {
		if m, err := meta.Accessor(obj); err == nil {
			a.name = m.GetName()
		}
	}
	switch {
	case t.res.gvr.GroupResource() == namespacesGR && t.res.custom == nil:
		a.namespace = a.name // a namespace is in itself, for the apiserver's admission
	case !t.res.namespaced:
		a.namespace = ""
	}
	if t.admit.collection {
		a.name = ""
	}
	return a
}

// mutateCreate runs the mutating webhooks of a create on obj and returns the object they made and
// its metadata.
func (s *Server) mutateCreate(t target, obj runtime.Object) (runtime.Object, metav1Object, error) {
	obj, err := s.mutate(t, admissionv1.Create, obj, nil)
	if err != nil {
		return nil, nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, apiInternal(err)
	}
	return obj, m, nil
}

// mutateUpdate runs the mutating webhooks of an update on obj, as sent, and returns the object
// they made.
func (s *Server) mutateUpdate(t target, obj, old runtime.Object) (runtime.Object, error) {
	return s.mutate(t, admissionv1.Update, obj, old)
}

// mutateScale runs the mutating webhooks of an update of a scale subresource on the Scale: the
// apiserver's webhooks of "*/scale" see Scales (without their managed fields), not the parent
// object. It returns the Scale they made, with sc's managed fields.
func (s *Server) mutateScale(t target, sc, old *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	if t.admit == nil {
		return sc, nil
	}
	obj, err := s.mutateAttributes(t, scaleAttributes(t, sc, old, true))
	if err != nil {
		return nil, err
	}
	out, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		return nil, internalError("webhooks made a %T of a Scale", obj)
	}
	out.ManagedFields = sc.ManagedFields
	return out, nil
}

// validateScale runs the validating webhooks of an update of a scale subresource on the Scale.
func (s *Server) validateScale(t target, sc, old *autoscalingv1.Scale) error {
	if t.admit == nil {
		return nil
	}
	return s.validateAttributes(t, scaleAttributes(t, sc, old, false))
}

// scaleAttributes are the attributes of an update of a Scale. The apiserver's mutating webhooks
// get the Scales the update handler made, with managedFields (the old one's converted from the
// parent's, the new one's tracked on the Scale); its validating webhooks get Scales it builds
// again from the old and new parent, whose metadata is the parent's name, namespace, uid,
// resourceVersion and creationTimestamp only (reference/observed-webhook-retry.md, "wrscale";
// observed-webhooks.md, "whsubresources").
func scaleAttributes(t target, sc, old *autoscalingv1.Scale, managed bool) *admissionAttributes {
	strip := func(sc *autoscalingv1.Scale) *autoscalingv1.Scale {
		if managed {
			return sc
		}
		c := sc.DeepCopy()
		c.ManagedFields = nil
		return c
	}
	a := t.attributes(admissionv1.Update, strip(sc), strip(old))
	a.typ = scaleType
	return a
}

// admitComputed runs the webhooks of a create of a pod's binding or eviction on its body,
// decoded as typ, and returns the body the mutating ones made. A body that does not decode calls
// no webhook: the subresource answers for it.
func (s *Server) admitComputed(r *http.Request, w http.ResponseWriter, t target, typ *resourceType, body []byte, opts metav1.CreateOptions) ([]byte, error) {
	if !s.anyWebhooks() {
		return body, nil
	}
	d, err := decodeBody(typ, body)
	if err != nil {
		return body, nil
	}
	m, err := meta.Accessor(d.obj)
	if err != nil {
		return body, nil
	}
	if m.GetNamespace() == "" {
		m.SetNamespace(t.namespace)
	}
	sent := d.obj
	if typ == bindingType && s.fields != nil {
		// The binding's create handler tracks the Binding's fields (the webhooks see its
		// managedFields; the eviction's does not), which the binding itself does not store.
		manager := opts.FieldManager
		if manager == "" {
			manager = patch.ManagerFromUserAgent(r.UserAgent())
		}
		if out, err := s.fields.UpdateObject(nil, d.obj, typ.gvk, t.subresource, manager); err == nil {
			sent = out
		}
	}
	t.admit = &admissionRequest{ctx: r.Context(), w: w, dryRun: opts.DryRun, fieldManager: opts.FieldManager, fieldValidation: opts.FieldValidation}
	a := t.attributes(admissionv1.Create, sent, nil)
	a.typ = typ
	if t.subresource == "binding" && t.name == "" {
		a.gvr, a.subresource = corev1.SchemeGroupVersion.WithResource("bindings"), ""
	}
	obj, err := s.mutateAttributes(t, a)
	if err != nil {
		return nil, err
	}
	if err := s.validateAttributes(t, a); err != nil {
		return nil, err
	}
	if obj == sent {
		return body, nil
	}
	return encode(typ, obj)
}

// matchConditionWarnings are the fake's warnings for a webhook configuration whose webhooks have
// matchConditions when Options.WebhookMatchConditions is not set: they are CEL expressions, which
// the fake cannot evaluate without k8s.io/apiserver, so it calls such a webhook as if they all
// held. Refusing the configuration would break a test that installs it; calling the webhook more
// often than a cluster does is what a webhook can answer, and the warning says why it is called.
func matchConditionWarnings(obj runtime.Object) []string {
	var out []string
	warn := func(name string, n int) {
		if n > 0 {
			out = append(out, fmt.Sprintf("webhook %q: the fake does not evaluate matchConditions (CEL); it calls the webhook as if they all held", name))
		}
	}
	switch c := obj.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for _, h := range c.Webhooks {
			warn(h.Name, len(h.MatchConditions))
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for _, h := range c.Webhooks {
			warn(h.Name, len(h.MatchConditions))
		}
	}
	return out
}
