package patch

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

var deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

const deploymentJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default","uid":"u1","resourceVersion":"5","labels":{"app":"a"}},` +
	`"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},` +
	`"spec":{"containers":[{"name":"c1","image":"nginx:1","env":[{"name":"A","value":"1"}]},{"name":"c2","image":"busybox"}]}}}}`

func newPatcher(t testing.TB) *Patcher {
	t.Helper()
	p, err := New(scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// created returns the Deployment as stored after a create by manager "creator".
func created(t testing.TB, p *Patcher) []byte {
	t.Helper()
	b, err := p.Update(nil, []byte(deploymentJSON), deploymentGVK, "", "creator")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type managedEntry struct {
	Manager     string         `json:"manager"`
	Operation   string         `json:"operation"`
	Subresource string         `json:"subresource"`
	FieldsV1    map[string]any `json:"fieldsV1"`
}

func managersOf(t testing.TB, obj []byte) []managedEntry {
	t.Helper()
	var o struct {
		Metadata struct {
			ManagedFields []managedEntry `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &o); err != nil {
		t.Fatal(err)
	}
	return o.Metadata.ManagedFields
}

func entryOf(mf []managedEntry, manager string) (managedEntry, bool) {
	for _, e := range mf {
		if e.Manager == manager {
			return e, true
		}
	}
	return managedEntry{}, false
}

func TestManagerFromUserAgent(t *testing.T) {
	for _, tc := range []struct{ ua, want string }{
		{"kubectl/v1.37.2 (linux/amd64) kubernetes/abcdef", "kubectl"},
		{"kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:deployment-controller", "kube-controller-manager"},
		{"plain", "plain"},
		{"", ""},
		{"tab\there/1", "tabhere"},
		{strings.Repeat("x", 200) + "/1", strings.Repeat("x", 128)},
		{strings.Repeat("é", 100), strings.Repeat("é", 64)}, // 2 bytes a rune: 64 fit in 128 bytes
	} {
		if got := ManagerFromUserAgent(tc.ua); got != tc.want {
			t.Errorf("ManagerFromUserAgent(%q) = %q, want %q", tc.ua, got, tc.want)
		}
	}
}

func TestUpdateRecordsManagers(t *testing.T) {
	p := newPatcher(t)
	stored := created(t, p)
	mf := managersOf(t, stored)
	if len(mf) != 1 || mf[0].Manager != "creator" || mf[0].Operation != "Update" || mf[0].Subresource != "" {
		t.Fatalf("after create: %+v", mf)
	}
	status := strings.Replace(string(stored), `"status":{}`, `"status":{"replicas":3}`, 1)
	if status == string(stored) {
		t.Fatal("test object has no empty status to replace")
	}
	got, err := p.Update(stored, []byte(status), deploymentGVK, "status", "controller")
	if err != nil {
		t.Fatal(err)
	}
	ctrl, ok := entryOf(managersOf(t, got), "controller")
	if !ok || ctrl.Subresource != "status" || len(managersOf(t, got)) != 2 {
		t.Fatalf("after status update: %+v", managersOf(t, got))
	}
	if _, ok := ctrl.FieldsV1["f:status"]; !ok {
		t.Errorf("status manager does not own status: %+v", ctrl.FieldsV1)
	}
	// On the main resource, status belongs to nobody: the strategy resets it.
	got, err = p.Update(stored, []byte(status), deploymentGVK, "", "main-writer")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range managersOf(t, got) {
		if _, ok := e.FieldsV1["f:status"]; ok {
			t.Errorf("main-resource update recorded status ownership for %s", e.Manager)
		}
	}
}

func TestPatchOptionErrors(t *testing.T) {
	p := newPatcher(t)
	stored := created(t, p)
	for _, tc := range []struct {
		name string
		req  Request
		code int32
	}{
		{"apply without manager", Request{Type: types.ApplyPatchType, Patch: []byte("{}")}, 422},
		{"force on merge", Request{Type: types.MergePatchType, Patch: []byte("{}"), Force: true, FieldManager: "m"}, 422},
		{"manager too long", Request{Type: types.MergePatchType, Patch: []byte("{}"), FieldManager: strings.Repeat("m", 129)}, 422},
		{"unknown type", Request{Type: "text/plain", Patch: []byte("{}"), FieldManager: "m"}, 415},
		{"not json", Request{Type: types.MergePatchType, Patch: []byte("{"), FieldManager: "m"}, 400},
		{"missing object", Request{Type: types.MergePatchType, Patch: []byte("{}"), FieldManager: "m", Name: "nosuch"}, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.GVK = deploymentGVK
			cur := stored
			if tc.code == 404 {
				cur = nil
			}
			_, err := p.Patch(cur, tc.req)
			var se *apierrors.StatusError
			if !errors.As(err, &se) || se.ErrStatus.Code != tc.code {
				t.Fatalf("err = %v, want a StatusError with code %d", err, tc.code)
			}
		})
	}
}

func TestStrategicMergeByName(t *testing.T) {
	p := newPatcher(t)
	stored := created(t, p)
	out, err := p.Patch(stored, Request{GVK: deploymentGVK, Type: types.StrategicMergePatchType, FieldManager: "patcher", Namespace: "default",
		Patch: []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"c2","image":"busybox:2"},{"name":"c1","env":[{"$patch":"delete","name":"A"}]}]}}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name, Image string
						Env         []any
					}
				}
			}
		}
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	// Without $setElementOrder the patch's order wins; items are matched by the merge key.
	cs := d.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[1].Name != "c1" || cs[1].Image != "nginx:1" || len(cs[1].Env) != 0 || cs[0].Name != "c2" || cs[0].Image != "busybox:2" {
		t.Errorf("containers after patch: %+v", cs)
	}
}

func TestApplyConflictAndForce(t *testing.T) {
	p := newPatcher(t)
	stored := created(t, p)
	cfg := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 3\n")
	req := Request{GVK: deploymentGVK, Type: types.ApplyPatchType, Patch: cfg, FieldManager: "applier", Namespace: "default"}
	_, err := p.Patch(stored, req)
	if !apierrors.IsConflict(err) {
		t.Fatalf("apply over an Update manager's field: err = %v, want 409", err)
	}
	causes := err.(*apierrors.StatusError).ErrStatus.Details.Causes
	if len(causes) != 1 || causes[0].Field != ".spec.replicas" || causes[0].Type != metav1.CauseTypeFieldManagerConflict {
		t.Errorf("causes = %+v", causes)
	}
	req.Force = true
	out, err := p.Patch(stored, req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"replicas":3`) {
		t.Errorf("forced apply did not set replicas: %s", out)
	}
	for _, e := range managersOf(t, out) {
		spec, _ := e.FieldsV1["f:spec"].(map[string]any)
		if _, owns := spec["f:replicas"]; owns != (e.Manager == "applier") {
			t.Errorf("%s owns replicas = %v after force", e.Manager, owns)
		}
	}
}

func TestApplyCreates(t *testing.T) {
	p := newPatcher(t)
	out, err := p.Patch(nil, Request{GVK: deploymentGVK, Type: types.ApplyPatchType, FieldManager: "applier", Name: "new", Namespace: "default",
		Patch: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: new\nspec:\n  replicas: 2\n")})
	if err != nil {
		t.Fatal(err)
	}
	mf := managersOf(t, out)
	if len(mf) != 1 || mf[0].Operation != "Apply" || mf[0].Manager != "applier" {
		t.Errorf("managedFields = %+v", mf)
	}
	if !strings.Contains(string(out), `"namespace":"default"`) {
		t.Errorf("namespace not taken from the request: %s", out)
	}
}

// TestConcurrentUse shares one Patcher between goroutines patching different kinds; run with -race.
func TestConcurrentUse(t *testing.T) {
	p := newPatcher(t)
	stored := created(t, p)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				var err error
				if i%2 == 0 {
					_, err = p.Patch(stored, Request{GVK: deploymentGVK, Type: types.MergePatchType, Patch: []byte(`{"spec":{"replicas":2}}`), FieldManager: "m", Namespace: "default"})
				} else {
					_, err = p.Patch(nil, Request{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Type: types.ApplyPatchType, FieldManager: "a", Name: "c", Namespace: "default",
						Patch: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n")})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestFieldValidation(t *testing.T) {
	p := newPatcher(t)
	stored := created(t, p)
	for _, typ := range []types.PatchType{types.MergePatchType, types.StrategicMergePatchType} {
		for _, tc := range []struct {
			directive string
			warnings  int
			code      int32
		}{
			{"", 1, 0}, {"Warn", 1, 0}, {"Ignore", 0, 0}, {"Strict", 0, 422},
		} {
			t.Run(string(typ)+"/"+tc.directive, func(t *testing.T) {
				_, warnings, err := p.PatchWithWarnings(stored, Request{GVK: deploymentGVK, Type: typ, FieldManager: "m", Namespace: "default",
					FieldValidation: tc.directive, Patch: []byte(`{"spec":{"bogus":1}}`)})
				if tc.code != 0 {
					if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `unknown field "spec.bogus"`) {
						t.Fatalf("err = %v, want 422 naming the unknown field", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(warnings) != tc.warnings || (tc.warnings > 0 && !strings.Contains(warnings[0], `unknown field "spec.bogus"`)) {
					t.Errorf("warnings = %q, want %d naming spec.bogus", warnings, tc.warnings)
				}
			})
		}
	}
}
