package fake_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// TestConcurrentPatchesWithWebhooks: with a webhook configured, writes of one object take no
// object lock, so concurrent patches race to commit; each that finds the object changed runs again
// on the new version, so every patch succeeds and none is lost.
func TestConcurrentPatchesWithWebhooks(t *testing.T) {
	hs, cs := allowingWebhook(t, admissionregistrationv1.Update)
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shared"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 6, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				patch := fmt.Sprintf(`{"data":{"k%d-%d":"v"}}`, w, i)
				if _, err := cms.Patch(ctx, "shared", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
					errs <- fmt.Errorf("patch %s: %w", patch, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := cms.Get(ctx, "shared", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Data) != writers*each {
		t.Errorf("%d keys stored, want %d: a patch was lost", len(got.Data), writers*each)
	}
	hs.mu.Lock()
	calls := len(hs.reviews)
	hs.mu.Unlock()
	if calls < writers*each {
		t.Errorf("the webhook was called %d times, want at least once a patch (%d)", calls, writers*each)
	}
}

// allowingWebhook starts a fake with a validating webhook that allows every op of a config map,
// and returns the webhook's server and a client of the fake.
func allowingWebhook(t *testing.T, op admissionregistrationv1.OperationType) (*webhookServer, kubernetes.Interface) {
	t.Helper()
	hs := startWebhookServer(t)
	ca, err := base64.StdEncoding.DecodeString(hs.caBundle)
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	none := admissionregistrationv1.SideEffectClassNone
	url := hs.URL + "/allow"
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(context.Background(), &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "allow"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "allow.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{op},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return hs, cs
}
