package fake_test

import (
	"context"
	"fmt"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// BenchmarkEnforceRBACGet: a GET through client-go under Options.EnforceRBAC by a user that a
// RoleBinding allows, among 40 cluster roles and bindings and 10 roles and role bindings of the
// namespace: the authorization every request of a test with an RBAC-bound identity pays.
func BenchmarkEnforceRBACGet(b *testing.B) {
	srv := fake.NewTest(b, fake.Options{EnforceRBAC: true, Tokens: map[string]fake.User{"reader": {Name: "reader"}}})
	admin := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	rules := []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}
	for i := range 40 {
		name := fmt.Sprintf("c-%02d", i)
		if _, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "someone-" + name}}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 10 {
		name := fmt.Sprintf("r-%02d", i)
		subject := "someone-" + name
		if i == 9 {
			subject = "reader"
		}
		if _, err := admin.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: subject}}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	cfg := srv.Config()
	cfg.BearerToken = "reader"
	benchGetConfigMap(b, kubernetes.NewForConfigOrDie(cfg))
}

// BenchmarkServiceAccountGet: a GET through client-go under Options.EnforceRBAC with a service
// account's token (TokenRequest), which a RoleBinding allows: the authentication and
// authorization a controller's requests pay in a test that runs it as its service account.
func BenchmarkServiceAccountGet(b *testing.B) {
	srv := fake.NewTest(b, fake.Options{EnforceRBAC: true})
	admin := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := admin.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "r"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: "default"}}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := srv.Config()
	cfg.BearerToken = tr.Status.Token
	benchGetConfigMap(b, kubernetes.NewForConfigOrDie(cfg))
}

// benchGetConfigMap gets the ConfigMap default/cm with cs in the benchmark's loop, and reports
// the process's CPU per GET.
func benchGetConfigMap(b *testing.B, cs *kubernetes.Clientset) {
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuNow()
	for b.Loop() {
		if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm", metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
