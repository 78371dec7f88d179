package selection

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Rules 4.3, 4.4: the built-in field sets, by position.
func TestBuiltinSchemas(t *testing.T) {
	tests := []struct {
		name       string
		schema     *Schema
		namespaced bool
		fields     []string
	}{
		{"rule 4.4 pods", PodSchema(), true, []string{
			"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
			"spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName",
			"status.podIPs",
		}},
		{"rule 4.4 nodes", NodeSchema(), false, []string{"metadata.name", "spec.unschedulable"}},
		{"rule 4.4 generic namespaced", NewSchema(true), true, []string{"metadata.name", "metadata.namespace"}},
		{"rule 4.4 generic cluster-scoped", NewSchema(false), false, []string{"metadata.name", "metadata.namespace"}},
		{"custom resource namespaced", CustomResourceSchema(true), true, []string{"metadata.name", "metadata.namespace"}},
		{"custom resource cluster-scoped", CustomResourceSchema(false), false, []string{"metadata.name"}},
		{"SchemaFor pods", SchemaFor("pods", true), true, PodSchema().names2()},
		{"SchemaFor nodes", SchemaFor("nodes", false), false, NodeSchema().names2()},
		{"SchemaFor other", SchemaFor("configmaps", true), true, []string{"metadata.name", "metadata.namespace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.schema.names2(); !reflect.DeepEqual(got, tt.fields) {
				t.Errorf("fields = %q, want %q", got, tt.fields)
			}
			if tt.schema.Namespaced() != tt.namespaced {
				t.Errorf("Namespaced() = %v", tt.schema.Namespaced())
			}
			for i, name := range tt.fields {
				if pos, ok := tt.schema.Field(name); !ok || pos != i {
					t.Errorf("Field(%q) = %d, %v; want %d", name, pos, ok, i)
				}
			}
		})
	}
	// Rule 4.3: spec.host is an alias of spec.nodeName.
	s := PodSchema()
	host, ok1 := s.Field("spec.host")
	node, ok2 := s.Field("spec.nodeName")
	if !ok1 || !ok2 || host != node {
		t.Errorf("Field(spec.host) = %d %v, Field(spec.nodeName) = %d %v", host, ok1, node, ok2)
	}
}

// names2 lists the canonical field names by position.
func (s *Schema) names2() []string {
	out := make([]string, s.NumFields())
	for i := range out {
		out[i] = s.FieldName(i)
	}
	return out
}

const deployment = `{"apiVersion":"apps/v1","kind":"Deployment",
 "metadata":{"name":"web","namespace":"ns","labels":{"app":"web","app.kubernetes.io/name":"shop"}},
 "spec":{"replicas":3,"paused":false,"ratio":1.5e3,"selector":{"matchLabels":{"app":"web"}},"strategy":null,
         "template":{"spec":{"containers":[{"name":"a","image":"i:1"},{"name":"b","image":"i:2"}]}}},
 "status":{"observedGeneration":7,"ready":true,"conditions":[
   {"type":"Available","status":"True","reason":"MinimumReplicasAvailable"},
   {"type":"Progressing","status":"False","reason":"ProgressDeadlineExceeded"}]}}`

// WithField: every kind of registered path, valued as documented, and equal to gjson.Get on the
// whole object (the single pass is an optimisation, never a semantic).
func TestWithFieldValues(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{"spec.replicas", "3"},                               // number → its text
		{"spec.ratio", "1.5e3"},                              // number text kept verbatim
		{"spec.paused", "false"},                             // bool
		{"status.ready", "true"},                             // bool
		{"spec.missing", ""},                                 // missing
		{"spec.strategy", ""},                                // null
		{"metadata.labels.app", "web"},                       // string, nested
		{`metadata.labels.app\.kubernetes\.io/name`, "shop"}, // escaped key: gjson on the labels object
		{"spec.selector", `{"matchLabels":{"app":"web"}}`},   // object → JSON text
		{"spec.selector.matchLabels.app", "web"},             // deep, plain
		{"spec.template.spec.containers.1.image", "i:2"},     // array index: deep fallback
		{"spec.template.spec.containers.#", "2"},             // count
		{`status.conditions.#(type=="Progressing").reason`, "ProgressDeadlineExceeded"}, // query
		{`status.conditions.#(type=="Available")`, `{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"}`},
		{"status.conditions.0", `{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"}`},
		{"kind", "Deployment"},                       // top level, not in metadata/spec/status
		{"spec.repl*", "3"},                          // wildcard
		{"@this.kind", "Deployment"},                 // not plain from the first component: whole-object gjson
		{"metadata.name", "web"},                     // same value as a built-in field
		{"status.conditions.5.type", ""},             // index out of range
		{"metadata.labels.app.x", ""},                // through a string
		{"spec.template.spec.containers.a.name", ""}, // non-numeric key on an array
	}
	base := NewSchema(true)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			s, err := base.WithField("f", tt.path)
			if err != nil {
				t.Fatal(err)
			}
			o, err := s.Extract([]byte(deployment))
			if err != nil {
				t.Fatal(err)
			}
			got := o.Fields[2]
			if got != tt.want {
				t.Errorf("value = %q, want %q", got, tt.want)
			}
			if ref := render(gjson.Get(deployment, tt.path)); got != ref {
				t.Errorf("value = %q, gjson.Get renders %q", got, ref)
			}
		})
	}
}

// WithField on the pod fixture: many paths at once, each equal to gjson.Get on the whole object.
func TestWithFieldManyPathsPod(t *testing.T) {
	paths := []string{
		"spec.containers.0.name", "spec.containers.0.ports.0.containerPort", "spec.volumes.0.projected.defaultMode",
		"status.hostIP", "status.podIPs.1.ip", "status.qosClass", `status.conditions.#(type=="Ready").status`,
		"metadata.ownerReferences.0.controller", "metadata.ownerReferences.0.kind", "metadata.annotations",
		`metadata.annotations.prometheus\.io/scrape`, "metadata.labels.tier", "metadata.managedFields.#",
		"spec.tolerations.1.tolerationSeconds", "spec.enableServiceLinks", "spec.securityContext", "apiVersion",
		"metadata.uid", "spec.priority", "status.startTime", "spec.nodeName",
	}
	s := PodSchema()
	for i, p := range paths {
		var err error
		if s, err = s.WithField("x"+string(rune('a'+i)), p); err != nil {
			t.Fatal(err)
		}
	}
	o, err := s.Extract(pod4K)
	if err != nil {
		t.Fatal(err)
	}
	base := PodSchema().NumFields()
	for i, p := range paths {
		if got, want := o.Fields[base+i], render(gjson.GetBytes(pod4K, p)); got != want {
			t.Errorf("%s = %q, gjson.Get renders %q", p, got, want)
		}
	}
	if o.Fields[base+len(paths)-1] != "node-0042" {
		t.Errorf("spec.nodeName registered again = %q", o.Fields[base+len(paths)-1])
	}
}

// WithField returns a new schema: the original is unchanged, positions are append-only, and the
// unknown-field message switches to the "not supported" form (rule 4.3).
func TestWithFieldImmutable(t *testing.T) {
	base := NewSchema(true)
	s1, err := base.WithField("spec.replicas", "spec.replicas")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := s1.WithField("status.ready", "status.ready")
	if err != nil {
		t.Fatal(err)
	}
	s2b, err := s1.WithField("other", "kind") // a sibling of s2: must not share s2's field
	if err != nil {
		t.Fatal(err)
	}

	if base.NumFields() != 2 || s1.NumFields() != 3 || s2.NumFields() != 4 || s2b.NumFields() != 4 {
		t.Fatalf("NumFields = %d %d %d %d", base.NumFields(), s1.NumFields(), s2.NumFields(), s2b.NumFields())
	}
	if _, ok := base.Field("spec.replicas"); ok {
		t.Error("base knows spec.replicas")
	}
	if _, ok := s1.Field("status.ready"); ok {
		t.Error("s1 knows status.ready")
	}
	if s2.FieldName(3) != "status.ready" || s2b.FieldName(3) != "other" {
		t.Errorf("siblings share a position: %q %q", s2.FieldName(3), s2b.FieldName(3))
	}
	for _, s := range []*Schema{s1, s2, s2b} {
		for i, name := range base.names2() {
			if s.FieldName(i) != name {
				t.Errorf("position %d moved: %q", i, s.FieldName(i))
			}
		}
		if s.FieldName(2) != "spec.replicas" {
			t.Errorf("position 2 = %q", s.FieldName(2))
		}
	}

	// Values extracted under an old schema are a prefix of those under a newer one.
	o1, _ := s1.Extract([]byte(deployment))
	o2, _ := s2.Extract([]byte(deployment))
	if !reflect.DeepEqual(o1.Fields, o2.Fields[:len(o1.Fields)]) || o2.Fields[3] != "true" {
		t.Errorf("fields %q then %q", o1.Fields, o2.Fields)
	}

	// ParseFields: the base still rejects the field, in the generic form; s1 accepts it.
	_, err = base.ParseFields("spec.replicas=3")
	var unsup *UnsupportedFieldError
	if !errors.As(err, &unsup) || !unsup.Generic {
		t.Errorf("base.ParseFields: %v", err)
	}
	if _, err := s1.ParseFields("spec.replicas=3"); err != nil {
		t.Errorf("s1.ParseFields: %v", err)
	}
	_, err = s1.ParseFields("spec.paused=true")
	if err == nil || err.Error() != "field label not supported: spec.paused" {
		t.Errorf("s1 unknown field: %v", err)
	}
}

func TestWithFieldErrors(t *testing.T) {
	tests := []struct {
		name, field, path string
	}{
		{"empty name", "", "spec.x"},
		{"empty path", "spec.x", ""},
		{"duplicate", "metadata.name", "spec.x"},
		{"duplicate of an alias (rule 4.3)", "spec.host", "spec.x"},
		{"duplicate of an absent field (rule 4.4)", "status.podIPs", "status.podIPs"},
		{"comma", "a,b", "spec.x"},
		{"equals", "a=b", "spec.x"},
		{"not-equals", "a!=b", "spec.x"},
		{"trailing bang", "a!", "spec.x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := PodSchema().WithField(tt.field, tt.path)
			if !errors.Is(err, ErrInvalidField) || s != nil {
				t.Errorf("WithField(%q, %q) = %v, %v; want ErrInvalidField", tt.field, tt.path, s, err)
			}
		})
	}
}

func TestSplitPath(t *testing.T) {
	tests := []struct {
		path  string
		comps []string
		rest  string
	}{
		{"spec.nodeName", []string{"spec", "nodeName"}, ""},
		{"kind", []string{"kind"}, ""},
		{"metadata.labels.app/name", []string{"metadata", "labels", "app/name"}, ""},
		{`metadata.labels.app\.io`, []string{"metadata", "labels"}, `app\.io`},
		{`status.conditions.#(type=="Ready").status`, []string{"status", "conditions"}, `#(type=="Ready").status`},
		{"spec.containers.0.name", []string{"spec", "containers", "0", "name"}, ""},
		{"@this.kind", nil, "@this.kind"},
		{"spec.", nil, "spec."},
		{"spec..x", []string{"spec"}, ".x"},
		{"a|b", nil, "a|b"},
		{"spec.repl*", []string{"spec"}, "repl*"},
		{"..a", nil, "..a"},
	}
	for _, tt := range tests {
		comps, rest := splitPath(tt.path)
		if !reflect.DeepEqual(comps, tt.comps) || rest != tt.rest {
			t.Errorf("splitPath(%q) = %q, %q; want %q, %q", tt.path, comps, rest, tt.comps, tt.rest)
		}
		// The split must be exact: joining back gives the path.
		joined := strings.Join(append(append([]string(nil), comps...), tt.rest), ".")
		if tt.rest == "" {
			joined = strings.Join(comps, ".")
		}
		if joined != tt.path {
			t.Errorf("splitPath(%q) does not rejoin: %q", tt.path, joined)
		}
	}
}
