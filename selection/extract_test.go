package selection

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Rule 4.4: the pod field values of the fixture.
func TestExtractPodFixture(t *testing.T) {
	s := PodSchema()
	o, err := s.Extract(pod4K)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"metadata.name":            "web-7d9f8b6c5d-x2k4q",
		"metadata.namespace":       "team-a",
		"spec.nodeName":            "node-0042",
		"spec.restartPolicy":       "Always",
		"spec.schedulerName":       "default-scheduler",
		"spec.serviceAccountName":  "web",
		"spec.hostNetwork":         "false",
		"status.phase":             "Running",
		"status.podIP":             "10.244.3.17",
		"status.nominatedNodeName": "",
		"status.podIPs":            "",
	}
	if len(o.Fields) != s.NumFields() {
		t.Fatalf("len(Fields) = %d", len(o.Fields))
	}
	for name, v := range want {
		pos, _ := s.Field(name)
		if o.Fields[pos] != v {
			t.Errorf("%s = %q, want %q", name, o.Fields[pos], v)
		}
	}
	if o.Name != "web-7d9f8b6c5d-x2k4q" || o.Namespace != "team-a" || o.ResourceVersion != "123456789" {
		t.Errorf("identity = %q %q %q", o.Name, o.Namespace, o.ResourceVersion)
	}
	wantLabels := Labels{
		{"app", "web"}, {"app.kubernetes.io/name", "web"}, {"app.kubernetes.io/part-of", "shop"},
		{"pod-template-hash", "7d9f8b6c5d"}, {"tier", "frontend"}, {"version", "v1.42"},
	}
	if !reflect.DeepEqual(o.Labels, wantLabels) {
		t.Errorf("Labels = %v", o.Labels)
	}
	if !strings.HasPrefix(o.LabelsRaw, `{"app":"web",`) || !strings.HasSuffix(o.LabelsRaw, `"version":"v1.42"}`) {
		t.Errorf("LabelsRaw = %s", o.LabelsRaw)
	}
}

// Rule 4.4: conversions of individual pod fields.
func TestExtractPodValues(t *testing.T) {
	tests := []struct {
		name  string
		spec  string // JSON members of spec
		stat  string // JSON members of status
		field string
		want  string
	}{
		{"hostNetwork true", `"hostNetwork":true`, ``, "spec.hostNetwork", "true"},
		{"hostNetwork false", `"hostNetwork":false`, ``, "spec.hostNetwork", "false"},
		{"hostNetwork missing is false", ``, ``, "spec.hostNetwork", "false"},
		{"hostNetwork null is false", `"hostNetwork":null`, ``, "spec.hostNetwork", "false"},
		{"hostNetwork not a bool is false", `"hostNetwork":"true"`, ``, "spec.hostNetwork", "false"},
		{"podIP from podIPs[0]", ``, `"podIPs":[{"ip":"10.0.0.1"},{"ip":"fd00::1"}]`, "status.podIP", "10.0.0.1"},
		{"podIP and podIPs agree", ``, `"podIP":"10.0.0.1","podIPs":[{"ip":"10.0.0.1"}]`, "status.podIP", "10.0.0.1"},
		{"podIP without podIPs", ``, `"podIP":"10.0.0.2"`, "status.podIP", "10.0.0.2"},
		{"podIP authoritative when they differ", ``, `"podIP":"10.0.0.2","podIPs":[{"ip":"10.0.0.1"}]`, "status.podIP", "10.0.0.2"},
		{"no podIPs is empty", ``, `"phase":"Pending"`, "status.podIP", ""},
		{"empty podIPs is empty", ``, `"podIPs":[]`, "status.podIP", ""},
		{"podIPs is never populated", ``, `"podIPs":[{"ip":"10.0.0.1"}]`, "status.podIPs", ""},
		{"serviceAccountName", `"serviceAccountName":"a","serviceAccount":"b"`, ``, "spec.serviceAccountName", "a"},
		{"deprecated serviceAccount fills in", `"serviceAccount":"b"`, ``, "spec.serviceAccountName", "b"},
		{"unscheduled nodeName is empty", `"schedulerName":"s"`, ``, "spec.nodeName", ""},
		{"nodeName", `"nodeName":"n1"`, ``, "spec.nodeName", "n1"},
		{"escaped value is unescaped", `"nodeName":"n\u002d1"`, ``, "spec.nodeName", "n-1"},
		{"phase", ``, `"phase":"Failed"`, "status.phase", "Failed"},
		{"nominatedNodeName", ``, `"nominatedNodeName":"n9"`, "status.nominatedNodeName", "n9"},
		{"null value is empty", `"restartPolicy":null`, ``, "spec.restartPolicy", ""},
		{"duplicate key: last wins", `"nodeName":"n1","nodeName":"n2"`, ``, "spec.nodeName", "n2"},
		{"duplicate key: null keeps the earlier value", `"nodeName":"n1","nodeName":null`, ``, "spec.nodeName", "n1"},
	}
	s := PodSchema()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := `{"metadata":{"name":"p","namespace":"ns"},"spec":{` + tt.spec + `},"status":{` + tt.stat + `}}`
			o, err := s.Extract([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			pos, _ := s.Field(tt.field)
			if o.Fields[pos] != tt.want {
				t.Errorf("%s = %q, want %q", tt.field, o.Fields[pos], tt.want)
			}
		})
	}
}

func TestExtractNode(t *testing.T) {
	s := NodeSchema()
	for raw, want := range map[string]string{
		`{"metadata":{"name":"n"},"spec":{"unschedulable":true}}`:  "true",
		`{"metadata":{"name":"n"},"spec":{"unschedulable":false}}`: "false",
		`{"metadata":{"name":"n"},"spec":{}}`:                      "false",
		`{"metadata":{"name":"n"}}`:                                "false",
	} {
		o, err := s.Extract([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if o.Fields[1] != want || o.Fields[0] != "n" {
			t.Errorf("%s: fields %q", raw, o.Fields)
		}
	}
}

// A duplicated spec object merges, as encoding/json decodes it into one struct.
func TestExtractDuplicateSections(t *testing.T) {
	raw := `{"metadata":{"name":"p"},"spec":{"nodeName":"n1","restartPolicy":"Never"},"spec":{"nodeName":"n2"}}`
	s := PodSchema()
	o, err := s.Extract([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if o.Fields[2] != "n2" || o.Fields[3] != "Never" {
		t.Errorf("fields %q", o.Fields)
	}
}

func TestExtractLabels(t *testing.T) {
	tests := []struct {
		name   string
		labels string
		want   Labels
		raw    string
	}{
		{"absent", ``, nil, ""},
		{"null", `,"labels":null`, nil, ""},
		{"empty", `,"labels":{}`, nil, ""},
		{"sorted", `,"labels":{"a":"1","b":"2"}`, Labels{{"a", "1"}, {"b", "2"}}, `{"a":"1","b":"2"}`},
		{"unsorted", `,"labels":{"b":"2","a":"1","c":""}`, Labels{{"a", "1"}, {"b", "2"}, {"c", ""}}, `{"b":"2","a":"1","c":""}`},
		{"duplicate keeps last", `,"labels":{"a":"1","b":"2","a":"3"}`, Labels{{"a", "3"}, {"b", "2"}}, `{"a":"1","b":"2","a":"3"}`},
		{"escaped", `,"labels":{"k\u0031":"v\"q"}`, Labels{{"k1", `v"q`}}, `{"k\u0031":"v\"q"}`},
		{"whitespace", `,"labels": { "a" : "1" } `, Labels{{"a", "1"}}, `{ "a" : "1" }`},
		{"repeated labels object replaces", `,"labels":{"a":"1"},"labels":{"b":"2"}`, Labels{{"b", "2"}}, `{"b":"2"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := `{"metadata":{"name":"p"` + tt.labels + `}}`
			o, err := NewSchema(true).Extract([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(o.Labels, tt.want) || o.LabelsRaw != tt.raw {
				t.Errorf("Labels = %#v, LabelsRaw = %q", o.Labels, o.LabelsRaw)
			}
			if tt.raw != "" {
				// ReadLabels reads LabelsRaw as Extract read the labels.
				if got, err := ReadLabels(tt.raw); err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Errorf("ReadLabels(%q) = %#v, %v", tt.raw, got, err)
				}
			}
			// With the text known, the labels are not read: LabelsRaw alone, the same text.
			var asked []string
			known := func(s string) bool { asked = append(asked, s); return true }
			o, err = NewSchema(true).ExtractKnownLabels([]byte(raw), known)
			if err != nil {
				t.Fatal(err)
			}
			if o.Labels != nil || o.LabelsRaw != tt.raw {
				t.Errorf("known: Labels = %#v, LabelsRaw = %q; want none and %q", o.Labels, o.LabelsRaw, tt.raw)
			}
			if want := []string(nil); tt.raw != "" {
				want = []string{tt.raw}
				if !reflect.DeepEqual(asked, want) {
					t.Errorf("known asked %q, want %q", asked, want)
				}
			} else if len(asked) > 0 {
				t.Errorf("known asked %q for no labels", asked)
			}
			// Unknown text: read as by Extract.
			o, err = NewSchema(true).ExtractKnownLabels([]byte(raw), func(string) bool { return false })
			if err != nil || !reflect.DeepEqual(o.Labels, tt.want) || o.LabelsRaw != tt.raw {
				t.Errorf("unknown: Labels = %#v, LabelsRaw = %q, %v", o.Labels, o.LabelsRaw, err)
			}
		})
	}
	// Invalid labels are refused by ReadLabels as by Extract.
	for _, bad := range []string{`["a"]`, `{"a":1}`, `"a=b"`} {
		_, err := ReadLabels(bad)
		_, xerr := NewSchema(true).Extract([]byte(`{"metadata":{"name":"p","labels":` + bad + `}}`))
		if err == nil || xerr == nil || err.Error() != xerr.Error() {
			t.Errorf("ReadLabels(%s) = %v; Extract: %v", bad, err, xerr)
		}
	}
	// More labels than the stack buffer holds, in reverse order.
	var b strings.Builder
	b.WriteString(`{"metadata":{"name":"p","labels":{`)
	for i := 40; i > 0; i-- {
		if i < 40 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%02d":"v"`, i)
	}
	b.WriteString(`}}}`)
	o, err := NewSchema(true).Extract([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Labels) != 40 {
		t.Fatalf("%d labels", len(o.Labels))
	}
	for i := 1; i < len(o.Labels); i++ {
		if o.Labels[i-1].Key >= o.Labels[i].Key {
			t.Fatalf("not sorted at %d: %v", i, o.Labels)
		}
	}
}

// Extract's errors all wrap ErrMalformed.
func TestExtractErrors(t *testing.T) {
	tests := []struct{ name, raw, msg string }{
		{"empty", ``, "invalid JSON"},
		{"invalid JSON", `{"metadata":{"name":"p"}`, "invalid JSON"},
		{"trailing garbage", `{"metadata":{"name":"p"}} x`, "invalid JSON"},
		{"top level array", `[{"metadata":{"name":"p"}}]`, "top level is not an object"},
		{"top level string", `"p"`, "top level is not an object"},
		{"no metadata", `{"spec":{}}`, "metadata is missing"},
		{"metadata null", `{"metadata":null}`, "metadata is missing"},
		{"metadata a string", `{"metadata":"p"}`, "metadata is not an object"},
		{"metadata array", `{"metadata":[{"name":"p"}]}`, "metadata is not an object"},
		{"no name", `{"metadata":{"namespace":"ns"}}`, "metadata.name is missing or empty"},
		{"empty name", `{"metadata":{"name":""}}`, "metadata.name is missing or empty"},
		{"null name", `{"metadata":{"name":null}}`, "metadata.name is missing or empty"},
		{"name a number", `{"metadata":{"name":5}}`, "metadata.name is not a string"},
		{"namespace a number", `{"metadata":{"name":"p","namespace":1}}`, "metadata.namespace is not a string"},
		{"resourceVersion a number", `{"metadata":{"name":"p","resourceVersion":12}}`, "metadata.resourceVersion is not a string"},
		{"labels an array", `{"metadata":{"name":"p","labels":["a"]}}`, "metadata.labels is not an object"},
		{"labels a string", `{"metadata":{"name":"p","labels":"a=b"}}`, "metadata.labels is not an object"},
		{"label value a number", `{"metadata":{"name":"p","labels":{"a":1}}}`, `metadata.labels["a"] is not a string`},
		{"label value null", `{"metadata":{"name":"p","labels":{"a":null}}}`, `metadata.labels["a"] is not a string`},
		{"label value an object", `{"metadata":{"name":"p","labels":{"a":{}}}}`, `metadata.labels["a"] is not a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := PodSchema().Extract([]byte(tt.raw))
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
			if want := "selection: malformed object: " + tt.msg; err.Error() != want {
				t.Errorf("err = %q, want %q", err, want)
			}
			if !reflect.DeepEqual(o, Object{}) {
				t.Errorf("object on error: %+v", o)
			}
		})
	}
	// Namespace presence is the caller's rule: a namespaced schema accepts an object without one.
	if _, err := PodSchema().Extract([]byte(`{"metadata":{"name":"p"}}`)); err != nil {
		t.Errorf("no namespace: %v", err)
	}
}

// Extract returns views of raw, not copies.
func TestExtractZeroCopy(t *testing.T) {
	raw := append([]byte(nil), pod4K...)
	o, err := PodSchema().Extract(raw)
	if err != nil {
		t.Fatal(err)
	}
	within := func(what, s string) {
		t.Helper()
		if s == "" {
			t.Errorf("%s is empty", what)
			return
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
		if p < lo || p+uintptr(len(s)) > lo+uintptr(len(raw)) {
			t.Errorf("%s %q is a copy, not a view of raw", what, s)
		}
	}
	within("Name", o.Name)
	within("Namespace", o.Namespace)
	within("ResourceVersion", o.ResourceVersion)
	within("LabelsRaw", o.LabelsRaw)
	for _, l := range o.Labels {
		within("label key", l.Key)
		within("label value", l.Value)
	}
	for i, v := range o.Fields {
		if v != "" && v != "false" && v != "true" {
			within(PodSchema().FieldName(i), v)
		}
	}
	// The documented consequence: mutating raw changes the object.
	i := strings.Index(string(raw), `"web-7d9f8b6c5d-x2k4q"`)
	raw[i+1] = 'W'
	if o.Name[0] != 'W' {
		t.Errorf("Name did not alias raw")
	}
}

// Extract allocates the Fields slice and the Labels slice, nothing else (performance target).
func TestExtractAllocs(t *testing.T) {
	s := PodSchema()
	if n := testing.AllocsPerRun(100, func() { _, _ = s.Extract(pod4K) }); n > 2 {
		t.Errorf("Extract allocates %v times, want ≤ 2", n)
	}
	noLabels := []byte(`{"metadata":{"name":"p","namespace":"n"},"spec":{"nodeName":"x"}}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = s.Extract(noLabels) }); n > 1 {
		t.Errorf("Extract without labels allocates %v times, want ≤ 1", n)
	}
}

// TestExtractAgreesWithReference: the one-pass walk (syntax check and extraction together) returns
// exactly what validJSON followed by a gjson walk (referenceExtract) returns, on the inputs where the
// two orders of work could differ: a syntax error after a semantic one, escaped keys, nesting at
// the limit under keys the walk descends into, values of planned keys that are not objects.
func TestExtractAgreesWithReference(t *testing.T) {
	s, err := PodSchema().WithField("ready", `status.conditions.#(type=="Ready").status`)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = s.WithField("first", "spec.containers.0.name"); err != nil {
		t.Fatal(err)
	}
	nest := func(n int, inner string) string {
		return strings.Repeat(`{"a":`, n) + inner + strings.Repeat(`}`, n)
	}
	cases := map[string]string{
		"semantic then syntax error":  `{"metadata":{"name":1},"spec":{"nodeName":"n",}}`,
		"syntax error in skipped":     `{"metadata":{"name":"p"},"apiVersion":"v1" "kind":"Pod"}`,
		"trailing garbage":            `{"metadata":{"name":"p"}} x`,
		"escaped keys":                `{"metad\u0061ta":{"n\u0061me":"p","labels":{"\u0061":"b"}},"spec":{"node\u004eame":"n"}}`,
		"escaped values":              `{"metadata":{"name":"p\"q","namespace":"n\\s"}}`,
		"repeated metadata":           `{"metadata":{"name":"p"},"metadata":{"name":"q"}}`,
		"null metadata then object":   `{"metadata":null,"metadata":{"name":"q"}}`,
		"metadata not object":         `{"metadata":[1]}`,
		"spec an array":               `{"metadata":{"name":"p"},"spec":[{"nodeName":"n"}]}`,
		"containers by index":         `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c0"},{"name":"c1"}]}}`,
		"containers not an array":     `{"metadata":{"name":"p"},"spec":{"containers":{"0":{"name":"c0"}}}}`,
		"query on conditions":         `{"metadata":{"name":"p"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`,
		"typed values":                `{"metadata":{"name":"p"},"spec":{"hostNetwork":true,"nodeName":12.5e3,"restartPolicy":null}}`,
		"deep at limit":               `{"metadata":{"name":"p","annotations":` + nest(9998, `1`) + `}}`, // 10,000 levels
		"deep past limit":             `{"metadata":{"name":"p","annotations":` + nest(9999, `1`) + `}}`,
		"deep past limit in spec key": `{"metadata":{"name":"p"},"spec":{"nodeName":"n","x":` + nest(9999, `1`) + `}}`,
		"top level array":             `[{"metadata":{"name":"p"}}]`,
		"top level invalid":           `[{"metadata":{"name":"p"}}`,
		"whitespace everywhere":       " \n{ \"metadata\" : { \"name\" : \"p\" , \"labels\" : { \"a\" : \"b\" } } } \t",
		"empty":                       ``,
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := s.Extract([]byte(doc))
			want, werr := s.referenceExtract([]byte(doc))
			if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Errorf("Extract = %+v, %v\nreference %+v, %v", got, err, want, werr)
			}
			if strings.Contains(fmt.Sprint(err), "invalid JSON") == json.Valid([]byte(doc)) {
				t.Errorf("Extract: %v, encoding/json.Valid: %v", err, json.Valid([]byte(doc)))
			}
		})
	}
}

// TestParseValueMatchesGjson: the shortcut for plain strings returns gjson.Parse's result.
func TestParseValueMatchesGjson(t *testing.T) {
	for _, raw := range []string{`""`, `"a"`, `"node-7"`, `"a\"b"`, `"\u00e9"`, `"a\\"`, `"é ✓"`, `1`, `-2.5e3`, `true`, `false`, `null`, `{}`, `{"a":"b"}`, `[1,"x"]`} {
		if got, want := parseValue(raw), gjson.Parse(raw); !reflect.DeepEqual(got, want) {
			t.Errorf("parseValue(%s) = %+v, gjson.Parse %+v", raw, got, want)
		}
	}
}
