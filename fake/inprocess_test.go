package fake_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/fake"
)

// inprocStep is one request of TestInProcessSameAsSocket.
type inprocStep struct {
	name, method, path, body string
	header                   map[string]string
}

// inprocAnswer is what a client read, Date's value left out (the time of the answer).
type inprocAnswer struct {
	Status           string
	Header           http.Header
	ContentLength    int64
	TransferEncoding []string
	Body             string
}

// TestInProcessSameAsSocket sends the same requests to two servers in the same state, one over
// its listener and one through Transport (Config's), and compares every answer: status, headers
// (Warning, Content-Type, Content-Length, Retry-After...), body, and the request logs.
func TestInProcessSameAsSocket(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	opts := fake.Options{Seed: 3, Now: func() time.Time { return at }, NoGarbageCollector: true, NoNamespaceController: true}
	sock, in := fake.NewTest(t, opts), fake.NewTest(t, opts)
	for _, srv := range []*fake.Server{sock, in} {
		srv.Inject(fake.Rule{Verbs: []string{"get"}, Resource: "secrets", Fault: fake.TooManyRequests, RetryAfter: 3})
		srv.Inject(fake.Rule{Verbs: []string{"list"}, Resource: "secrets", Fault: fake.ServiceUnavailable})
	}
	sockClient := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer sockClient.CloseIdleConnections()
	inClient := &http.Client{Transport: in.Transport()}
	const (
		json     = "application/json"
		cms      = "/api/v1/namespaces/default/configmaps"
		table    = "application/json;as=Table;v=v1;g=meta.k8s.io"
		protobuf = "application/vnd.kubernetes.protobuf"
	)
	ct := func(v string) map[string]string { return map[string]string{"Content-Type": v} }
	steps := []inprocStep{
		{"discovery", "GET", "/api/v1", "", nil},
		{"version", "GET", "/version", "", nil},
		{"get namespace", "GET", "/api/v1/namespaces/default", "", nil},
		{"list namespaces (long: chunked)", "GET", "/api/v1/namespaces", "", nil},
		{"create", "POST", cms, `{"metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`, ct(json)},
		{"create again: 409", "POST", cms, `{"metadata":{"name":"a"}}`, ct(json)},
		{"invalid name: 422", "POST", cms, `{"metadata":{"name":"A_"}}`, ct(json)},
		{"malformed body: 400", "POST", cms, `{"metadata":`, ct(json)},
		{"unsupported media type: 415", "POST", cms, `x`, ct("text/plain")},
		{"missing: 404", "GET", cms + "/missing", "", nil},
		{"unknown path: 404", "GET", "/apis/nothing.example/v1/things", "", nil},
		{"get", "GET", cms + "/a", "", nil},
		{"get as protobuf", "GET", cms + "/a", "", map[string]string{"Accept": protobuf}},
		{"head", "HEAD", cms, "", nil},
		{"list as table", "GET", cms + "?limit=1", "", map[string]string{"Accept": table}},
		{"merge patch", "PATCH", cms + "/a", `{"data":{"k":"w"}}`, ct("application/merge-patch+json")},
		{"apply", "PATCH", cms + "/a?fieldManager=m&force=true", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"z"}}`, ct("application/apply-patch+yaml")},
		{"stale update: 409", "PUT", cms + "/a", `{"metadata":{"name":"a","resourceVersion":"1"},"data":{}}`, ct(json)},
		{"warnings: deprecated kind", "POST", "/api/v1/namespaces/default/endpoints", `{"metadata":{"name":"e"}}`, ct(json)},
		{"warnings: pod", "POST", "/api/v1/namespaces/default/pods",
			`{"metadata":{"name":"p"},"spec":{"nodeSelector":{"beta.kubernetes.io/os":"linux","beta.kubernetes.io/arch":"amd64"},"containers":[{"name":"c","image":"i"}]}}`, ct(json)},
		{"delete", "DELETE", cms + "/a", "", nil},
		{"delete again: 404", "DELETE", cms + "/a", "", nil},
		{"watch from 0, ends by its timeout", "GET", cms + "?watch=1&resourceVersion=0&timeoutSeconds=1", "", nil},
		{"wrong method: 405", "POST", "/version", "", nil},
		{"injected 429 with Retry-After", "GET", "/api/v1/namespaces/default/secrets/s", "", nil},
		{"injected 503", "GET", "/api/v1/namespaces/default/secrets", "", nil},
	}
	send := func(c *http.Client, base string, s inprocStep) inprocAnswer {
		t.Helper()
		var body io.Reader
		if s.body != "" {
			body = strings.NewReader(s.body)
		}
		req, err := http.NewRequest(s.method, base+s.path, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", "inprocess-test/v0")
		for k, v := range s.header {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s: reading the body: %v", s.name, err)
		}
		if _, ok := resp.Header["Date"]; !ok {
			t.Errorf("%s: no Date header", s.name)
		}
		h := resp.Header.Clone()
		delete(h, "Date")
		return inprocAnswer{resp.Status, h, resp.ContentLength, resp.TransferEncoding, string(b)}
	}
	sawWarning, sawRetry := false, false
	for _, s := range steps {
		got, want := send(inClient, in.URL(), s), send(sockClient, sock.URL(), s)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s %s\n socket:     %+v\n in process: %+v", s.name, s.method, s.path, want, got)
		}
		sawWarning = sawWarning || len(got.Header.Values("Warning")) > 1
		sawRetry = sawRetry || got.Header.Get("Retry-After") == "3"
	}
	if !sawWarning || !sawRetry {
		t.Errorf("two Warning headers seen: %v, a Retry-After: %v; the cases test nothing without them", sawWarning, sawRetry)
	}
	if got, want := in.Requests(), sock.Requests(); !reflect.DeepEqual(got, want) {
		t.Errorf("request logs differ:\n socket:     %+v\n in process: %+v", want, got)
	}
}

// TestInProcessConfig: Config reaches the server in process and client-go's wrappers still apply:
// BearerToken and Impersonate name the user, UserAgent the field manager, Wrap sees every
// request, warnings reach the WarningHandler; the typed, dynamic, metadata and discovery clients
// and rest.HTTPClientFor work with it, and so does a copy.
func TestInProcessConfig(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{Tokens: map[string]fake.User{"tok": {Name: "tok-user"}}})
	ctx := context.Background()
	cfg := srv.Config()
	if cfg.Transport == nil || srv.NetworkConfig().Transport != nil {
		t.Fatalf("Config's Transport %v, NetworkConfig's %v", cfg.Transport, srv.NetworkConfig().Transport)
	}
	var wrapped atomic.Int64
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) { wrapped.Add(1); return rt.RoundTrip(r) })
	})
	warnings := &warningsSeen{}
	cfg.WarningHandler = warnings
	cfg.UserAgent = "inprocess-manager/v1.2.3 (linux/amd64) kubernetes/abc"
	cs := kubernetes.NewForConfigOrDie(rest.CopyConfig(cfg))
	if _, err := cs.CoreV1().Endpoints("default").Create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "e"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if w := warnings.take(); len(w) != 1 || !strings.Contains(w[0], "Endpoints is deprecated") {
		t.Errorf("warnings %q, want the Endpoints deprecation", w)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.Requests(); reqs[len(reqs)-1].FieldManager != "inprocess-manager" {
		t.Errorf("field manager %q, want the one of the UserAgent", reqs[len(reqs)-1].FieldManager)
	}
	if wrapped.Load() != 2 {
		t.Errorf("Wrap's round tripper saw %d requests, want 2", wrapped.Load())
	}

	whoami := func(cfg *rest.Config) string {
		t.Helper()
		r, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status.UserInfo.Username
	}
	token := srv.Config()
	token.BearerToken = "tok"
	imp := srv.Config()
	imp.Impersonate = rest.ImpersonationConfig{UserName: "bob"}
	for name, c := range map[string]struct {
		cfg  *rest.Config
		want string
	}{"no credentials": {srv.Config(), fake.Admin.Name}, "bearer token": {token, "tok-user"}, "impersonation": {imp, "bob"}} {
		if got := whoami(c.cfg); got != c.want {
			t.Errorf("%s: user %q, want %q", name, got, c.want)
		}
	}

	hc, err := rest.HTTPClientFor(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfigAndClient(srv.Config(), hc)
	if err != nil {
		t.Fatal(err)
	}
	cmGVR := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	if u, err := dyn.Resource(cmGVR).Namespace("default").Get(ctx, "c", metav1.GetOptions{}); err != nil || u.GetName() != "c" {
		t.Errorf("dynamic get: %v, %v", u, err)
	}
	mc, err := metadata.NewForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	if l, err := mc.Resource(cmGVR).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 1 {
		t.Errorf("metadata list: %v, %v", l, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	if groups, err := dc.ServerGroups(); err != nil || len(groups.Groups) < 10 {
		t.Errorf("discovery: %v, %v", groups, err)
	}

	insecure := srv.Config()
	insecure.Insecure = true
	if _, err := kubernetes.NewForConfig(insecure); err == nil {
		t.Error("Config with Insecure: no error; client-go refuses TLS options beside a Transport, as Config's doc says")
	}

	srv.Close()
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "c", metav1.GetOptions{}); err == nil || !strings.Contains(err.Error(), "server closed") {
		t.Errorf("a request after Close: %v, want it refused", err)
	}
}

// TestInProcessWatch: a watch through Config streams (an event written after the watch started
// arrives while the watch runs), and cancelling its context ends the server's handler: no
// goroutine is left.
func TestInProcessWatch(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	bg := context.Background()
	if _, err := cs.CoreV1().ConfigMaps("default").List(bg, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	baseline := goleak.IgnoreCurrent()
	for _, end := range []string{"cancel", "stop"} {
		t.Run(end, func(t *testing.T) {
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			type started struct {
				w   watch.Interface
				err error
			}
			start := make(chan started, 1)
			go func() {
				w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: fmt.Sprint(srv.ResourceVersion())})
				start <- started{w, err}
			}()
			var w watch.Interface
			select {
			case s := <-start:
				if s.err != nil {
					t.Fatal(s.err)
				}
				w = s.w
			case <-time.After(10 * time.Second):
				t.Fatal("the watch did not start: its request waits for the handler to return")
			}
			if _, err := cs.CoreV1().ConfigMaps("default").Create(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "w-" + end}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-w.ResultChan():
				if cm, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || !ok || cm.Name != "w-"+end {
					t.Fatalf("event %v %#v", ev.Type, ev.Object)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no event: the watch does not stream")
			}
			if end == "cancel" {
				cancel()
			} else {
				w.Stop()
			}
			for range w.ResultChan() {
			}
			goleak.VerifyNone(t, baseline)
		})
	}
}

// TestInProcessWatchBodyClose: closing a raw watch's body ends the handler (no goroutine is left), and a request the server answers with an error is whole.
func TestInProcessWatchBodyClose(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	c := &http.Client{Transport: srv.Transport()}
	get := func(path string) *http.Response {
		t.Helper()
		resp, err := c.Get(srv.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := get("/api/v1/namespaces")
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	baseline := goleak.IgnoreCurrent()
	resp = get("/api/v1/namespaces?watch=1&resourceVersion=0")
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"type":"ADDED"`) {
		t.Fatalf("first event %q, %v", line, err)
	}
	_ = resp.Body.Close()
	goleak.VerifyNone(t, baseline)
	resp = get("/api/v1/namespaces?watch=1&resourceVersion=1&resourceVersionMatch=Exact")
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err != nil || resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(b), `"kind":"Status"`) {
		t.Errorf("watch with a bad option: %d %s %v", resp.StatusCode, b, err)
	}
}

// TestInProcessConcurrent runs writers and watchers through Config at once (under -race in CI):
// every watcher sees every write of the writers, in resourceVersion order.
func TestInProcessConcurrent(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ctx := context.Background()
	const writers, writes, watchers = 6, 30, 4
	start := fmt.Sprint(srv.ResourceVersion())
	var wg sync.WaitGroup
	seen := make([][]string, watchers)
	ready := make(chan struct{}, watchers)
	for i := range watchers {
		wg.Go(func() {
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			w, err := cs.CoreV1().ConfigMaps("").Watch(wctx, metav1.ListOptions{ResourceVersion: start})
			ready <- struct{}{}
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Stop()
			last := 0
			for ev := range w.ResultChan() {
				cm, ok := ev.Object.(*corev1.ConfigMap)
				if !ok {
					t.Errorf("watcher %d: event %v %#v", i, ev.Type, ev.Object)
					return
				}
				var rv int
				_, _ = fmt.Sscan(cm.ResourceVersion, &rv)
				if rv <= last {
					t.Errorf("watcher %d: resourceVersion %d after %d", i, rv, last)
				}
				last = rv
				seen[i] = append(seen[i], string(ev.Type)+" "+cm.Namespace+"/"+cm.Name)
				if len(seen[i]) == writers*writes {
					return
				}
			}
		})
	}
	for range watchers {
		<-ready
	}
	var writersWG sync.WaitGroup
	for w := range writers {
		writersWG.Go(func() {
			for n := range writes {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", w), Namespace: "default"}, Data: map[string]string{"n": fmt.Sprint(n)}}
				var err error
				if n == 0 {
					_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
				} else {
					_, err = cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	writersWG.Wait()
	wg.Wait()
	for i := range watchers {
		if len(seen[i]) != writers*writes {
			t.Errorf("watcher %d saw %d events, want %d", i, len(seen[i]), writers*writes)
		}
		if i > 0 && !reflect.DeepEqual(seen[i], seen[0]) {
			t.Errorf("watcher %d saw another sequence than watcher 0", i)
		}
	}
}
