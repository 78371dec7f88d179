package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStalledReaderCut: a client that sends a list of a few MiB and reads nothing holds its
// response only until --write-timeout; the request then ends (it is counted in /metrics) and the
// server answers others meanwhile.
func TestStalledReaderCut(t *testing.T) {
	url, _ := startServe(t, "--pods", "3000", "--nodes", "10", "--namespaces", "2", "--churn", "0", "--write-timeout", "500ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A small receive buffer, so that the response stops in the server's send buffer at once.
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := fmt.Fprintf(conn, "GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	c := &http.Client{}
	defer c.CloseIdleConnections()
	if code, _, _ := get(t, c, url+"/api/v1/nodes", ""); code != 200 {
		t.Fatalf("another client during the stall: %d", code)
	}
	const done = `apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 1`
	start := time.Now()
	waitUntil(t, "the stalled list ends", func() bool {
		_, _, m := get(t, c, url+"/metrics", "")
		return strings.Contains(m, done)
	})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the stalled list ended after %v; the write timeout is 500ms", d)
	}
}

// TestClientCertificate: with --client-ca-file, a client certificate the CA signed authenticates
// as its common name (organizations as groups) and is authorized by the policy; a request without
// one gets 401.
func TestClientCertificate(t *testing.T) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	clientKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	clientDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "carol", Organization: []string{"viewers"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}, ca, &clientKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := writeTemp(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})))
	policy := writeTemp(t, "policy.jsonl", `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"viewers","namespace":"*","resource":"pods","apiGroup":"","readonly":true}}`+"\n")
	url, _ := startServe(t, append(tinyCluster, "--tls-self-signed", "--client-ca-file", caFile, "--authorization-policy-file", policy)...)

	client := func(certs ...tls.Certificate) *http.Client {
		return &http.Client{Transport: &http.Transport{DisableKeepAlives: true, TLSClientConfig: &tls.Config{InsecureSkipVerify: true, Certificates: certs}}}
	}
	carol := client(tls.Certificate{Certificate: [][]byte{clientDER}, PrivateKey: clientKey})
	for _, tc := range []struct {
		name string
		c    *http.Client
		path string
		code int
		body string
	}{
		{"carol lists pods", carol, "/api/v1/pods", 200, `"kind":"PodList"`},
		{"carol may not list nodes", carol, "/api/v1/nodes", 403, `User \"carol\" cannot list resource \"nodes\"`},
		{"no certificate", client(), "/api/v1/pods", 401, `"reason":"Unauthorized"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := get(t, tc.c, url+tc.path, "")
			if code != tc.code || !strings.Contains(body, tc.body) {
				t.Fatalf("%d %.300s, want %d with %s", code, body, tc.code, tc.body)
			}
		})
	}
}

// TestWriteTimeoutSparesIdleWatch: a watch idle for longer than --write-timeout keeps going over
// HTTP/2 (whose streams are reset when a deadline passes, even with nothing to write), and gets
// the next event.
func TestWriteTimeoutSparesIdleWatch(t *testing.T) {
	url, _ := startServe(t, append(tinyCluster, "--tls-self-signed", "--write-timeout", "300ms")...)
	c := &http.Client{Transport: &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer c.CloseIdleConnections()
	create := func(name string) (int, error) {
		req, _ := http.NewRequest("POST", url+"/api/v1/namespaces/default/configmaps", strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`"}}`))
		req.Header.Set("Content-Type", "application/json")
		cr, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		cr.Body.Close()
		return cr.StatusCode, nil
	}
	// The fake's first write builds its field manager's type converter, which takes longer than
	// the 300 ms write timeout under the race detector: that answer is cut (the write itself is
	// done). Write until an answer arrives before the timed part, so that the create below
	// answers in milliseconds.
	for attempt := 0; ; attempt++ {
		code, err := create("early")
		if err == nil && (code == 201 || code == 409) {
			break
		}
		if attempt == 20 {
			t.Fatalf("warm-up create: %d %v", code, err)
		}
	}
	resp, err := c.Get(url + "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&allowWatchBookmarks=false")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("protocol %s, want HTTP/2", resp.Proto)
	}
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	time.Sleep(time.Second)
	if code, err := create("late"); err != nil || code != 201 {
		t.Fatalf("create: %d %v", code, err)
	}
	timeout := time.After(5 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the idle watch ended")
			}
			if strings.Contains(l, `"name":"late"`) {
				return
			}
		case <-timeout:
			t.Fatal("no event for the new configmap")
		}
	}
}
