package fake_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/watchcache/watchcache/fake"
)

// authzFixture is a fake with a service account "robot" and a user "alice" who may read pods in
// namespace default (a Role and a RoleBinding), and clients: the admin's, alice's (impersonated)
// and the service account's (its token).
type authzFixture struct {
	srv                 *fake.Server
	admin, alice, robot *kubernetes.Clientset
	robotToken          string
}

func newAuthzFixture(t *testing.T, opts fake.Options) authzFixture {
	t.Helper()
	srv := fake.NewTest(t, opts)
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(srv.Config())
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read-pods"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	aliceCfg := srv.Config()
	aliceCfg.Impersonate = rest.ImpersonationConfig{UserName: "alice"}
	robotCfg := srv.Config()
	robotCfg.BearerToken = tr.Status.Token
	return authzFixture{srv: srv, admin: admin, alice: kubernetes.NewForConfigOrDie(aliceCfg), robot: kubernetes.NewForConfigOrDie(robotCfg), robotToken: tr.Status.Token}
}

// TestReviewsThroughClientGo asks the review APIs through client-go's typed clients (protobuf
// bodies), as kubectl auth can-i and controllers do: who each client is, what RBAC lets them do,
// with RBAC's reasons, and who a token is.
func TestReviewsThroughClientGo(t *testing.T) {
	f := newAuthzFixture(t, fake.Options{})
	ctx := context.Background()
	pods := func(verb string) *authorizationv1.ResourceAttributes {
		return &authorizationv1.ResourceAttributes{Namespace: "default", Verb: verb, Resource: "pods"}
	}
	for _, tc := range []struct {
		name        string
		cs          *kubernetes.Clientset
		attrs       *authorizationv1.ResourceAttributes
		allowed     bool
		reason      string
		username    string
		groupsCount int
	}{
		{"admin", f.admin, pods("delete"), true, "", "admin", 2},
		{"alice reads", f.alice, pods("list"), true, `RBAC: allowed by RoleBinding "read-pods/default" of Role "pod-reader" to User "alice"`, "alice", 1},
		{"alice deletes", f.alice, pods("delete"), false, "", "alice", 1},
		{"robot reads", f.robot, pods("get"), false, "", "system:serviceaccount:default:robot", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ssar, err := tc.cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: tc.attrs}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ssar.Status.Allowed != tc.allowed || ssar.Status.Reason != tc.reason {
				t.Errorf("allowed %t (%q), want %t (%q)", ssar.Status.Allowed, ssar.Status.Reason, tc.allowed, tc.reason)
			}
			ssr, err := tc.cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if u := ssr.Status.UserInfo; u.Username != tc.username || len(u.Groups) != tc.groupsCount {
				t.Errorf("user %s %v, want %s with %d groups", u.Username, u.Groups, tc.username, tc.groupsCount)
			}
		})
	}

	sar, err := f.admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "alice", ResourceAttributes: pods("watch")}}, metav1.CreateOptions{})
	if err != nil || !sar.Status.Allowed {
		t.Errorf("SubjectAccessReview of alice watching pods: %v %+v", err, sar.Status)
	}
	lsar, err := f.admin.AuthorizationV1().LocalSubjectAccessReviews("default").Create(ctx, &authorizationv1.LocalSubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "alice", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: "get", Resource: "pods"}}}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Errorf("LocalSubjectAccessReview of another namespace: %v %+v, want invalid", err, lsar)
	}
	rules, err := f.alice.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rules.Status.ResourceRules {
		found = found || (len(r.Resources) == 1 && r.Resources[0] == "pods" && len(r.Verbs) == 3)
	}
	if !found {
		t.Errorf("alice's rules lack the role's: %+v", rules.Status.ResourceRules)
	}
	if body, err := f.admin.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		t.Errorf("/readyz with the review APIs' caches: %v %s", err, body)
	}
	tr, err := f.admin.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: f.robotToken}}, metav1.CreateOptions{})
	if err != nil || !tr.Status.Authenticated || tr.Status.User.Username != "system:serviceaccount:default:robot" {
		t.Errorf("TokenReview of the robot's token: %v %+v", err, tr.Status)
	}
	tr, err = f.admin.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: f.robotToken + "x"}}, metav1.CreateOptions{})
	if err != nil || tr.Status.Authenticated || tr.Status.Error != "invalid bearer token" {
		t.Errorf("TokenReview of a forged token: %v %+v", err, tr.Status)
	}
}

// TestEnforceRBAC: with Options.EnforceRBAC, a client other than the admin may do what RBAC lets it
// and gets the apiserver's 403 otherwise; a token the fake did not issue gets 401; a binding given
// later lets the service account in.
func TestEnforceRBAC(t *testing.T) {
	f := newAuthzFixture(t, fake.Options{EnforceRBAC: true})
	ctx := context.Background()
	if _, err := f.alice.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("alice lists pods: %v", err)
	}
	_, err := f.alice.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{})
	if want := `pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "default"`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("alice creates a pod: %v, want %s", err, want)
	}
	_, err = f.robot.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("robot lists pods: %v, want forbidden", err)
	}
	if reqs := f.srv.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Verb != "list" || reqs[len(reqs)-1].Code != http.StatusForbidden {
		t.Errorf("the refused list is not the request log's last, with 403: %+v", reqs[max(len(reqs)-1, 0):])
	}
	if _, err := f.admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "robot-reads"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: "default"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.robot.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("robot lists pods after its binding: %v", err)
	}
	if _, err := f.robot.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("robot lists pods of another namespace: %v, want forbidden", err)
	}
	if _, err := f.robot.Discovery().ServerVersion(); err != nil {
		t.Errorf("robot reads /version (system:discovery): %v", err)
	}
	bad := f.srv.Config()
	bad.BearerToken = "not-a-token"
	_, err = kubernetes.NewForConfigOrDie(bad).CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("a token the fake did not issue: %v, want unauthorized", err)
	}
}

// TestReviewsBadInput: malformed reviews and impersonation headers are the apiserver's 4xx, never
// a 500 or a panic.
func TestReviewsBadInput(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{EnforceRBAC: true})
	paths := []string{
		"/apis/authentication.k8s.io/v1/selfsubjectreviews",
		"/apis/authentication.k8s.io/v1/tokenreviews",
		"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
		"/apis/authorization.k8s.io/v1/subjectaccessreviews",
		"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
		"/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
		"/apis/authorization.k8s.io/v1/namespaces/",
		"/apis/authorization.k8s.io/v1/watch/",
	}
	bodies := []string{"", "null", "[]", "{", `{"spec":null}`, `{"status":null}`, `{"spec":{"resourceAttributes":null,"nonResourceAttributes":null}}`,
		`{"spec":{"user":"a","resourceAttributes":{}}}`, `{"spec":{"groups":["g"],"nonResourceAttributes":{}}}`, `{"spec":{"token":"a.b.c"}}`,
		`{"spec":{"token":"eyJ.eyJ.AAAA"}}`, `{"spec":{"namespace":"default"}}`, "\x6b\x38\x73\x00garbage"}
	headers := []map[string]string{nil, {"Impersonate-Group": "g"}, {"Impersonate-User": "system:serviceaccount:"}, {"Impersonate-User": "system:node:"},
		{"Impersonate-User": "u", "Impersonate-Extra-%ZZ": "v", "Impersonate-Uid": "x"}, {"Authorization": "Bearer"}, {"Authorization": "Bearer a.b.c"}}
	for _, p := range paths {
		for _, b := range bodies {
			for _, h := range headers {
				req, err := http.NewRequest(http.MethodPost, srv.URL()+p, strings.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				for k, v := range h {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode >= 500 {
					t.Errorf("POST %s %q %v: %d", p, b, h, resp.StatusCode)
				}
			}
		}
	}
}

// TestEnforceRBACFollowsWrites: under EnforceRBAC, every write to a Role, ClusterRole or binding
// changes the next decision, however many decisions came before it, and one namespace's roles
// never decide for another's.
func TestEnforceRBACFollowsWrites(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{EnforceRBAC: true, Tokens: map[string]fake.User{"u": {Name: "u"}}})
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(srv.Config())
	for _, ns := range []string{"a", "b"} {
		if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := srv.Config()
	cfg.BearerToken = "u"
	u := kubernetes.NewForConfigOrDie(cfg)
	// expect checks the answer to u's GET of cm in each namespace, twice: the second decision is
	// the one a remembered state would give.
	expect := func(step string, allowedA, allowedB bool) {
		t.Helper()
		for range 2 {
			for ns, allowed := range map[string]bool{"a": allowedA, "b": allowedB} {
				_, err := u.CoreV1().ConfigMaps(ns).Get(ctx, "cm", metav1.GetOptions{})
				if allowed && err != nil || !allowed && !apierrors.IsForbidden(err) {
					t.Fatalf("%s: GET in %s: %v, want allowed=%v", step, ns, err, allowed)
				}
			}
		}
	}
	rules := func(verbs ...string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: verbs}}
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "u"}}
	expect("no binding", false, false)
	role, err := admin.RbacV1().Roles("a").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: rules("get")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expect("role without binding", false, false)
	if _, err := admin.RbacV1().RoleBindings("a").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "rb"}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("role binding in a", true, false)
	role.Rules = rules("list")
	if role, err = admin.RbacV1().Roles("a").Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("role's rules changed", false, false)
	role.Rules = rules("get")
	if _, err := admin.RbacV1().Roles("a").Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("role's rules restored", true, false)
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: rules("get")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "crb"}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("cluster role binding", true, true)
	if err := admin.RbacV1().RoleBindings("a").Delete(ctx, "rb", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("role binding deleted", true, true)
	if err := admin.RbacV1().ClusterRoles().Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("cluster role deleted", false, false)
}

// TestServiceAccountTokenChecksEveryRequest: a service account token that authenticated before
// is still refused (401) once it has expired or its service account is gone: only its signature's
// check is remembered between requests.
func TestServiceAccountTokenChecksEveryRequest(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC).Unix())
	srv := fake.NewTest(t, fake.Options{EnforceRBAC: true, Now: func() time.Time { return time.Unix(now.Load(), 0) }})
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(srv.Config())
	whoami := func(token string) error {
		cfg := srv.Config()
		cfg.BearerToken = token
		_, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		return err
	}
	token := func(name string) string {
		if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := whoami(tr.Status.Token); err != nil {
				t.Fatalf("%s's fresh token: %v", name, err)
			}
		}
		return tr.Status.Token
	}
	expiring, orphaned := token("expiring"), token("orphaned")
	now.Add(3601)
	if err := whoami(expiring); !apierrors.IsUnauthorized(err) {
		t.Errorf("expired token: %v, want 401", err)
	}
	now.Add(-3601)
	if err := admin.CoreV1().ServiceAccounts("default").Delete(ctx, "orphaned", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := whoami(orphaned); !apierrors.IsUnauthorized(err) {
		t.Errorf("token of a deleted service account: %v, want 401", err)
	}
	if err := whoami(expiring); err != nil {
		t.Errorf("the expiring token before its expiry again: %v", err)
	}
}
