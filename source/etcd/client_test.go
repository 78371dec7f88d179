package etcd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/watchcache/watchcache/watchcache"
)

// testPKI writes PEM files into a directory: a CA, a serving certificate for 127.0.0.1 and a
// client certificate both signed by it, and a second CA that signs nothing of etcd's.
type testPKI struct {
	dir                                   string
	ca, serverCert, serverKey             string
	clientCert, clientKey                 string
	otherCA, otherClientCert, otherClient string
}

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir()}
	caCert, caKey := p.issue(t, "ca", nil, nil, func(c *x509.Certificate) {
		c.IsCA, c.BasicConstraintsValid, c.KeyUsage = true, true, x509.KeyUsageCertSign
	})
	p.ca = filepath.Join(p.dir, "ca.crt")
	p.issue(t, "server", caCert, caKey, func(c *x509.Certificate) {
		c.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	})
	p.serverCert, p.serverKey = filepath.Join(p.dir, "server.crt"), filepath.Join(p.dir, "server.key")
	p.issue(t, "client", caCert, caKey, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	})
	p.clientCert, p.clientKey = filepath.Join(p.dir, "client.crt"), filepath.Join(p.dir, "client.key")
	otherCert, otherKey := p.issue(t, "other-ca", nil, nil, func(c *x509.Certificate) {
		c.IsCA, c.BasicConstraintsValid, c.KeyUsage = true, true, x509.KeyUsageCertSign
	})
	p.otherCA = filepath.Join(p.dir, "other-ca.crt")
	p.issue(t, "other-client", otherCert, otherKey, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	})
	p.otherClientCert, p.otherClient = filepath.Join(p.dir, "other-client.crt"), filepath.Join(p.dir, "other-client.key")
	return p
}

// issue writes name.crt and name.key, signed by parent (self-signed when parent is nil).
func (p *testPKI) issue(t testing.TB, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, edit func(*x509.Certificate)) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	edit(tmpl)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(p.dir, name+".crt"), "CERTIFICATE", der)
	writePEM(t, filepath.Join(p.dir, name+".key"), "EC PRIVATE KEY", keyDER)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// startTLSEtcd starts an embedded etcd serving clients over TLS only, requiring a client
// certificate signed by the PKI's CA (etcd --client-cert-auth, as production etcds run), and
// returns its client URL.
func startTLSEtcd(t testing.TB, p *testPKI) string {
	t.Helper()
	cfg, clientURL := embedConfig(t, "https")
	cfg.ClientTLSInfo.CertFile, cfg.ClientTLSInfo.KeyFile = p.serverCert, p.serverKey
	cfg.ClientTLSInfo.TrustedCAFile, cfg.ClientTLSInfo.ClientCertAuth = p.ca, true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	t.Cleanup(func() {
		e.Close()
		<-e.Server.StopNotify()
	})
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(20 * time.Second):
		t.Fatal("etcd did not become ready")
	}
	return clientURL.String()
}

// TestClientTLS: a client made by NewClient reaches an etcd that requires client certificates with
// the CA, certificate and key the apiserver's --etcd-cafile/--etcd-certfile/--etcd-keyfile name, and
// a source feeds a cache through it; without a certificate, with one of another CA, trusting
// another CA or without TLS, every request fails.
func TestClientTLS(t *testing.T) {
	p := newTestPKI(t)
	endpoint := startTLSEtcd(t, p)
	good := ClientConfig{Endpoints: []string{endpoint}, CAFile: p.ca, CertFile: p.clientCert, KeyFile: p.clientKey, DialTimeout: 5 * time.Second}

	t.Run("mutual TLS", func(t *testing.T) {
		cli, err := NewClient(good)
		if err != nil {
			t.Fatal(err)
		}
		defer cli.Close()
		ctx := context.Background()
		if _, err := cli.Put(ctx, "/registry/configmaps/ns/a", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}`); err != nil {
			t.Fatalf("put over mTLS: %v", err)
		}
		src := New(cli, Options{Logger: testLogger(t)})
		c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "configmaps", Namespaced: true}, CurrentResourceVersion: src.CurrentResourceVersion})
		if err := src.Add("configmaps", c); err != nil {
			t.Fatal(err)
		}
		runSource(t, src, c)
		res, err := c.List(ctx, watchcache.ListOptions{})
		if err != nil || len(res.Items) != 1 {
			t.Fatalf("list: %d items, %v; want the one configmap", len(res.Items), err)
		}
	})

	refused := []struct {
		name string
		cfg  ClientConfig
	}{
		{"no client certificate", ClientConfig{CAFile: p.ca}},
		{"client certificate of another CA", ClientConfig{CAFile: p.ca, CertFile: p.otherClientCert, KeyFile: p.otherClient}},
		{"server not trusted", ClientConfig{CAFile: p.otherCA, CertFile: p.clientCert, KeyFile: p.clientKey}},
		{"plain connection", ClientConfig{}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Endpoints, cfg.DialTimeout = []string{strings.Replace(endpoint, "https://", "", 1)}, time.Second
			if cfg.CAFile != "" {
				cfg.Endpoints = []string{endpoint}
			}
			cli, err := NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err = cli.Get(ctx, "/registry/configmaps/ns/a")
			if err == nil {
				t.Fatal("the read succeeded")
			}
			t.Logf("refused: %v", err)
		})
	}
}

func TestClientConfigErrors(t *testing.T) {
	p := newTestPKI(t)
	tests := []struct {
		name string
		cfg  ClientConfig
		want string
	}{
		{"no endpoint", ClientConfig{}, "no endpoint"},
		{"certificate without key", ClientConfig{Endpoints: []string{"https://127.0.0.1:1"}, CertFile: p.clientCert}, "both a certificate file and a key file"},
		{"key without certificate", ClientConfig{Endpoints: []string{"https://127.0.0.1:1"}, KeyFile: p.clientKey}, "both a certificate file and a key file"},
		{"missing CA file", ClientConfig{Endpoints: []string{"https://127.0.0.1:1"}, CAFile: filepath.Join(p.dir, "nope.crt")}, "nope.crt"},
		{"key of another certificate", ClientConfig{Endpoints: []string{"https://127.0.0.1:1"}, CertFile: p.clientCert, KeyFile: p.otherClient}, "TLS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cli, err := NewClient(tt.cfg)
			if err == nil {
				cli.Close()
				t.Fatal("NewClient succeeded")
			}
			if !errors.Is(err, ErrClientConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want ErrClientConfig mentioning %q", err, tt.want)
			}
		})
	}
	if cfg, err := (ClientConfig{Endpoints: []string{"http://127.0.0.1:2379"}}).TLS(); cfg != nil || err != nil {
		t.Fatalf("TLS() of a plain config = %v, %v; want nil, nil", cfg, err)
	}
}
