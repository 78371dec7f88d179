package fake

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Who a request is. The fake authenticates as a kube-apiserver started with a static token file
// (Options.Tokens) and service account tokens does (reference/observed-authz.md), with one
// difference: a request without credentials is the admin, not system:anonymous, so that the
// rest.Config of Config works without a token.
//
//   - A user an embedding program names (WithUser: watchcache serve's own authentication).
//   - A static bearer token of Options.Tokens: its user.
//   - A bearer token the fake issued for a service account (POST .../serviceaccounts/NAME/token):
//     that service account, while the token has not expired and the account exists with the
//     token's uid.
//   - Anything else: Admin. A bearer token the fake does not know is ignored, except by the review
//     APIs, whose answer is the identity, and under Options.EnforceRBAC: they answer 401 as the
//     apiserver does.
//
// Impersonation headers (Impersonate-User, -Group, -Uid, -Extra-*) then replace the identity as
// the apiserver's impersonation filter does; a requester other than a member of system:masters
// needs RBAC's impersonate verbs for them.

// User is an authenticated identity: the user.Info of the apiserver. It is a plain value; callers
// must not modify its slices and map after handing it to WithUser or Options.Tokens, which
// requests read concurrently.
type User struct {
	// Name is the user name, e.g. "system:serviceaccount:default:builder".
	Name string
	// UID is the user's uid, "" when the authenticator gives none.
	UID string
	// Groups are the user's groups, including system:authenticated.
	Groups []string
	// Extra is what the authenticator adds (a service account token's credential id, a pod's name).
	Extra map[string][]string
}

// Admin is who a request without credentials is: a member of system:masters, which the fake, as
// the apiserver, allows everything. The oracle's admin (a static token) has the same groups and a
// uid of the same form. Every Server reads it: it must not be modified.
var Admin = User{Name: "admin", UID: "admin-uid", Groups: []string{mastersGroup, authenticatedGroup}}

// Well-known groups and the service account user name prefix (k8s.io/apiserver
// authentication/user and serviceaccount).
const (
	mastersGroup         = "system:masters"
	authenticatedGroup   = "system:authenticated"
	unauthenticatedGroup = "system:unauthenticated"
	anonymousUser        = "system:anonymous"
	serviceAccountsGroup = "system:serviceaccounts"
	nodesGroup           = "system:nodes"
	serviceAccountPrefix = "system:serviceaccount:"
	credentialIDKey      = "authentication.kubernetes.io/credential-id"
	podNameKey           = "authentication.kubernetes.io/pod-name"
	podUIDKey            = "authentication.kubernetes.io/pod-uid"
)

type userKey struct{}

// WithUser returns ctx naming the user its request is: a program that serves the fake behind its
// own authentication (NewHandler) says who each request is, and the fake then reads no
// credentials of the request. Impersonation headers still apply.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// authenticate returns who r is before impersonation; a bearer token the fake does not know is
// the apiserver's 401. Only the review APIs and Options.EnforceRBAC ask: the fake serves every
// other request as Admin's.
func (s *Server) authenticate(r *http.Request) (User, error) {
	if u, ok := r.Context().Value(userKey{}).(User); ok {
		return u, nil
	}
	token, ok := bearerToken(r)
	if !ok {
		return Admin, nil
	}
	u, err := s.authenticateToken(r.Context(), token, []string{serviceAccountIssuer})
	if err != nil {
		return User{}, apierrors.NewUnauthorized("Unauthorized")
	}
	return u.user, nil
}

// authenticateToken authenticates a bearer token for one of audiences: a static token
// (Options.Tokens, for any audience, as the apiserver's token file) or a service account's
// (reviewToken).
func (s *Server) authenticateToken(ctx context.Context, token string, audiences []string) (tokenUser, error) {
	if u, ok := s.opts.Tokens[token]; ok {
		if !slices.Contains(u.Groups, authenticatedGroup) {
			u.Groups = append(slices.Clip(u.Groups), authenticatedGroup)
		}
		return tokenUser{user: u, audiences: audiences}, nil
	}
	return s.reviewToken(ctx, token, audiences)
}

// bearerToken returns the token of an Authorization: Bearer header.
func bearerToken(r *http.Request) (string, bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// requestUser is who r, a request to do a, is after impersonation: the identity the review APIs
// report and authorize.
func (s *Server) requestUser(r *http.Request, a attributes) (User, error) {
	u, err := s.authenticate(r)
	if err != nil {
		return User{}, err
	}
	return s.impersonate(r.Context(), r.Header, u, a)
}

// impersonate applies the impersonation headers of h to the requester u of a request to do a, as
// the apiserver's impersonation filter does: Impersonate-User is required with any other; each
// impersonation mode that fits what is asked for is tried in turn — a node or a service account
// by name alone, any other user, then the legacy mode that fits all — and the first that RBAC
// allows wins; if none does, the first refusal is the answer. system:authenticated (for
// system:anonymous, system:unauthenticated) is added.
func (s *Server) impersonate(ctx context.Context, h http.Header, u User, a attributes) (User, error) {
	wanted := User{Name: h.Get(authenticationv1.ImpersonateUserHeader), UID: h.Get(authenticationv1.ImpersonateUIDHeader)}
	wanted.Groups = h.Values(authenticationv1.ImpersonateGroupHeader)
	for name, values := range h {
		key, ok := strings.CutPrefix(name, authenticationv1.ImpersonateUserExtraHeaderPrefix)
		if !ok {
			continue
		}
		key = strings.ToLower(key)
		if k, err := url.PathUnescape(key); err == nil {
			key = k
		}
		if wanted.Extra == nil {
			wanted.Extra = map[string][]string{}
		}
		wanted.Extra[key] = append(wanted.Extra[key], values...)
	}
	if wanted.Name == "" {
		if wanted.UID != "" || len(wanted.Groups) > 0 || len(wanted.Extra) > 0 {
			// The apiserver prints what was asked for as its Go value.
			return User{}, apierrors.NewBadRequest(fmt.Sprintf("requested &user.DefaultInfo{Name:%q, UID:%q, Groups:%#v, Extra:%#v} without impersonating a user name",
				wanted.Name, wanted.UID, wanted.Groups, wanted.Extra))
		}
		return u, nil
	}
	_, isNode := nodeUsername(wanted.Name)
	_, _, isSA := splitServiceAccount(wanted.Name)
	onlyName := wanted.UID == "" && len(wanted.Groups) == 0 && len(wanted.Extra) == 0
	var firstErr error
	for _, mode := range []struct {
		name    string
		applies bool
	}{
		{"arbitrary-node", onlyName && isNode},
		{"serviceaccount", onlyName && isSA},
		{"user-info", !isNode && !isSA},
		{"", true}, // legacy
	} {
		if !mode.applies {
			continue
		}
		actual, err := s.impersonateIn(ctx, mode.name, u, wanted, a)
		if err == nil {
			switch {
			case actual.Name == anonymousUser:
				actual.Groups = withGroup(actual.Groups, unauthenticatedGroup)
			case !slices.Contains(actual.Groups, unauthenticatedGroup):
				actual.Groups = withGroup(actual.Groups, authenticatedGroup)
			}
			return actual, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return User{}, firstErr
}

// impersonateIn checks that u may impersonate wanted in one mode (constrained: "arbitrary-node",
// "serviceaccount" or "user-info"; legacy: "") and returns the user it gives: for a
// constrained mode, u may do a while impersonating (verb impersonate-on:MODE:VERB) and each part
// of wanted (verb impersonate:MODE, users and groups in authentication.k8s.io, never
// system:masters); for the legacy mode, verb impersonate, users, groups and service accounts in
// the core group.
func (s *Server) impersonateIn(ctx context.Context, mode string, u, wanted User, a attributes) (User, error) {
	verb, group := "impersonate", ""
	if mode != "" {
		verb, group = "impersonate:"+mode, authenticationv1.GroupName
		on := a
		on.Verb = "impersonate-on:" + mode + ":" + a.Verb
		if err := s.check(ctx, u, on); err != nil {
			return User{}, err
		}
	}
	actual := wanted
	name := resourceAttributes{Verb: verb, Group: group, Resource: "users", Name: wanted.Name}
	if node, ok := nodeUsername(wanted.Name); ok && mode == "arbitrary-node" {
		name.Resource, name.Name = "nodes", node
		actual.Groups = []string{nodesGroup}
	}
	if ns, sa, ok := splitServiceAccount(wanted.Name); ok {
		name.Resource, name.Namespace, name.Name = "serviceaccounts", ns, sa
		if len(wanted.Groups) == 0 {
			actual.Groups = serviceAccountGroups(ns)
		}
	}
	if err := s.check(ctx, u, name.attributes()); err != nil {
		return User{}, err
	}
	if wanted.UID != "" {
		if err := s.check(ctx, u, resourceAttributes{Verb: verb, Group: authenticationv1.GroupName, Resource: "uids", Name: wanted.UID}.attributes()); err != nil {
			return User{}, err
		}
	}
	for _, g := range wanted.Groups {
		ga := resourceAttributes{Verb: verb, Group: group, Resource: "groups", Name: g}.attributes()
		if mode != "" && (g == "" || g == mastersGroup) {
			if g == "" {
				ga.Name = ""
				return User{}, forbidden(u, ga, "impersonating the empty string group is not allowed")
			}
			return User{}, forbidden(u, ga, "impersonating the system:masters group is not allowed")
		}
		if err := s.check(ctx, u, ga); err != nil {
			return User{}, err
		}
	}
	for _, key := range slices.Sorted(maps.Keys(wanted.Extra)) {
		for _, v := range wanted.Extra[key] {
			if err := s.check(ctx, u, resourceAttributes{Verb: verb, Group: authenticationv1.GroupName, Resource: "userextras", Subresource: key, Name: v}.attributes()); err != nil {
				return User{}, err
			}
		}
	}
	return actual, nil
}

// check is nil if u may do a, else the apiserver's 403.
func (s *Server) check(ctx context.Context, u User, a attributes) error {
	if d := s.authorize(ctx, u, a); !d.allowed {
		return forbidden(u, a, d.reason)
	}
	return nil
}

// nodeUsername returns the node a node's user name, system:node:NAME, names.
func nodeUsername(user string) (string, bool) {
	name, ok := strings.CutPrefix(user, "system:node:")
	return name, ok && len(validation.IsDNS1123Subdomain(name)) == 0
}

// withGroup returns groups with g appended unless it is there, without modifying groups.
func withGroup(groups []string, g string) []string {
	if slices.Contains(groups, g) {
		return groups
	}
	return append(slices.Clip(groups), g)
}

// splitServiceAccount splits a service account's user name, system:serviceaccount:NS:NAME, with
// a valid namespace and service account name.
func splitServiceAccount(user string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, serviceAccountPrefix)
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || strings.Contains(name, ":") ||
		len(apivalidation.ValidateNamespaceName(namespace, false)) > 0 || len(apivalidation.ValidateServiceAccountName(name, false)) > 0 {
		return "", "", false
	}
	return namespace, name, true
}

// serviceAccountGroups are the groups of every service account of a namespace.
func serviceAccountGroups(namespace string) []string {
	return []string{serviceAccountsGroup, serviceAccountsGroup + ":" + namespace}
}

// errInvalidToken is the bearer token authenticator's error for a token no authenticator takes.
var errInvalidToken = errors.New("invalid bearer token")

// enforce authenticates and authorizes r (Options.EnforceRBAC), a request to a resource as req
// names it when isResource, else to a path; false means it answered.
func (s *Server) enforce(w http.ResponseWriter, r *http.Request, req Request, isResource bool) bool {
	a := attributes{nonResource: true, resourceAttributes: resourceAttributes{Verb: strings.ToLower(r.Method)}, Path: r.URL.Path}
	if isResource {
		a = resourceAttributes{Verb: req.Verb, Namespace: req.Namespace, Group: req.Resource.Group, Resource: req.Resource.Resource,
			Subresource: req.Subresource, Name: req.Name}.attributes()
	}
	u, err := s.requestUser(r, a)
	if err == nil {
		err = s.check(r.Context(), u, a)
	}
	if err != nil {
		writeError(w, err)
		return false
	}
	return true
}
