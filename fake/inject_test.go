package fake_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/watchcache/watchcache/fake"
)

// configMaps returns n ConfigMaps cm-1..cm-n in namespace ns.
func configMaps(ns string, n int) []runtime.Object {
	out := make([]runtime.Object, n)
	for i := range out {
		out[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i+1), Namespace: ns}}
	}
	return out
}

// send sends a request to the server as curl did for the recordings and returns the answer, its
// body read.
func send(t *testing.T, srv *fake.Server, method, path, body string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "record-faults")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// recordedFault is one answer of fake/testdata/faults.json.
type recordedFault struct {
	Name    string            `json:"name"`
	Source  string            `json:"source"`
	Code    int               `json:"code"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// TestFaultBytes replays the answers recorded from kube-apiserver 1.37.2 (or, for 500 and 503,
// taken from its source) in reference/observed-faults.md: each fault answers with the same code,
// headers and bytes.
func TestFaultBytes(t *testing.T) {
	raw, err := os.ReadFile("testdata/faults.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []recordedFault
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatal(err)
	}
	// produce makes the fake give the recorded answer: on a server holding cm-1..cm-5 in
	// faults2 (the recording's namespace) and u1 in w-update.
	produce := map[string]func(t *testing.T, srv *fake.Server) (*http.Response, string){
		"compacted continue token (etcd path)": func(t *testing.T, srv *fake.Server) (*http.Response, string) {
			tok := page(t, srv, "/api/v1/namespaces/faults2/configmaps?limit=2")
			write(t, srv, "cm-9")
			srv.Compact()
			return send(t, srv, "GET", "/api/v1/namespaces/faults2/configmaps?limit=2&continue="+tok, "")
		},
		"watch from a compacted resourceVersion (etcd path)": func(t *testing.T, srv *fake.Server) (*http.Response, string) {
			write(t, srv, "cm-9")
			srv.Compact()
			return send(t, srv, "GET", "/api/v1/namespaces/faults2/configmaps?watch=1&resourceVersion=2&timeoutSeconds=2", "")
		},
		"exact list at a compacted resourceVersion": func(t *testing.T, srv *fake.Server) (*http.Response, string) {
			srv.Compact()
			return send(t, srv, "GET", "/api/v1/namespaces/faults2/configmaps?resourceVersion=2&resourceVersionMatch=Exact", "")
		},
		"429 from the in-flight limit": func(t *testing.T, srv *fake.Server) (*http.Response, string) {
			srv.Inject(fake.Rule{Verbs: []string{"list"}, Fault: fake.TooManyRequests})
			return send(t, srv, "GET", "/api/v1/namespaces/default/configmaps", "")
		},
		"409 on a stale resourceVersion": func(t *testing.T, srv *fake.Server) (*http.Response, string) {
			srv.Inject(fake.Rule{Verbs: []string{"update"}, Name: "u1", Fault: fake.Conflict})
			return send(t, srv, "PUT", "/api/v1/namespaces/w-update/configmaps/u1", `{"metadata":{"name":"u1"},"data":{"k":"v3"}}`)
		},
		"504 while etcd is down": func(t *testing.T, srv *fake.Server) (*http.Response, string) {
			srv.Inject(fake.Rule{Fault: fake.Timeout})
			return send(t, srv, "GET", "/api/v1/namespaces/default/configmaps", "")
		},
		"503 while shutting down": func(t *testing.T, srv *fake.Server) (*http.Response, string) {
			srv.Inject(fake.Rule{Fault: fake.ServiceUnavailable})
			return send(t, srv, "GET", "/api/v1/namespaces/default/configmaps", "")
		},
		"500 internal error": func(t *testing.T, srv *fake.Server) (*http.Response, string) {
			srv.Inject(fake.Rule{Fault: fake.InternalError})
			return send(t, srv, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"x"}}`)
		},
	}
	for _, rec := range recs {
		t.Run(rec.Name, func(t *testing.T) {
			f := produce[rec.Name]
			if f == nil {
				t.Fatalf("no producer for the recording %q", rec.Name)
			}
			objs := append(configMaps("faults2", 5), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "faults2"}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "u1", Namespace: "w-update"}})
			srv := fake.NewTest(t, fake.Options{Objects: objs})
			resp, body := f(t, srv)
			if resp.StatusCode != rec.Code {
				t.Errorf("code %d, recorded %d (%s)", resp.StatusCode, rec.Code, rec.Source)
			}
			for k, v := range rec.Headers {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s: %q, recorded %q", k, got, v)
				}
			}
			if body != rec.Body {
				t.Errorf("body\n%q\nrecorded (%s)\n%q", body, rec.Source, rec.Body)
			}
		})
	}
}

// page lists path and returns the continue token.
func page(t *testing.T, srv *fake.Server, path string) string {
	t.Helper()
	resp, body := send(t, srv, "GET", path, "")
	var l struct {
		Metadata struct{ Continue string } `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &l); err != nil || resp.StatusCode != 200 || l.Metadata.Continue == "" {
		t.Fatalf("list %s: %d %s (%v)", path, resp.StatusCode, body, err)
	}
	return l.Metadata.Continue
}

// write creates a ConfigMap in faults2, which moves the resourceVersion on.
func write(t *testing.T, srv *fake.Server, name string) {
	t.Helper()
	if resp, body := send(t, srv, "POST", "/api/v1/namespaces/faults2/configmaps", `{"metadata":{"name":"`+name+`"}}`); resp.StatusCode != 201 {
		t.Fatalf("create %s: %d %s", name, resp.StatusCode, body)
	}
}

// TestInjectedConflictMatchesOwn checks the injected 409 against the fake's own answer to a stale
// update: the same bytes.
func TestInjectedConflictMatchesOwn(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{Objects: configMaps("default", 1)})
	_, own := send(t, srv, "PUT", "/api/v1/namespaces/default/configmaps/cm-1", `{"metadata":{"name":"cm-1","resourceVersion":"1"},"data":{"k":"v"}}`)
	write := func() string {
		_, b := send(t, srv, "PUT", "/api/v1/namespaces/default/configmaps/cm-1", `{"metadata":{"name":"cm-1"},"data":{"k":"v"}}`)
		return b
	}
	in := srv.Inject(fake.Rule{Verbs: []string{"update"}, Fault: fake.Conflict})
	if injected := write(); injected != own {
		t.Errorf("injected\n%s\nown\n%s", injected, own)
	}
	in.Remove()
	if b := write(); strings.Contains(b, "Conflict") {
		t.Errorf("after Remove: %s", b)
	}
}

// TestFaultsClientGo: client-go's typed client sees each fault as it sees the apiserver's.
func TestFaultsClientGo(t *testing.T) {
	ctx := context.Background()
	get := func(cs kubernetes.Interface) error {
		_, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm-1", metav1.GetOptions{})
		return err
	}
	list := func(cs kubernetes.Interface) error {
		_, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		return err
	}
	update := func(cs kubernetes.Interface) error {
		_, err := cs.CoreV1().ConfigMaps("default").Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-1"}}, metav1.UpdateOptions{})
		return err
	}
	// raw sends a list with client-go's retries off, so that a fault it retries itself is seen.
	raw := func(cs kubernetes.Interface) error {
		return cs.CoreV1().RESTClient().Get().Namespace("default").Resource("configmaps").MaxRetries(0).Do(ctx).Error()
	}
	cases := []struct {
		name     string
		rule     fake.Rule
		call     func(kubernetes.Interface) error
		check    func(error) bool
		delay    int // SuggestsClientDelay's seconds, when it must suggest one
		requests int // how many requests client-go sends
	}{
		{"conflict", fake.Rule{Fault: fake.Conflict}, update, apierrors.IsConflict, 0, 1},
		{"expired", fake.Rule{Fault: fake.Expired}, list, apierrors.IsResourceExpired, 0, 1},
		// client-go retries a 429 ten times (Retry-After 0: at once) before it returns it.
		{"too many requests", fake.Rule{Fault: fake.TooManyRequests, RetryAfter: -1}, list, apierrors.IsTooManyRequests, 0, 11},
		{"too many requests, its delay", fake.Rule{Fault: fake.TooManyRequests, RetryAfter: 7}, raw, apierrors.IsTooManyRequests, 7, 1},
		{"internal error", fake.Rule{Fault: fake.InternalError}, get, apierrors.IsInternalError, 0, 1},
		// Its Retry-After is a header only, which client-go does not copy into the Status it decodes
		// (as with the apiserver's), so it suggests no delay.
		{"service unavailable", fake.Rule{Fault: fake.ServiceUnavailable}, raw, apierrors.IsServiceUnavailable, 0, 1},
		{"timeout", fake.Rule{Fault: fake.Timeout}, get, apierrors.IsTimeout, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fake.NewTest(t, fake.Options{Objects: configMaps("default", 1)})
			cs := kubernetes.NewForConfigOrDie(srv.Config())
			srv.Inject(c.rule)
			err := c.call(cs)
			if !c.check(err) {
				t.Fatalf("error %v (%T) is not a %s", err, err, c.rule.Fault)
			}
			if d, ok := apierrors.SuggestsClientDelay(err); c.delay > 0 && (!ok || d != c.delay) {
				t.Errorf("SuggestsClientDelay = %d, %v; want %d", d, ok, c.delay)
			}
			if n := len(srv.Requests()); n != c.requests {
				t.Errorf("%d requests logged, want %d", n, c.requests)
			}
		})
	}
}

// TestClientGoRetriesThroughFaults: client-go's own retries (429 with Retry-After) and
// retry.RetryOnConflict get through faults limited by Times.
func TestClientGoRetriesThroughFaults(t *testing.T) {
	ctx := context.Background()
	srv := fake.NewTest(t, fake.Options{Objects: configMaps("default", 1)})
	cs := kubernetes.NewForConfigOrDie(srv.Config())

	srv.Inject(fake.Rule{Verbs: []string{"get"}, Fault: fake.TooManyRequests, RetryAfter: -1, Times: 2})
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm-1", metav1.GetOptions{}); err != nil {
		t.Fatalf("get through two 429s: %v", err)
	}
	if got := codes(srv.Requests()); got != "429 429 200" {
		t.Errorf("codes %s", got)
	}

	srv.ResetRequests()
	srv.Inject(fake.Rule{Verbs: []string{"update"}, Name: "cm-1", Fault: fake.Conflict, Times: 2})
	attempts := 0
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		attempts++
		cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm-1", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data = map[string]string{"attempt": fmt.Sprint(attempts)}
		_, err = cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
	if err != nil || attempts != 3 {
		t.Fatalf("RetryOnConflict: %v after %d attempts, want success after 3", err, attempts)
	}
	if got := codes(srv.Requests()); got != "200 409 200 409 200 200" {
		t.Errorf("codes %s, want get and update three times, the first two updates 409", got)
	}
}

// codes renders the codes of a request log.
func codes(reqs []fake.Request) string {
	s := make([]string, len(reqs))
	for i, r := range reqs {
		s[i] = fmt.Sprint(r.Code)
	}
	return strings.Join(s, " ")
}

// TestRuleMatching: a rule acts on the requests its selectors match and on no others.
func TestRuleMatching(t *testing.T) {
	type req struct{ method, path, body string }
	getCM := req{"GET", "/api/v1/namespaces/default/configmaps/cm-1", ""}
	listCM := req{"GET", "/api/v1/namespaces/default/configmaps", ""}
	listOther := req{"GET", "/api/v1/namespaces/other/configmaps", ""}
	getSecret := req{"GET", "/api/v1/namespaces/default/secrets/s", ""}
	listDeploy := req{"GET", "/apis/apps/v1/namespaces/default/deployments", ""}
	createA := req{"POST", "/api/v1/namespaces/default/configmaps?fieldManager=a", `{"metadata":{"name":"x"}}`}
	createB := req{"POST", "/api/v1/namespaces/default/configmaps?fieldManager=b", `{"metadata":{"name":"y"}}`}
	podStatus := req{"GET", "/api/v1/namespaces/default/pods/p/status", ""}
	nsGet := req{"GET", "/api/v1/namespaces/other", ""}
	discovery := req{"GET", "/api/v1", ""}
	cases := []struct {
		name     string
		rule     fake.Rule
		hit, not []req
	}{
		{"verb", fake.Rule{Verbs: []string{"list"}}, []req{listCM, listDeploy}, []req{getCM, createA}},
		{"resource", fake.Rule{Resource: "configmaps"}, []req{getCM, listCM, createA}, []req{getSecret, listDeploy}},
		{"resource and group", fake.Rule{Resource: "deployments.apps"}, []req{listDeploy}, []req{listCM}},
		{"wrong group", fake.Rule{Resource: "deployments.extensions"}, nil, []req{listDeploy}},
		{"namespace", fake.Rule{Namespace: "other"}, []req{listOther, nsGet}, []req{listCM}},
		{"name", fake.Rule{Name: "cm-1"}, []req{getCM}, []req{listCM, getSecret}},
		{"field manager", fake.Rule{FieldManager: "a"}, []req{createA}, []req{createB, listCM}},
		{"subresource", fake.Rule{Subresource: "status"}, []req{podStatus}, []req{getCM}},
		{"no subresource unless asked", fake.Rule{Resource: "pods"}, nil, []req{podStatus}},
		{"any subresource", fake.Rule{Resource: "pods", AnySubresource: true}, []req{podStatus}, nil},
		{"the zero rule", fake.Rule{}, []req{getCM, listDeploy, createA}, []req{discovery}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fake.NewTest(t, fake.Options{Objects: configMaps("default", 1)})
			r := c.rule
			r.Fault = fake.InternalError
			srv.Inject(r)
			for _, q := range c.hit {
				if resp, _ := send(t, srv, q.method, q.path, q.body); resp.StatusCode != 500 {
					t.Errorf("%s %s: %d, want the injected 500", q.method, q.path, resp.StatusCode)
				}
			}
			for _, q := range c.not {
				if resp, _ := send(t, srv, q.method, q.path, q.body); resp.StatusCode == 500 {
					t.Errorf("%s %s: the rule acted on it", q.method, q.path)
				}
			}
		})
	}
}

// TestAfterTimesProbability: After lets the first matches through, Times bounds the faults, and
// a probability draws from the seeded source: the same seed gives the same faults.
func TestAfterTimesProbability(t *testing.T) {
	run := func(seed int64, rule fake.Rule, more ...fake.Rule) string {
		srv := fake.NewTest(t, fake.Options{Seed: seed, Objects: configMaps("default", 1)})
		rule.Fault = fake.Conflict
		srv.Inject(rule)
		for _, r := range more {
			srv.Inject(r)
		}
		for range 12 {
			send(t, srv, "GET", "/api/v1/namespaces/default/configmaps/cm-1", "")
		}
		return codes(srv.Requests())
	}
	cases := []struct {
		name string
		rule fake.Rule
		more []fake.Rule // injected after rule
		want string
	}{
		{"after", fake.Rule{After: 10}, nil, "200 200 200 200 200 200 200 200 200 200 409 409"},
		{"times", fake.Rule{Times: 3}, nil, "409 409 409 200 200 200 200 200 200 200 200 200"},
		{"after and times", fake.Rule{After: 2, Times: 2}, nil, "200 200 409 409 200 200 200 200 200 200 200 200"},
		// The first rule due acts; the second counts the requests the first took toward its After.
		// The second is due from the second request on, but the first acts while it lasts.
		{"two rules", fake.Rule{Times: 2}, []fake.Rule{{Fault: fake.InternalError, After: 1, Times: 2}},
			"409 409 500 500 200 200 200 200 200 200 200 200"},
		{"probability 1", fake.Rule{Probability: 1}, nil, "409 409 409 409 409 409 409 409 409 409 409 409"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := run(1, c.rule, c.more...); got != c.want {
				t.Errorf("codes\n%s, want\n%s", got, c.want)
			}
		})
	}
	t.Run("probability with a seed", func(t *testing.T) {
		half := fake.Rule{Probability: 0.5}
		a, b := run(42, half), run(42, half)
		if a != b {
			t.Errorf("seed 42 twice:\n%s\n%s", a, b)
		}
		if n := strings.Count(a, "409"); n == 0 || n == 12 {
			t.Errorf("probability 0.5 gave %d faults in 12: %s", n, a)
		}
		differs := false
		for seed := int64(43); seed < 48 && !differs; seed++ {
			differs = run(seed, half) != a
		}
		if !differs {
			t.Errorf("seeds 43..47 all gave seed 42's faults %s", a)
		}
	})
}

// TestDelay: a delay holds the answer, and ends with the client's context.
func TestDelay(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{Objects: configMaps("default", 1)})
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	srv.Inject(fake.Rule{Verbs: []string{"get"}, Delay: 200 * time.Millisecond})
	start := time.Now()
	if _, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), "cm-1", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("answered after %v, before the delay", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm-1", metav1.GetOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("get with a 50 ms deadline: %v", err)
	}
}

// TestWatchFaults: a watch cut after N events ends after them; one expired after N events gets
// the 410 ERROR after them; client-go sees both as the apiserver's.
func TestWatchFaults(t *testing.T) {
	cases := []struct {
		name    string
		rule    fake.Rule
		events  int
		expired bool
	}{
		{"cut after 2", fake.Rule{Fault: fake.CutWatch, Events: 2}, 2, false},
		{"cut at once", fake.Rule{Fault: fake.CutWatch}, 0, false},
		{"410 after 2", fake.Rule{Fault: fake.ExpireWatch, Events: 2}, 2, true},
		{"410 at once", fake.Rule{Fault: fake.ExpireWatch}, 0, true},
		{"expired watch", fake.Rule{Fault: fake.Expired}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fake.NewTest(t, fake.Options{})
			cs := kubernetes.NewForConfigOrDie(srv.Config())
			from := fmt.Sprint(srv.ResourceVersion())
			for i := range 3 {
				if _, err := cs.CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i)}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			srv.Inject(c.rule)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			// From before the three creates: three ADDED events, unless cut.
			w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: from, AllowWatchBookmarks: true})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			added := 0
			var last watch.Event
			for ev := range w.ResultChan() {
				last = ev
				if ev.Type == watch.Added {
					added++
				}
			}
			if ctx.Err() != nil {
				t.Fatal("the watch was not cut")
			}
			if added != c.events {
				t.Errorf("%d events before the end, want %d", added, c.events)
			}
			if gotExpired := last.Type == watch.Error && apierrors.IsResourceExpired(apierrors.FromObject(last.Object)); gotExpired != c.expired {
				t.Errorf("last event %v %v, want expired %v", last.Type, last.Object, c.expired)
			}
		})
	}
}

// TestCutWatchCountsNoBookmarks: bookmarks pass a cut watch without counting as its events.
func TestCutWatchCountsNoBookmarks(t *testing.T) {
	srv := fake.NewTest(t, fake.Options{BookmarkInterval: 20 * time.Millisecond})
	srv.Inject(fake.Rule{Fault: fake.CutWatch, Events: 1})
	req, err := http.NewRequest("GET", fmt.Sprintf("%s/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=%d&timeoutSeconds=10", srv.URL(), srv.ResourceVersion()), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	var types []string
	created := false
	for lines.Scan() {
		var ev struct{ Type string }
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatalf("%s: %v", lines.Bytes(), err)
		}
		types = append(types, ev.Type)
		if ev.Type == "BOOKMARK" && !created && len(types) >= 2 {
			created = true
			send(t, srv, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"after-bookmarks"}}`)
		}
	}
	if n := len(types); n < 3 || types[n-1] != "ADDED" {
		t.Errorf("events %v, want bookmarks and then the one ADDED the watch is cut after", types)
	}
}
