package fake_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// TestBindingsCollectionWebhook: a POST to the bindings collection is a create of the resource
// "bindings" for the webhooks (the apiserver serves it as a resource of its own), not of
// pods/binding, which the pod's binding subresource is.
func TestBindingsCollectionWebhook(t *testing.T) {
	hs := startWebhookServer(t)
	ca, err := base64.StdEncoding.DecodeString(hs.caBundle)
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	none := admissionregistrationv1.SideEffectClassNone
	hook := func(name, resource string) admissionregistrationv1.ValidatingWebhook {
		url := hs.URL + "/deny-reason"
		return admissionregistrationv1.ValidatingWebhook{Name: name, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{resource}}}}}
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "bindings"},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{hook("collection.example.com", "bindings"), hook("subresource.example.com", "pods/binding")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := cs.CoreV1().Pods("default")
	for _, name := range []string{"p1", "p2"} {
		if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	binding := func(name string) *corev1.Binding {
		return &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name}, Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}
	}
	err = cs.CoreV1().RESTClient().Post().Namespace("default").Resource("bindings").Body(binding("p1")).Do(ctx).Error()
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `"collection.example.com" denied`) {
		t.Errorf("bindings collection: %v, want collection.example.com's refusal", err)
	}
	err = pods.Bind(ctx, binding("p2"), metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `"subresource.example.com" denied`) {
		t.Errorf("pods/binding: %v, want subresource.example.com's refusal", err)
	}
}
