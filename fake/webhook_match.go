package fake

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// WebhookMatchConditions evaluates admission webhooks' matchConditions
// (Options.WebhookMatchConditions). They are CEL expressions, which the fake cannot evaluate
// without k8s.io/apiserver; fake/crdcel's WebhookMatchConditions evaluates them with the
// apiserver's own matcher. Without one, the fake calls a webhook as if its conditions all held
// and warns when such a configuration is stored.
//
// Implementations must be safe for concurrent use: the fake calls them from its request
// goroutines. They must not mutate what they are given.
type WebhookMatchConditions interface {
	// Match reports whether all of m.Conditions hold: false when one evaluates to false (the
	// webhook is not called), an error when none is false and one fails to evaluate, which the
	// webhook's failurePolicy decides (Fail refuses the request with the apiserver's 403, Ignore
	// skips the webhook).
	Match(ctx context.Context, m WebhookMatch) (bool, error)
}

// MatchConditionsValidator is a WebhookMatchConditions that also compiles matchConditions when a
// webhook configuration is written, as the apiserver's validation of it does: a condition that
// does not compile, is not a bool, or exceeds the cost limit fails the write with a 422. The fake
// finds it by a type assertion on Options.WebhookMatchConditions; without it, it compiles none.
type MatchConditionsValidator interface {
	WebhookMatchConditions
	// ValidateMatchCondition returns the errors of one condition's expression (trimmed, not
	// empty) at p; stored says the configuration being updated already has it, which the
	// apiserver compiles in the more lenient environment of stored expressions.
	ValidateMatchCondition(expression string, stored bool, p *field.Path) field.ErrorList
}

// WebhookMatch is what a webhook's matchConditions are evaluated on. The fake builds one per
// webhook and request; it is not shared.
type WebhookMatch struct {
	// Webhook is the webhook's name, Mutating whether it is a mutating webhook.
	Webhook  string
	Mutating bool
	// Conditions are the webhook's matchConditions, as stored.
	Conditions []admissionregistrationv1.MatchCondition
	// Request is the AdmissionRequest the webhook is sent when the conditions hold, without its
	// uid: Object and OldObject are JSON in the version the webhook receives (Raw, empty when
	// there is none), Options the operation's options (Raw JSON, with its kind).
	Request *admissionv1.AdmissionRequest
	// Authorize decides, as the fake's authorizer (RBAC) does, whether the request's user may do
	// what a names: what the `authorizer` CEL variable asks.
	Authorize func(ctx context.Context, a AuthorizationAttributes) (allowed bool, reason string)
}

// AuthorizationAttributes are what an authorization check asks: a verb on a resource (Group,
// Resource, Subresource, Namespace, Name) or, when Path is set, on a non-resource URL.
type AuthorizationAttributes struct {
	Verb, Namespace, Group, Resource, Subresource, Name string
	Path                                                string
}

// conditionsHold evaluates the webhook's matchConditions with Options.WebhookMatchConditions as
// the apiserver's webhook dispatcher does once the rules and selectors matched: false skips the
// webhook; an evaluation error refuses the request with a 403 under failurePolicy Fail (the
// apiserver's Forbidden of the resource and name) and skips it under Ignore. Without the hook, or
// without conditions, they hold.
func (s *Server) conditionsHold(adm *admissionRequest, h *webhook, a *admissionAttributes) (bool, error) {
	if len(h.matchConditions) == 0 || s.opts.WebhookMatchConditions == nil {
		return true, nil
	}
	req, err := requestOf(adm, a)
	if err != nil {
		return false, apiInternal(err)
	}
	user := User{Name: webhookUser.Username, UID: webhookUser.UID, Groups: webhookUser.Groups}
	ok, err := s.opts.WebhookMatchConditions.Match(adm.ctx, WebhookMatch{
		Webhook: h.name, Mutating: h.mutating, Conditions: h.matchConditions, Request: req,
		Authorize: func(ctx context.Context, aa AuthorizationAttributes) (bool, string) {
			d := s.authorize(ctx, user, attributes{resourceAttributes: resourceAttributes{Verb: aa.Verb, Namespace: aa.Namespace,
				Group: aa.Group, Resource: aa.Resource, Subresource: aa.Subresource, Name: aa.Name}, nonResource: aa.Path != "", Path: aa.Path})
			return d.allowed, d.reason
		},
	})
	switch {
	case err == nil:
		return ok, nil
	case h.ignoresFailures():
		if s.opts.Logger != nil {
			s.opts.Logger.Warn("failed evaluating match conditions, failing open", "webhook", h.name, "error", err.Error())
		}
		return false, nil
	}
	return false, apierrors.NewForbidden(a.gvr.GroupResource(), a.name, err)
}
