package fake

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The apiserver's validation of validating and mutating webhook configurations
// (pkg/apis/admissionregistration/validation and apiserver's webhook URL and service checks), as
// recorded in reference/observed-validation-kinds.md. An update is held to the same rules as a
// create when its old object met them (no side effects, a known review version, unique names).
// matchConditions' CEL expressions are compiled only when Options.WebhookMatchConditions is a
// MatchConditionsValidator (fake/crdcel's is).

// webhookSpec is what the fake validates of a validating or a mutating webhook.
type webhookSpec struct {
	name                    string
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	reinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
	clientConfig            admissionregistrationv1.WebhookClientConfig
	admissionReviewVersions []string
	matchConditions         []admissionregistrationv1.MatchCondition
}

// webhookOptions are the apiserver's rules that an update applies only when the old object met
// them.
type webhookOptions struct {
	noSideEffects, knownReviewVersion, uniqueNames bool
	// compile compiles a matchCondition's expression; nil compiles none.
	compile func(expression string, p *field.Path) field.ErrorList
}

// validateWebhookConfiguration is the apiserver's validation of a Validating or
// MutatingWebhookConfiguration (old nil on create), whose matchConditions v compiles when not nil:
// an expression the old configuration has is compiled as a stored one, as the apiserver does.
func validateWebhookConfiguration(obj, old runtime.Object, v MatchConditionsValidator) field.ErrorList {
	var hooks, prev []webhookSpec
	switch o := obj.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		hooks, prev = validatingWebhooks(o), validatingWebhooks(oldAs[*admissionregistrationv1.ValidatingWebhookConfiguration](old))
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		hooks, prev = mutatingWebhooks(o), mutatingWebhooks(oldAs[*admissionregistrationv1.MutatingWebhookConfiguration](old))
	}
	opts := webhookOptionsFor(prev, old != nil)
	if v != nil {
		stored := sets.New[string]()
		for _, h := range prev {
			for _, c := range h.matchConditions {
				stored.Insert(c.Expression)
			}
		}
		opts.compile = func(expression string, p *field.Path) field.ErrorList {
			return v.ValidateMatchCondition(expression, stored.Has(expression), p)
		}
	}
	return validateWebhooks(hooks, opts)
}

// validatingWebhooks and mutatingWebhooks list a configuration's webhooks as webhookSpec.
func validatingWebhooks(c *admissionregistrationv1.ValidatingWebhookConfiguration) []webhookSpec {
	if c == nil {
		return nil
	}
	var hooks []webhookSpec
	for _, h := range c.Webhooks {
		hooks = append(hooks, webhookSpec{h.Name, h.Rules, h.FailurePolicy, h.MatchPolicy, h.SideEffects, h.TimeoutSeconds, h.NamespaceSelector,
			h.ObjectSelector, nil, h.ClientConfig, h.AdmissionReviewVersions, h.MatchConditions})
	}
	return hooks
}

func mutatingWebhooks(c *admissionregistrationv1.MutatingWebhookConfiguration) []webhookSpec {
	if c == nil {
		return nil
	}
	var hooks []webhookSpec
	for _, h := range c.Webhooks {
		hooks = append(hooks, webhookSpec{h.Name, h.Rules, h.FailurePolicy, h.MatchPolicy, h.SideEffects, h.TimeoutSeconds, h.NamespaceSelector,
			h.ObjectSelector, h.ReinvocationPolicy, h.ClientConfig, h.AdmissionReviewVersions, h.MatchConditions})
	}
	return hooks
}

// webhookOptionsFor are the rules an update of a configuration whose old webhooks are old
// applies (all of them on create, old nil).
func webhookOptionsFor(old []webhookSpec, isUpdate bool) webhookOptions {
	if !isUpdate {
		return webhookOptions{noSideEffects: true, knownReviewVersion: true, uniqueNames: true}
	}
	opts := webhookOptions{noSideEffects: true, knownReviewVersion: true, uniqueNames: true}
	names := sets.New[string]()
	for _, h := range old {
		if h.sideEffects == nil || (*h.sideEffects != admissionregistrationv1.SideEffectClassNone && *h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun) {
			opts.noSideEffects = false
		}
		if !slices.ContainsFunc(h.admissionReviewVersions, func(v string) bool { return v == "v1" || v == "v1beta1" }) {
			opts.knownReviewVersion = false
		}
		if names.Has(h.name) {
			opts.uniqueNames = false
		}
		names.Insert(h.name)
	}
	return opts
}

// validateWebhooks is the apiserver's validation of a configuration's webhooks.
func validateWebhooks(hooks []webhookSpec, opts webhookOptions) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, h := range hooks {
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(&h, opts, p)...)
		errs = append(errs, validateReviewVersions(h.admissionReviewVersions, opts.knownReviewVersion, p.Child("admissionReviewVersions"))...)
		if opts.uniqueNames && h.name != "" {
			if names.Has(h.name) {
				errs = append(errs, field.Duplicate(p.Child("name"), h.name))
			}
			names.Insert(h.name)
		}
	}
	return errs
}

// The values a webhook's fields may take, sorted as the apiserver lists them.
var (
	webhookOperations    = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	webhookScopes        = []string{"*", "Cluster", "Namespaced"}
	webhookSideEffects   = []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	webhookNoSideEffects = []string{"None", "NoneOnDryRun"}
)

// validateWebhook is the apiserver's validateValidatingWebhook and validateMutatingWebhook.
func validateWebhook(h *webhookSpec, opts webhookOptions, p *field.Path) field.ErrorList {
	errs := validation.IsFullyQualifiedName(p.Child("name"), h.name)
	for i := range h.rules {
		errs = append(errs, validateWebhookRule(&h.rules[i], p.Child("rules").Index(i))...)
	}
	if f := h.failurePolicy; f != nil {
		errs = append(errs, validateOptionalEnum(*f, p.Child("failurePolicy"), []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore})...)
	}
	if m := h.matchPolicy; m != nil {
		errs = append(errs, validateOptionalEnum(*m, p.Child("matchPolicy"), []admissionregistrationv1.MatchPolicyType{admissionregistrationv1.Equivalent, admissionregistrationv1.Exact})...)
	}
	allowed := webhookSideEffects
	if opts.noSideEffects {
		allowed = webhookNoSideEffects
	}
	switch s := h.sideEffects; {
	case s == nil:
		errs = append(errs, field.Required(p.Child("sideEffects"), "must specify one of "+strings.Join(allowed, ", ")))
	case !slices.Contains(allowed, string(*s)):
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), *s, allowed))
	}
	if t := h.timeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	opt := metav1validation.LabelSelectorValidationOptions{}
	if h.namespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.namespaceSelector, opt, p.Child("namespaceSelector"))...)
	}
	if h.objectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.objectSelector, opt, p.Child("objectSelector"))...)
	}
	if r := h.reinvocationPolicy; r != nil {
		errs = append(errs, validateOptionalEnum(*r, p.Child("reinvocationPolicy"),
			[]admissionregistrationv1.ReinvocationPolicyType{admissionregistrationv1.IfNeededReinvocationPolicy, admissionregistrationv1.NeverReinvocationPolicy})...)
	}
	cc := h.clientConfig
	switch cp := p.Child("clientConfig"); {
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, field.Required(cp, "exactly one of url or service is required"))
	case cc.URL != nil:
		errs = append(errs, validateWebhookURL(*cc.URL, cp.Child("url"))...)
	default:
		errs = append(errs, validateWebhookService(cc.Service, cp.Child("service"))...)
	}
	return append(errs, validateMatchConditions(h.matchConditions, opts.compile, p.Child("matchConditions"))...)
}

// validateWebhookRule is the apiserver's validateRuleWithOperations.
func validateWebhookRule(r *admissionregistrationv1.RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ops := make([]string, len(r.Operations))
	for i, o := range r.Operations {
		ops[i] = string(o)
	}
	errs = append(errs, validateWildcardList(ops, "operations", p.Child("operations"))...)
	for i, o := range ops {
		if !slices.Contains(webhookOperations, o) {
			errs = append(errs, field.NotSupported(p.Child("operations").Index(i), o, webhookOperations))
		}
	}
	errs = append(errs, validateWildcardList(r.APIGroups, "API groups", p.Child("apiGroups"))...)
	errs = append(errs, validateWildcardList(r.APIVersions, "API versions", p.Child("apiVersions"))...)
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateWebhookResources(r.Resources, p.Child("resources"))...)
	if s := r.Scope; s != nil && !slices.Contains(webhookScopes, string(*s)) {
		errs = append(errs, field.NotSupported(p.Child("scope"), *s, webhookScopes))
	}
	return errs
}

// validateWildcardList is a rule's list that is required and holds "*" only alone.
func validateWildcardList(list []string, what string, p *field.Path) field.ErrorList {
	if len(list) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	if len(list) > 1 && slices.Contains(list, "*") {
		return field.ErrorList{field.Invalid(p, list, fmt.Sprintf("if '*' is present, must not specify other %s", what))}
	}
	return nil
}

// validateWebhookResources is the apiserver's validateResources: required, none empty, and
// wildcards (*, */*, x/*, */x) without what they already cover.
func validateWebhookResources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	anySub, anyRes := sets.New[string](), sets.New[string]()
	doubleWildcard, singleWildcard, plain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		doubleWildcard = doubleWildcard || rs == "*/*"
		singleWildcard = singleWildcard || rs == "*"
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			plain = rs != "*"
			continue
		}
		if anySub.Has(res) {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if anyRes.Has(sub) {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			anySub.Insert(res)
		}
		if res == "*" {
			anyRes.Insert(sub)
		}
	}
	if len(resources) > 1 && doubleWildcard {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWildcard && plain {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateReviewVersions is the apiserver's validateAdmissionReviewVersions.
func validateReviewVersions(versions []string, requireKnown bool, p *field.Path) field.ErrorList {
	const known = "v1, v1beta1"
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of "+known)}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	hasKnown := false
	for i, v := range versions {
		if seen.Has(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen.Insert(v)
		for _, msg := range validation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
		hasKnown = hasKnown || v == "v1" || v == "v1beta1"
	}
	if requireKnown && !hasKnown {
		errs = append(errs, field.Invalid(p, versions, "must include at least one of "+known))
	}
	return errs
}

// validateWebhookURL is the apiserver's ValidateWebhookURL with https required.
func validateWebhookURL(raw string, p *field.Path) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(p, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// validateWebhookService is the apiserver's ValidateWebhookService: a name, a namespace, a port,
// a path of DNS subdomain segments.
func validateWebhookService(s *admissionregistrationv1.ServiceReference, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	if s.Namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), ""))
	}
	// The port is defaulted to 443.
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	if msgs := validation.IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(p.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if s.Path == nil || *s.Path == "/" || *s.Path == "" {
		return errs
	}
	path, pp := *s.Path, p.Child("path")
	if path == "//" {
		return append(errs, field.Invalid(pp, path, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(path, "/") {
		errs = append(errs, field.Invalid(pp, path, "must start with a '/'"))
	}
	for i, step := range strings.Split(strings.TrimSuffix(path[1:], "/"), "/") {
		if step == "" {
			errs = append(errs, field.Invalid(pp, path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(pp, path, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}

// validateMatchConditions is the apiserver's validateMatchConditions: at most 64, each with an
// expression (compiled by compile when set) and a qualified name, names unique.
func validateMatchConditions(conds []admissionregistrationv1.MatchCondition, compile func(string, *field.Path) field.ErrorList, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > 64 {
		errs = append(errs, field.TooMany(p, len(conds), 64))
	}
	names := sets.New[string]()
	for i, c := range conds {
		cp := p.Index(i)
		switch expr := strings.TrimSpace(c.Expression); {
		case expr == "":
			errs = append(errs, field.Required(cp.Child("expression"), ""))
		case compile != nil:
			errs = append(errs, compile(expr, cp.Child("expression"))...)
		}
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		} else {
			errs = append(errs, validateQualifiedName(c.Name, cp.Child("name"))...)
			if names.Has(c.Name) {
				errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
			}
			names.Insert(c.Name)
		}
	}
	return errs
}
