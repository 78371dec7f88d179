package fake

import (
	"context"
	"errors"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestRuleMatches pins the apiserver's rule matching (predicates/rules): operations, groups and
// versions with "*", the resource forms and the scope, where a namespace is cluster-scoped.
func TestRuleMatches(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	scope := func(s admissionregistrationv1.ScopeType) *admissionregistrationv1.ScopeType { return &s }
	rule := func(ops []admissionregistrationv1.OperationType, groups, versions, resources []string, s *admissionregistrationv1.ScopeType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops,
			Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: s}}}
	}
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	core, v1 := []string{""}, []string{"v1"}
	tests := []struct {
		name        string
		rules       []admissionregistrationv1.RuleWithOperations
		op          admissionv1.Operation
		gvr         schema.GroupVersionResource
		subresource string
		namespaced  bool
		want        bool
	}{
		{"exact", rule(create, core, v1, []string{"pods"}, nil), admissionv1.Create, pods, "", true, true},
		{"other operation", rule(create, core, v1, []string{"pods"}, nil), admissionv1.Update, pods, "", true, false},
		{"operation *", rule(all, core, v1, []string{"pods"}, nil), admissionv1.Delete, pods, "", true, true},
		{"other group", rule(create, []string{"apps"}, v1, []string{"pods"}, nil), admissionv1.Create, pods, "", true, false},
		{"group and version *", rule(create, []string{"*"}, []string{"*"}, []string{"deployments"}, nil), admissionv1.Create, deployments, "", true, true},
		{"other version", rule(create, core, []string{"v1beta1"}, []string{"pods"}, nil), admissionv1.Create, pods, "", true, false},
		{"resource * skips subresources", rule(all, core, v1, []string{"*"}, nil), admissionv1.Update, pods, "status", true, false},
		{"resource * matches the resource", rule(all, core, v1, []string{"*"}, nil), admissionv1.Update, pods, "", true, true},
		{"*/* matches subresources", rule(all, core, v1, []string{"*/*"}, nil), admissionv1.Update, pods, "status", true, true},
		{"*/* matches the resource", rule(all, core, v1, []string{"*/*"}, nil), admissionv1.Update, pods, "", true, true},
		{"resource/subresource", rule(all, core, v1, []string{"pods/status"}, nil), admissionv1.Update, pods, "status", true, true},
		{"resource/subresource not the resource", rule(all, core, v1, []string{"pods/status"}, nil), admissionv1.Update, pods, "", true, false},
		{"*/scale", rule(all, []string{"*"}, []string{"*"}, []string{"*/scale"}, nil), admissionv1.Update, deployments, "scale", true, true},
		{"*/scale not status", rule(all, []string{"*"}, []string{"*"}, []string{"*/scale"}, nil), admissionv1.Update, deployments, "status", true, false},
		{"resource/*", rule(all, core, v1, []string{"pods/*"}, nil), admissionv1.Create, pods, "eviction", true, true},
		{"Namespaced on a namespaced resource", rule(all, core, v1, []string{"*"}, scope(admissionregistrationv1.NamespacedScope)), admissionv1.Create, pods, "", true, true},
		{"Namespaced on a namespace", rule(all, core, v1, []string{"*"}, scope(admissionregistrationv1.NamespacedScope)), admissionv1.Create, namespaces, "", false, false},
		{"Cluster on a namespace", rule(all, core, v1, []string{"*"}, scope(admissionregistrationv1.ClusterScope)), admissionv1.Create, namespaces, "", false, true},
		{"Cluster on a node", rule(all, core, v1, []string{"*"}, scope(admissionregistrationv1.ClusterScope)), admissionv1.Create, nodes, "", false, true},
		{"Cluster on a pod", rule(all, core, v1, []string{"*"}, scope(admissionregistrationv1.ClusterScope)), admissionv1.Create, pods, "", true, false},
		{"* scope", rule(all, core, v1, []string{"*"}, scope(admissionregistrationv1.AllScopes)), admissionv1.Create, nodes, "", false, true},
		{"no rules", nil, admissionv1.Create, pods, "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ruleMatches(tt.rules, tt.op, tt.gvr, tt.subresource, tt.namespaced); got != tt.want {
				t.Errorf("ruleMatches = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDeniedBy pins the apiserver's error for a refusal (webhook errors.ToStatusErr, as recorded
// in reference/observed-webhooks.md, whdeny).
func TestDeniedBy(t *testing.T) {
	tests := []struct {
		name    string
		result  *metav1.Status
		code    int32
		reason  metav1.StatusReason
		message string
	}{
		{"no status", nil, 400, "", `admission webhook "w" denied the request without explanation`},
		{"message", &metav1.Status{Message: "no"}, 400, "", `admission webhook "w" denied the request: no`},
		{"reason only", &metav1.Status{Reason: "NotWanted"}, 400, "NotWanted", `admission webhook "w" denied the request: NotWanted`},
		{"code kept", &metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "bad"}, 422, metav1.StatusReasonInvalid, `admission webhook "w" denied the request: bad`},
		{"code below 400", &metav1.Status{Code: 200, Status: metav1.StatusSuccess, Message: "ok?"}, 400, "", `admission webhook "w" denied the request: ok?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var se *apierrors.StatusError
			if !errors.As(deniedBy("w", tt.result), &se) {
				t.Fatal("not a StatusError")
			}
			st := se.ErrStatus
			if st.Code != tt.code || st.Reason != tt.reason || st.Message != tt.message || st.Status != metav1.StatusFailure {
				t.Errorf("status %+v, want code %d reason %q message %q", st, tt.code, tt.reason, tt.message)
			}
		})
	}
}

// TestVerifyResponse pins the apiserver's checks of a response (VerifyAdmissionResponse).
func TestVerifyResponse(t *testing.T) {
	jsonPatch, other := admissionv1.PatchTypeJSONPatch, admissionv1.PatchType("Merge")
	tests := []struct {
		name     string
		resp     *admissionv1.AdmissionResponse
		mutating bool
		want     string
	}{
		{"absent", nil, true, "webhook response was absent"},
		{"other uid", &admissionv1.AdmissionResponse{UID: "b"}, false, `expected response.uid="a", got "b"`},
		{"allowed", &admissionv1.AdmissionResponse{UID: "a", Allowed: true}, false, ""},
		{"validating patch", &admissionv1.AdmissionResponse{UID: "a", Patch: []byte("[]")}, false, "validating webhook may not return response.patch"},
		{"validating patch type", &admissionv1.AdmissionResponse{UID: "a", PatchType: &jsonPatch}, false, "validating webhook may not return response.patchType"},
		{"patch without type", &admissionv1.AdmissionResponse{UID: "a", Patch: []byte("[]")}, true, "webhook returned response.patch but not response.patchType"},
		{"type without patch", &admissionv1.AdmissionResponse{UID: "a", PatchType: &jsonPatch}, true, "webhook returned response.patchType but not response.patch"},
		{"other patch type", &admissionv1.AdmissionResponse{UID: "a", Patch: []byte("{}"), PatchType: &other}, true, `webhook returned invalid response.patchType of "Merge"`},
		{"patch", &admissionv1.AdmissionResponse{UID: "a", Patch: []byte("[]"), PatchType: &jsonPatch}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verifyResponse(tt.resp, "a", tt.mutating)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDryRunSideEffects: a dry run is refused by a webhook with side effects (400, whatever the
// failure policy) and fails to call one without a sideEffects (the failure policy decides), as
// the apiserver's dispatchers do; no request is sent.
func TestDryRunSideEffects(t *testing.T) {
	some := admissionregistrationv1.SideEffectClass("Some")
	ignore := admissionregistrationv1.Ignore
	tests := []struct {
		name    string
		hook    webhook
		code    int32
		message string
	}{
		{"side effects", webhook{name: "w", sideEffects: &some}, http.StatusBadRequest, `admission webhook "w" does not support dry run`},
		{"side effects, Ignore", webhook{name: "w", sideEffects: &some, failurePolicy: &ignore}, http.StatusBadRequest, `admission webhook "w" does not support dry run`},
		{"no side effects field", webhook{name: "w"}, http.StatusInternalServerError, `Internal error occurred: failed calling webhook "w": Webhook SideEffects is nil`},
		{"no side effects field, Ignore", webhook{name: "w", failurePolicy: &ignore}, 0, ""},
	}
	s := &Server{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admissionRequest{ctx: t.Context(), dryRun: []string{metav1.DryRunAll}}
			_, err := s.call(a, &tt.hook, nil)
			if tt.code == 0 {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			var se *apierrors.StatusError
			if !errors.As(err, &se) || se.ErrStatus.Code != tt.code || se.ErrStatus.Message != tt.message {
				t.Fatalf("error %v, want %d %q", err, tt.code, tt.message)
			}
		})
	}
	t.Run("dry-run delete", func(t *testing.T) {
		a := &admissionRequest{ctx: t.Context(), deleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}
		if _, err := s.call(a, &webhook{name: "w", sideEffects: &some}, nil); !apierrors.IsBadRequest(err) {
			t.Fatalf("error %v, want the dry run refused", err)
		}
	})
}

// TestMatchConditionWarnings: without Options.WebhookMatchConditions, a configuration whose
// webhooks have matchConditions is stored with a warning for each such webhook; with it, without.
func TestMatchConditionWarnings(t *testing.T) {
	conds := []admissionregistrationv1.MatchCondition{{Name: "not-system", Expression: "true"}}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a"}, {Name: "b", MatchConditions: conds}}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "c", MatchConditions: conds}}}
	want := func(name string) string {
		return `webhook "` + name + `": the fake does not evaluate matchConditions (CEL); it calls the webhook as if they all held`
	}
	if got := (&Server{}).kindWarnings(m, nil); len(got) != 1 || got[0] != want("b") {
		t.Errorf("mutating: %q", got)
	}
	if got := (&Server{}).kindWarnings(v, nil); len(got) != 1 || got[0] != want("c") {
		t.Errorf("validating: %q", got)
	}
	evaluated := &Server{opts: Options{WebhookMatchConditions: matchFunc(nil)}}
	if got := evaluated.kindWarnings(m, nil); got != nil {
		t.Errorf("mutating, with the hook: %q", got)
	}
}

// matchFunc is a WebhookMatchConditions of a function.
type matchFunc func(context.Context, WebhookMatch) (bool, error)

func (f matchFunc) Match(ctx context.Context, m WebhookMatch) (bool, error) { return f(ctx, m) }
