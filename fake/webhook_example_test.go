package fake_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// An operator's admission webhooks, served by a plain net/http server over TLS, called by the
// fake as a cluster calls them: the mutating one (reached through a service reference, which
// Options.WebhookServiceURL resolves to the test's server) defaults a config map's team label,
// the validating one refuses a team that owns nothing.
func ExampleNewServer_admissionWebhooks() {
	hooks := httptest.NewTLSServer(http.HandlerFunc(serveTeamWebhooks))
	defer hooks.Close()
	srv, err := fake.NewServer(fake.Options{
		WebhookServiceURL: func(namespace, name string, port int32) string { return hooks.URL },
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()

	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hooks.Certificate().Raw})
	none := admissionregistrationv1.SideEffectClassNone
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}
	defaultPath, validateURL := "/default", hooks.URL+"/validate"
	_, err = cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "team-defaults"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "team.defaults.example.com", Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: ca,
				Service: &admissionregistrationv1.ServiceReference{Namespace: "team-system", Name: "webhooks", Path: &defaultPath}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		panic(err)
	}
	_, err = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "team-checks"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "team.checks.example.com", Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: ca, URL: &validateURL},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		panic(err)
	}

	cms := cs.CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("team:", cm.Labels["team"])
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Labels: map[string]string{"team": "nobody"}}}, metav1.CreateOptions{})
	fmt.Println(apierrors.IsForbidden(err), err)
	// Output:
	// team: platform
	// true admission webhook "team.checks.example.com" denied the request: team "nobody" owns nothing
}

// serveTeamWebhooks answers AdmissionReviews: /default adds the label team=platform to an object
// without one (a JSON patch); /validate refuses team=nobody with a 403.
func serveTeamWebhooks(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	var obj metav1.PartialObjectMetadata
	_ = json.Unmarshal(review.Request.Object.Raw, &obj)
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	switch r.URL.Path {
	case "/default":
		if _, ok := obj.Labels["team"]; !ok {
			op := map[string]any{"op": "add", "path": "/metadata/labels/team", "value": "platform"}
			if obj.Labels == nil {
				op = map[string]any{"op": "add", "path": "/metadata/labels", "value": map[string]string{"team": "platform"}}
			}
			resp.Patch, _ = json.Marshal([]any{op})
			jsonPatch := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &jsonPatch
		}
	case "/validate":
		if team := obj.Labels["team"]; team == "nobody" {
			resp.Allowed = false
			resp.Result = &metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: fmt.Sprintf("team %q owns nothing", team)}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
}
