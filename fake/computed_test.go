package fake_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// TestBindAndEvictThroughClientGo binds a pod and evicts pods through client-go's typed clients,
// which send protobuf bodies, as a scheduler and a drain do: the binding sets the node, a pod
// that a budget protects is refused with 429 until the budget allows a disruption, and the
// eviction then spends it.
func TestBindAndEvictThroughClientGo(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
	if err := pods.Bind(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("bind: %v", err)
	}
	got, err := pods.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "node-1" || len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Type != corev1.PodScheduled {
		t.Fatalf("bound pod: node %q, conditions %v", got.Spec.NodeName, got.Status.Conditions)
	}
	if err := pods.Bind(ctx, binding, metav1.CreateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("second bind: %v, want a conflict", err)
	}
	got.Status.Phase = corev1.PodRunning
	got.Status.Conditions = append(got.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue})
	if _, err := pods.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdbs := cs.PolicyV1().PodDisruptionBudgets("default")
	one := intstr.FromInt32(1)
	pdb, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// What the disruption controller would write: first no disruption allowed, then one. (An
	// unprocessed budget's 429 carries Retry-After: 10, which client-go waits out ten times.)
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
	if pdb, err = pdbs.UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eviction := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	if err := pods.EvictV1(ctx, eviction); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("evict against a budget that allows no disruption: %v, want 429", err)
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 1, CurrentHealthy: 2, DesiredHealthy: 1, ExpectedPods: 2}
	if _, err := pdbs.UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.EvictV1(ctx, eviction); err != nil {
		t.Fatalf("evict: %v", err)
	}
	got, err = pods.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.DeletionTimestamp == nil {
		t.Fatal("the evicted pod (on a node) is not terminating")
	}
	after, err := pdbs.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if at, ok := after.Status.DisruptedPods["web"]; after.Status.DisruptionsAllowed != 0 || !ok || at.IsZero() {
		t.Fatalf("budget after the eviction: %+v", after.Status)
	}
}

// TestCreateTokenThroughClientGo asks for a service account's token as `kubectl create token`
// does (client-go's CreateToken, protobuf): the token is a JWT whose claims name the account, its
// audiences and an expiry the answer's status gives.
func TestCreateTokenThroughClientGo(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	sa, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "builder", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tr.Status.Token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a JWT", tr.Status.Token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Aud []string
		Exp int64
		Sub string
		K8s struct {
			Serviceaccount struct{ Name, UID string }
		} `json:"kubernetes.io"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	if claims.Sub != "system:serviceaccount:default:builder" || len(claims.Aud) != 1 || claims.Aud[0] != "vault" ||
		claims.K8s.Serviceaccount.UID != string(sa.UID) || claims.Exp != tr.Status.ExpirationTimestamp.Unix() {
		t.Fatalf("claims %+v, status %+v", claims, tr.Status)
	}
	if tr.Spec.ExpirationSeconds == nil || *tr.Spec.ExpirationSeconds != 3600 {
		t.Fatalf("expirationSeconds %v, want the default 3600", tr.Spec.ExpirationSeconds)
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "nobody", &authenticationv1.TokenRequest{}, metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("token of a missing account: %v, want 404", err)
	}
}
