package conformance

import (
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The CRD rules (W7): what the apiextensions apiserver does with a CustomResourceDefinition and
// its custom resources, each citing the case of reference/observed-crds.md that recorded it from
// kube-apiserver 1.37.2. Each rule creates a CRD of its own group (named after the rule's
// namespace, so that rules and runs never share one) and deletes it when it ends.

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crdEnv is a rule's CRD: its group and the resource of its one version.
type crdEnv struct {
	*writeEnv
	group string
	gvr   schema.GroupVersionResource
}

// widgetCRD creates the rules' Widget CRD in a group of the rule's own and waits until it is
// Established and its resource listed in discovery (observed-crds.md, lifecycle / create crd):
// namespaced, v1 with a structural schema (spec.color an enum and required, spec.replicas an
// integer ≥ 0 defaulting to 1), a selectable field spec.color and the status subresource.
func (w *writeEnv) widgetCRD() *crdEnv {
	w.t.Helper()
	group := w.ns + ".conformance.example.com"
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources":     map[string]any{"status": map[string]any{}},
				"selectableFields": []any{map[string]any{"jsonPath": ".spec.color"}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object", "required": []any{"color"},
							"properties": map[string]any{
								"color":    map[string]any{"type": "string", "enum": []any{"red", "green", "blue"}},
								"replicas": map[string]any{"type": "integer", "minimum": 0, "default": 1},
							},
						},
						"status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
					},
				}},
			}},
		},
	}
	crds := w.dyn.Resource(crdGVR)
	if _, err := crds.Create(w.ctx, &unstructured.Unstructured{Object: crd}, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("create CRD widgets.%s: %v", group, err)
	}
	w.t.Cleanup(func() { _ = crds.Delete(w.ctx, "widgets."+group, metav1.DeleteOptions{}) })
	e := &crdEnv{writeEnv: w, group: group, gvr: schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}}
	w.eventually("the CRD Established and its resource in discovery", func() bool {
		got, err := crds.Get(w.ctx, "widgets."+group, metav1.GetOptions{})
		if err != nil || !established(got) {
			return false
		}
		l, err := w.cs.Discovery().ServerResourcesForGroupVersion(group + "/v1")
		return err == nil && slices.ContainsFunc(l.APIResources, func(r metav1.APIResource) bool { return r.Name == "widgets" })
	})
	return e
}

// established reports the CRD's Established condition.
func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// widgets is the rule's custom resource client in its namespace.
func (e *crdEnv) widgets() dynamic.ResourceInterface { return e.dyn.Resource(e.gvr).Namespace(e.ns) }

// widget returns a Widget with spec.
func (e *crdEnv) widget(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": e.group + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

func crdRules() []writeRule {
	return []writeRule{
		{"W7.1/a created CRD is Established and its resource served: create, get, list", func(w *writeEnv) {
			// observed-crds.md: lifecycle / create crd, create object, get object, list objects.
			e := w.widgetCRD()
			if _, err := e.widgets().Create(w.ctx, e.widget("w1", map[string]any{"color": "red"}), metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("create widget: %v", err)
			}
			got, err := e.widgets().Get(w.ctx, "w1", metav1.GetOptions{})
			if err != nil || got.GetUID() == "" || got.GetResourceVersion() == "" || got.GetGeneration() != 1 {
				w.t.Fatalf("get widget: %v, uid %q rv %q generation %d", err, got.GetUID(), got.GetResourceVersion(), got.GetGeneration())
			}
			l, err := e.widgets().List(w.ctx, metav1.ListOptions{})
			if err != nil || len(l.Items) != 1 || l.GetKind() != "WidgetList" {
				w.t.Fatalf("list widgets: %v %+v", err, l)
			}
		}},
		{"W7.2/an object that breaks the schema is 422 Invalid with the schema's causes", func(w *writeEnv) {
			// observed-crds.md: validation / required, enum, type, minimum.
			e := w.widgetCRD()
			for _, tc := range []struct {
				spec  map[string]any
				field string
				cause metav1.CauseType
				msg   string
			}{
				{map[string]any{"replicas": 1}, "spec.color", metav1.CauseTypeFieldValueRequired, "Required value"},
				{map[string]any{"color": "pink"}, "spec.color", metav1.CauseTypeFieldValueNotSupported, `Unsupported value: "pink": supported values: "red", "green", "blue"`},
				{map[string]any{"color": "red", "replicas": -1}, "spec.replicas", metav1.CauseTypeFieldValueInvalid, "Invalid value: -1: spec.replicas in body should be greater than or equal to 0"},
			} {
				_, err := e.widgets().Create(w.ctx, e.widget("bad", tc.spec), metav1.CreateOptions{})
				st := w.wantStatus(err, 422, metav1.StatusReasonInvalid, fmt.Sprintf("Widget.%s \"bad\" is invalid: *", e.group))
				if st == nil || st.Details == nil || !slices.ContainsFunc(st.Details.Causes, func(c metav1.StatusCause) bool {
					return c.Field == tc.field && c.Type == tc.cause && c.Message == tc.msg
				}) {
					w.t.Errorf("spec %v: causes %+v, want %s %s %q", tc.spec, st.Details, tc.field, tc.cause, tc.msg)
				}
			}
			if _, err := e.widgets().Get(w.ctx, "bad", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				w.t.Errorf("a refused create stored the object: %v", err)
			}
		}},
		{"W7.3/unknown fields are pruned with a warning; defaults are applied", func(w *writeEnv) {
			// observed-crds.md: validation / unknown fields Strict, pruning, defaulting.
			e := w.widgetCRD()
			w.warnings.take()
			got, err := e.widgets().Create(w.ctx, e.widget("w1", map[string]any{"color": "red", "bogus": "x"}), metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create: %v", err)
			}
			if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "bogus"); found {
				w.t.Errorf("spec.bogus kept: %v", got.Object["spec"])
			}
			if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 1 {
				w.t.Errorf("spec.replicas %d, want the schema's default 1", r)
			}
			if ws := w.warnings.take(); !slices.Contains(ws, `unknown field "spec.bogus"`) {
				w.t.Errorf("warnings %q, want unknown field \"spec.bogus\"", ws)
			}
			_, err = e.widgets().Create(w.ctx, e.widget("w2", map[string]any{"color": "red", "bogus": "x"}), metav1.CreateOptions{FieldValidation: "Strict"})
			w.wantStatus(err, 400, metav1.StatusReasonBadRequest, `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"`)
		}},
		{"W7.4/a selectable field selects; other fields are refused", func(w *writeEnv) {
			// observed-crds.md: selectable fields / by color, unknown field label.
			e := w.widgetCRD()
			for name, color := range map[string]string{"a": "red", "b": "blue", "c": "red"} {
				if _, err := e.widgets().Create(w.ctx, e.widget(name, map[string]any{"color": color}), metav1.CreateOptions{}); err != nil {
					w.t.Fatalf("create %s: %v", name, err)
				}
			}
			l, err := e.widgets().List(w.ctx, metav1.ListOptions{FieldSelector: "spec.color=red"})
			var got []string
			if err == nil {
				for _, it := range l.Items {
					got = append(got, it.GetName())
				}
			}
			if err != nil || strings.Join(got, ",") != "a,c" {
				w.t.Errorf("spec.color=red: %v %v, want a,c", got, err)
			}
			_, err = e.widgets().List(w.ctx, metav1.ListOptions{FieldSelector: "spec.replicas=1"})
			w.wantStatus(err, 400, metav1.StatusReasonBadRequest, "field label not supported: spec.replicas")
		}},
		{"W7.5/a status write leaves spec and generation; a spec write bumps generation", func(w *writeEnv) {
			// observed-crds.md: lifecycle / update status, update spec.
			e := w.widgetCRD()
			obj, err := e.widgets().Create(w.ctx, e.widget("w1", map[string]any{"color": "red"}), metav1.CreateOptions{})
			if err != nil {
				w.t.Fatalf("create: %v", err)
			}
			obj.Object["status"] = map[string]any{"phase": "Ready"}
			_ = unstructured.SetNestedField(obj.Object, "blue", "spec", "color")
			st, err := e.widgets().UpdateStatus(w.ctx, obj, metav1.UpdateOptions{})
			if err != nil {
				w.t.Fatalf("update status: %v", err)
			}
			if c, _, _ := unstructured.NestedString(st.Object, "spec", "color"); c != "red" || st.GetGeneration() != 1 {
				w.t.Errorf("after a status write: spec.color %q generation %d, want red and 1", c, st.GetGeneration())
			}
			if p, _, _ := unstructured.NestedString(st.Object, "status", "phase"); p != "Ready" {
				w.t.Errorf("status.phase %q, want Ready", p)
			}
			_ = unstructured.SetNestedField(st.Object, "green", "spec", "color")
			up, err := e.widgets().Update(w.ctx, st, metav1.UpdateOptions{})
			if err != nil {
				w.t.Fatalf("update: %v", err)
			}
			if up.GetGeneration() != 2 {
				w.t.Errorf("generation %d after a spec write, want 2", up.GetGeneration())
			}
		}},
		{"W7.6/deleting a CRD deletes its objects and stops serving its resource", func(w *writeEnv) {
			// observed-crds.md: lifecycle / delete crd, resource gone.
			e := w.widgetCRD()
			if _, err := e.widgets().Create(w.ctx, e.widget("w1", map[string]any{"color": "red"}), metav1.CreateOptions{}); err != nil {
				w.t.Fatalf("create: %v", err)
			}
			if err := w.dyn.Resource(crdGVR).Delete(w.ctx, "widgets."+e.group, metav1.DeleteOptions{}); err != nil {
				w.t.Fatalf("delete CRD: %v", err)
			}
			w.eventually("the CRD gone", func() bool {
				_, err := w.dyn.Resource(crdGVR).Get(w.ctx, "widgets."+e.group, metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			})
			w.eventually("its resource no longer served", func() bool {
				_, err := e.widgets().List(w.ctx, metav1.ListOptions{})
				return apierrors.IsNotFound(err)
			})
		}},
	}
}
