package selection

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/fields"
)

// FuzzParseFields: ParseFields on the pod schema accepts and rejects exactly what the apiserver
// does (fields.ParseSelector, then the pod field-label conversion; rules 4.2, 4.3), with the same
// messages, and its matcher agrees with the converted apimachinery selector.
// Seed corpus: testdata/fuzz/FuzzParseFields.
func FuzzParseFields(f *testing.F) {
	for _, s := range []string{"", "spec.nodeName=n1", "spec.host==a,status.phase!=Running", `metadata.name=a\,b`, "x", "a=b=c", `a=\q`} {
		f.Add(s)
	}
	s := PodSchema()
	obj, err := s.Extract(pod4K)
	if err != nil {
		f.Fatal(err)
	}
	set := fields.Set{}
	for i := range s.NumFields() {
		if s.fields[i].kind != kindAbsent {
			set[s.FieldName(i)] = obj.Fields[i]
		}
	}
	unscheduled := make([]string, s.NumFields()) // every value "", as for a bare pod
	bare := fields.Set{}
	for i := range s.NumFields() {
		if s.fields[i].kind != kindAbsent {
			bare[s.FieldName(i)] = ""
		}
	}
	convert := func(label, value string) (string, string, error) {
		if label == "spec.host" {
			return "spec.nodeName", value, nil
		}
		if _, ok := s.Field(label); !ok {
			return "", "", errors.New("field label not supported: " + label)
		}
		return label, value, nil
	}

	f.Fuzz(func(t *testing.T, sel string) {
		got, err := s.ParseFields(sel)
		ref, refErr := fields.ParseSelector(sel)
		if refErr != nil {
			var se *SelectorError
			if !errors.As(err, &se) || err.Error() != refErr.Error() {
				t.Fatalf("apimachinery rejects %q with %q; ParseFields: %v", sel, refErr, err)
			}
			return
		}
		ref, convErr := ref.Transform(convert)
		if convErr != nil {
			var ue *UnsupportedFieldError
			if !errors.As(err, &ue) || err.Error() != convErr.Error() {
				t.Fatalf("conversion rejects %q with %q; ParseFields: %v", sel, convErr, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ParseFields(%q): %v; apimachinery accepts", sel, err)
		}
		if got.String() != ref.String() {
			t.Fatalf("String %q, apimachinery %q", got, ref)
		}
		if got.Matches(obj.Fields) != ref.Matches(set) || got.Matches(unscheduled) != ref.Matches(bare) {
			t.Fatalf("%q: Matches disagrees with apimachinery", sel)
		}
		for _, name := range []string{"spec.nodeName", "metadata.namespace", "metadata.name"} {
			v, ok := got.Requires(name)
			rv, rok := ref.RequiresExactMatch(name)
			if v != rv || ok != rok {
				t.Fatalf("%q: Requires(%s) = %q %v, apimachinery %q %v", sel, name, v, ok, rv, rok)
			}
		}
	})
}

// FuzzExtract: Extract never panics; on success the object has a name, a field value per
// position, sorted unique labels, and agrees with gjson on the identity; on failure the error
// wraps ErrMalformed. Seed corpus: testdata/fuzz/FuzzExtract.
func FuzzExtract(f *testing.F) {
	f.Add(pod4K)
	f.Add([]byte(`{"metadata":{"name":"p","labels":{"b":"1","a":"2"}}}`))
	f.Add([]byte(`{"metadata":{"name":"p"},"spec":{"nodeName":"n","hostNetwork":true},"status":{"podIPs":[{"ip":"1"}]}}`))
	s, err := PodSchema().WithField("ready", `status.conditions.#(type=="Ready").status`)
	if err != nil {
		f.Fatal(err)
	}
	if s, err = s.WithField("first", "spec.containers.0.name"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = append([]byte(nil), raw...) // Extract's result aliases raw; keep the fuzzer's buffer out of it
		o, err := s.Extract(raw)
		ref, rerr := s.referenceExtract(raw) // the two-pass reference extraction
		if fmt.Sprint(err) != fmt.Sprint(rerr) || !reflect.DeepEqual(o, ref) {
			t.Fatalf("Extract = %+v, %v; reference %+v, %v", o, err, ref, rerr)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if !json.Valid(raw) {
			t.Fatal("accepted invalid JSON")
		}
		if o.Name == "" {
			t.Fatal("empty name accepted")
		}
		if len(o.Fields) != s.NumFields() {
			t.Fatalf("%d fields", len(o.Fields))
		}
		if o.Fields[0] != o.Name || o.Fields[1] != o.Namespace {
			t.Fatalf("fields %q do not repeat the identity", o.Fields[:2])
		}
		for i := 1; i < len(o.Labels); i++ {
			if o.Labels[i-1].Key >= o.Labels[i].Key {
				t.Fatalf("labels not sorted and unique: %v", o.Labels)
			}
		}
		if (o.LabelsRaw == "") != (len(o.Labels) == 0) {
			t.Fatalf("LabelsRaw %q with %d labels", o.LabelsRaw, len(o.Labels))
		}
		if hn := o.Fields[6]; hn != "true" && hn != "false" {
			t.Fatalf("spec.hostNetwork = %q", hn)
		}
		if o.Fields[10] != "" {
			t.Fatalf("status.podIPs = %q", o.Fields[10])
		}
		// Without duplicate keys, the pass and gjson.Get agree (gjson takes the first of
		// duplicates, encoding/json and Extract the last, so only compare when unambiguous).
		top := gjson.ParseBytes(raw)
		if md := top.Get("metadata"); keyCount(top, "metadata") == 1 && keyCount(md, "name") == 1 {
			if want := md.Get("name"); want.Str != o.Name {
				t.Fatalf("Name %q, gjson %q", o.Name, want.Str)
			}
		}
	})
}

func keyCount(obj gjson.Result, key string) (n int) {
	obj.ForEach(func(k, _ gjson.Result) bool {
		if k.Str == key {
			n++
		}
		return true
	})
	return n
}
