package fake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// webhookDeleteCollectionCases call, from a deletecollection of config maps, a validating webhook
// of deletes that writes through the API before it answers. The apiserver's DeleteCollection
// lists the selected objects, then deletes each with the store's own Delete, admission included,
// holding nothing across the webhook calls: the webhook's write goes through, and a delete whose
// object changed meanwhile is handled as a single delete handles it (validated again after its
// compare failed, skipped when the object is gone). Recorded from a kube-apiserver 1.37.2 into
// testdata/observed-webhook-deletecollection.json (TestRecordOracleWebhookDeleteCollection),
// replayed against the fake (TestObservedWebhookDeleteCollection).
var webhookDeleteCollectionCases = []writeCase{
	{Name: "wrdclabel", Steps: []writeStep{
		nsStep(),
		dcHook(),
		dcItem("a", "label"),
		dcItem("b", ""),
		dcDelete(""),
		dcList(),
	}},
	{Name: "wrdccreate", Steps: []writeStep{
		nsStep(),
		dcHook(),
		dcItem("a", "create"),
		dcItem("b", ""),
		dcDelete(""),
		dcList(),
	}},
	{Name: "wrdcdelete", Steps: []writeStep{
		nsStep(),
		dcHook(),
		dcItem("a", "delete:b"),
		dcItem("b", ""),
		dcItem("c", ""),
		dcDelete(""),
		dcList(),
	}},
	{Name: "wrdcmutate", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "{ns}", wh("write.example.com", "/dc", retryRules("DELETE"))),
		dcItem("a", "label"),
		dcItem("b", ""),
		dcDelete(""),
		dcItem("c", "label"),
		{Name: "delete c", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/c"},
		dcList(),
	}},
	{Name: "wrdcdry", Steps: []writeStep{
		nsStep(),
		dcHook(),
		dcItem("a", "label"),
		dcItem("b", ""),
		dcDelete("dryRun=All"),
		dcList(),
		dcItem("c", "label"),
		{Name: "delete c dryRun", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/c?dryRun=All"},
		dcList(),
		// A pod template's delete answers with the deleted object.
		whConfig("ValidatingWebhookConfiguration", "{ns}-podtemplates", wh("write.example.com", "/dc",
			`"rules":[{"operations":["DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["podtemplates"]}],"timeoutSeconds":2`)),
		dcPodTemplate("p"),
		{Name: "delete p dryRun", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/podtemplates/p?dryRun=All"},
		{Name: "get p", Method: "GET", Path: "/api/v1/namespaces/{ns}/podtemplates/p"},
		dcPodTemplate("q"),
		{Name: "delete q", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/podtemplates/q"},
	}},
}

// dcHook is the case's validating webhook of config maps' deletes, called for 2 seconds at most:
// a server that holds the deletecollection while the webhook writes answers then.
func dcHook() writeStep {
	return whConfig("ValidatingWebhookConfiguration", "{ns}", wh("write.example.com", "/dc", retryRules("DELETE")))
}

// dcItem creates the config map name, selected by the deletecollections (dc=yes), whose
// annotation hook-writes says what the webhook writes on its first review of it (dcHookServer).
func dcItem(name, writes string) writeStep {
	ann := ""
	if writes != "" {
		ann = `,"annotations":{"hook-writes":"` + writes + `"}`
	}
	return writeStep{Name: "create " + name, Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps",
		Body: `{"metadata":{"name":"` + name + `","labels":{"dc":"yes"}` + ann + `},"data":{"k":"v1"}}`}
}

// dcPodTemplate creates the pod template name, which the webhook labels on its first review.
func dcPodTemplate(name string) writeStep {
	return writeStep{Name: "create " + name, Method: "POST", Path: "/api/v1/namespaces/{ns}/podtemplates",
		Body: `{"metadata":{"name":"` + name + `","annotations":{"hook-writes":"label"}},"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}`}
}

// dcDelete deletes the collection of config maps labelled dc=yes, with further query parameters.
func dcDelete(query string) writeStep {
	name, path := "deletecollection", "/api/v1/namespaces/{ns}/configmaps?labelSelector=dc%3Dyes"
	if query != "" {
		name, path = name+" "+query, path+"&"+query
	}
	return writeStep{Name: name, Method: "DELETE", Path: path}
}

// dcList lists the case's config maps.
func dcList() writeStep {
	return writeStep{Name: "list", Method: "GET", Path: "/api/v1/namespaces/{ns}/configmaps"}
}

// webhookDeleteCollectionRecording is where webhookDeleteCollectionCases are recorded and
// replayed.
var webhookDeleteCollectionRecording = recording{cases: webhookDeleteCollectionCases,
	file: "testdata/observed-webhook-deletecollection.json", markdown: "observed-webhook-deletecollection.md",
	title: "webhooks that write during a deletecollection", recorder: "TestRecordOracleWebhookDeleteCollection",
	replayer: "TestObservedWebhookDeleteCollection", source: "webhook_deletecollection_record_test.go",
	note: "The test runs a webhook server over TLS: `{hook}` is its URL and `{ca}` its certificate (base64 PEM). Its\n" +
		"webhook `/dc` admits deletes of config maps (a validating one; a mutating one in wrdcmutate), and of pod\n" +
		"templates in wrdcdry; on its first review of an object it writes what the object's\n" +
		"annotation `hook-writes` says through the API before it answers (`label`: merge-patches the object's label\n" +
		"`touched: \"yes\"`; `create`: creates the config map `made-by-<name>`; `delete:<other>`: deletes the object\n" +
		"`<other>`; all without a resourceVersion), and `wrote` is the status code that write got; it allows every\n" +
		"delete. A deletecollection's reviews name no object: the webhook reads the name from `oldObject`. Each\n" +
		"`⇢ webhook` line is a review it received during the step, in the order its answers were sent; each `⇠ watch`\n" +
		"line is an event of a watch of all config maps (from before the first case) that arrived during the step.",
	setup: writingHookSetup(func(t *testing.T, srv *server) *webhookServer { return &startDCHookServer(t, srv).webhookServer })}

// TestRecordOracleWebhookDeleteCollection records webhookDeleteCollectionCases from a fresh
// kube-apiserver as TestRecordOracle records writeCases; the apiserver calls the test's webhook
// server on loopback, and the webhook server writes to the apiserver.
func TestRecordOracleWebhookDeleteCollection(t *testing.T) {
	webhookDeleteCollectionRecording.record(t, oracleServer(t))
}

// TestObservedWebhookDeleteCollection replays the recorded deletecollections against the fake:
// the answers (which objects each lists), the reviews the webhook received (how many times the
// fake called it, and on which version of each object), the status of the webhook's own writes
// and the events a watch saw. The user the reviews name is the oracle's token's, the fake's
// admin in the fake.
func TestObservedWebhookDeleteCollection(t *testing.T) {
	webhookDeleteCollectionRecording.replay(t, noControllers, func(_ string, got, want *observedStep) {
		anyUser(got)
		anyUser(want)
	})
}

// dcHookServer is webhookServer's TLS server and reviews, whose /dc webhook writes through api
// what the object under review's annotation hook-writes says, once per object, before it allows.
type dcHookServer struct {
	webhookServer
	api  *server
	seen map[string]bool // namespace/name of the objects reviewed, under mu
}

func startDCHookServer(t *testing.T, api *server) *dcHookServer {
	t.Helper()
	hs := &dcHookServer{api: api, seen: map[string]bool{}}
	hs.start(t, hs.serve)
	return hs
}

func (hs *dcHookServer) serve(w http.ResponseWriter, r *http.Request) {
	req, raw, ok := readReview(r)
	if !ok {
		http.Error(w, "not a review", http.StatusBadRequest)
		return
	}
	var old struct {
		Metadata struct {
			Name        string            `json:"name"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(req.OldObject.Raw, &old)
	rec := receivedReview{Path: r.URL.Path, Request: raw}
	key := req.Namespace + "/" + old.Metadata.Name
	hs.mu.Lock()
	first := !hs.seen[key]
	hs.seen[key] = true
	hs.mu.Unlock()
	if writes := old.Metadata.Annotations["hook-writes"]; first && writes != "" {
		rec.Wrote = hs.write(req.Resource.Resource, req.Namespace, old.Metadata.Name, writes)
	}
	hs.mu.Lock()
	hs.reviews = append(hs.reviews, rec)
	hs.mu.Unlock()
	writeReviewAnswer(w, &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true})
}

// write makes the write the hook-writes annotation of an object of a core resource names and
// returns the status code of its answer (0 when there is none within 5 seconds).
func (hs *dcHookServer) write(resource, namespace, name, writes string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	collection := "/api/v1/namespaces/" + namespace + "/" + resource
	var method, path, body string
	switch {
	case writes == "label":
		method, path, body = "PATCH", collection+"/"+name, `{"metadata":{"labels":{"touched":"yes"}}}`
	case writes == "create":
		method, path, body = "POST", "/api/v1/namespaces/"+namespace+"/configmaps", `{"metadata":{"name":"made-by-`+name+`"}}`
	case strings.HasPrefix(writes, "delete:"):
		method, path = "DELETE", collection+"/"+strings.TrimPrefix(writes, "delete:")
	default:
		return 0
	}
	ct := ""
	switch {
	case method == "PATCH":
		ct = "application/merge-patch+json"
	case body != "":
		ct = "application/json"
	}
	return hookWrite(ctx, hs.api, method, path, ct, body, "webhook-dc/v0.0.0")
}
