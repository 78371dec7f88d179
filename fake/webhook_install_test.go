package fake_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/watchcache/watchcache/fake"
)

// teamWebhooksYAML are an operator's webhook manifests as kubebuilder writes them: service
// references with paths, no caBundle.
const teamWebhooksYAML = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- name: team.defaults.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /default}
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-webhook
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- name: team.checks.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /validate}
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
`

// TestEnvironmentWebhookInstallOptions installs webhook manifests as envtest does: the webhook
// server the test runs on LocalServingHost:LocalServingPort with LocalServingCertDir's
// certificates is called for the configurations of Paths, and Stop removes the certificates.
func TestEnvironmentWebhookInstallOptions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "manifests.yaml"), []byte(teamWebhooksYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	env := &fake.Environment{WebhookInstallOptions: fake.WebhookInstallOptions{Paths: []string{dir, filepath.Join(dir, "missing")}, IgnoreErrorIfPathMissing: true}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	o := env.WebhookInstallOptions
	certDir := o.LocalServingCertDir
	defer func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(certDir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("certificate directory after Stop: %v", err)
		}
	}()
	cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", net.JoinHostPort(o.LocalServingHost, strconv.Itoa(o.LocalServingPort)), &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	hooks := &http.Server{Handler: http.HandlerFunc(serveTeamWebhooks)}
	go func() { _ = hooks.Serve(l) }()
	defer hooks.Close()

	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	mwc, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "mutating-webhook-configuration", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cc := mwc.Webhooks[0].ClientConfig; cc.Service != nil || cc.URL == nil || !strings.HasSuffix(*cc.URL, "/default") || string(cc.CABundle) != string(o.LocalServingCAData) {
		t.Fatalf("installed client config %+v", cc)
	}
	cms := cs.CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Labels["team"] != "platform" {
		t.Errorf("labels %v, want the mutating webhook's team=platform", cm.Labels)
	}
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Labels: map[string]string{"team": "nobody"}}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `admission webhook "team.checks.example.com" denied the request`) {
		t.Errorf("create team=nobody: %v, want the validating webhook's 403", err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "not-a-webhook", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a manifest of another kind was installed: %v", err)
	}
}

// TestEnvironmentWebhookPathMissing: a missing path fails Start unless IgnoreErrorIfPathMissing.
func TestEnvironmentWebhookPathMissing(t *testing.T) {
	env := &fake.Environment{WebhookInstallOptions: fake.WebhookInstallOptions{Paths: []string{filepath.Join(t.TempDir(), "missing")}}}
	if _, err := env.Start(); err == nil {
		_ = env.Stop()
		t.Fatal("Start with a missing webhook path succeeded")
	}
}
