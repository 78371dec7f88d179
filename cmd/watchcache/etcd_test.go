package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// TestServeEtcd runs serve on an embedded etcd holding pods as a kube-apiserver stores them (JSON,
// no resourceVersion): the first list holds them in key order with their mod revisions, and a write
// made after it — to pods, or to another resource — is seen by the next consistent list (rule 1.8),
// which therefore waits for the cache to reach etcd's revision, helped by a progress notification
// when the write was not a pod (rule 3.3).
func TestServeEtcd(t *testing.T) {
	cli, endpoint := startEtcd(t)
	put := etcdPut(t, cli)
	for _, p := range [][2]string{{"ns-b", "pod-1"}, {"ns-a", "pod-2"}, {"ns-a", "pod-1"}} {
		put("/registry/pods/"+p[0]+"/"+p[1], podJSON(p[0], p[1], "node-1"))
	}
	put("/registry/minions/node-1", `{"kind":"Node","apiVersion":"v1","metadata":{"name":"node-1"}}`)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--etcd-endpoints", endpoint}, w, &stderr)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v (stderr: %s)", err, stderr.String())
	}
	base := strings.TrimSpace(line)

	l := listPods(t, base+"/api/v1/pods")
	if got, want := l.names(), "ns-a/pod-1 ns-a/pod-2 ns-b/pod-1"; got != want {
		t.Fatalf("first list: %s, want %s", got, want)
	}
	if l.Items[0].Metadata.ResourceVersion == "" || l.Metadata.ResourceVersion == "" {
		t.Fatalf("first list: no resourceVersion: %+v", l)
	}

	rev := put("/registry/pods/ns-b/pod-0", podJSON("ns-b", "pod-0", "node-2"))
	l = listPods(t, base+"/api/v1/pods")
	if got, want := l.names(), "ns-a/pod-1 ns-a/pod-2 ns-b/pod-0 ns-b/pod-1"; got != want {
		t.Fatalf("consistent list after a write: %s, want %s", got, want)
	}
	if rv, _ := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64); rv < rev {
		t.Fatalf("consistent list at %d, before the write at %d", rv, rev)
	}

	// A write to another resource moves etcd's revision only: the pods cache reaches it through a
	// progress notification, well within the 3 s a consistent read may wait.
	rev = put("/registry/configmaps/ns-a/cm", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns-a"}}`)
	start := time.Now()
	l = listPods(t, base+"/api/v1/namespaces/ns-b/pods?fieldSelector=spec.nodeName%3Dnode-2")
	if got := l.names(); got != "ns-b/pod-0" {
		t.Fatalf("selected list: %s", got)
	}
	if rv, _ := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64); rv < rev {
		t.Fatalf("consistent list at %d, before the configmap write at %d", rv, rev)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("consistent list after a write elsewhere took %v", d)
	}
	// A read waiting for a revision etcd reaches only during the wait, by a write to another
	// resource, gets it through progress notifications requested while it waits (rule 3.3).
	next, _ := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
	next++
	go func() {
		time.Sleep(300 * time.Millisecond)
		put("/registry/configmaps/ns-a/cm2", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm2","namespace":"ns-a"}}`)
	}()
	start = time.Now()
	l = listPods(t, base+"/api/v1/pods?resourceVersion="+strconv.FormatInt(next, 10))
	if rv, _ := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64); rv < next || time.Since(start) > 2*time.Second {
		t.Fatalf("list at %d: rv %d after %v", next, rv, time.Since(start))
	}
	// The nodes cache serves a resourceVersion read from the pods (one revision for all).
	resp, err := http.Get(base + "/api/v1/nodes?resourceVersion=" + l.Metadata.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("nodes at the pods' resourceVersion: %d", resp.StatusCode)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	for _, want := range []string{"etcd caches ready", "resource=pods", "objects=3"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

func TestServeEtcdFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--etcd-endpoints", "http://127.0.0.1:1", "--pods", "10"},
		{"--etcd-endpoints", "http://127.0.0.1:1", "--etcd-prefix", "registry"},
		{"--etcd-endpoints", " , "},
		{"--etcd-prefix", "/registry"},
		{"--etcd-cafile", "ca.crt"},                                                  // TLS needs --etcd-endpoints
		{"--etcd-endpoints", "https://127.0.0.1:1", "--etcd-certfile", "client.crt"}, // no key
		{"--etcd-endpoints", "https://127.0.0.1:1", "--etcd-cafile", "/nonexistent/ca.crt"},
	} {
		err := run(t.Context(), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), io.Discard, io.Discard)
		if err == nil {
			t.Errorf("%q: no error", args)
		}
		t.Logf("%q: %v", args, err)
	}
}

func podJSON(ns, name, node string) string {
	return fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":%q,"labels":{"app":"web"}},"spec":{"nodeName":%q},"status":{"phase":"Pending"}}`, name, ns, node)
}

type podList struct {
	Metadata struct{ ResourceVersion, Continue string }
	Items    []struct {
		Metadata struct{ Namespace, Name, ResourceVersion string }
	}
}

func (l podList) names() string {
	var s []string
	for _, it := range l.Items {
		s = append(s, it.Metadata.Namespace+"/"+it.Metadata.Name)
	}
	return strings.Join(s, " ")
}

func listPods(t *testing.T, u string) podList {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var l podList
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return l
}

// startEtcd starts a single-member etcd on loopback ports in a temporary directory (no fsync) and
// returns a client to it and its client URL; both stop when the test ends. (The harness of
// source/etcd's tests, reduced.)
func startEtcd(t *testing.T) (*clientv3.Client, string) {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "fatal"
	cfg.EnableGRPCGateway = false
	clientURL := url.URL{Scheme: "http", Host: freeAddr(t)}
	peerURL := url.URL{Scheme: "http", Host: freeAddr(t)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{clientURL}, []url.URL{clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peerURL}, []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	stop := func() {
		e.Close()
		<-e.Server.StopNotify()
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(20 * time.Second):
		stop()
		t.Fatal("etcd did not become ready")
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{clientURL.Host}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		stop()
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() {
		cli.Close()
		stop()
	})
	return cli, clientURL.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// lockedBuffer is a bytes.Buffer safe for the logger's writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
