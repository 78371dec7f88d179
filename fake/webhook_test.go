package fake_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
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

// TestWebhookBadPatches: patches that apply but make no object of the resource's kind fail the
// write with a 500, never a panic, and store nothing.
func TestWebhookBadPatches(t *testing.T) {
	patches := map[string]string{
		"metadata-string": `[{"op":"replace","path":"/metadata","value":"x"}]`,
		"other-kind":      `[{"op":"replace","path":"/kind","value":"Pod"}]`,
		"whole-number":    `[{"op":"replace","path":"","value":7}]`,
		"data-number":     `[{"op":"add","path":"/data","value":{"k":1}}]`,
		"failed-test":     `[{"op":"test","path":"/metadata/name","value":"nope"}]`,
	}
	hooks := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		_ = json.NewDecoder(r.Body).Decode(&review)
		var obj metav1.PartialObjectMetadata
		_ = json.Unmarshal(review.Request.Object.Raw, &obj)
		jsonPatch := admissionv1.PatchTypeJSONPatch
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true, PatchType: &jsonPatch, Patch: []byte(patches[obj.Name])}
		_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	}))
	defer hooks.Close()
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hooks.Certificate().Raw})
	none := admissionregistrationv1.SideEffectClassNone
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "bad-patches"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "bad.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &hooks.URL, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name := range patches {
		t.Run(name, func(t *testing.T) {
			_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			if !apierrors.IsInternalError(err) {
				t.Fatalf("error %v, want a 500", err)
			}
			if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("stored after a failed patch: %v", err)
			}
		})
	}
}
