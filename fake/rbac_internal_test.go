package fake

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// TestRuleAllows pins RBAC's rule matching (its RuleAllows): verbs, API groups, resources with
// subresources ("pods/log", "*/scale"), resource names, and non-resource URLs with "*" and a
// trailing-"*" prefix.
func TestRuleAllows(t *testing.T) {
	res := func(verb, group, resource, sub, name string) attributes {
		return resourceAttributes{Verb: verb, Group: group, Resource: resource, Subresource: sub, Name: name}.attributes()
	}
	path := func(verb, p string) attributes {
		return attributes{nonResource: true, resourceAttributes: resourceAttributes{Verb: verb}, Path: p}
	}
	read := rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}}
	named := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"cm1"}}
	anyScale := rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}
	urls := rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics", "/logs/*"}}
	for _, tc := range []struct {
		name string
		rule rbacv1.PolicyRule
		a    attributes
		want bool
	}{
		{"verb and resource", read, res("list", "", "pods", "", ""), true},
		{"other verb", read, res("delete", "", "pods", "", ""), false},
		{"other group", read, res("get", "apps", "pods", "", ""), false},
		{"listed subresource", read, res("get", "", "pods", "log", "p"), true},
		{"other subresource", read, res("get", "", "pods", "exec", "p"), false},
		{"named", named, res("get", "", "configmaps", "", "cm1"), true},
		{"other name", named, res("get", "", "configmaps", "", "cm2"), false},
		{"no name against names", named, res("get", "", "configmaps", "", ""), false},
		{"*/subresource", anyScale, res("update", "apps", "deployments", "scale", "d"), true},
		{"*/subresource, the resource itself", anyScale, res("update", "apps", "deployments", "", "d"), false},
		{"non-resource exact", urls, path("get", "/metrics"), true},
		{"non-resource prefix", urls, path("get", "/logs/a/b"), true},
		{"non-resource prefix's root", urls, path("get", "/logs"), false},
		{"non-resource other verb", urls, path("post", "/metrics"), false},
		{"resource rule, non-resource request", read, path("get", "/metrics"), false},
		{"non-resource rule, resource request", urls, res("get", "", "pods", "", ""), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ruleAllows(tc.a, &tc.rule); got != tc.want {
				t.Errorf("ruleAllows = %t, want %t", got, tc.want)
			}
		})
	}
}

// TestAppliesTo pins which subjects of a binding name a user: a user by name, a group by
// membership, a service account by its user name, in the binding's namespace when the subject
// names none.
func TestAppliesTo(t *testing.T) {
	sa := User{Name: "system:serviceaccount:ns:robot", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns"}}
	for _, tc := range []struct {
		name      string
		u         User
		subject   rbacv1.Subject
		namespace string
		want      bool
	}{
		{"user", User{Name: "alice"}, rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"}, "", true},
		{"other user", User{Name: "bob"}, rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"}, "", false},
		{"group", User{Name: "bob", Groups: []string{"devs"}}, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "devs"}, "", true},
		{"service account", sa, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: "ns"}, "", true},
		{"service account of the binding's namespace", sa, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "robot"}, "ns", true},
		{"service account without a namespace", sa, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "robot"}, "", false},
		{"service account elsewhere", sa, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: "other"}, "ns", false},
		{"service accounts' group", sa, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:serviceaccounts:ns"}, "", true},
		{"unknown kind", User{Name: "alice"}, rbacv1.Subject{Kind: "Robot", Name: "alice"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, got := appliesTo(tc.u, []rbacv1.Subject{tc.subject}, tc.namespace); got != tc.want {
				t.Errorf("appliesTo = %t, want %t", got, tc.want)
			}
		})
	}
}

// TestSplitUsernames pins the service account and node user names impersonation recognizes.
func TestSplitUsernames(t *testing.T) {
	for _, tc := range []struct {
		user             string
		ns, name, node   string
		isSA, isNodeUser bool
	}{
		{user: "system:serviceaccount:ns:robot", ns: "ns", name: "robot", isSA: true},
		{user: "system:serviceaccount:ns:"},
		{user: "system:serviceaccount::robot"},
		{user: "system:serviceaccount:ns:a:b"},
		{user: "system:serviceaccount:NS:robot"},
		{user: "system:serviceaccount:ns:Robot"},
		{user: "system:node:n1", node: "n1", isNodeUser: true},
		{user: "system:node:"},
		{user: "system:node:Bad_Name"},
		{user: "alice"},
	} {
		t.Run(tc.user, func(t *testing.T) {
			ns, name, ok := splitServiceAccount(tc.user)
			if ok != tc.isSA || ns != tc.ns || name != tc.name {
				t.Errorf("splitServiceAccount = %q %q %t", ns, name, ok)
			}
			node, ok := nodeUsername(tc.user)
			if ok != tc.isNodeUser || (ok && node != tc.node) {
				t.Errorf("nodeUsername = %q %t", node, ok)
			}
		})
	}
}
