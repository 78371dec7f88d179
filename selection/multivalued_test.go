package selection

import (
	"errors"
	"strings"
	"testing"
)

// TestWithFieldMultiValued: a path that yields one value per array element is refused with
// ErrInvalidField, because the field would hold the array's JSON text and a selector on any
// element's value would silently match nothing; single-valued paths into arrays are accepted and
// extract the element's value.
func TestWithFieldMultiValued(t *testing.T) {
	pod := []byte(`{"metadata":{"name":"p","namespace":"n"},"spec":{"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"envoy"}]}}`)
	for _, tc := range []struct {
		path  string
		multi bool
		value string // extracted value when accepted
	}{
		{path: "spec.containers.#.image", multi: true},
		{path: "spec.containers|#.image", multi: true},
		{path: `spec.containers.#(name=="b")#.image`, multi: true},
		{path: "spec.containers.#", value: "2"},
		{path: "spec.containers.1.image", value: "envoy"},
		{path: `spec.containers.#(name=="b").image`, value: "envoy"},
		{path: `spec.containers.#(image%"env*").name`, value: "b"},
		{path: `metadata.a\#.b`, value: ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			s, err := PodSchema().WithField("x", tc.path)
			if tc.multi {
				if !errors.Is(err, ErrInvalidField) || !strings.Contains(err.Error(), "one value per array element") {
					t.Fatalf("WithField(%q) = %v, want ErrInvalidField naming the array", tc.path, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("WithField(%q): %v", tc.path, err)
			}
			obj, err := s.Extract(pod)
			if err != nil {
				t.Fatal(err)
			}
			pos, _ := s.Field("x")
			if got := obj.Fields[pos]; got != tc.value {
				t.Fatalf("value %q, want %q", got, tc.value)
			}
		})
	}
}
