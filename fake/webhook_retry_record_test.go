package fake_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// webhookRetryCases call webhooks that write the object under review through the API before they
// answer, as a webhook that records something on the object it admits does. The apiserver runs an
// update's admission inside its storage's GuaranteedUpdate: the webhook's write makes the
// update's compare on the object's revision fail, and the apiserver reads the object again and
// runs the update (its patch, its mutating and validating admission) once more, unless the
// request named a resourceVersion, which then conflicts. A delete's validating admission is
// retried the same way. Recorded from a kube-apiserver 1.37.2 into
// testdata/observed-webhook-retry.json (TestRecordOracleWebhookRetry), replayed against the fake
// (TestObservedWebhookRetry).
var webhookRetryCases = []writeCase{
	{Name: "wrmutate", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "{ns}", wh("write-self.example.com", "/write-self/label", retryRules("UPDATE"))),
		retryCreate("u1"),
		{Name: "update", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/u1", Body: `{"metadata":{"name":"u1"},"data":{"k":"v2"}}`},
		retryCreate("u2"),
		{Name: "update with resourceVersion", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/u2", Body: `{"metadata":{"name":"u2","resourceVersion":"{rv}"},"data":{"k":"v2"}}`},
		retryGet("u2"),
		retryCreate("p1"),
		{Name: "merge patch", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/p1", ContentType: "application/merge-patch+json", Body: `{"data":{"k":"v2"}}`},
		retryCreate("p2"),
		{Name: "merge patch with resourceVersion", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/p2", ContentType: "application/merge-patch+json", Body: `{"metadata":{"resourceVersion":"{rv}"},"data":{"k":"v2"}}`},
		retryGet("p2"),
		retryCreate("a1"),
		{Name: "apply", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/a1?fieldManager=tester&force=true", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a1"},"data":{"k":"v2"}}`},
		retryCreate("a2"),
		{Name: "apply with resourceVersion", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/a2?fieldManager=tester&force=true", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a2","resourceVersion":"{rv}"},"data":{"k":"v2"}}`},
		retryGet("a2"),
	}},
	{Name: "wrvalidate", Steps: []writeStep{
		nsStep(),
		whConfig("ValidatingWebhookConfiguration", "{ns}", wh("write-self.example.com", "/write-self", retryRules("UPDATE", "DELETE"))),
		retryCreate("v1"),
		{Name: "update", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/v1", Body: `{"metadata":{"name":"v1"},"data":{"k":"v2"}}`},
		retryCreate("v2"),
		{Name: "merge patch with resourceVersion", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/v2", ContentType: "application/merge-patch+json", Body: `{"metadata":{"resourceVersion":"{rv}"},"data":{"k":"v2"}}`},
		retryGet("v2"),
		retryCreate("d1"),
		{Name: "delete", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/d1"},
		retryCreate("d2"),
		{Name: "delete with resourceVersion", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/d2", Body: `{"preconditions":{"resourceVersion":"{rv}"}}`},
		retryGet("d2"),
	}},
	{Name: "wrcreate", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "{ns}", wh("write-self.example.com", "/write-self/label", retryRules("CREATE")+selectHook("mutate"))),
		whConfig("ValidatingWebhookConfiguration", "{ns}", wh("write-self.example.com", "/write-self", retryRules("CREATE")+selectHook("validate"))),
		{Name: "create, mutating webhook creates it", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"cm","labels":{"hook":"mutate"}},"data":{"k":"v1"}}`},
		retryGet("cm"),
		{Name: "create, validating webhook creates it", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"cv","labels":{"hook":"validate"}},"data":{"k":"v1"}}`},
		retryGet("cv"),
	}},
	{Name: "wrscale", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "{ns}", wh("write-self.example.com", "/write-self",
			`"rules":[{"operations":["UPDATE"],"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments/scale"]}],"timeoutSeconds":2`)),
		{Name: "deployment", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments", Body: `{"metadata":{"name":"d1"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
		{Name: "scale", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", ContentType: "application/merge-patch+json", Body: `{"spec":{"replicas":3}}`},
		{Name: "get deployment", Method: "GET", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1"},
	}},
}

// retryRules are the rules of a webhook of config maps for operations, which calls it for 2
// seconds at most: a server that holds the object while the webhook writes it answers then.
func retryRules(ops ...string) string {
	return `"rules":[{"operations":["` + strings.Join(ops, `","`) + `"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}],"timeoutSeconds":2`
}

// retryCreate creates the config map name, which the webhooks do not see.
func retryCreate(name string) writeStep {
	return writeStep{Name: "create " + name, Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"` + name + `"},"data":{"k":"v1"}}`}
}

// retryGet reads the config map name.
func retryGet(name string) writeStep {
	return writeStep{Name: "get " + name, Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps/" + name}
}

// webhookRetryRecording is where webhookRetryCases are recorded and replayed.
var webhookRetryRecording = recording{cases: webhookRetryCases, file: "testdata/observed-webhook-retry.json", markdown: "observed-webhook-retry.md",
	title: "webhooks that write the object they admit", recorder: "TestRecordOracleWebhookRetry", replayer: "TestObservedWebhookRetry", source: "webhook_retry_record_test.go",
	note: "The test runs a webhook server over TLS: `{hook}` is its URL and `{ca}` its certificate (base64 PEM). A webhook\n" +
		"at `/write-self…`, on its first review of an object, merge-patches the object's label `touched: \"yes\"` through\n" +
		"the API (no resourceVersion), or creates the object with that label when the review is of its create, before\n" +
		"it answers; `wrote` is the status code that write got. It then answers as the path after `/write-self` says\n" +
		"(`/label`: adds the label `defaulted: \"yes\"`; nothing: allows). Each `⇢ webhook` line is a review it received\n" +
		"during the step, in the order its answers were sent; each `⇠ watch` line is an event of a watch of all config\n" +
		"maps (from before the first case) that arrived during the step.",
	setup: writingHookSetup(func(t *testing.T, srv *server) *webhookServer { return &startRetryHookServer(t, srv).webhookServer })}

// writingHookSetup is the setup of a recording whose webhook server (started by start) writes
// through the server under test: the server's placeholders of the webhook, and each step's record
// of the reviews and of a watch's events.
func writingHookSetup(start func(t *testing.T, srv *server) *webhookServer) func(t *testing.T, srv *server) {
	return func(t *testing.T, srv *server) {
		hs := start(t, srv)
		srv.vars = map[string]string{"{hook}": hs.URL, "{ca}": hs.caBundle}
		w := startRetryWatch(t, srv)
		srv.observe = func(norm *normalizer, o *observedStep) {
			// The reviews first: they name the objects' uids in the order the answers do.
			quiet := 50*time.Millisecond + srv.settle/4
			o.Events = w.take(norm, quiet)
			hs.observe(norm, o)
		}
		srv.settle = time.Second
	}
}

// TestRecordOracleWebhookRetry records webhookRetryCases from a fresh kube-apiserver as
// TestRecordOracle records writeCases; the apiserver calls the test's webhook server on loopback,
// and the webhook server writes to the apiserver.
func TestRecordOracleWebhookRetry(t *testing.T) { webhookRetryRecording.record(t, oracleServer(t)) }

// TestObservedWebhookRetry replays the recorded webhook calls against the fake: the answers, the
// reviews each webhook received (how many times the fake called it), and the events a watch saw.
// The user the reviews name is the oracle's token's, the fake's admin in the fake; the
// resourceVersions a storage precondition's message quotes are placeholders.
func TestObservedWebhookRetry(t *testing.T) {
	webhookRetryRecording.replay(t, noControllers, func(step string, got, want *observedStep) {
		for _, st := range []*observedStep{got, want} {
			st.Response = storagePreconditionRVs.ReplaceAll(st.Response, []byte("${1}<rv>"))
			anyUser(st)
		}
	})
}

// anyUser replaces the user a step's reviews name (the oracle's token's, the fake's admin) by a
// placeholder.
func anyUser(st *observedStep) {
	for i, r := range st.Reviews {
		st.Reviews[i] = mapLeaves(r, func(v any, key, parent string) any {
			if key == "username" && parent == "userInfo" {
				return "<user>"
			}
			return v
		})
	}
}

// storagePreconditionRVs are the resourceVersions the storage's precondition failure quotes.
var storagePreconditionRVs = regexp.MustCompile(`(ResourceVersion(?: in precondition| in object meta)?: )[0-9]+`)

// retryHookServer is webhookServer's TLS server and reviews, whose /write-self webhooks write the
// object under review through api before answering, once per object.
type retryHookServer struct {
	webhookServer
	api  *server
	seen map[string]bool // namespace/name of the objects written, under mu
}

func startRetryHookServer(t *testing.T, api *server) *retryHookServer {
	t.Helper()
	hs := &retryHookServer{api: api, seen: map[string]bool{}}
	hs.start(t, hs.serve)
	return hs
}

func (hs *retryHookServer) serve(w http.ResponseWriter, r *http.Request) {
	req, raw, ok := readReview(r)
	if !ok {
		http.Error(w, "not a review", http.StatusBadRequest)
		return
	}
	rec := receivedReview{Path: r.URL.Path, Request: raw}
	key := req.Namespace + "/" + req.Name
	hs.mu.Lock()
	first := !hs.seen[key]
	hs.seen[key] = true
	hs.mu.Unlock()
	path, writes := strings.CutPrefix(r.URL.Path, "/write-self")
	if writes && first {
		rec.Wrote = hs.touch(req)
	}
	hs.mu.Lock()
	hs.reviews = append(hs.reviews, rec)
	hs.mu.Unlock()
	writeReviewAnswer(w, answer(path, req))
}

// touch merge-patches the label touched=yes onto the object under review (a subresource's
// parent), unconditionally, or creates it with that label when the review is of its create, and
// returns the status code of the answer (0 when there is none within 5 seconds).
func (hs *retryHookServer) touch(review *admissionv1.AdmissionRequest) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	gvr := review.Resource
	collection := "/apis/" + gvr.Group + "/" + gvr.Version
	if gvr.Group == "" {
		collection = "/api/" + gvr.Version
	}
	collection += "/namespaces/" + review.Namespace + "/" + gvr.Resource
	method, path, ct := "PATCH", collection+"/"+review.Name, "application/merge-patch+json"
	body := `{"metadata":{"labels":{"touched":"yes"}}}`
	if review.Operation == admissionv1.Create {
		method, path, ct = "POST", collection, "application/json"
		body = `{"metadata":{"name":"` + review.Name + `","labels":{"touched":"yes"}}}`
	}
	return hookWrite(ctx, hs.api, method, path, ct, body, "retry-webhook/v0.0.0")
}

// hookWrite is a webhook's own write to api (method, path, a body of Content-Type ct unless
// empty) as userAgent, with api's token; it returns the status code of the answer, or 0 when
// there is none.
func hookWrite(ctx context.Context, api *server, method, path, ct, body, userAgent string) int {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, api.base+path, rd)
	if err != nil {
		return 0
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("User-Agent", userAgent)
	if api.token != "" {
		req.Header.Set("Authorization", "Bearer "+api.token)
	}
	resp, err := api.client.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// retryWatch is a watch of all config maps whose events of the recording's namespaces (w-wr…)
// a step takes once they stop arriving.
type retryWatch struct {
	mu     sync.Mutex
	events [][]byte
	last   time.Time
}

// startRetryWatch watches all config maps of srv from its current resourceVersion until the test
// ends.
func startRetryWatch(t *testing.T, srv *server) *retryWatch {
	t.Helper()
	get := func(ctx context.Context, path string) *http.Response {
		resp, err := srv.get(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var list struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	resp := get(context.Background(), "/api/v1/configmaps?limit=1")
	err := json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	resp = get(ctx, "/api/v1/configmaps?watch=1&resourceVersion="+list.Metadata.ResourceVersion)
	w := &retryWatch{}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev struct {
				Object struct {
					Metadata struct{ Namespace string } `json:"metadata"`
				} `json:"object"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil || !strings.HasPrefix(ev.Object.Metadata.Namespace, "w-wr") {
				continue
			}
			w.mu.Lock()
			w.events = append(w.events, append([]byte(nil), sc.Bytes()...))
			w.last = time.Now()
			w.mu.Unlock()
		}
	}()
	return w
}

// take waits until no event has arrived for quiet, and quiet has passed since it was called (the
// step's events may still be on their way), and returns the events since the last take,
// normalized.
func (w *retryWatch) take(norm *normalizer, quiet time.Duration) []json.RawMessage {
	called := time.Now()
	for {
		w.mu.Lock()
		since := time.Since(w.last)
		if c := time.Since(called); c < since {
			since = c
		}
		if since >= quiet {
			got := w.events
			w.events = nil
			w.mu.Unlock()
			out := make([]json.RawMessage, len(got))
			for i, e := range got {
				out[i] = norm.normalize(e)
			}
			return out
		}
		w.mu.Unlock()
		time.Sleep(quiet - since)
	}
}
