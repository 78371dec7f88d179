package gate

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// TestPolicy pins the apiserver's ABAC matching (pkg/auth/authorizer/abac): subjects, readonly,
// wildcards, the core group, non-resource paths.
func TestPolicy(t *testing.T) {
	p, err := ParsePolicy([]byte(`
{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"*","apiGroup":"*"}}
{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"bob","namespace":"projectCaribou","resource":"pods","apiGroup":"","readonly":true}}
{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"viewers","namespace":"*","resource":"deployments","apiGroup":"apps","readonly":true}}
{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"system:authenticated","readonly":true,"nonResourcePath":"/version*"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{"system:authenticated"}}
	carol := &user.DefaultInfo{Name: "carol", Groups: []string{"viewers", "system:authenticated"}}
	res := func(u user.Info, verb, group, resource, ns string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, Resource: resource, Namespace: ns, ResourceRequest: true}
	}
	path := func(u user.Info, verb, p string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, Path: p}
	}
	for _, tc := range []struct {
		name  string
		attrs authorizer.AttributesRecord
		allow bool
	}{
		{"alice writes anything", res(alice, "delete", "apps", "deployments", "x"), true},
		{"bob lists his pods", res(bob, "list", "", "pods", "projectCaribou"), true},
		{"bob watches his pods", res(bob, "watch", "", "pods", "projectCaribou"), true},
		{"bob may not write", res(bob, "create", "", "pods", "projectCaribou"), false},
		{"bob elsewhere", res(bob, "list", "", "pods", "default"), false},
		{"bob all namespaces", res(bob, "list", "", "pods", ""), false},
		{"bob's rule is the core group", res(bob, "list", "other", "pods", "projectCaribou"), false},
		{"carol by group", res(carol, "get", "apps", "deployments", "any"), true},
		{"carol not replicasets", res(carol, "get", "apps", "replicasets", "any"), false},
		{"a rule for resources does not match a path", path(alice, "get", "/metrics"), false},
		{"prefix path", path(bob, "get", "/version/x"), true},
		{"exact path", path(bob, "get", "/version"), true},
		{"path rule is readonly", path(bob, "post", "/version"), false},
		{"no user", authorizer.AttributesRecord{Verb: "get", ResourceRequest: true, Resource: "pods"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _, err := p.Authorize(context.Background(), tc.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if (d == authorizer.DecisionAllow) != tc.allow {
				t.Fatalf("decision %v, want allow=%v", d, tc.allow)
			}
		})
	}
}

func TestParsePolicyErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "\n# nothing\n", "no rule"},
		{"not JSON", "{", "line 1"},
		{"unknown field", `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"a","verb":"get"}}`, "unknown field"},
		{"v0 line", `{"user":"a"}`, "line 1"},
		{"other kind", `{"apiVersion":"v1","kind":"Pod","spec":{"user":"a"}}`, "line 1: want a Policy"},
		{"no subject", `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"resource":"pods"}}`, "user or a group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePolicy([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
