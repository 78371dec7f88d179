package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"strings"
	"time"
)

// selfSignedValidity is how long a --tls-self-signed certificate is valid: a serve process rarely
// lives longer than a year, and a new one gets a new certificate.
const selfSignedValidity = 365 * 24 * time.Hour

// isLoopback says whether a listen address binds only loopback interfaces. "localhost" counts; a
// host name or a wildcard ("", 0.0.0.0, ::) does not.
func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// dialable returns a URL a client on this machine dials for a listener's address: a wildcard
// address (0.0.0.0 or ::, "listen on every interface") becomes 127.0.0.1, as "https://[::]:8443"
// is not something a client can dial.
func dialable(scheme string, addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + "://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// tlsConfig returns the server's TLS configuration from the flags, nil for plain HTTP, and the
// SHA-256 fingerprint of the serving certificate (hex, colon-separated as openssl prints it).
// clientCAs, when not nil, makes the server ask for client certificates (they are verified by the
// authenticator, which then also accepts requests without one).
func tlsConfig(certFile, keyFile string, selfSigned bool, clientCAs *x509.CertPool) (*tls.Config, string, error) {
	var cert tls.Certificate
	var err error
	switch {
	case selfSigned && (certFile != "" || keyFile != ""):
		return nil, "", errors.New("--tls-self-signed and --tls-cert-file/--tls-private-key-file are two certificates; give one")
	case selfSigned:
		cert, err = selfSignedCert()
	case certFile != "" && keyFile != "":
		cert, err = tls.LoadX509KeyPair(certFile, keyFile)
	case certFile != "" || keyFile != "":
		return nil, "", errors.New("--tls-cert-file and --tls-private-key-file go together")
	default:
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("TLS certificate: %w", err)
	}
	sum := sha256.Sum256(cert.Certificate[0])
	cfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
	if clientCAs != nil {
		// The apiserver's choice: ask, and let the x509 authenticator verify; a request without a
		// certificate may still authenticate with a token.
		cfg.ClientAuth = tls.RequestClientCert
		cfg.ClientCAs = clientCAs
	}
	return cfg, fingerprint(sum[:]), nil
}

func fingerprint(sum []byte) string {
	h := strings.ToUpper(hex.EncodeToString(sum))
	parts := make([]string, 0, len(h)/2)
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, ":")
}

// selfSignedCert makes a P-256 certificate for localhost, the loopback addresses and the machine's
// host name.
func selfSignedCert() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	names := []string{"localhost"}
	if h, err := os.Hostname(); err == nil && h != "" && h != "localhost" {
		names = append(names, h)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "watchcache serve"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(selfSignedValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              names,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
