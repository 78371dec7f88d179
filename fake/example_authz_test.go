package fake_test

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// A controller's service account checked against the RBAC it ships: the fake enforces it, the
// test's own client (no credentials) stays the admin and acts as the account by impersonation,
// and an access review says why a request is allowed.
func ExampleOptions_enforceRBAC() {
	srv, err := fake.NewServer(fake.Options{EnforceRBAC: true, Objects: []runtime.Object{
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader", Namespace: "default"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "controller", Namespace: "default"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "controller", Namespace: "default"}},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"}},
	}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	cfg := srv.Config()
	cfg.Impersonate.UserName = "system:serviceaccount:default:controller"
	controller := kubernetes.NewForConfigOrDie(cfg)

	_, err = controller.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	fmt.Println("list pods:", err)
	err = controller.CoreV1().Pods("default").Delete(ctx, "web", metav1.DeleteOptions{})
	fmt.Println("delete a pod:", err)

	review, err := controller.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "watch", Resource: "pods"}},
	}, metav1.CreateOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(review.Status.Allowed, review.Status.Reason)
	// Output:
	// list pods: <nil>
	// delete a pod: pods "web" is forbidden: User "system:serviceaccount:default:controller" cannot delete resource "pods" in API group "" in the namespace "default"
	// true RBAC: allowed by RoleBinding "controller/default" of Role "pod-reader" to ServiceAccount "controller/default"
}
