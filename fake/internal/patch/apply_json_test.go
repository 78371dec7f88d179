package patch

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
)

// TestJSONReadsAsYAML checks the apply body fast path: every body it lets through must decode to
// what the apiserver's YAML decoder makes of it, and the bodies YAML reads differently from JSON
// must be refused, so that they keep the YAML decoder's reading.
func TestJSONReadsAsYAML(t *testing.T) {
	for _, c := range []struct {
		name, body string
		fast       bool
	}{
		{"plain object", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`, true},
		{"integers, booleans, null", `{"spec":{"replicas":3,"paused":false,"x":null,"n":-12,"big":123456789012345678901234}}`, true},
		{"spaces and newlines", " \n{ \"a\" : [ 1 , 2 ] }\n", true},
		{"true and false next to digits", `{"a":[1,true,2,false]}`, true},
		{"digits in strings", `{"a":"1.5e3"}`, true},
		{"fraction", `{"spec":{"replicas":1.0}}`, false},
		{"exponent", `{"spec":{"replicas":1e3}}`, false},
		{"upper-case exponent", `{"spec":{"replicas":2E2}}`, false},
		{"escaped slash", `{"data":{"k":"a\/b"}}`, false},
		{"surrogate pair", `{"data":{"k":"\ud83d\ude00"}}`, false},
		{"escaped quote", `{"data":{"k":"a\"b"}}`, false},
		{"next line character", "{\"data\":{\"k\":\"a\u0085b\"}}", false},
		{"line separator", "{\"data\":{\"k\":\"a\u2028b\"}}", false},
		{"tab", "{\"a\":\t1}", false},
		{"long key", `{"` + strings.Repeat("k", 1100) + `":1}`, false},
		{"yaml", "apiVersion: v1\nkind: ConfigMap\n", false},
		{"array", `[1]`, false},
		{"truncated", `{"a":"b`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := jsonReadsAsYAML([]byte(c.body)); got != c.fast {
				t.Fatalf("jsonReadsAsYAML = %v, want %v", got, c.fast)
			}
			if !c.fast {
				return
			}
			var fromYAML, fromJSON map[string]any
			if err := yaml.Unmarshal([]byte(c.body), &fromYAML); err != nil {
				t.Fatalf("YAML: %v", err)
			}
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(c.body), &fromJSON); err != nil {
				t.Fatalf("JSON: %v", err)
			}
			if !reflect.DeepEqual(fromJSON, fromYAML) {
				t.Errorf("JSON reads %#v, YAML %#v", fromJSON, fromYAML)
			}
		})
	}
}

// TestJSONReadsAsYAMLDiffer pins why the refused bodies are refused: YAML reads them otherwise.
func TestJSONReadsAsYAMLDiffer(t *testing.T) {
	for _, body := range []string{`{"r":1.0}`, `{"r":1e3}`} {
		var fromYAML, fromJSON map[string]any
		if err := yaml.Unmarshal([]byte(body), &fromYAML); err != nil {
			t.Fatal(err)
		}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(body), &fromJSON); err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(fromJSON, fromYAML) {
			t.Errorf("%s: YAML and JSON agree (%#v); the fast path could take it", body, fromJSON)
		}
		t.Logf("%s: JSON %#v (%T), YAML %#v (%T)", body, fromJSON, fromJSON["r"], fromYAML, fromYAML["r"])
	}
}
