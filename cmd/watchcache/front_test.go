package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// tinyCluster are serve's flags for a small generated cluster without churn.
var tinyCluster = []string{"--pods", "20", "--nodes", "2", "--namespaces", "2", "--churn", "0"}

// testTokens is a token file: an admin in system:masters and a plain user.
const testTokens = `admin-token,admin,uid-admin,"system:masters"
user-token,jane,uid-jane
`

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// withTestWrap sets testWrap for the serve commands a test starts.
func withTestWrap(t *testing.T, wrap func(http.Handler) http.Handler) {
	testWrap = wrap
	t.Cleanup(func() { testWrap = nil })
}

// get sends a GET with an optional bearer token and returns the status, headers and body.
func get(t *testing.T, c *http.Client, url, token string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// TestPlainHTTPOnlyOnLoopback: off loopback, serve refuses to start without TLS or without an
// authenticator; with both it serves HTTPS on a URL a client can dial and logs the certificate's
// fingerprint.
func TestPlainHTTPOnlyOnLoopback(t *testing.T) {
	tokens := writeTemp(t, "tokens.csv", testTokens)
	for _, tc := range []struct {
		name string
		args []string
		want string // "" means it starts
	}{
		{"wildcard, plain", []string{"--listen", "0.0.0.0:0"}, "plain HTTP is served only on loopback"},
		{"ipv6 wildcard, plain", []string{"--listen", "[::]:0"}, "plain HTTP is served only on loopback"},
		{"empty host, plain", []string{"--listen", ":0"}, "plain HTTP is served only on loopback"},
		{"wildcard, TLS, no authenticator", []string{"--listen", "0.0.0.0:0", "--tls-self-signed"}, "give an authenticator"},
		{"cert without key", []string{"--tls-cert-file", tokens}, "go together"},
		{"two certificates", []string{"--tls-self-signed", "--tls-cert-file", tokens, "--tls-private-key-file", tokens}, "two certificates"},
		{"client CA without TLS", []string{"--client-ca-file", tokens}, "--client-ca-file"},
		{"encryption without etcd", []string{"--encryption-provider-config", tokens}, "needs --etcd-endpoints"},
		{"negative limit", []string{"--max-requests-inflight", "-1"}, "--max-requests-inflight must be ≥ 0"},
		{"negative timeout", []string{"--shutdown-timeout", "-1s"}, "--shutdown-timeout must be ≥ 0"},
		{"loopback, plain", []string{"--listen", "127.0.0.1:0"}, ""},
		{"wildcard, TLS, tokens", []string{"--listen", "0.0.0.0:0", "--tls-self-signed", "--token-auth-file", tokens}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want != "" {
				err := run(t.Context(), append(append([]string{"serve"}, tinyCluster...), tc.args...), io.Discard, io.Discard)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				return
			}
			url, log := startServe(t, append(append([]string{}, tinyCluster...), tc.args...)...)
			if !strings.Contains(strings.Join(tc.args, " "), "tls") {
				if code, _, _ := get(t, http.DefaultClient, url+"/api/v1/pods", ""); code != 200 {
					t.Fatalf("plain loopback: %d", code)
				}
				return
			}
			if !regexp.MustCompile(`^https://127\.0\.0\.1:[1-9][0-9]*$`).MatchString(url) {
				t.Fatalf("URL %q: want https://127.0.0.1:PORT", url)
			}
			var peer []byte
			c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
				InsecureSkipVerify: true,
				VerifyConnection: func(cs tls.ConnectionState) error {
					peer = cs.PeerCertificates[0].Raw
					return nil
				},
			}, DisableKeepAlives: true}}
			for _, r := range []struct {
				path, token string
				code        int
			}{
				{"/api/v1/pods", "", 401},
				{"/api/v1/pods", "wrong", 401},
				{"/api/v1/pods", "user-token", 200},
				{"/healthz", "", 200},
				{"/readyz", "", 200},
				{"/livez", "", 200},
				{"/metrics", "", 401},
				{"/metrics", "admin-token", 200},
			} {
				if code, _, body := get(t, c, url+r.path, r.token); code != r.code {
					t.Errorf("GET %s (token %q): %d %s, want %d", r.path, r.token, code, body, r.code)
				}
			}
			sum := sha256.Sum256(peer)
			if fp := fingerprint(sum[:]); !strings.Contains(log.String(), "sha256="+fp) {
				t.Errorf("the log does not name the certificate's fingerprint %s:\n%s", fp, log.String())
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:80": true, "localhost:1": true, "127.1.2.3:0": true,
		"0.0.0.0:80": false, ":80": false, "[::]:80": false, "10.0.0.1:80": false, "example.com:80": false, "bad": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v", addr, got)
		}
	}
}

// TestInFlightStorm: 60 concurrent lists against --max-requests-inflight 5, each list held 300 ms
// by the test's wrapper, get the oracle's 429 (headers and body) for all but the few
// that got a slot; a system:masters user is never refused; the server answers normally after,
// and /metrics counts the 429s.
func TestInFlightStorm(t *testing.T) {
	const storm, limit = 60, 5
	withTestWrap(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("slow") != "" {
				time.Sleep(300 * time.Millisecond)
			}
			next.ServeHTTP(w, r)
		})
	})
	// The oracle's 429 (reference/observed-authn.md).
	var rec struct {
		TooManyRequests struct{ Body, ContentType, RetryAfter, XContentTypeOptions string }
	}
	data, err := os.ReadFile("testdata/oracle-authn.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil || rec.TooManyRequests.Body == "" {
		t.Fatalf("recording: %v", err)
	}
	want := rec.TooManyRequests
	tokens := writeTemp(t, "tokens.csv", testTokens)
	url, _ := startServe(t, append(tinyCluster, "--max-requests-inflight", fmt.Sprint(limit), "--token-auth-file", tokens)...)
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: storm}}
	defer c.CloseIdleConnections()

	var (
		wg                sync.WaitGroup
		mu                sync.Mutex
		codes             = map[int]int{}
		badRetry, badBody int
	)
	start := make(chan struct{})
	for range storm {
		wg.Go(func() {
			<-start
			code, h, body := get(t, c, url+"/api/v1/pods?slow=1", "user-token")
			mu.Lock()
			defer mu.Unlock()
			codes[code]++
			if code == 429 {
				if h.Get("Retry-After") != want.RetryAfter {
					badRetry++
				}
				if body != want.Body || h.Get("Content-Type") != want.ContentType || h.Get("X-Content-Type-Options") != want.XContentTypeOptions {
					badBody++
				}
			}
		})
	}
	close(start)
	// The admin gets through while the storm holds every slot.
	time.Sleep(50 * time.Millisecond)
	if code, _, _ := get(t, c, url+"/api/v1/pods?slow=1", "admin-token"); code != 200 {
		t.Errorf("system:masters during the storm: %d", code)
	}
	wg.Wait()
	t.Logf("%d lists against a limit of %d: %v", storm, limit, codes)
	if codes[200]+codes[429] != storm || codes[429] < storm/2 || codes[200] < limit {
		t.Errorf("codes %v: want %d × 200 at least, 429 for most of the rest, nothing else", codes, limit)
	}
	if badRetry+badBody > 0 {
		t.Errorf("%d 429s without Retry-After: 1, %d without the apiserver's body", badRetry, badBody)
	}
	for _, p := range []string{"/readyz", "/api/v1/pods?limit=1"} {
		if code, _, body := get(t, c, url+p, "user-token"); code != 200 {
			t.Errorf("after the storm, GET %s: %d %s", p, code, body)
		}
	}
	_, _, metrics := get(t, c, url+"/metrics", "admin-token")
	wantMetric := fmt.Sprintf(`apiserver_request_total{code="429",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} %d`, codes[429])
	if !strings.Contains(metrics, wantMetric) {
		t.Errorf("/metrics lacks %s", wantMetric)
	}
}

// TestMaxWatches: a watch over --max-watches gets 429; one that ends frees its slot.
func TestMaxWatches(t *testing.T) {
	url, _ := startServe(t, append(tinyCluster, "--max-watches", "1")...)
	c := &http.Client{}
	defer c.CloseIdleConnections()
	resp, err := c.Get(url + "/api/v1/pods?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("first watch: %d", resp.StatusCode)
	}
	if code, h, _ := get(t, c, url+"/api/v1/pods?watch=1", ""); code != 429 || h.Get("Retry-After") != "1" {
		t.Fatalf("second watch: %d, Retry-After %q", code, h.Get("Retry-After"))
	}
	if code, _, _ := get(t, c, url+"/api/v1/pods", ""); code != 200 {
		t.Fatalf("a list is not a watch: %d", code)
	}
	resp.Body.Close()
	waitUntil(t, "the watch slot is free", func() bool {
		code, _, _ := get(t, c, url+"/api/v1/pods?watch=1&timeoutSeconds=1", "")
		return code == 200
	})
}

// TestMetrics: /metrics has the apiserver's request metrics for a list, a get and a watch, the
// watch's events, and the caches' figures.
func TestMetrics(t *testing.T) {
	url, _ := startServe(t, tinyCluster...)
	c := &http.Client{}
	defer c.CloseIdleConnections()
	get(t, c, url+"/api/v1/namespaces/ns-0/pods", "")
	get(t, c, url+"/api/v1/nodes/nope", "")
	resp, err := c.Get(url + "/api/v1/pods?watch=1&resourceVersion=0")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for range 3 {
		if !sc.Scan() {
			t.Fatalf("watch: %v", sc.Err())
		}
	}
	_, _, during := get(t, c, url+"/metrics", "")
	resp.Body.Close()
	for _, want := range []string{
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1`,
		`apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="nodes",scope="resource",subresource="",verb="GET",version="v1"} 1`,
		`apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1",le="0.005"}`,
		`apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 1`,
		`apiserver_watch_events_total{group="",resource="pods",version="v1"} `,
		`watchcache_objects{group="",resource="pods"} 20`,
		`watchcache_watchers{group="",resource="pods"} 1`,
		`apiserver_current_inflight_requests{request_kind="readOnly"} 1`, // the scrape itself
		`apiserver_current_inflight_requests{request_kind="mutating"} 0`,
		`watchcache_current_watches 1`,
		`go_goroutines `,
	} {
		if !strings.Contains(during, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if m := regexp.MustCompile(`apiserver_watch_events_total\{group="",resource="pods",version="v1"\} (\d+)`).FindStringSubmatch(during); m == nil || m[1] == "0" {
		t.Errorf("watch events: %v", m)
	}
}

// TestGracefulShutdown: on cancel (SIGTERM), a request in flight completes, a watch's stream ends
// cleanly (EOF, no error), and run returns nil having drained.
func TestGracefulShutdown(t *testing.T) {
	inFlight := make(chan struct{})
	withTestWrap(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("slow") != "" {
				close(inFlight)
				time.Sleep(500 * time.Millisecond)
			}
			next.ServeHTTP(w, r)
		})
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	log := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--shutdown-timeout", "10s"}, tinyCluster...), w, log)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	url := strings.TrimSpace(line)
	c := &http.Client{}
	defer c.CloseIdleConnections()

	watch, err := c.Get(url + "/api/v1/pods?watch=1&resourceVersion=0")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	watchEnd := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, watch.Body)
		watchEnd <- err
	}()
	type answer struct {
		code int
		body string
		err  error
	}
	slow := make(chan answer, 1)
	go func() {
		resp, err := c.Get(url + "/api/v1/pods?slow=1")
		if err != nil {
			slow <- answer{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		slow <- answer{resp.StatusCode, string(b), err}
	}()
	<-inFlight
	cancel()
	select {
	case err := <-watchEnd:
		if err != nil {
			t.Errorf("watch stream: %v, want a clean end", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not end")
	}
	a := <-slow
	if a.err != nil || a.code != 200 || !strings.Contains(a.body, `"kind":"PodList"`) {
		t.Errorf("request in flight: %d %v %.80s", a.code, a.err, a.body)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(log.String(), "drained") || strings.Contains(log.String(), "deadline passed") {
		t.Errorf("log: %s", log.String())
	}
	if _, err := c.Get(url + "/healthz"); err == nil {
		t.Error("serve still accepts after shutdown")
	}
}

// TestShutdownDeadline: a request that does not finish within --shutdown-timeout is cut, and run
// returns soon after the deadline.
func TestShutdownDeadline(t *testing.T) {
	inFlight := make(chan struct{})
	withTestWrap(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("stuck") != "" {
				close(inFlight)
				select {
				case <-r.Context().Done():
				case <-time.After(30 * time.Second):
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	log := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--shutdown-timeout", "300ms"}, tinyCluster...), w, log)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	url := strings.TrimSpace(line)
	c := &http.Client{}
	defer c.CloseIdleConnections()
	stuck := make(chan error, 1)
	go func() {
		resp, err := c.Get(url + "/api/v1/pods?stuck=1")
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		stuck <- err
	}()
	<-inFlight
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop after its shutdown deadline")
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 3*time.Second {
		t.Errorf("stopped %v after the signal, want just after the 300ms deadline", d)
	}
	if err := <-stuck; err == nil {
		t.Error("the stuck request completed; want it cut")
	}
	if !strings.Contains(log.String(), "shutdown deadline passed") {
		t.Errorf("log: %s", log.String())
	}
}
