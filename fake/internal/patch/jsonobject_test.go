package patch

import (
	"reflect"
	"strings"
	"testing"

	sigsjson "sigs.k8s.io/json"
)

// readCase is a body and whether a reader reads it.
type readCase struct {
	name, body string
	reads      bool
}

// testReads runs check on each case's body, and checks that read reads the bodies it should.
func testReads(t *testing.T, cases []readCase, read func([]byte) bool, check func(*testing.T, []byte)) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if reads := read([]byte(c.body)); reads != c.reads {
				t.Errorf("reads it: %v, want %v", reads, c.reads)
			}
			check(t, []byte(c.body))
		})
	}
}

// fuzzReads runs check on any body, from the cases' bodies.
func fuzzReads(f *testing.F, cases []readCase, check func(*testing.T, []byte)) {
	for _, c := range cases {
		f.Add([]byte(c.body))
	}
	f.Fuzz(check)
}

// readObjectCases are apply bodies and whether readObject reads them (else it leaves them to
// sigs.k8s.io/json).
var readObjectCases = []readCase{
	{"client-go ConfigMap", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a-0","namespace":"bench-1"},"data":{"n":"17"}}`, true},
	{"nested arrays and objects", `{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80},{"containerPort":443}]}],"x":[[],{}],"e":{}}}`, true},
	{"integers, booleans, null", `{"a":0,"b":-0,"c":-12,"d":9223372036854775807,"e":-9223372036854775808,"f":true,"g":false,"h":null}`, true},
	{"beyond int64", `{"a":9223372036854775808,"b":-99999999999999999999999}`, true},
	{"whitespace", " \r\n{ \"a\" :\n[ 1 , 2 ] ,\"b\":{ } }\n ", true},
	{"empty", `{}`, true},
	{"empty key and value", `{"":""}`, true},
	{"duplicate field", `{"a":1,"a":2}`, false},
	{"duplicate nested field", `{"a":{"b":1,"b":1}}`, false},
	{"leading zero", `{"a":01}`, false},
	{"minus alone", `{"a":-}`, false},
	{"minus letter", `{"a":-x}`, false},
	{"fraction", `{"a":1.5}`, false},
	{"exponent", `{"a":1e3}`, false},
	{"beyond float64", `{"a":` + strings.Repeat("9", 400) + `}`, false},
	{"escape", `{"a":"b\"c"}`, false},
	{"non-ASCII", "{\"a\":\"é\"}", false},
	{"control character", "{\"a\":\"b\x01\"}", false},
	{"trailing comma", `{"a":1,}`, false},
	{"trailing comma in array", `{"a":[1,]}`, false},
	{"missing colon", `{"a" 1}`, false},
	{"missing comma", `{"a":1 "b":2}`, false},
	{"unquoted key", `{a:1}`, false},
	{"trailing text", `{"a":1} x`, false},
	{"two objects", `{"a":1}{"b":2}`, false},
	{"truncated", `{"a":[1,2`, false},
	{"bad literal", `{"a":tru}`, false},
	{"literal with more", `{"a":truex}`, false},
	{"capital literal", `{"a":True}`, false},
	{"array", `[1]`, false},
	{"too deep", `{"a":` + strings.Repeat("[", maxObjectDepth) + strings.Repeat("]", maxObjectDepth) + `}`, false},
	{"deep", `{"a":` + strings.Repeat("[", maxObjectDepth-1) + strings.Repeat("]", maxObjectDepth-1) + `}`, true},
}

// TestReadObject checks readObject against sigs.k8s.io/json, which the apply path uses for what
// readObject does not read: what it reads must be what that decoder reads, without error or
// duplicate, and it must read the bodies client-go sends.
func TestReadObject(t *testing.T) {
	testReads(t, readObjectCases, func(b []byte) bool { _, ok := readObject(b); return ok }, checkReadObject)
}

// FuzzReadObject checks readObject against sigs.k8s.io/json on any body.
func FuzzReadObject(f *testing.F) {
	fuzzReads(f, readObjectCases, checkReadObject)
}

// checkReadObject fails t when readObject reads body otherwise than sigs.k8s.io/json's strict
// decoding with duplicates refused, or reads a body that decoding refuses.
func checkReadObject(t *testing.T, body []byte) {
	got, ok := readObject(body)
	if !ok {
		return
	}
	want := map[string]any{}
	dups, err := sigsjson.UnmarshalStrict(body, &want, sigsjson.DisallowDuplicateFields)
	if err != nil || len(dups) > 0 {
		t.Fatalf("readObject reads %q, which sigs.k8s.io/json refuses: %v %v", body, err, dups)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("readObject reads %q as %#v, sigs.k8s.io/json as %#v", body, got, want)
	}
}

// BenchmarkReadObject compares readObject with sigs.k8s.io/json on client-go's apply body.
func BenchmarkReadObject(b *testing.B) {
	body := []byte(readObjectCases[0].body)
	b.Run("readObject", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := readObject(body); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("sigs.k8s.io/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := map[string]any{}
			if _, err := sigsjson.UnmarshalStrict(body, &m, sigsjson.DisallowDuplicateFields); err != nil {
				b.Fatal(err)
			}
		}
	})
}
