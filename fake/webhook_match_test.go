package fake_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// conditionsByName is a WebhookMatchConditions that needs no CEL: a condition named "true" holds,
// "false" does not, "error" fails to evaluate; it checks what the fake gives it on the way.
type conditionsByName struct{ t *testing.T }

func (c conditionsByName) Match(ctx context.Context, m fake.WebhookMatch) (bool, error) {
	var obj metav1.PartialObjectMetadata
	if err := json.Unmarshal(m.Request.Object.Raw, &obj); err != nil || obj.Name != m.Request.Name || m.Request.Operation != "CREATE" {
		c.t.Errorf("%s: request %+v, object %s (%v)", m.Webhook, m.Request, m.Request.Object.Raw, err)
	}
	if ok, _ := m.Authorize(ctx, fake.AuthorizationAttributes{Verb: "list", Resource: "pods"}); !ok {
		c.t.Errorf("%s: the request's user (system:masters) may not list pods", m.Webhook)
	}
	for _, cond := range m.Conditions {
		switch cond.Name {
		case "false":
			return false, nil
		case "error":
			return false, errors.New("no such key: x")
		}
	}
	return true, nil
}

// TestWebhookMatchConditionsHook: with Options.WebhookMatchConditions, a webhook is called when
// its conditions hold, skipped when one is false, and an evaluation error refuses the request
// with the apiserver's 403 under failurePolicy Fail and skips the webhook under Ignore.
func TestWebhookMatchConditionsHook(t *testing.T) {
	hs := startWebhookServer(t)
	ca, err := base64.StdEncoding.DecodeString(hs.caBundle)
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.NewTest(t, fake.Options{WebhookMatchConditions: conditionsByName{t}})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	none := admissionregistrationv1.SideEffectClassNone
	ignore := admissionregistrationv1.Ignore
	url := hs.URL + "/allow"
	hook := func(name, condition string, policy *admissionregistrationv1.FailurePolicyType) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{Name: name + ".example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig:    admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			FailurePolicy:   policy,
			ObjectSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"hook": name}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "true", Expression: "true"}, {Name: condition, Expression: condition}},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "conditions"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{hook("holds", "also", nil), hook("false", "false", nil),
			hook("error", "error", nil), hook("ignored", "error", &ignore)},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		hook    string
		called  bool
		refused string
	}{
		{hook: "holds", called: true},
		{hook: "false"},
		{hook: "error", refused: `configmaps "cm-error" is forbidden: no such key: x`},
		{hook: "ignored"},
	} {
		t.Run(tc.hook, func(t *testing.T) {
			hs.mu.Lock()
			hs.reviews = nil
			hs.mu.Unlock()
			_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-" + tc.hook, Labels: map[string]string{"hook": tc.hook}}}, metav1.CreateOptions{})
			switch {
			case tc.refused != "" && (!apierrors.IsForbidden(err) || err.Error() != tc.refused):
				t.Errorf("error %v, want %s", err, tc.refused)
			case tc.refused == "" && err != nil:
				t.Errorf("error %v", err)
			}
			hs.mu.Lock()
			called := len(hs.reviews) > 0
			hs.mu.Unlock()
			if called != tc.called {
				t.Errorf("called %v, want %v", called, tc.called)
			}
		})
	}
}

// compilingConditions is a MatchConditionsValidator that needs no CEL: "bad" does not compile
// unless stored, and it records which expressions it was told were stored.
type compilingConditions struct {
	conditionsByName
	stored map[string]bool
}

func (c compilingConditions) ValidateMatchCondition(expression string, stored bool, p *field.Path) field.ErrorList {
	c.stored[expression] = stored
	if expression == "bad" && !stored {
		return field.ErrorList{field.Invalid(p, expression, "compilation failed")}
	}
	return nil
}

// TestMatchConditionsValidator: with a MatchConditionsValidator, a configuration's conditions are
// compiled when it is written — a create with one that does not compile is a 422 naming it — and
// an update compiles the conditions the configuration already had as stored ones.
func TestMatchConditionsValidator(t *testing.T) {
	v := compilingConditions{conditionsByName{t}, map[string]bool{}}
	srv := fake.NewTest(t, fake.Options{WebhookMatchConditions: v})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	none := admissionregistrationv1.SideEffectClassNone
	url := "https://127.0.0.1:1/"
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "compiled"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "w.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig:    admissionregistrationv1.WebhookClientConfig{URL: &url},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "good"}, {Name: "b", Expression: "bad"}}}},
	}
	_, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{})
	want := `ValidatingWebhookConfiguration.admissionregistration.k8s.io "compiled" is invalid: webhooks[0].matchConditions[1].expression: Invalid value: "bad": compilation failed`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Fatalf("create: %v, want %s", err, want)
	}
	cfg.Webhooks[0].MatchConditions = cfg.Webhooks[0].MatchConditions[:1]
	created, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Webhooks[0].MatchConditions = append(created.Webhooks[0].MatchConditions, admissionregistrationv1.MatchCondition{Name: "c", Expression: "new"})
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !v.stored["good"] || v.stored["new"] {
		t.Errorf("stored: %v, want good only", v.stored)
	}
}
