package crdcel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/fake/crdcel"
)

// A validating webhook of config maps whose matchCondition leaves out those labelled
// skip: with crdcel's matchConditions, the fake calls it for the first config map only.
func ExampleWebhookMatchConditions() {
	var calls atomic.Int32
	hooks := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var review admissionv1.AdmissionReview
		_ = json.NewDecoder(r.Body).Decode(&review)
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(review)
	}))
	defer hooks.Close()
	srv, err := fake.NewServer(fake.Options{WebhookMatchConditions: crdcel.WebhookMatchConditions()})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	none := admissionregistrationv1.SideEffectClassNone
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "example"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "configmaps.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &hooks.URL, CABundle: caBundle(hooks)},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "not-skipped",
				Expression: "!has(object.metadata.labels) || !('skip' in object.metadata.labels)"}},
		}},
	}, metav1.CreateOptions{}); err != nil {
		panic(err)
	}
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "sent"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "skipped", Labels: map[string]string{"skip": "yes"}}},
	} {
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}
	fmt.Println("webhook calls:", calls.Load())
	// Output: webhook calls: 1
}
