package selection

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

var validCases = []string{
	`{}`, `[]`, ` { } `, "\t[\r\n]\n", `0`, `-0`, `1.5e+10`, `-12.0E-3`, `"x"`, `true`, `false`, `null`,
	`{"a":1,"b":[true,false,null,{"c":"d"}],"e":{}}`, `[[[[]]]]`, `{"a":{"b":{"c":[1,2,{"d":[]}]}}}`,
	`"esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"`, `"héllo wörld ✓ 😀"`, `"0123456789abcdefghijklmnopq"`,
	`"\u0000"`, `{"":""}`, `["a" , "b" ,1 ]`, `{"k" : "v" }`,
	`{"kind":"Pod","metadata":{"name":"p","labels":{"app":"web"}},"spec":{"nodeName":"n1"}}`,
	"\"\xff\xfe\"", // encoding/json.Valid does not check UTF-8 either
}

var invalidCases = []string{
	``, ` `, `{`, `}`, `[`, `]`, `{]`, `[}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`,
	`{"a" 1}`, `{1:2}`, `{'a':1}`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`, `Infinity`,
	`tru`, `truex`, `nul`, `nulll`, `fals`, `"abc`, `"a\x"`, `"\u12"`, `"\u12G4"`, "\"a\nb\"", "\"tab\there\"",
	"\"\x00\"", `{} {}`, `[] x`, `"a" "b"`, `{"a":1}}`, `[[]`, `[]]`, `"\`, `"\"`, `"abcdefgh\`, "\"abcdefgh\x1f\"",
	strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1),
}

// TestValidJSON: validJSON accepts exactly what encoding/json.Valid accepts, including its
// nesting limit.
func TestValidJSON(t *testing.T) {
	for _, s := range validCases {
		if !json.Valid([]byte(s)) {
			t.Fatalf("test case %q is not valid for encoding/json", s)
		}
		if !validJSON([]byte(s)) {
			t.Errorf("validJSON(%q) = false, want true", s)
		}
	}
	for _, s := range invalidCases {
		if json.Valid([]byte(s)) {
			t.Fatalf("test case %q is valid for encoding/json", s)
		}
		if validJSON([]byte(s)) {
			t.Errorf("validJSON(%q) = true, want false", s)
		}
	}
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if !validJSON([]byte(deep)) || !json.Valid([]byte(deep)) {
		t.Error("nesting of exactly maxDepth must be valid")
	}
	// Every prefix of a valid document is invalid (for these, where no prefix is itself a value),
	// which exercises every "input ends here" branch, in and out of the eight-byte string scan.
	doc := podJSON(2)
	for i := range doc {
		if validJSON(doc[:i]) {
			t.Fatalf("prefix of %d bytes accepted", i)
		}
	}
	if !validJSON(doc) {
		t.Fatal("pod rejected")
	}
}

// FuzzValidJSON: validJSON agrees with encoding/json.Valid on arbitrary bytes, with and without
// the bitmap of string ends.
func FuzzValidJSON(f *testing.F) {
	for _, s := range append(append([]string{}, validCases...), invalidCases[:len(invalidCases)-2]...) {
		f.Add([]byte(s))
	}
	f.Add(podJSON(1))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := json.Valid(b)
		if got := validJSON(b); got != want {
			t.Fatalf("validJSON(%q) = %v, encoding/json.Valid = %v", b, got, want)
		}
		if got := validWith(b, nil); got != want { // the scan of documents too long for the bitmap
			t.Fatalf("validWith(%q, nil) = %v, encoding/json.Valid = %v", b, got, want)
		}
	})
}

// BenchmarkValidJSON compares the syntax check with gjson.ValidBytes (BenchmarkValidBytes).
func BenchmarkValidJSON(b *testing.B) {
	for _, sz := range sizes {
		raw := podJSON(sz.containers)
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if !validJSON(raw) {
					b.Fatal("invalid")
				}
			}
		})
	}
	_ = gjson.Valid
}

// TestExtractRejectsDeepNesting: a deeply nested document is refused as malformed (as the
// apiserver's decoder refuses it) without recursing once per level.
func TestExtractRejectsDeepNesting(t *testing.T) {
	raw := []byte(`{"metadata":{"name":"p"},"spec":` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}`)
	if _, err := PodSchema().Extract(raw); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Extract: %v, want ErrMalformed", err)
	}
}

// TestMarkStringEnds: the bitmap marks exactly the bytes that end plain string content, none past
// the end, and nextStringEnd finds the same byte with and without it, from every index; lengths
// cover empty, partial, whole and several 64-byte chunks; every implementation of the marking the
// CPU can run.
func TestMarkStringEnds(t *testing.T) { withEachMarker(t, testMarkStringEnds) }

func testMarkStringEnds(t *testing.T) {
	alphabet := []byte{'a', '"', '\\', 0x00, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		for _, density := range []int{1, 10, 100} {
			b := make([]byte, n)
			for k := range b {
				b[k] = 'x'
				if rng.IntN(100) < density {
					b[k] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			ends := make([]uint64, (n+63)/64)
			for k := range ends {
				ends[k] = ^uint64(0) // every word must be written
			}
			nonASCII := markStringEnds(b, ends)
			if want := slices.ContainsFunc(b, func(c byte) bool { return c >= 0x80 }); nonASCII != want {
				t.Fatalf("n=%d: nonASCII = %v, want %v", n, nonASCII, want)
			}
			for k := range 64 * len(ends) {
				got := ends[k/64]>>(k%64)&1 == 1
				if want := k < n && isStringEnd(b[k]); got != want {
					t.Fatalf("n=%d: bit %d = %v, want %v (byte %#x)", n, k, got, want, b[min(k, n-1)])
				}
			}
			for i := 0; i <= n; i++ {
				want := i
				for want < n && !isStringEnd(b[want]) {
					want++
				}
				if got := nextStringEnd(b, ends, i); got != want {
					t.Fatalf("n=%d: nextStringEnd(with bitmap, %d) = %d, want %d", n, i, got, want)
				}
				if got := nextStringEnd(b, nil, i); got != want {
					t.Fatalf("n=%d: nextStringEnd(nil, %d) = %d, want %d", n, i, got, want)
				}
			}
		}
	}
}
