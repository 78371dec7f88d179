package fake_test

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// webhookCases call admission webhooks of a webhook server the test runs (webhookServer: what
// it answers depends on the path of the URL a webhook names), recorded from a kube-apiserver
// 1.37.2 into testdata/observed-webhooks.json (TestRecordOracleWebhooks) with the reviews the
// server received, and replayed against the fake (TestObservedWebhooks).
var webhookCases = []writeCase{
	{Name: "whmutate", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "{ns}", wh("label.example.com", "/label", cmRules)),
		{Name: "create", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c1"},"data":{"k":"v"}}`},
		{Name: "create with labels", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps?fieldManager=m1", Body: `{"metadata":{"name":"c2","labels":{"x":"y"}}}`},
		{Name: "update", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/c1", Body: `{"metadata":{"name":"c1"},"data":{"k":"w"}}`},
		{Name: "merge patch", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c1", ContentType: "application/merge-patch+json", Body: `{"data":{"k":"x"}}`},
		{Name: "json patch", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c1", ContentType: "application/json-patch+json", Body: `[{"op":"remove","path":"/metadata/labels"}]`},
		{Name: "apply creates", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c3?fieldManager=tester", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3"},"data":{"a":"b"}}`},
		{Name: "apply updates", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c3?fieldManager=tester&force=true", ContentType: "application/apply-patch+yaml", Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3"},"data":{"a":"c"}}`},
		{Name: "dry run", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps?dryRun=All", Body: `{"metadata":{"name":"c4"}}`},
		{Name: "generated name", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"generateName":"gen-"}}`},
		{Name: "stale update", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/c1", Body: `{"metadata":{"name":"c1","resourceVersion":"1"},"data":{"k":"stale"}}`},
		{Name: "dry-run update", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c1?dryRun=All", ContentType: "application/merge-patch+json", Body: `{"data":{"k":"dry"}}`},
		{Name: "delete not matched", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/c2"},
		{Name: "secret not matched", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"s1"}}`},
		{Name: "other namespace not matched", Method: "POST", Path: "/api/v1/namespaces/default/configmaps?dryRun=All", Body: `{"metadata":{"name":"c5"}}`},
	}},
	{Name: "whvalidate", Steps: []writeStep{
		nsStep(),
		whConfig("ValidatingWebhookConfiguration", "{ns}",
			wh("color.example.com", "/validate-color", cmRules+`,"objectSelector":{"matchExpressions":[{"key":"skip","operator":"DoesNotExist"}]}`),
			wh("warn.example.com", "/warn", `"rules":[{"operations":["DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]`)),
		{Name: "allowed", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"blue","labels":{"color":"blue"}}}`},
		{Name: "denied", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"red","labels":{"color":"red"}}}`},
		{Name: "object selector skips", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"red2","labels":{"color":"red","skip":"1"}}}`},
		{Name: "update denied", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/blue", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"color":"red"}}}`},
		{Name: "old object matches the selector", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/red2", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"skip":null}}}`},
		{Name: "stale update of a refused value", Method: "PUT", Path: "/api/v1/namespaces/{ns}/configmaps/blue", Body: `{"metadata":{"name":"blue","resourceVersion":"1","labels":{"color":"red"}}}`},
		{Name: "dry-run delete warns", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/blue?dryRun=All"},
		{Name: "delete warns", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/blue"},
		{Name: "deletecollection warns per object", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps?labelSelector=color"},
		{Name: "invalid object not sent", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"Bad_Name","labels":{"color":"red"}}}`},
	}},
	{Name: "whdeny", Steps: []writeStep{
		nsStep(),
		whConfig("ValidatingWebhookConfiguration", "{ns}",
			wh("deny.example.com", "/deny", cmRules+selectHook("deny")),
			wh("deny-reason.example.com", "/deny-reason", cmRules+selectHook("deny-reason")),
			wh("deny-code.example.com", "/deny-code", cmRules+selectHook("deny-code")),
			wh("bad-json.example.com", "/bad-json", cmRules+selectHook("bad-json")),
			wh("error.example.com", "/500", cmRules+selectHook("500")),
			wh("wrong-uid.example.com", "/wrong-uid", cmRules+selectHook("wrong-uid")),
			wh("no-response.example.com", "/no-response", cmRules+selectHook("no-response")),
			wh("unreachable.example.com", "", cmRules+selectHook("unreachable")),
			wh("slow.example.com", "/slow", cmRules+selectHook("slow")+`,"timeoutSeconds":1`),
			wh("ignore-unreachable.example.com", "", cmRules+selectHook("ignore-unreachable")+`,"failurePolicy":"Ignore"`),
			wh("ignore-slow.example.com", "/slow", cmRules+selectHook("ignore-slow")+`,"timeoutSeconds":1,"failurePolicy":"Ignore"`),
			wh("ignore-deny.example.com", "/deny", cmRules+selectHook("ignore-deny")+`,"failurePolicy":"Ignore"`),
			wh("service.example.com", "service", cmRules+selectHook("service"))),
		hookStep("deny"), hookStep("deny-reason"), hookStep("deny-code"), hookStep("bad-json"), hookStep("500"),
		hookStep("wrong-uid"), hookStep("no-response"), hookStep("unreachable"), hookStep("slow"),
		hookStep("ignore-unreachable"), hookStep("ignore-slow"), hookStep("ignore-deny"), hookStep("service"),
	}},
	{Name: "whmutfail", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "{ns}",
			wh("bad-patch.example.com", "/bad-patch", cmRules+selectHook("bad-patch")),
			wh("patch-not-json.example.com", "/patch-not-json", cmRules+selectHook("patch-not-json")),
			wh("patch-no-type.example.com", "/patch-no-type", cmRules+selectHook("patch-no-type")),
			wh("ignore-bad-patch.example.com", "/bad-patch", cmRules+selectHook("ignore-bad-patch")+`,"failurePolicy":"Ignore"`),
			wh("patch-delete.example.com", "/label", `"rules":[{"operations":["DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]`+selectHook("patch-delete")),
			wh("deny.example.com", "/deny-reason", cmRules+selectHook("deny"))),
		hookStep("bad-patch"), hookStep("patch-not-json"), hookStep("patch-no-type"), hookStep("ignore-bad-patch"), hookStep("deny"),
		{Name: "patch-delete object", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"pd"}}`},
		{Name: "label for patch-delete", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/pd", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"hook":"patch-delete"}}}`},
		{Name: "delete patched", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/configmaps/pd"},
	}},
	{Name: "whreinvoke", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "b-{ns}", wh("second.example.com", "/label-b", cmRules)),
		whConfig("MutatingWebhookConfiguration", "a-{ns}", wh("first.example.com", "/label-a", cmRules+`,"reinvocationPolicy":"IfNeeded"`)),
		{Name: "create", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c1"}}`},
		{Name: "update no change", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/configmaps/c1", ContentType: "application/merge-patch+json", Body: `{"data":{"k":"v"}}`},
	}},
	{Name: "whreinvokeskip", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "b-{ns}", wh("second.example.com", "/label-b", cmRules)),
		whConfig("MutatingWebhookConfiguration", "a-{ns}", wh("first.example.com", "/label-a", cmRules+
			`,"reinvocationPolicy":"IfNeeded","objectSelector":{"matchExpressions":[{"key":"b","operator":"DoesNotExist"}]}`)),
		{Name: "not reinvoked once out of its selector", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c1"}}`},
	}},
	{Name: "whsubresources", Steps: []writeStep{
		nsStep(),
		whConfig("ValidatingWebhookConfiguration", "{ns}",
			wh("scale.example.com", "/deny-reason", `"rules":[{"operations":["UPDATE"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*/scale"]}]`),
			wh("status.example.com", "/allow", `"rules":[{"operations":["*"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods/status"]}]`),
			wh("all.example.com", "/allow", `"rules":[{"operations":["CREATE"],"apiGroups":["apps"],"apiVersions":["v1"],"resources":["*"],"scope":"Namespaced"}]`)),
		{Name: "deployment", Method: "POST", Path: "/apis/apps/v1/namespaces/{ns}/deployments", Body: `{"metadata":{"name":"d1"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
		{Name: "scale denied", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d1/scale", ContentType: "application/merge-patch+json", Body: `{"spec":{"replicas":3}}`},
		{Name: "pod", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod status", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Running"}}`},
	}},
	{Name: "whpods", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "{ns}",
			wh("sidecar.example.com", "/add-sidecar", `"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}]`),
			wh("status.example.com", "/label", `"rules":[{"operations":["UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods/status"]}]`),
			wh("warn.example.com", "/warn", `"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]`)),
		whConfig("ValidatingWebhookConfiguration", "{ns}",
			wh("patching.example.com", "/label", `"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["secrets"]}]`),
			wh("status-code.example.com", "/403-status", `"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["services"]}]`),
			wh("evict.example.com", "/deny-reason", `"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods/eviction","pods/binding"]}]`)),
		{Name: "pod gets a defaulted sidecar", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods", Body: `{"metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
		{Name: "pod status labelled", Method: "PATCH", Path: "/api/v1/namespaces/{ns}/pods/p1/status", ContentType: "application/merge-patch+json", Body: `{"status":{"phase":"Running"}}`},
		{Name: "warnings after unknown fields", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c1"},"bogus":1}`},
		{Name: "validating webhook patches", Method: "POST", Path: "/api/v1/namespaces/{ns}/secrets", Body: `{"metadata":{"name":"s1"}}`},
		{Name: "webhook answers a Status", Method: "POST", Path: "/api/v1/namespaces/{ns}/services", Body: `{"metadata":{"name":"svc"},"spec":{"ports":[{"port":80}]}}`},
		{Name: "binding", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/binding", Body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"kind":"Node","name":"n1"}}`},
		{Name: "eviction", Method: "POST", Path: "/api/v1/namespaces/{ns}/pods/p1/eviction", Body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1"}}`},
	}},
	{Name: "whnamespaces", Steps: []writeStep{
		nsStep(),
		whConfig("MutatingWebhookConfiguration", "{ns}",
			wh("ns-mutate.example.com", "/label", `"rules":[{"operations":["CREATE","DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["namespaces"]}]`)+``),
		whConfig("ValidatingWebhookConfiguration", "{ns}",
			wh("ns-validate.example.com", "/allow", `"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"],"scope":"Cluster"}],`+
				`"objectSelector":{"matchLabels":{"kubernetes.io/metadata.name":"{ns}"}}`)),
		{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces", Body: `{"metadata":{"name":"{ns}"}}`},
		{Name: "other namespace", Method: "POST", Path: "/api/v1/namespaces", Body: `{"metadata":{"name":"x-{ns}"}}`},
		{Name: "namespaced object", Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"c1"}}`},
		{Name: "update namespace", Method: "PATCH", Path: "/api/v1/namespaces/{ns}", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"a":"b"}}}`},
		{Name: "delete namespace", Method: "DELETE", Path: "/api/v1/namespaces/{ns}"},
	}},
	{Name: "whcustom", Steps: []writeStep{
		nsStep(),
		{Name: "crd", Method: "POST", Path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Body: whGadgetCRD},
		whConfig("MutatingWebhookConfiguration", "{ns}", wh("gadget-label.example.com", "/label", whGadgetRules)),
		whConfig("ValidatingWebhookConfiguration", "{ns}", wh("gadget-color.example.com", "/validate-color", whGadgetRules)),
		{Name: "create", Method: "POST", Path: "/apis/whcustom.example.com/v1/namespaces/{ns}/gadgets", Body: `{"apiVersion":"whcustom.example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"color":"blue"},"status":{"ready":true}}`},
		{Name: "denied", Method: "POST", Path: "/apis/whcustom.example.com/v1/namespaces/{ns}/gadgets", Body: `{"apiVersion":"whcustom.example.com/v1","kind":"Gadget","metadata":{"name":"g2","labels":{"color":"red"}},"spec":{"color":"red"}}`},
		{Name: "status", Method: "PATCH", Path: "/apis/whcustom.example.com/v1/namespaces/{ns}/gadgets/g1/status", ContentType: "application/merge-patch+json", Body: `{"status":{"ready":true}}`},
		{Name: "update denied", Method: "PATCH", Path: "/apis/whcustom.example.com/v1/namespaces/{ns}/gadgets/g1", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"color":"red"}}}`},
	}},
	{Name: "whexempt", Steps: []writeStep{
		nsStep(),
		whConfig("ValidatingWebhookConfiguration", "{ns}", wh("everything.example.com", "/deny-reason",
			`"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*/*"]}],"objectSelector":{"matchLabels":{"case":"{ns}"}}`)),
		{Name: "cluster role denied", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles", Body: `{"metadata":{"name":"{ns}","labels":{"case":"{ns}"}}}`},
		{Name: "webhook configuration not sent", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", Body: `{"metadata":{"name":"x-{ns}","labels":{"case":"{ns}"}}}`},
		{Name: "admission policy not sent", Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", Body: `{"metadata":{"name":"{ns}","labels":{"case":"{ns}"}},"spec":{"matchConstraints":{"resourceRules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}]},"validations":[{"expression":"true"}]}}`},
		{Name: "its own configuration not sent", Method: "PATCH", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/{ns}", ContentType: "application/merge-patch+json", Body: `{"metadata":{"labels":{"case":"{ns}"}}}`},
		{Name: "delete its own configuration", Method: "DELETE", Path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/{ns}"},
	}},
}

// whGadgetCRD is a namespaced custom resource with a status subresource and a defaulted field.
const whGadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.whcustom.example.com"},` +
	`"spec":{"group":"whcustom.example.com","scope":"Namespaced","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},` +
	`"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","properties":{` +
	`"spec":{"type":"object","properties":{"color":{"type":"string"},"size":{"type":"string","default":"small"}}},` +
	`"status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}}`

// whGadgetRules are the rules of a webhook of gadgets and their status.
const whGadgetRules = `"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":["whcustom.example.com"],"apiVersions":["v1"],"resources":["gadgets","gadgets/status"]}]`

// cmRules are the rules of a webhook of config maps' creates and updates.
const cmRules = `"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]`

// wh is a webhook of the case's namespace calling path on the case's webhook server (an empty
// path: an address nothing listens on; "service": a service of the namespace that does not exist)
// with further fields.
func wh(name, path, fields string) string {
	client := `{"url":"{hook}` + path + `","caBundle":"{ca}"}`
	switch path {
	case "":
		client = `{"url":"https://127.0.0.1:1/","caBundle":"{ca}"}`
	case "service":
		client = `{"service":{"namespace":"{ns}","name":"nope","path":"/allow"},"caBundle":"{ca}"}`
	}
	s := `{"name":"` + name + `","clientConfig":` + client + `,"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"{ns}"}},"sideEffects":"None","admissionReviewVersions":["v1"]`
	if fields != "" {
		s += "," + fields
	}
	return s + "}"
}

// selectHook is the object selector of the webhook that objects labelled hook=v go to.
func selectHook(v string) string {
	return `,"objectSelector":{"matchLabels":{"hook":"` + v + `"}}`
}

// hookStep creates a config map labelled hook=v.
func hookStep(v string) writeStep {
	return writeStep{Name: v, Method: "POST", Path: "/api/v1/namespaces/{ns}/configmaps", Body: `{"metadata":{"name":"cm-` + v + `","labels":{"hook":"` + v + `"}}}`}
}

// whConfig creates a webhook configuration of kind.
func whConfig(kind, name string, hooks ...string) writeStep {
	return writeStep{Name: kind + " " + name, Method: "POST", Path: "/apis/admissionregistration.k8s.io/v1/" + strings.ToLower(kind) + "s",
		Body: `{"metadata":{"name":"` + name + `"},"webhooks":[` + strings.Join(hooks, ",") + `]}`}
}

// webhooksRecording is where webhookCases are recorded and replayed.
var webhooksRecording = recording{cases: webhookCases, file: "testdata/observed-webhooks.json", markdown: "observed-webhooks.md",
	title: "admission webhooks", recorder: "TestRecordOracleWebhooks", replayer: "TestObservedWebhooks", source: "webhook_record_test.go",
	note: "The test runs a webhook server over TLS: `{hook}` is its URL and `{ca}` its certificate (base64 PEM) in the\n" +
		"requests and answers, and what it answers depends on the URL's path (`answer` in fake/webhook_record_test.go).\n" +
		"Each `⇢ webhook` line is an AdmissionReview request it received during the step (its `path`; the request's\n" +
		"`uid` numbered as the objects' are), ordered by path.",
	setup: func(t *testing.T, srv *server) {
		hs := startWebhookServer(t)
		srv.vars = map[string]string{"{hook}": hs.URL, "{ca}": hs.caBundle}
		srv.observe = hs.observe
		srv.settle = time.Second
	}}

// TestRecordOracleWebhooks records webhookCases from a fresh kube-apiserver as TestRecordOracle
// records writeCases; the apiserver calls the test's webhook server on loopback.
func TestRecordOracleWebhooks(t *testing.T) { webhooksRecording.record(t, oracleServer(t)) }

// TestObservedWebhooks replays the recorded webhook calls against the fake: the answers and the
// reviews each webhook received. The user the reviews name is the oracle's token's, the fake's
// admin in the fake; a review's uid, random, is compared by presence, and so are allocated
// cluster IPs. A Binding's managed fields differ: the apiserver's schema makes its target atomic
// ("f:target": {}), client-go's type converter does not (the target's fields).
func TestObservedWebhooks(t *testing.T) {
	webhooksRecording.replay(t, noControllers, func(step string, got, want *observedStep) {
		for _, st := range []*observedStep{got, want} {
			for i, r := range st.Reviews {
				st.Reviews[i] = mapLeaves(r, func(v any, key, parent string) any {
					switch {
					case key == "username" && parent == "userInfo":
						return "<user>"
					case key == "clusterIP", key == "clusterIPs":
						return "<allocated>"
					}
					return v
				})
				if step == "whpods/binding" {
					st.Reviews[i] = withoutFieldsV1(st.Reviews[i])
				}
			}
			st.Response = json.RawMessage(reviewUID.ReplaceAll(st.Response, []byte(`expected response.uid=\"<review>\"`)))
		}
	})
}

// withoutFieldsV1 replaces the fieldsV1 of the managed fields of a review's object by a
// placeholder.
func withoutFieldsV1(review json.RawMessage) json.RawMessage {
	var v struct {
		Path    string         `json:"path"`
		Request map[string]any `json:"request"`
	}
	if json.Unmarshal(review, &v) != nil {
		return review
	}
	if obj, ok := v.Request["object"].(map[string]any); ok {
		if m, ok := obj["metadata"].(map[string]any); ok {
			if entries, ok := m["managedFields"].([]any); ok {
				for _, e := range entries {
					if e, ok := e.(map[string]any); ok {
						e["fieldsV1"] = "<fields>"
					}
				}
			}
		}
	}
	out, _ := json.Marshal(v)
	return out
}

// reviewUID is a review's uid in the message of a response that answered another.
var reviewUID = regexp.MustCompile(`expected response\.uid=\\"[^"\\]*\\"`)

// webhookServer is an admission webhook server over TLS whose answer depends on the URL's path
// (answer), and which keeps the reviews it received until observe takes them.
type webhookServer struct {
	*httptest.Server
	caBundle string

	mu      sync.Mutex
	reviews []receivedReview
}

type receivedReview struct {
	Path    string          `json:"path"`
	Request json.RawMessage `json:"request"`
	// Wrote is the status code of the write of the reviewed object the webhook made before it
	// answered (retryHookServer), 0 when it made none.
	Wrote int `json:"wrote,omitempty"`
}

func startWebhookServer(t *testing.T) *webhookServer {
	t.Helper()
	hs := &webhookServer{}
	hs.start(t, hs.serve)
	return hs
}

// start serves handler over TLS until the test ends, with the CA bundle that trusts it.
func (hs *webhookServer) start(t *testing.T, handler http.HandlerFunc) {
	t.Helper()
	hs.Server = httptest.NewTLSServer(handler)
	t.Cleanup(hs.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw})
	hs.caBundle = base64.StdEncoding.EncodeToString(ca)
}

// readReview decodes an AdmissionReview's request, and returns it also as received.
func readReview(r *http.Request) (*admissionv1.AdmissionRequest, json.RawMessage, bool) {
	var raw struct {
		Request json.RawMessage `json:"request"`
	}
	var req *admissionv1.AdmissionRequest
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil || json.Unmarshal(raw.Request, &req) != nil || req == nil {
		return nil, nil, false
	}
	return req, raw.Request, true
}

// writeReviewAnswer writes a v1 AdmissionReview answering with resp.
func writeReviewAnswer(w http.ResponseWriter, resp *admissionv1.AdmissionResponse) {
	out := admissionv1.AdmissionReview{Response: resp}
	out.APIVersion, out.Kind = "admission.k8s.io/v1", "AdmissionReview"
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// observe moves the reviews received so far into the step's record, ordered by path (validating
// webhooks are called in parallel), each request's uid a placeholder.
func (hs *webhookServer) observe(norm *normalizer, o *observedStep) {
	hs.mu.Lock()
	got := hs.reviews
	hs.reviews = nil
	hs.mu.Unlock()
	slices.SortStableFunc(got, func(a, b receivedReview) int { return strings.Compare(a.Path, b.Path) })
	for _, r := range got {
		var req map[string]any
		if json.Unmarshal(r.Request, &req) == nil {
			req["uid"] = "<review>"
			r.Request, _ = json.Marshal(req)
		}
		b, _ := json.Marshal(r)
		o.Reviews = append(o.Reviews, norm.normalize(b))
	}
}

func (hs *webhookServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "not a review", http.StatusBadRequest)
		return
	}
	var raw struct {
		Request json.RawMessage `json:"request"`
	}
	_ = json.Unmarshal(body, &raw)
	hs.mu.Lock()
	hs.reviews = append(hs.reviews, receivedReview{Path: r.URL.Path, Request: raw.Request})
	hs.mu.Unlock()
	resp := answer(r.URL.Path, review.Request)
	switch r.URL.Path {
	case "/bad-json":
		_, _ = w.Write([]byte("not json"))
		return
	case "/500":
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	case "/slow":
		time.Sleep(2 * time.Second)
	case "/403-status":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"go away","reason":"Forbidden","code":403}`))
		return
	case "/no-response":
		resp = nil
	}
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// answer is the response of the webhook at path: /allow allows; /label, /label-a and /label-b
// add a label (/label-a another one when it sees /label-b's); /validate-color denies a config map
// labelled color=red; /warn allows with warnings; /deny, /deny-reason and /deny-code deny with no
// status, a reason, and a code with details; /wrong-uid answers another request's uid; /bad-patch,
// /patch-not-json and /patch-no-type answer patches that do not apply, do not decode, or have no
// type.
func answer(path string, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	var obj struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(req.Object.Raw, &obj)
	jsonPatch := admissionv1.PatchTypeJSONPatch
	addLabel := func(ops []map[string]any, k, v string) []map[string]any {
		if obj.Metadata.Labels == nil && len(ops) == 0 {
			return append(ops, map[string]any{"op": "add", "path": "/metadata/labels", "value": map[string]string{k: v}})
		}
		return append(ops, map[string]any{"op": "add", "path": "/metadata/labels/" + k, "value": v})
	}
	setPatch := func(ops []map[string]any) {
		resp.Patch, _ = json.Marshal(ops)
		resp.PatchType = &jsonPatch
	}
	switch path {
	case "/label":
		setPatch(addLabel(nil, "defaulted", "yes"))
	case "/label-a":
		ops := addLabel(nil, "a", "1")
		if obj.Metadata.Labels["b"] != "" {
			ops = addLabel(ops, "a-saw-b", "yes")
		}
		setPatch(ops)
	case "/label-b":
		setPatch(addLabel(nil, "b", "1"))
	case "/validate-color":
		if obj.Metadata.Labels["color"] == "red" {
			resp.Allowed = false
			resp.Result = &metav1.Status{Message: `color "red" is not allowed`}
		}
	case "/warn":
		resp.Warnings = []string{"deleting " + req.Name, "second warning"}
	case "/add-sidecar":
		setPatch([]map[string]any{{"op": "add", "path": "/spec/containers/-", "value": map[string]string{"name": "sidecar", "image": "busybox"}}})
	case "/deny":
		resp.Allowed = false
	case "/deny-reason":
		resp.Allowed = false
		resp.Result = &metav1.Status{Reason: "NotWanted"}
	case "/deny-code":
		resp.Allowed = false
		resp.Result = &metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "the name is taken",
			Details: &metav1.StatusDetails{Name: req.Name, Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueDuplicate, Field: "metadata.name", Message: "taken"}}}}
	case "/wrong-uid":
		resp.UID = "00000000-0000-0000-0000-000000000000"
	case "/bad-patch":
		setPatch([]map[string]any{{"op": "remove", "path": "/spec/nope"}})
	case "/patch-not-json":
		resp.Patch, resp.PatchType = []byte("xyz"), &jsonPatch
	case "/patch-no-type":
		resp.Patch, _ = json.Marshal(addLabel(nil, "defaulted", "yes"))
	}
	return resp
}
