package crdcel_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/fake/crdcel"
)

// matchInput is a create of config map c1 labelled app=web by an admin, with conditions.
func matchInput(conditions ...string) fake.WebhookMatch {
	var conds []admissionregistrationv1.MatchCondition
	for i, c := range conditions {
		conds = append(conds, admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", i), Expression: c})
	}
	dry := false
	return fake.WebhookMatch{Webhook: "w.example.com", Conditions: conds, Request: &admissionv1.AdmissionRequest{
		Kind: metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name: "c1", Namespace: "default", Operation: admissionv1.Create, DryRun: &dry,
		UserInfo: authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters"}},
		Object:   runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1","namespace":"default","labels":{"app":"web"}}}`)},
		Options:  runtime.RawExtension{Raw: []byte(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`)},
	}, Authorize: func(_ context.Context, a fake.AuthorizationAttributes) (bool, string) {
		return a.Verb == "get", ""
	}}
}

// TestMatchConditions pins the matcher's answers: all true, one false (false wins over an error
// before it), an error, the authorizer, a condition that does not compile (an error at each
// request, as the apiserver's compiled matcher answers), and the options.
func TestMatchConditions(t *testing.T) {
	mc := crdcel.WebhookMatchConditions()
	for _, tc := range []struct {
		conditions []string
		want       bool
		err        string
	}{
		{conditions: []string{"object.metadata.labels['app'] == 'web'", "oldObject == null", "request.userInfo.username == 'admin'"}, want: true},
		{conditions: []string{"object.metadata.labels['nope'] == 'x'", "request.name == 'other'"}},
		{conditions: []string{"true", "object.metadata.labels['nope'] == 'x'"}, err: "expression 'object.metadata.labels['nope'] == 'x'' resulted in error: no such key: nope"},
		{conditions: []string{"authorizer.requestResource.check('get').allowed()", "!authorizer.group('').resource('pods').check('list').allowed()"}, want: true},
		{conditions: []string{"object.nope("}, err: "compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>'"},
		{conditions: []string{"request.dryRun == false && request.options.kind == 'CreateOptions'"}, want: true},
	} {
		t.Run(tc.conditions[0], func(t *testing.T) {
			got, err := mc.Match(context.Background(), matchInput(tc.conditions...))
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case got != tc.want:
				t.Errorf("match %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMatchConditionsConcurrent evaluates from several goroutines, compiling and reading the cache
// at once (run with -race).
func TestMatchConditionsConcurrent(t *testing.T) {
	mc := crdcel.WebhookMatchConditions()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				in := matchInput(fmt.Sprintf("request.name != 'x%d'", (i+j)%4))
				if ok, err := mc.Match(context.Background(), in); !ok || err != nil {
					t.Errorf("match %v, %v", ok, err)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkMatchConditions is one evaluation of three conditions, compiled once before.
func BenchmarkMatchConditions(b *testing.B) {
	mc := crdcel.WebhookMatchConditions()
	in := matchInput("object.metadata.labels['app'] == 'web'", "oldObject == null", "!request.userInfo.username.startsWith('system:')")
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := mc.Match(context.Background(), in); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
