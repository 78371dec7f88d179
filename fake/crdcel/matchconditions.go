package crdcel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	celplugin "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/watchcache/watchcache/fake"
)

// MatchConditions is a fake.WebhookMatchConditions made of the apiserver's own matcher
// (k8s.io/apiserver's admission/plugin/webhook/matchconditions): the same CEL environment
// (the base environment of the apiserver's compatibility version, stored expressions), the same
// variables (object, oldObject, request, authorizer, authorizer.requestResource), the same runtime
// cost budget, and the same answer (false as soon as one condition is false, else the aggregate
// of the evaluation errors). It compiles a webhook's conditions once, on first use, and keeps them
// by their names and expressions. It also compiles the conditions of a webhook configuration
// being written, as the apiserver's validation does (fake.MatchConditionsValidator). Use
// WebhookMatchConditions to make one; it is safe for concurrent use.
type MatchConditions struct {
	compiler celplugin.ConditionCompiler
	// validator compiles one expression as the apiserver's validation of a webhook
	// configuration does.
	validator celplugin.Compiler

	mu       sync.Mutex
	compiled map[string]celplugin.ConditionEvaluator
}

// maxCompiledConditions bounds the compiled conditions kept: a test installs a handful of webhook
// configurations, and one that generates them without end should not grow the cache without end.
// Past it the cache starts over, which costs only compilations again.
const maxCompiledConditions = 1024

// WebhookMatchConditions returns the evaluator to set as fake.Options.WebhookMatchConditions.
func WebhookMatchConditions() fake.WebhookMatchConditions {
	env := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	return &MatchConditions{
		compiler:  celplugin.NewConditionCompiler(env),
		validator: celplugin.NewCompiler(env),
		compiled:  map[string]celplugin.ConditionEvaluator{},
	}
}

var _ fake.MatchConditionsValidator = (*MatchConditions)(nil)

// ValidateMatchCondition compiles one condition's expression as the apiserver's validation of a
// webhook configuration does (validateMatchConditionsExpression): in the environment of new
// expressions unless stored, with the authorizer, its error converted to a field error.
func (mc *MatchConditions) ValidateMatchCondition(expression string, stored bool, p *field.Path) field.ErrorList {
	env := environment.NewExpressions
	if stored {
		env = environment.StoredExpressions
	}
	res := mc.validator.CompileCELExpression(&matchconditions.MatchCondition{Expression: expression},
		celplugin.OptionalVariableDeclarations{HasAuthorizer: true}, env)
	if res.Error == nil {
		return nil
	}
	switch res.Error.Type {
	case apiservercel.ErrorTypeRequired:
		return field.ErrorList{field.Required(p, res.Error.Detail)}
	case apiservercel.ErrorTypeInvalid:
		return field.ErrorList{field.Invalid(p, expression, res.Error.Detail)}
	case apiservercel.ErrorTypeInternal:
		return field.ErrorList{field.InternalError(p, res.Error)}
	}
	return field.ErrorList{field.InternalError(p, fmt.Errorf("unsupported error type: %w", res.Error))}
}

// Match evaluates m.Conditions as the apiserver's webhook dispatcher does, with failurePolicy
// Fail so that every evaluation error is returned: the fake applies the webhook's policy.
func (mc *MatchConditions) Match(ctx context.Context, m fake.WebhookMatch) (bool, error) {
	attr, err := versionedAttributes(m.Request)
	if err != nil {
		return false, fmt.Errorf("crdcel: webhook %q: %w", m.Webhook, err)
	}
	typ := "validating" // the webhook's type in the apiserver's metrics
	if m.Mutating {
		typ = "admit"
	}
	fail := admissionregistrationv1.Fail
	matcher := matchconditions.NewMatcher(mc.evaluator(m.Conditions), &fail, "webhook", typ, m.Webhook)
	var authz authorizer.UnconditionalAuthorizer
	if m.Authorize != nil {
		authz = authorizeFunc(m.Authorize)
	}
	res := matcher.Match(ctx, attr, nil, authz)
	if res.Error != nil {
		return false, res.Error
	}
	return res.Matches, nil
}

// evaluator returns the compiled conditions, compiling them on first use: the apiserver compiles
// a webhook's once, when its configuration is loaded.
func (mc *MatchConditions) evaluator(conds []admissionregistrationv1.MatchCondition) celplugin.ConditionEvaluator {
	var key strings.Builder
	for _, c := range conds {
		// A name cannot hold a NUL; an expression is kept whole after it.
		fmt.Fprintf(&key, "%s\x00%d\x00%s", c.Name, len(c.Expression), c.Expression)
	}
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if e, ok := mc.compiled[key.String()]; ok {
		return e
	}
	exprs := make([]celplugin.ExpressionAccessor, len(conds))
	for i, c := range conds {
		exprs[i] = &matchconditions.MatchCondition{Name: c.Name, Expression: c.Expression}
	}
	e := mc.compiler.CompileCondition(exprs, celplugin.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}, environment.StoredExpressions)
	if len(mc.compiled) >= maxCompiledConditions {
		clear(mc.compiled)
	}
	mc.compiled[key.String()] = e
	return e
}

// versionedAttributes are the admission attributes of the request, in the version the webhook
// receives: the objects as unstructured (their CEL values are then built as the apiserver builds
// those of custom resources, from the same JSON), the options typed.
func versionedAttributes(req *admissionv1.AdmissionRequest) (*admission.VersionedAttributes, error) {
	obj, err := unstructuredOf(req.Object.Raw)
	if err != nil {
		return nil, fmt.Errorf("decoding object: %w", err)
	}
	old, err := unstructuredOf(req.OldObject.Raw)
	if err != nil {
		return nil, fmt.Errorf("decoding oldObject: %w", err)
	}
	opts, err := optionsOf(req.Options.Raw)
	if err != nil {
		return nil, fmt.Errorf("decoding options: %w", err)
	}
	extra := map[string][]string{}
	for k, v := range req.UserInfo.Extra {
		extra[k] = v
	}
	u := &user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: extra}
	kind := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	resource := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	dry := req.DryRun != nil && *req.DryRun
	attrs := admission.NewAttributesRecord(obj, old, kind, req.Namespace, req.Name, resource, req.SubResource,
		admission.Operation(req.Operation), opts, dry, u)
	va := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: kind}
	if obj != nil {
		va.VersionedObject = admission.NewLazyObject(obj)
	}
	if old != nil {
		va.VersionedOldObject = admission.NewLazyObject(old)
	}
	return va, nil
}

// unstructuredOf decodes an object's JSON; nil for none.
func unstructuredOf(raw []byte) (runtime.Object, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return u, nil
}

// optionsOf decodes the operation's options into their type, as the apiserver holds them.
func optionsOf(raw []byte) (runtime.Object, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return nil, err
	}
	var out runtime.Object
	switch tm.Kind {
	case "CreateOptions":
		out = &metav1.CreateOptions{}
	case "UpdateOptions":
		out = &metav1.UpdateOptions{}
	case "DeleteOptions":
		out = &metav1.DeleteOptions{}
	default:
		return nil, fmt.Errorf("unexpected options kind %q", tm.Kind)
	}
	return out, json.Unmarshal(raw, out)
}

// authorizeFunc is the fake's authorizer as the CEL authorizer library asks it: RBAC never denies,
// so a refusal is no opinion, as the apiserver's authorizer chain answers it.
type authorizeFunc func(ctx context.Context, a fake.AuthorizationAttributes) (bool, string)

func (f authorizeFunc) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	aa := fake.AuthorizationAttributes{Verb: a.GetVerb()}
	if a.IsResourceRequest() {
		aa.Namespace, aa.Group, aa.Resource, aa.Subresource, aa.Name = a.GetNamespace(), a.GetAPIGroup(), a.GetResource(), a.GetSubresource(), a.GetName()
	} else {
		aa.Path = a.GetPath()
	}
	ok, reason := f(ctx, aa)
	if ok {
		return authorizer.DecisionAllow, reason, nil
	}
	return authorizer.DecisionNoOpinion, reason, nil
}
