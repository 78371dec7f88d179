package fake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/watchcache/watchcache/watchcache"
)

// Authorization: what the apiserver's authorizers (--authorization-mode=Node,RBAC, after the
// privileged-group authorizer that allows system:masters everything) decide about a request, from
// the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings stored in the fake
// (reference/observed-authz.md). The Node authorizer has an opinion only about nodes' own
// requests, which the fake does not make, and is left out.
//
// RBAC's bootstrap policy is not stored in the fake: the roles it binds to broad groups are built
// in (bootstrapRBAC) — every authenticated user may ask who they are and what they may do
// (system:basic-user), read discovery (system:discovery) and health (system:public-info-viewer,
// also unauthenticated), service accounts may read the issuer's keys and cluster trust bundles,
// and system:masters is cluster-admin. A stored ClusterRole or ClusterRoleBinding of the same name
// replaces the built-in one. The bootstrap roles for controllers and nodes are not there.

// attributes is what a request asks to do: a resource request (verb, namespace, group,
// resource, subresource, name) or a non-resource one (verb, path).
type attributes struct {
	resourceAttributes
	nonResource bool
	Path        string
}

// resourceAttributes are the attributes of a resource request.
type resourceAttributes struct {
	Verb, Namespace, Group, Resource, Subresource, Name string
}

func (a resourceAttributes) attributes() attributes { return attributes{resourceAttributes: a} }

// decision is an authorizer's answer: allowed, and the reason; reason of a refusal is RBAC's
// evaluation errors (a binding to a missing role), prefixed with the authorizer's name.
type decision struct {
	allowed bool
	reason  string
}

// rbacSnapshot is the RBAC objects an authorization reads: the cluster's, and those of the
// namespace asked about (nil for a cluster-scoped request). The objects are listTyped's, shared
// between requests and never modified.
type rbacSnapshot struct {
	cluster *clusterRBAC
	ns      *namespaceRBAC
}

// clusterRBAC is the decoded ClusterRoles (the built-in ones among them) by name and the
// ClusterRoleBindings by name.
type clusterRBAC struct {
	roles    map[string]*rbacv1.ClusterRole
	bindings []*rbacv1.ClusterRoleBinding
}

// namespaceRBAC is the decoded Roles of one namespace by name and its RoleBindings by name.
type namespaceRBAC struct {
	roles    map[string]*rbacv1.Role
	bindings []*rbacv1.RoleBinding
}

// authorize decides whether u may do a, as the apiserver's authorizer chain does.
func (s *Server) authorize(ctx context.Context, u User, a attributes) decision {
	if slices.Contains(u.Groups, mastersGroup) {
		return decision{allowed: true}
	}
	var errs []error
	var allowedBy string
	s.visitRules(ctx, u, a.Namespace, func(source string, rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
			return true
		}
		if ruleAllows(a, rule) {
			allowedBy = source
			return false
		}
		return true
	})
	if allowedBy != "" {
		return decision{allowed: true, reason: "RBAC: allowed by " + allowedBy}
	}
	if len(errs) > 0 {
		return decision{reason: "rbac: RBAC: " + utilerrors.NewAggregate(errs).Error()}
	}
	return decision{}
}

// rulesFor returns the rules RBAC gives u in namespace, and its evaluation errors.
func (s *Server) rulesFor(ctx context.Context, u User, namespace string) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	var errs []error
	s.visitRules(ctx, u, namespace, func(_ string, rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
		} else {
			rules = append(rules, *rule)
		}
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// visitRules calls visit with each rule a binding gives u — cluster role bindings first, then the
// role bindings of namespace, each by name — and the description of the binding and subject, or
// with the error of a binding whose role is missing, until visit returns false.
func (s *Server) visitRules(ctx context.Context, u User, namespace string, visit func(source string, rule *rbacv1.PolicyRule, err error) bool) {
	snap := s.rbacSnapshot(ctx, namespace)
	for _, b := range snap.cluster.bindings {
		i, ok := appliesTo(u, b.Subjects, "")
		if !ok {
			continue
		}
		rules, err := snap.roleRules(b.RoleRef)
		if err != nil {
			if !visit("", nil, err) {
				return
			}
			continue
		}
		source := fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(b.Subjects[i], ""))
		for j := range rules {
			if !visit(source, &rules[j], nil) {
				return
			}
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range snap.ns.bindings {
		i, ok := appliesTo(u, b.Subjects, namespace)
		if !ok {
			continue
		}
		rules, err := snap.roleRules(b.RoleRef)
		if err != nil {
			if !visit("", nil, err) {
				return
			}
			continue
		}
		source := fmt.Sprintf("RoleBinding %q of %s %q to %s", b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(b.Subjects[i], b.Namespace))
		for j := range rules {
			if !visit(source, &rules[j], nil) {
				return
			}
		}
	}
}

// roleRules returns the rules of the role a binding refers to.
func (snap *rbacSnapshot) roleRules(ref rbacv1.RoleRef) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		if snap.ns != nil {
			if r := snap.ns.roles[ref.Name]; r != nil {
				return r.Rules, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: rbacv1.GroupName, Resource: "role"}, ref.Name)
	case "ClusterRole":
		if r := snap.cluster.roles[ref.Name]; r != nil {
			return r.Rules, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterrole"}, ref.Name)
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// rbacSnapshot returns the cluster roles and bindings, the built-in ones among them, and the roles
// and role bindings of namespace. listTyped decodes each list again only once a write changed it.
func (s *Server) rbacSnapshot(ctx context.Context, namespace string) *rbacSnapshot {
	snap := &rbacSnapshot{cluster: s.readClusterRBAC(ctx)}
	if namespace == "" {
		return snap
	}
	snap.ns = &namespaceRBAC{roles: map[string]*rbacv1.Role{}}
	for _, o := range s.listTyped(ctx, rbacGR("roles"), namespace) {
		if r, ok := o.(*rbacv1.Role); ok {
			snap.ns.roles[r.Name] = r
		}
	}
	for _, o := range s.listTyped(ctx, rbacGR("rolebindings"), namespace) {
		if b, ok := o.(*rbacv1.RoleBinding); ok {
			snap.ns.bindings = append(snap.ns.bindings, b)
		}
	}
	slices.SortFunc(snap.ns.bindings, func(a, b *rbacv1.RoleBinding) int { return strings.Compare(a.Name, b.Name) })
	return snap
}

// readClusterRBAC reads the stored cluster roles and bindings over the built-in ones.
func (s *Server) readClusterRBAC(ctx context.Context) *clusterRBAC {
	c := &clusterRBAC{roles: map[string]*rbacv1.ClusterRole{}}
	builtinRoles, builtinBindings := bootstrapRBAC()
	for _, r := range builtinRoles {
		c.roles[r.Name] = r
	}
	for _, o := range s.listTyped(ctx, rbacGR("clusterroles"), "") {
		if r, ok := o.(*rbacv1.ClusterRole); ok {
			c.roles[r.Name] = r
		}
	}
	bindings := map[string]*rbacv1.ClusterRoleBinding{}
	for _, b := range builtinBindings {
		bindings[b.Name] = b
	}
	for _, o := range s.listTyped(ctx, rbacGR("clusterrolebindings"), "") {
		if b, ok := o.(*rbacv1.ClusterRoleBinding); ok {
			bindings[b.Name] = b
		}
	}
	for _, b := range bindings {
		c.bindings = append(c.bindings, b)
	}
	slices.SortFunc(c.bindings, func(a, b *rbacv1.ClusterRoleBinding) int { return strings.Compare(a.Name, b.Name) })
	return c
}

// appliesTo returns the first subject that names u, and whether one does.
func appliesTo(u User, subjects []rbacv1.Subject, namespace string) (int, bool) {
	for i, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			if u.Name == s.Name {
				return i, true
			}
		case rbacv1.GroupKind:
			if slices.Contains(u.Groups, s.Name) {
				return i, true
			}
		case rbacv1.ServiceAccountKind:
			ns := namespace
			if s.Namespace != "" {
				ns = s.Namespace
			}
			if ns != "" && u.Name == serviceAccountPrefix+ns+":"+s.Name {
				return i, true
			}
		}
	}
	return 0, false
}

// describeSubject is how RBAC's reason names a subject: a service account as name/namespace.
func describeSubject(s rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// ruleAllows reports whether rule allows a (RBAC's RuleAllows): verbs, and either API groups,
// resources ("resource/subresource", "*", "*/subresource") and resource names, or non-resource
// URLs ("*" and a trailing "*" as a prefix).
func ruleAllows(a attributes, rule *rbacv1.PolicyRule) bool {
	if !matchesAny(rule.Verbs, a.Verb) {
		return false
	}
	if a.nonResource {
		for _, u := range rule.NonResourceURLs {
			if u == rbacv1.NonResourceAll || u == a.Path || (strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimSuffix(u, "*"))) {
				return true
			}
		}
		return false
	}
	if !matchesAny(rule.APIGroups, a.Group) {
		return false
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	found := false
	for _, r := range rule.Resources {
		if r == rbacv1.ResourceAll || r == resource || (a.Subresource != "" && r == "*/"+a.Subresource) {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	return len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, a.Name)
}

// rbacGR is a resource of rbac.authorization.k8s.io.
func rbacGR(resource string) schema.GroupResource {
	return schema.GroupResource{Group: rbacv1.GroupName, Resource: resource}
}

// matchesAny reports whether values hold v or "*".
func matchesAny(values []string, v string) bool {
	return slices.Contains(values, "*") || slices.Contains(values, v)
}

// forbidden is the apiserver's 403 for a refused request (responsewriters.Forbidden):
// `<resource>[.<group>] ["<name>"] is forbidden: User "<user>" cannot <verb> resource "<resource>"
// in API group "<group>" in the namespace "<ns>"` (or at the cluster scope), and the
// authorizer's reason after a colon when it gives one.
func forbidden(u User, a attributes, reason string) error {
	var msg string
	if a.nonResource {
		msg = fmt.Sprintf("User %q cannot %s path %q", u.Name, a.Verb, a.Path)
	} else {
		resource := a.Resource
		if a.Subresource != "" {
			resource += "/" + a.Subresource
		}
		scope := "at the cluster scope"
		if a.Namespace != "" {
			scope = fmt.Sprintf("in the namespace %q", a.Namespace)
		}
		msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q %s", u.Name, a.Verb, resource, a.Group, scope)
	}
	if reason != "" {
		msg += ": " + reason
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: a.Group, Resource: a.Resource}, a.Name, errors.New(msg))
}

// listTyped returns the stored objects of a built-in resource (of a namespace, or all), decoded;
// one that does not decode is left out. The objects are shared with the callers before and after
// (typedLists), who must not modify them.
func (s *Server) listTyped(ctx context.Context, gr schema.GroupResource, namespace string) []runtime.Object {
	r := s.servedGR(gr)
	if r == nil {
		return nil
	}
	k := typedListKey{gr: gr, namespace: namespace}
	// The resourceVersion is read before the list, so a write between the two makes the next
	// call decode again rather than keep a stale list.
	rv := r.cache.ResourceVersion()
	m := &s.typedLists
	m.mu.Lock()
	l, ok := m.lists[k]
	m.mu.Unlock()
	if ok && l.rv == rv {
		return l.objs
	}
	page, err := r.cache.List(ctx, watchcache.ListOptions{Namespace: namespace, ResourceVersion: "0"})
	if err != nil {
		return nil
	}
	out := make([]runtime.Object, 0, len(page.Items))
	for _, it := range page.Items {
		if obj, err := decodeStored(r.resourceType, it); err == nil {
			out = append(out, obj)
		}
	}
	m.mu.Lock()
	if m.lists == nil || len(m.lists) >= maxTypedLists {
		m.lists = map[typedListKey]typedList{}
	}
	m.lists[k] = typedList{rv: rv, objs: out}
	m.mu.Unlock()
	return out
}

// typedLists keeps the lists listTyped last decoded, with their cache's resourceVersion before
// the read: admission reads the same few lists on every write (a pod create the priority
// classes and the namespace's limit ranges, an authorization the RBAC objects) and decodes them
// again only once a write changed their resource.
type typedLists struct {
	mu    sync.Mutex
	lists map[typedListKey]typedList
}

type typedListKey struct {
	gr        schema.GroupResource
	namespace string
}

type typedList struct {
	rv   uint64
	objs []runtime.Object
}

// maxTypedLists bounds typedLists; past it, it starts over.
const maxTypedLists = 1024

// bootstrapRBAC returns the built-in cluster roles and their bindings, as kube-apiserver 1.37.2's
// bootstrap policy has them (read from the oracle). They are new on every call: callers may keep
// them.
func bootstrapRBAC() ([]*rbacv1.ClusterRole, []*rbacv1.ClusterRoleBinding) {
	get := []string{"get"}
	roles := []*rbacv1.ClusterRole{
		{Rules: []rbacv1.PolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, {Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}},
		{Rules: []rbacv1.PolicyRule{
			{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
			{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}},
		}},
		{Rules: []rbacv1.PolicyRule{{Verbs: get, NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}}}},
		{Rules: []rbacv1.PolicyRule{{Verbs: get, NonResourceURLs: []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}}}},
		{Rules: []rbacv1.PolicyRule{{Verbs: get, NonResourceURLs: []string{"/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/"}}}},
		{Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"clustertrustbundles"}}}},
	}
	subjects := [][]string{{mastersGroup}, {authenticatedGroup}, {authenticatedGroup}, {authenticatedGroup, unauthenticatedGroup}, {serviceAccountsGroup}, {serviceAccountsGroup}}
	var bindings []*rbacv1.ClusterRoleBinding
	for i, name := range []string{"cluster-admin", "system:basic-user", "system:discovery", "system:public-info-viewer", "system:service-account-issuer-discovery", "system:cluster-trust-bundle-discovery"} {
		roles[i].Name = name
		b := &rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}}
		b.Name = name
		for _, g := range subjects[i] {
			b.Subjects = append(b.Subjects, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: g})
		}
		bindings = append(bindings, b)
	}
	return roles, bindings
}
