package fake

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// WebhookInstallOptions are envtest's webhook options (controller-runtime's
// envtest.WebhookInstallOptions, the same fields): Environment.Start reads the webhook
// configurations of Paths and adds MutatingWebhooks and ValidatingWebhooks, points every webhook
// at a local serving address with a CA it makes, writes that CA's serving certificate and key to
// LocalServingCertDir (tls.crt, tls.key), and creates the configurations. The operator's webhook
// server then listens on LocalServingHost:LocalServingPort with the certificates of
// LocalServingCertDir, as under envtest:
//
//	srv := webhook.NewServer(webhook.Options{Host: o.LocalServingHost, Port: o.LocalServingPort, CertDir: o.LocalServingCertDir})
//
// Nothing is made when there is no configuration to install. Start fills in the Local fields left
// empty; Stop removes the directory it made.
type WebhookInstallOptions struct {
	// Paths are files or directories (not recursively: a directory's .json, .yaml and .yml files)
	// of YAML or JSON documents; their MutatingWebhookConfigurations and
	// ValidatingWebhookConfigurations are installed, other kinds skipped.
	Paths []string
	// MutatingWebhooks and ValidatingWebhooks are installed after those of Paths.
	MutatingWebhooks   []*admissionregistrationv1.MutatingWebhookConfiguration
	ValidatingWebhooks []*admissionregistrationv1.ValidatingWebhookConfiguration
	// IgnoreErrorIfPathMissing skips a path that does not exist instead of failing Start.
	IgnoreErrorIfPathMissing bool
	// LocalServingHost is the address the webhook server listens on ("127.0.0.1" when empty);
	// LocalServingPort its port (a free one when 0).
	LocalServingHost string
	LocalServingPort int
	// LocalServingCertDir receives tls.crt and tls.key (a new temporary directory when empty);
	// LocalServingCAData is the PEM CA the webhooks' caBundle names.
	LocalServingCertDir string
	LocalServingCAData  []byte
	// LocalServingHostExternalName is the host name the webhooks' URLs use instead of
	// LocalServingHost; the serving certificate names it too.
	LocalServingHostExternalName string

	madeDir string
}

// install prepares and creates the configurations in s (see WebhookInstallOptions).
func (o *WebhookInstallOptions) install(s *Server) error {
	mutating, validating, err := readWebhookPaths(o.Paths, !o.IgnoreErrorIfPathMissing)
	if err != nil {
		return err
	}
	mutating = append(mutating, o.MutatingWebhooks...)
	validating = append(validating, o.ValidatingWebhooks...)
	if len(mutating)+len(validating) == 0 {
		return nil
	}
	hostPort, err := o.serving()
	if err != nil {
		return err
	}
	for _, c := range mutating {
		c = c.DeepCopy()
		for i := range c.Webhooks {
			localClientConfig(&c.Webhooks[i].ClientConfig, hostPort, o.LocalServingCAData)
		}
		if err := s.installObject(mutatingWebhooksGR, c, c.Name); err != nil {
			return err
		}
	}
	for _, c := range validating {
		c = c.DeepCopy()
		for i := range c.Webhooks {
			localClientConfig(&c.Webhooks[i].ClientConfig, hostPort, o.LocalServingCAData)
		}
		if err := s.installObject(validatingWebhooksGR, c, c.Name); err != nil {
			return err
		}
	}
	return nil
}

// cleanup removes the certificate directory install made.
func (o *WebhookInstallOptions) cleanup() error {
	if o.madeDir == "" {
		return nil
	}
	err := os.RemoveAll(o.madeDir)
	o.madeDir = ""
	return err
}

// localClientConfig points a webhook at the local serving address, as envtest does: its caBundle
// is the local CA, and a service reference with a path becomes the URL of that path there.
func localClientConfig(cc *admissionregistrationv1.WebhookClientConfig, hostPort string, ca []byte) {
	cc.CABundle = ca
	if cc.Service != nil && cc.Service.Path != nil {
		url := "https://" + hostPort + "/" + strings.TrimPrefix(*cc.Service.Path, "/")
		cc.URL, cc.Service = &url, nil
	}
}

// installObject creates an object at start, as installCRDs creates CRDs.
func (s *Server) installObject(gr schema.GroupResource, obj any, name string) error {
	r := s.servedGR(gr)
	if r == nil {
		return fmt.Errorf("fake: %s are not served", gr.Resource)
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("fake: %s %s: %w", gr.Resource, name, err)
	}
	if _, _, err := s.createObject(context.Background(), target{res: r}, body, metav1.CreateOptions{}, crdInstallManager); err != nil {
		return fmt.Errorf("fake: %s %s: %w", gr.Resource, name, err)
	}
	return nil
}

// serving fills in the local serving host, port, certificate directory and CA, and returns the
// host:port the webhooks' URLs name.
func (o *WebhookInstallOptions) serving() (string, error) {
	if o.LocalServingHost == "" {
		o.LocalServingHost = "127.0.0.1"
	}
	if o.LocalServingPort == 0 {
		l, err := net.Listen("tcp", net.JoinHostPort(o.LocalServingHost, "0"))
		if err != nil {
			return "", fmt.Errorf("fake: a port to serve webhooks on: %w", err)
		}
		o.LocalServingPort = l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
	}
	if o.LocalServingCertDir == "" {
		dir, err := os.MkdirTemp("", "fake-serving-certs-")
		if err != nil {
			return "", fmt.Errorf("fake: webhook serving certificates: %w", err)
		}
		o.LocalServingCertDir, o.madeDir = dir, dir
	}
	host := o.LocalServingHostExternalName
	if host == "" {
		host = o.LocalServingHost
	}
	ca, cert, key, err := servingCertificates("localhost", o.LocalServingHost, o.LocalServingHostExternalName)
	if err != nil {
		return "", fmt.Errorf("fake: webhook serving certificates: %w", err)
	}
	for name, b := range map[string][]byte{"tls.crt": cert, "tls.key": key} {
		if err := os.WriteFile(filepath.Join(o.LocalServingCertDir, name), b, 0o600); err != nil {
			return "", fmt.Errorf("fake: webhook serving certificates: %w", err)
		}
	}
	o.LocalServingCAData = ca
	return net.JoinHostPort(host, strconv.Itoa(o.LocalServingPort)), nil
}

// servingCertificates makes a CA and a serving certificate it signs for the names (host names or
// IP addresses; empty ones skipped), valid for a day: PEM CA certificate, certificate and key.
func servingCertificates(names ...string) (ca, cert, key []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fake-webhook-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "fake-webhook-serving"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else if n != "" {
			leaf.DNSNames = append(leaf.DNSNames, n)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caTemplate, &leafKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(leafKey)
	if err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// readWebhookPaths reads the webhook configurations of files and directories as readCRDPaths
// reads CRDs.
func readWebhookPaths(paths []string, failIfMissing bool) ([]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	files, err := manifestFiles(paths, failIfMissing, "webhook")
	if err != nil {
		return nil, nil, err
	}
	var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
	var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	for _, f := range files {
		err := eachDocument(f, "webhook", func(kind string, doc []byte) error {
			switch kind {
			case "MutatingWebhookConfiguration":
				c := &admissionregistrationv1.MutatingWebhookConfiguration{}
				mutating = append(mutating, c)
				return utilyaml.Unmarshal(doc, c)
			case "ValidatingWebhookConfiguration":
				c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
				validating = append(validating, c)
				return utilyaml.Unmarshal(doc, c)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return mutating, validating, nil
}

// eachDocument calls each with the kind and the text of every document of a file of YAML
// documents (or JSON); what names the files in errors.
func eachDocument(name, what string, each func(kind string, doc []byte) error) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("fake: %s file: %w", what, err)
	}
	rd := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("fake: %s file %s: %w", what, name, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := utilyaml.Unmarshal(doc, &tm); err != nil {
			return fmt.Errorf("fake: %s file %s: %w", what, name, err)
		}
		if err := each(tm.Kind, doc); err != nil {
			return fmt.Errorf("fake: %s file %s: %w", what, name, err)
		}
	}
}

// manifestFiles lists the files of paths: a file as it is, a directory's .json, .yaml and .yml
// files in name order (not recursively), as envtest reads them. A missing path is skipped unless
// failIfMissing; what names the paths in errors.
func manifestFiles(paths []string, failIfMissing bool, what string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && !failIfMissing {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fake: %s path: %w", what, err)
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("fake: %s path: %w", what, err)
		}
		for _, e := range entries {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".json", ".yaml", ".yml":
				if !e.IsDir() {
					out = append(out, filepath.Join(p, e.Name()))
				}
			}
		}
	}
	return out, nil
}
