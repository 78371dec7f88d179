package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// TestShutdownDelayFailsReadyz: on SIGTERM with --shutdown-delay-duration, /readyz fails at once
// with kube-apiserver's body — every check listed, "[-]shutdown failed: reason withheld" last,
// "readyz check failed" — and /readyz/shutdown with its "process is shutting down", while /livez
// stays ok and the API is still served; after the delay serve drains and stops
// (testdata/oracle-shutdown-readyz.txt, reference/observed-shutdown.md). Both handlers serve do:
// the writable fake of the generated cluster, and kubeapi's for a source.
func TestShutdownDelayFailsReadyz(t *testing.T) {
	upstream := kubeapi.NewServer(kubeapi.Options{})
	pods := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	info, _ := kubeapi.CoreResource("pods")
	if err := upstream.Register(info, pods); err != nil {
		t.Fatal(err)
	}
	if err := pods.Replace(nil, 10); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(upstream)
	t.Cleanup(hs.Close)
	t.Cleanup(pods.Stop)
	kubeconfig := writeKubeconfig(t, hs.URL)

	recorded, err := os.ReadFile("testdata/oracle-shutdown-readyz.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(recorded), "[-]shutdown failed: reason withheld\nreadyz check failed\n") ||
		!strings.Contains(string(recorded), "internal server error: process is shutting down\n") {
		t.Fatal("the recording lacks the oracle's shutdown answers")
	}

	const delay = 1500 * time.Millisecond
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"generated cluster (fake)", tinyCluster},
		{"kubeconfig (kubeapi)", []string{"--kubeconfig", kubeconfig, "--delegated-auth=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			out, w := io.Pipe()
			log := &lockedBuffer{}
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--shutdown-delay-duration", delay.String()}, tc.args...), w, log)
				w.Close()
			}()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("%v: %s", err, log.String())
			}
			if testing.Verbose() {
				defer func() { t.Log(log.String()) }()
			}
			go io.Copy(io.Discard, out)
			url := strings.TrimSpace(line)
			c := &http.Client{}
			defer c.CloseIdleConnections()
			if code, _, body := get(t, c, url+"/readyz?verbose", ""); code != 200 || !strings.Contains(body, "[+]shutdown ok\nreadyz check passed\n") {
				t.Fatalf("/readyz?verbose before the signal: %d %s", code, body)
			}

			cancel()
			signalled := time.Now()
			waitUntil(t, "/readyz failing", func() bool { code, _, _ := get(t, c, url+"/readyz", ""); return code == 500 })
			for _, path := range []string{"/readyz", "/readyz?verbose"} {
				code, _, body := get(t, c, url+path, "")
				lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
				n := len(lines)
				ok := code == 500 && n >= 3 && lines[n-1] == "readyz check failed" && lines[n-2] == "[-]shutdown failed: reason withheld"
				for _, l := range lines[:max(n-2, 0)] {
					ok = ok && strings.HasPrefix(l, "[+]") && strings.HasSuffix(l, " ok")
				}
				if !ok {
					t.Errorf("%s while shutting down: %d\n%s", path, code, body)
				}
			}
			for _, tc := range []struct {
				path, body string
				code       int
			}{
				{"/readyz/shutdown", "internal server error: process is shutting down\n", 500},
				{"/livez", "ok", 200},
				{"/healthz", "ok", 200},
			} {
				if code, _, body := get(t, c, url+tc.path, ""); code != tc.code || body != tc.body {
					t.Errorf("%s while shutting down: %d %q, want %d %q", tc.path, code, body, tc.code, tc.body)
				}
			}
			if code, _, body := get(t, c, url+"/api/v1/pods", ""); code != 200 || !strings.Contains(body, `"kind":"PodList"`) {
				t.Errorf("a list during the delay: %d %.100s", code, body)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("serve did not stop")
			}
			if d := time.Since(signalled); d < delay {
				t.Errorf("serve stopped %v after the signal, before its %v delay", d, delay)
			}
			if _, err := c.Get(url + "/livez"); err == nil {
				t.Error("serve still accepts after shutdown")
			}
		})
	}
}
