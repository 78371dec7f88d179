package fake

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/watchcache/watchcache/fake/internal/patch"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// The review APIs: resources the apiserver computes an answer for on create and stores nothing of
// — who the request is (SelfSubjectReview), who a token is (TokenReview), whether a user may do
// something (SubjectAccessReview, its self and namespaced forms) and what a request's user may do
// in a namespace (SelfSubjectRulesReview) — answered as kube-apiserver 1.37.2 with
// --authorization-mode=Node,RBAC answers them (reference/observed-authz.md; identity.go says who
// a request is, rbac.go what RBAC decides).

// reviewKind is one review API.
type reviewKind struct {
	t          *resourceType
	namespaced bool
}

// reviewKinds are the review APIs by group/resource.
var reviewKinds = func() map[string]reviewKind {
	k := func(gv schema.GroupVersion, kind string, obj any, namespaced bool) reviewKind {
		return reviewKind{t: &resourceType{gvk: gv.WithKind(kind), goType: reflect.TypeOf(obj)}, namespaced: namespaced}
	}
	authn, authz := authenticationv1.SchemeGroupVersion, authorizationv1.SchemeGroupVersion
	return map[string]reviewKind{
		"authentication.k8s.io/selfsubjectreviews":       k(authn, "SelfSubjectReview", authenticationv1.SelfSubjectReview{}, false),
		"authentication.k8s.io/tokenreviews":             k(authn, "TokenReview", authenticationv1.TokenReview{}, false),
		"authorization.k8s.io/selfsubjectaccessreviews":  k(authz, "SelfSubjectAccessReview", authorizationv1.SelfSubjectAccessReview{}, false),
		"authorization.k8s.io/subjectaccessreviews":      k(authz, "SubjectAccessReview", authorizationv1.SubjectAccessReview{}, false),
		"authorization.k8s.io/selfsubjectrulesreviews":   k(authz, "SelfSubjectRulesReview", authorizationv1.SelfSubjectRulesReview{}, false),
		"authorization.k8s.io/localsubjectaccessreviews": k(authz, "LocalSubjectAccessReview", authorizationv1.LocalSubjectAccessReview{}, true),
	}
}()

// reviewPath is what a path under a review API names: the review, the namespace of a namespaced
// one, and whether the path is the review's collection (anything below it, its watch path, a
// cluster-scoped review under a namespace or the reverse is the apiserver's 404).
type reviewPath struct {
	kind       reviewKind
	namespace  string
	collection bool
}

// parseReviewPath resolves /apis/{authentication,authorization}.k8s.io/v1/... to a review; ok is
// false for every other path.
func parseReviewPath(path string) (reviewPath, bool) {
	var buf [maxPathSegments]string
	segs := splitPath(path, &buf)
	if len(segs) < 4 || segs[0] != "apis" || segs[2] != "v1" || (segs[1] != "authentication.k8s.io" && segs[1] != "authorization.k8s.io") {
		return reviewPath{}, false
	}
	group, rest := segs[1], segs[3:]
	var p reviewPath
	watch := rest[0] == "watch" && len(rest) > 1
	if watch {
		rest = rest[1:]
	}
	namespaced := len(rest) >= 3 && rest[0] == "namespaces"
	if namespaced {
		p.namespace, rest = rest[1], rest[2:]
	}
	k, ok := reviewKinds[group+"/"+rest[0]]
	if !ok {
		return reviewPath{}, false
	}
	p.kind = k
	p.collection = !watch && len(rest) == 1 && namespaced == k.namespaced
	return p, true
}

// serveReview answers a request to a review API.
func (s *Server) serveReview(w http.ResponseWriter, r *http.Request, p reviewPath) {
	// Who the request is comes first, as the apiserver's filters come before its handlers; the
	// review APIs answer 401 to a token the fake did not issue: their answer is the identity.
	gvk := p.kind.t.gvk
	create := resourceAttributes{Verb: "create", Group: gvk.Group, Resource: strings.ToLower(gvk.Kind) + "s", Namespace: p.namespace}.attributes()
	u, err := s.requestUser(r, create)
	if err != nil {
		writeError(w, err)
		return
	}
	if !p.collection {
		writeError(w, notFoundPath())
		return
	}
	if r.Method == http.MethodPost {
		if err := s.check(r.Context(), u, create); err != nil {
			writeError(w, err)
			return
		}
	}
	opts, body, ok := computedRequest(w, r, p.kind.t)
	if !ok {
		return
	}
	out, warnings, err := s.review(r.Context(), u, p, body, opts.FieldValidation, managerOf(opts, r))
	if err != nil {
		writeError(w, err)
		return
	}
	addWarnings(w, warnings)
	writeBody(w, http.StatusCreated, out)
}

// review is a review's create by u: the body decoded (its unknown fields as fieldValidation
// says), checked against the request's namespace, and the answer computed.
func (s *Server) review(ctx context.Context, u User, p reviewPath, body []byte, fieldValidation, manager string) ([]byte, []string, error) {
	d, err := decodeBody(p.kind.t, body)
	if err != nil {
		return nil, nil, err
	}
	warnings, err := strictness(p.kind.t, fieldValidation, d.unknown)
	if err != nil {
		return nil, nil, err
	}
	out, err := s.answerReview(ctx, u, p, d, manager)
	return out, warnings, err
}

// answerReview computes a decoded review's answer.
func (s *Server) answerReview(ctx context.Context, u User, p reviewPath, d *decoded, manager string) ([]byte, error) {
	obj := d.obj.(metav1Object)
	switch {
	case !p.kind.namespaced:
		obj.SetNamespace("")
	case obj.GetNamespace() == "":
		obj.SetNamespace(p.namespace)
	case obj.GetNamespace() != p.namespace:
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	gvk := p.kind.t.gvk
	if s.fields != nil && manager != "" && gvk.Kind != "SelfSubjectReview" && gvk.Kind != "SelfSubjectRulesReview" {
		// The create handler's field manager sees the request; the two reviews that answer with
		// a new object drop what it recorded.
		if out, err := s.fields.UpdateObject(nil, d.obj, gvk, "", manager); err == nil {
			d.obj = out
		}
	}
	var answer runtime.Object
	switch o := d.obj.(type) {
	case *authenticationv1.SelfSubjectReview:
		answer = &authenticationv1.SelfSubjectReview{
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(s.opts.Now())},
			Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: userInfo(u)},
		}
	case *authenticationv1.TokenReview:
		if o.Spec.Token == "" {
			return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
		}
		auds := o.Spec.Audiences
		if len(auds) == 0 {
			auds = []string{serviceAccountIssuer}
		}
		if tu, err := s.authenticateToken(ctx, o.Spec.Token, auds); err != nil {
			o.Status = authenticationv1.TokenReviewStatus{Error: err.Error()}
		} else {
			o.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: userInfo(tu.user), Audiences: tu.audiences}
		}
		answer = o
	case *authorizationv1.SelfSubjectAccessReview:
		errs := validateAttributes(o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes)
		if errs = append(errs, validateEmptyMeta(o.ObjectMeta, false)...); len(errs) > 0 {
			return nil, reviewInvalid(errs)
		}
		o.Status = s.accessStatus(ctx, u, o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes)
		answer = o
	case *authorizationv1.SubjectAccessReview:
		errs := append(validateAttributes(o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes), validateReviewSubject(o.Spec)...)
		if errs = append(errs, validateEmptyMeta(o.ObjectMeta, false)...); len(errs) > 0 {
			return nil, reviewInvalid(errs)
		}
		o.Status = s.accessStatus(ctx, subjectOf(o.Spec), o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes)
		answer = o
	case *authorizationv1.LocalSubjectAccessReview:
		errs := append(validateAttributes(o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes), validateReviewSubject(o.Spec)...)
		errs = append(errs, validateEmptyMeta(o.ObjectMeta, true)...)
		if ra := o.Spec.ResourceAttributes; ra != nil && ra.Namespace != o.Namespace {
			errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), ra.Namespace, "must match metadata.namespace"))
		}
		if nra := o.Spec.NonResourceAttributes; nra != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), internalNonResource(nra), "disallowed on this kind of request"))
		}
		if len(errs) > 0 {
			return nil, reviewInvalid(errs)
		}
		o.Status = s.accessStatus(ctx, subjectOf(o.Spec), o.Spec.ResourceAttributes, nil)
		answer = o
	case *authorizationv1.SelfSubjectRulesReview:
		if o.Spec.Namespace == "" {
			return nil, apierrors.NewBadRequest("no namespace on request")
		}
		answer = &authorizationv1.SelfSubjectRulesReview{Status: s.rulesStatus(ctx, u, o.Spec.Namespace)}
	default:
		return nil, internalError("unexpected review %T", d.obj)
	}
	answer.GetObjectKind().SetGroupVersionKind(gvk)
	return json.Marshal(answer)
}

// managerOf is a create's field manager: the fieldManager parameter, else the user agent's
// program.
func managerOf(opts metav1.CreateOptions, r *http.Request) string {
	if opts.FieldManager != "" {
		return opts.FieldManager
	}
	return patch.ManagerFromUserAgent(r.UserAgent())
}

// userInfo is a user as the review APIs report it.
func userInfo(u User) authenticationv1.UserInfo {
	info := authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	if len(u.Extra) > 0 {
		info.Extra = make(map[string]authenticationv1.ExtraValue, len(u.Extra))
		for k, v := range u.Extra {
			info.Extra[k] = v
		}
	}
	return info
}

// subjectOf is the user a SubjectAccessReview asks about, as it names them (no group is added).
func subjectOf(spec authorizationv1.SubjectAccessReviewSpec) User {
	u := User{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if len(spec.Extra) > 0 {
		u.Extra = make(map[string][]string, len(spec.Extra))
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

// accessStatus is the answer of an access review: RBAC's decision about u doing what ra or nra
// (exactly one of them set) names.
func (s *Server) accessStatus(ctx context.Context, u User, ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) authorizationv1.SubjectAccessReviewStatus {
	var a attributes
	if ra != nil {
		a = resourceAttributes{Verb: ra.Verb, Namespace: ra.Namespace, Group: ra.Group, Resource: ra.Resource, Subresource: ra.Subresource, Name: ra.Name}.attributes()
	} else {
		a = attributes{nonResource: true, resourceAttributes: resourceAttributes{Verb: nra.Verb}, Path: nra.Path}
	}
	d := s.authorize(ctx, u, a)
	return authorizationv1.SubjectAccessReviewStatus{Allowed: d.allowed, Reason: d.reason}
}

// rulesStatus is the answer of a rules review: the rules RBAC gives u in namespace, resource rules
// and non-resource rules apart, in the order of the bindings.
func (s *Server) rulesStatus(ctx context.Context, u User, namespace string) authorizationv1.SubjectRulesReviewStatus {
	rules, err := s.rulesFor(ctx, u, namespace)
	st := authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{}, NonResourceRules: []authorizationv1.NonResourceRule{}}
	for _, r := range rules {
		if len(r.Resources) > 0 {
			st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
		}
		if len(r.NonResourceURLs) > 0 {
			st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

// internalNonResource is non-resource attributes as the apiserver's validation prints them: its
// internal type, without JSON names.
func internalNonResource(nra *authorizationv1.NonResourceAttributes) any {
	if nra == nil {
		return nil
	}
	return struct{ Path, Verb string }{nra.Path, nra.Verb}
}

// validateAttributes requires exactly one of the resource and non-resource attributes.
func validateAttributes(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) field.ErrorList {
	if (ra == nil) == (nra == nil) {
		return field.ErrorList{field.Invalid(field.NewPath("spec"), internalNonResource(nra), "exactly one of nonResourceAttributes or resourceAttributes must be specified")}
	}
	return nil
}

// validateEmptyMeta requires an access review's metadata to be empty but for its managed fields
// (and its namespace, for a local review).
func validateEmptyMeta(meta metav1.ObjectMeta, local bool) field.ErrorList {
	msg := "must be empty"
	bare := meta
	bare.ManagedFields = nil
	if local {
		msg, bare.Namespace = "must be empty except for namespace", ""
	}
	if !reflect.DeepEqual(bare, metav1.ObjectMeta{}) {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), meta, msg)}
	}
	return nil
}

// validateReviewSubject requires a SubjectAccessReview to name a user or a group.
func validateReviewSubject(spec authorizationv1.SubjectAccessReviewSpec) field.ErrorList {
	if spec.User == "" && len(spec.Groups) == 0 {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "user"), spec.User, "at least one of user or group must be specified")}
	}
	return nil
}

// reviewInvalid is the apiserver's 422 of an access review: its kind is empty once decoded, so
// the message names only the group.
func reviewInvalid(errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName}, "", errs)
}

// registerReviews lists the review APIs in discovery, as the apiserver does (verb create only).
// Their requests never reach the read path (serveAPI answers them), so the caches behind them
// stay empty.
func (s *Server) registerReviews() error {
	// In the apiserver's order: by name within a group.
	for _, key := range slices.Sorted(maps.Keys(reviewKinds)) {
		k := reviewKinds[key]
		group, resource, _ := strings.Cut(key, "/")
		info := kubeapi.ResourceInfo{Group: group, Version: "v1", Resource: resource, SingularName: strings.TrimSuffix(resource, "s"),
			Kind: k.t.gvk.Kind, Namespaced: k.namespaced, Verbs: []string{"create"}}
		if err := s.registerCreateOnly(info); err != nil {
			return err
		}
	}
	return nil
}

// registerCreateOnly lists a resource the apiserver computes rather than stores (verb create
// only) in discovery, behind an empty cache that no request reads: serveAPI answers every path of
// such a resource before the read path.
func (s *Server) registerCreateOnly(info kubeapi.ResourceInfo) error {
	c := watchcache.New(watchcache.Options{
		Resource: watchcache.Resource{Group: info.Group, Name: info.Resource, Namespaced: info.Namespaced},
		Schema:   builtinSchema(info.Resource, info.Namespaced),
	})
	s.createOnlyCaches = append(s.createOnlyCaches, c)
	// Ready, at an empty store's revision, so that /readyz does not wait for events that never
	// come.
	if err := c.Replace(nil, 1); err != nil {
		return err
	}
	return s.api.Register(info, c)
}
