package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// client-go caches its transports process-wide (by TLS configuration), so the HTTP/2
	// connection of the TokenReview and SubjectAccessReview clients to a cluster outlives serve.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*ClientConn).readLoop"))
}

// TestServe runs the serve command on a free port with a tiny cluster, reads the URL from its
// first line of output, lists pods and watches them over HTTP, and stops it by cancelling its
// context — with a watch open, which must not hold the shutdown.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--pods", "50", "--nodes", "5", "--namespaces", "2", "--churn", "200"}, w, &stderr)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v (stderr: %s)", err, stderr.String())
	}
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Fatalf("first line %q", line)
	}

	resp, err := http.Get(url + "/api/v1/pods?limit=10")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Kind     string
		Metadata struct{ ResourceVersion, Continue string }
		Items    []json.RawMessage
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || list.Kind != "PodList" || len(list.Items) != 10 || list.Metadata.Continue == "" {
		t.Fatalf("list: %d %v %+v", resp.StatusCode, err, list.Metadata)
	}

	// Churn shows up on a watch; the nodes' resourceVersion follows the pods' (a shared revision).
	wresp, err := http.Get(url + "/api/v1/pods?watch=1&resourceVersion=" + list.Metadata.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer wresp.Body.Close()
	sc := bufio.NewScanner(wresp.Body)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), `{"type":"`) {
		t.Fatalf("watch: %q %v", sc.Text(), sc.Err())
	}
	time.Sleep(50 * time.Millisecond)
	resp, err = http.Get(url + "/api/v1/nodes?resourceVersion=" + list.Metadata.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("nodes at the pods' RV: %d", resp.StatusCode)
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
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func TestServeBadAddress(t *testing.T) {
	err := run(t.Context(), []string{"serve", "--listen", "256.0.0.1:99999", "--pods", "1"}, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("no error")
	}
}

func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"demo", "--pods", "3000", "--nodes", "30", "--churn-events", "300"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Loaded 3000 pods", "first page, all namespaces, limit=500", "next page (continue token)",
		"spec.nodeName=node-7, no index", "spec.nodeName=node-7, indexed", "indexed", "Exact RV 3000",
		"Applied 300 pod changes", "Watch spec.nodeName=node-7 from RV 3000",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestUsage(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), nil, &out, io.Discard); err != nil || !strings.Contains(out.String(), "watchcache serve") || !strings.Contains(out.String(), "watchcache demo") {
		t.Fatalf("%v: %s", err, out.String())
	}
	if err := run(t.Context(), []string{"frobnicate"}, io.Discard, io.Discard); err == nil {
		t.Fatal("unknown command: no error")
	}
}
