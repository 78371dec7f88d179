package watchcache

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

var rawURL = base64.RawURLEncoding

// Rule 2.1/2.2: the token is byte-for-byte what kube-apiserver 1.37.2 emits from its cache
// (reference/observed-kube-apiserver.md, probe A).
func TestEncodeContinueMatchesApiserver(t *testing.T) {
	got := encodeContinue("/ns-0/pod-000020\x00", "/", 2089)
	const want = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjA4OSwic3RhcnQiOiIvbnMtMC9wb2QtMDAwMDIwXHUwMDAwIn0"
	if got != want {
		t.Fatalf("encodeContinue = %s, want %s", got, want)
	}
	// Namespaced list: the start is relative to /<ns>, keeping its leading slash.
	m := decodeToken(t, encodeContinue("/ns-0/pod-000020\x00", "/ns-0/", 7))
	if m["start"] != "/pod-000020\x00" || m["rv"] != float64(7) || m["v"] != "meta.k8s.io/v1" {
		t.Fatalf("namespaced token = %v", m)
	}
}

// TestAppendTokenMatchesJSON: the hand-written token JSON is encoding/json's, byte for byte, for
// every key it accepts, and it accepts the usual keys; keys it refuses still marshal through
// encoding/json (marshalToken).
func TestAppendTokenMatchesJSON(t *testing.T) {
	keys := []string{"", "\x00", "/", "/ns-0/pod-000020\x00", "/pod-000020\x00", "/a/b", "/a\x00b\x00", "/x\x00\x00",
		"/a<b\x00", "/a>b", "/a&b\x00", `/a"b`, `/a\b`, "/\x7f\x00", "/\x1f", "/é\x00", "/\u2028", "/\xff\x00", "/~ !#$%'()*+,-./:;=?@[]^_`{|}\x00"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(0x82))
		}
		keys = append(keys, string(b))
	}
	for _, key := range keys {
		for _, rv := range []int64{-1, 0, 1, 2089, math.MaxInt64, math.MinInt64} {
			want, err := json.Marshal(continueToken{APIVersion: tokenVersion, ResourceVersion: rv, StartKey: key})
			if err != nil {
				t.Fatal(err)
			}
			got, ok := appendToken(nil, key, rv)
			if ok && string(got) != string(want) {
				t.Fatalf("appendToken(%q, %d) = %s, encoding/json %s", key, rv, got, want)
			}
			if !ok && (key == "/a/b" || key == "/ns-0/pod-000020\x00") {
				t.Fatalf("appendToken(%q) refused a plain key", key)
			}
			if tok := marshalToken(key, rv); tok != rawURL.EncodeToString(want) {
				t.Fatalf("marshalToken(%q, %d) = %s, want %s", key, rv, tok, rawURL.EncodeToString(want))
			}
		}
	}
}

func TestDecodeContinue(t *testing.T) {
	enc := func(s string) string { return rawURL.EncodeToString([]byte(s)) }
	tests := []struct {
		name, token, prefix string
		wantKey             string
		wantRV              int64
		wantErr             string
	}{
		{"cache form (rule 2.2)", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjA4OSwic3RhcnQiOiIvbnMtMC9wb2QtMDAwMDIwXHUwMDAwIn0", "/", "/ns-0/pod-000020\x00", 2089, ""},
		{"etcd form without leading slash (rule 2.2)", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjEyNSwic3RhcnQiOiJucy0wL3BvZC0wMDAwMjBcdTAwMDAifQ", "/", "/ns-0/pod-000020\x00", 2125, ""},
		{"namespaced prefix", enc(`{"v":"meta.k8s.io/v1","rv":5,"start":"/p1\u0000"}`), "/ns/", "/ns/p1\x00", 5, ""},
		{"rv -1 is latest (rule 2.9)", enc(`{"v":"meta.k8s.io/v1","rv":-1,"start":"ns-0/a\u0000"}`), "/", "/ns-0/a\x00", -1, ""},
		{"bad base64 (rule 2.3)", "not-a-valid-token", "/", "", 0, "continue key is not valid: illegal base64 data at input byte 16"},
		{"no start (rule 2.3)", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NX0", "/", "", 0, "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"},
		{"rv 0 (rule 2.3)", enc(`{"v":"meta.k8s.io/v1","rv":0,"start":"a"}`), "/", "", 0, "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"},
		{"unknown version (rule 2.3)", enc(`{"v":"meta.k8s.io/v2","rv":3,"start":"a"}`), "/", "", 0, "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2"},
		{"not JSON", enc(`{"v":`), "/", "", 0, "continue key is not valid: unexpected end of JSON input"},
		{"path traversal (rule 2.3)", enc(`{"v":"meta.k8s.io/v1","rv":3,"start":"/../secrets/x"}`), "/ns/", "", 0, "continue key is not valid: /../secrets/x"},
		{"trailing slash is not clean", enc(`{"v":"meta.k8s.io/v1","rv":3,"start":"/a/"}`), "/", "", 0, "continue key is not valid: /a/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, rv, err := decodeContinue(tt.token, tt.prefix)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || key != tt.wantKey || rv != tt.wantRV {
				t.Fatalf("decode = %q, %d, %v; want %q, %d", key, rv, err, tt.wantKey, tt.wantRV)
			}
		})
	}
}

// FuzzDecodeContinue checks the decoder's invariants and that the canonical fast path agrees with
// encoding/json. The input is tried both as a token and as the JSON inside one, so that mutations
// reach the JSON grammar (a mutated base64 token is mostly undecodable).
func FuzzDecodeContinue(f *testing.F) {
	f.Add("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjA4OSwic3RhcnQiOiIvbnMtMC9wb2QtMDAwMDIwXHUwMDAwIn0", "/")
	f.Add("not-a-valid-token", "/ns/")
	f.Add(rawURL.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":-1,"start":"/../x"}`)), "/ns/")
	for _, tt := range decodeCases {
		f.Add(tt.json, "ns")
	}
	f.Fuzz(func(t *testing.T, token, ns string) {
		prefix := "/"
		if ns != "" && !strings.ContainsAny(ns, "/%") {
			prefix = "/" + ns + "/"
		}
		checkDecode(t, token, prefix)
		checkDecode(t, rawURL.EncodeToString([]byte(token)), prefix)
	})
}

func checkDecode(t *testing.T, token, prefix string) {
	t.Helper()
	if msg := diffDecoders(token, prefix); msg != "" {
		t.Fatalf("token %q prefix %q: %s", token, prefix, msg)
	}
	key, rv, err := decodeContinue(token, prefix)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "continue key is not valid") {
			t.Fatalf("error without the apiserver prefix: %v", err)
		}
		return
	}
	if rv == 0 || !strings.HasPrefix(key, prefix) {
		t.Fatalf("decoded key %q rv %d outside prefix %q", key, rv, prefix)
	}
	// Round trip: re-encoding the decoded key gives a token that decodes to the same key and RV.
	key2, rv2, err := decodeContinue(encodeContinue(key, prefix, rv), prefix)
	if err != nil || key2 != key || rv2 != rv {
		t.Fatalf("round trip: %q %d %v, want %q %d", key2, rv2, err, key, rv)
	}
}

// diffDecoders returns how decodeContinue and decodeCanonical disagree with decodeContinueJSON,
// the reference, on token, or "".
func diffDecoders(token, prefix string) string {
	wantKey, wantRV, wantErr := decodeContinueJSON(token, prefix)
	key, rv, err := decodeContinue(token, prefix)
	if key != wantKey || rv != wantRV || errText(err) != errText(wantErr) {
		return fmt.Sprintf("decodeContinue = %q, %d, %v; decodeContinueJSON = %q, %d, %v", key, rv, err, wantKey, wantRV, wantErr)
	}
	if key, rv, ok := decodeCanonical(token, prefix); ok && (wantErr != nil || key != wantKey || rv != wantRV) {
		return fmt.Sprintf("decodeCanonical = %q, %d; decodeContinueJSON = %q, %d, %v", key, rv, wantKey, wantRV, wantErr)
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// decodeCases are token payloads around the canonical encoding; fast says whether decodeCanonical
// decodes the token (the others fall back to encoding/json).
var decodeCases = []struct {
	name, json string
	fast       bool
}{
	// Canonical: what encodeContinue and the apiserver emit (rules 2.1, 2.2, 2.9).
	{"cache form", `{"v":"meta.k8s.io/v1","rv":2089,"start":"/ns-0/pod-000020\u0000"}`, true},
	{"etcd form", `{"v":"meta.k8s.io/v1","rv":2125,"start":"ns-0/pod-000020\u0000"}`, true},
	{"rv -1", `{"v":"meta.k8s.io/v1","rv":-1,"start":"ns-0/a\u0000"}`, true},
	{"rv 1", `{"v":"meta.k8s.io/v1","rv":1,"start":"a"}`, true},
	{"rv 18 digits", `{"v":"meta.k8s.io/v1","rv":999999999999999999,"start":"a"}`, true},
	{"rv -18 digits", `{"v":"meta.k8s.io/v1","rv":-999999999999999999,"start":"a"}`, true},
	{"start root", `{"v":"meta.k8s.io/v1","rv":3,"start":"/"}`, true},
	{"start NUL", `{"v":"meta.k8s.io/v1","rv":3,"start":"\u0000"}`, true},
	{"start NUL after slash", `{"v":"meta.k8s.io/v1","rv":3,"start":"/\u0000"}`, true},
	{"html escapes", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\u003cb\u003e\u0026c\u0000"}`, true},
	{"upper-case hex escape", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\u003Cb\u001F"}`, true},
	{"escaped leading slash", `{"v":"meta.k8s.io/v1","rv":3,"start":"\u002fa"}`, true},
	{"escaped quote and backslash", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\u0022\u005c"}`, true},
	{"dots inside names", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a.b/..c/d..\u0000"}`, true},
	{"printable ASCII", `{"v":"meta.k8s.io/v1","rv":3,"start":"/ !#$%&'()*+,-.0:;<=>?@AZ[]^_` + "`" + `az{|}~"}`, true},
	{"long start", `{"v":"meta.k8s.io/v1","rv":3,"start":"/kube-system/` + strings.Repeat("p", 300) + `\u0000"}`, true},

	// rv rules (rule 2.3).
	{"rv 0", `{"v":"meta.k8s.io/v1","rv":0,"start":"a"}`, false},
	{"rv -0", `{"v":"meta.k8s.io/v1","rv":-0,"start":"a"}`, false},
	{"rv leading zero", `{"v":"meta.k8s.io/v1","rv":01,"start":"a"}`, false},
	{"rv plus", `{"v":"meta.k8s.io/v1","rv":+1,"start":"a"}`, false},
	{"rv minus only", `{"v":"meta.k8s.io/v1","rv":-,"start":"a"}`, false},
	{"rv max int64", `{"v":"meta.k8s.io/v1","rv":9223372036854775807,"start":"a"}`, false},
	{"rv min int64", `{"v":"meta.k8s.io/v1","rv":-9223372036854775808,"start":"a"}`, false},
	{"rv overflow", `{"v":"meta.k8s.io/v1","rv":9223372036854775808,"start":"a"}`, false},
	{"rv 19 digits", `{"v":"meta.k8s.io/v1","rv":1000000000000000000,"start":"a"}`, false},
	{"rv fraction", `{"v":"meta.k8s.io/v1","rv":1.0,"start":"a"}`, false},
	{"rv exponent", `{"v":"meta.k8s.io/v1","rv":1e3,"start":"a"}`, false},
	{"rv string", `{"v":"meta.k8s.io/v1","rv":"5","start":"a"}`, false},
	{"rv null", `{"v":"meta.k8s.io/v1","rv":null,"start":"a"}`, false},
	{"rv missing", `{"v":"meta.k8s.io/v1","start":"a"}`, false},

	// start rules (rule 2.3).
	{"start empty", `{"v":"meta.k8s.io/v1","rv":3,"start":""}`, false},
	{"start missing", `{"v":"meta.k8s.io/v1","rv":3}`, false},
	{"start null", `{"v":"meta.k8s.io/v1","rv":3,"start":null}`, false},
	{"start number", `{"v":"meta.k8s.io/v1","rv":3,"start":5}`, false},
	{"traversal", `{"v":"meta.k8s.io/v1","rv":3,"start":"/../secrets/x"}`, false},
	{"traversal etcd form", `{"v":"meta.k8s.io/v1","rv":3,"start":"../x"}`, false},
	{"traversal inside", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a/../b"}`, false},
	{"traversal at end", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a/.."}`, false},
	{"escaped traversal", `{"v":"meta.k8s.io/v1","rv":3,"start":"\u002f..\u002fx"}`, false},
	{"dot", `{"v":"meta.k8s.io/v1","rv":3,"start":"./a"}`, false},
	{"dot at end", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a/."}`, false},
	{"double slash", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a//b"}`, false},
	{"leading double slash", `{"v":"meta.k8s.io/v1","rv":3,"start":"//a"}`, false},
	{"trailing slash", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a/"}`, false},

	// Escapes and bytes the fast path leaves to encoding/json.
	{"short escapes", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\n\t\"\\\/b"}`, false},
	{"escaped slash", `{"v":"meta.k8s.io/v1","rv":3,"start":"\/a"}`, false},
	{"non-ASCII escape", `{"v":"meta.k8s.io/v1","rv":3,"start":"/caf\u00e9"}`, false},
	{"escape 0x80", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\u0080"}`, false},
	{"surrogate pair", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\ud83d\ude00"}`, false},
	{"lone surrogate", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\ud800"}`, false},
	{"truncated escape", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\u00"}`, false},
	{"bad hex escape", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\u00zz"}`, false},
	{"invalid escape", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\x41"}`, false},
	{"backslash at end", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a\"}`, false},
	{"raw UTF-8", `{"v":"meta.k8s.io/v1","rv":3,"start":"/café/日本"}`, false},
	{"raw invalid UTF-8", "{\"v\":\"meta.k8s.io/v1\",\"rv\":3,\"start\":\"/a\xff\xfe\"}", false},
	{"raw NUL", "{\"v\":\"meta.k8s.io/v1\",\"rv\":3,\"start\":\"/a\x00\"}", false},
	{"raw tab", "{\"v\":\"meta.k8s.io/v1\",\"rv\":3,\"start\":\"/a\tb\"}", false},
	{"raw DEL", "{\"v\":\"meta.k8s.io/v1\",\"rv\":3,\"start\":\"/a\x7fb\"}", false},
	{"quote inside", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a"b"}`, false},
	{"unterminated start", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a}`, false},

	// Layout: whitespace, order, duplicates, unknown fields, key case, trailing bytes.
	{"spaces", `{ "v": "meta.k8s.io/v1", "rv": 3, "start": "/a" }`, false},
	{"space before rv", `{"v":"meta.k8s.io/v1","rv": 3,"start":"/a"}`, false},
	{"trailing space", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a"} `, false},
	{"trailing newline", "{\"v\":\"meta.k8s.io/v1\",\"rv\":3,\"start\":\"/a\"}\n", false},
	{"leading space", ` {"v":"meta.k8s.io/v1","rv":3,"start":"/a"}`, false},
	{"other order", `{"rv":3,"start":"/a","v":"meta.k8s.io/v1"}`, false},
	{"duplicate rv", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a","rv":7}`, false},
	{"duplicate rv to 0", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a","rv":0}`, false},
	{"duplicate start", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a","start":"/b"}`, false},
	{"duplicate start to traversal", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a","start":"/.."}`, false},
	{"duplicate v", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a","v":"x"}`, false},
	{"unknown field", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a","x":1}`, false},
	{"upper-case keys", `{"V":"meta.k8s.io/v1","RV":3,"Start":"/a"}`, false},
	{"trailing brace", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a"}}`, false},
	{"trailing garbage", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a"}x`, false},
	{"no closing brace", `{"v":"meta.k8s.io/v1","rv":3,"start":"/a"`, false},
	{"head only", `{"v":"meta.k8s.io/v1","rv":`, false},
	{"empty object", `{}`, false},
	{"null", `null`, false},
	{"array", `[]`, false},
	{"empty", ``, false},

	// Version (rule 2.3).
	{"version v2", `{"v":"meta.k8s.io/v2","rv":3,"start":"/a"}`, false},
	{"version empty", `{"v":"","rv":3,"start":"/a"}`, false},
	{"version missing", `{"rv":3,"start":"/a"}`, false},
	{"version escaped", `{"v":"meta.k8s.io\/v1","rv":3,"start":"/a"}`, false},
	{"version number", `{"v":1,"rv":3,"start":"/a"}`, false},
}

// The canonical fast path decodes exactly what encoding/json decodes, with the same errors, and
// handles the tokens this cache and the apiserver emit.
func TestDecodeCanonicalMatchesJSON(t *testing.T) {
	prefixes := []string{"/", "/ns/", "/registry/pods/", "/ns", ""}
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			token := rawURL.EncodeToString([]byte(tt.json))
			for _, prefix := range prefixes {
				if msg := diffDecoders(token, prefix); msg != "" {
					t.Errorf("prefix %q: %s", prefix, msg)
				}
			}
			if _, _, ok := decodeCanonical(token, "/ns/"); ok != tt.fast {
				_, _, err := decodeContinueJSON(token, "/ns/")
				t.Errorf("decodeCanonical ok = %v, want %v (decodeContinueJSON error: %v)", ok, tt.fast, err)
			}
		})
	}
}

// Base64 the fast path must read as encoding/base64 does: RawURLEncoding skips '\r' and '\n'
// and accepts non-zero trailing bits.
func TestDecodeCanonicalBase64(t *testing.T) {
	const canon = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjA4OSwic3RhcnQiOiIvbnMtMC9wb2QtMDAwMDIwXHUwMDAwIn0"
	a := rawURL.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":3,"start":"/a"}`)) // 44 bytes: ends in a 2-byte group
	for _, tok := range []string{
		canon,
		canon[:40] + "\n" + canon[40:],
		canon[:40] + "\r\n" + canon[40:] + "\n",
		canon[:20] + "\n" + canon[20:],
		canon + "=",
		canon + "A",
		canon[:len(canon)-1],
		strings.ReplaceAll(canon, "_", "/"),
		a,
		a[:len(a)-1] + "B", // non-zero trailing bits
		a[:len(a)-1] + "+",
		"", "=", "e", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6",
	} {
		if msg := diffDecoders(tok, "/"); msg != "" {
			t.Errorf("%s", msg)
		}
	}
	if _, _, ok := decodeCanonical(canon[:40]+"\n"+canon[40:], "/"); !ok {
		t.Errorf("decodeCanonical does not skip a newline as encoding/base64 does")
	}
}

// Property: every token encodeContinue emits for a key of printable ASCII and NUL takes the fast
// path; for any key, fast and JSON paths agree.
func TestDecodeCanonicalRandomKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const ascii, other = "ab-./\x00", "<>&\"\\\x01\x7fé\xff"
	for range 20000 {
		alphabet := ascii
		if r.IntN(4) == 0 {
			alphabet += other
		}
		b := make([]byte, 1+r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		prefix := []string{"/", "/ns-0/"}[r.IntN(2)]
		key := prefix + string(b)
		rv := int64(r.IntN(1<<20)) + 1
		if r.IntN(3) == 0 {
			rv = -1
		}
		for _, tok := range []string{encodeContinue(key, prefix, rv), encodeContinueEtcdForm(key, prefix, rv)} {
			if msg := diffDecoders(tok, prefix); msg != "" {
				t.Fatalf("key %q: %s", key, msg)
			}
			_, _, ok := decodeCanonical(tok, prefix)
			_, _, err := decodeContinueJSON(tok, prefix)
			if fast := err == nil && !strings.ContainsAny(string(b), other); fast && !ok {
				t.Fatalf("key %q: decodeCanonical declined a canonical token", key)
			}
		}
	}
}

// The 410's rv -1 token is in the etcd form (rule 2.9), except for a start at the list root, whose
// etcd form would be empty and undecodable (found by FuzzContinueToken).
func TestEtcdFormTokenAtRoot(t *testing.T) {
	for _, tt := range []struct{ key, prefix, start string }{
		{"/a/p1\x00", "/a/", "p1\x00"},
		{"/a/", "/a/", "/"},
	} {
		m := decodeToken(t, encodeContinueEtcdForm(tt.key, tt.prefix, -1))
		if m["start"] != tt.start {
			t.Errorf("start of %q in %q = %q, want %q", tt.key, tt.prefix, m["start"], tt.start)
		}
		if _, _, err := decodeContinue(encodeContinueEtcdForm(tt.key, tt.prefix, -1), tt.prefix); err != nil {
			t.Errorf("token for %q does not decode: %v", tt.key, err)
		}
	}
}

// BenchmarkDecodeContinue: one token per list page. typical is what List emits for an
// all-namespaces pod list; long has a 253-byte name (the longest a Kubernetes name may be), whose
// decoded tail outgrows canonicalBuf; json is typical with a space, which takes encoding/json.
func BenchmarkDecodeContinue(b *testing.B) {
	for _, bc := range []struct{ name, token string }{
		{"typical", encodeContinue("/ns-0/pod-000020\x00", "/", 2089)},
		{"long", encodeContinue("/kube-system/"+strings.Repeat("p", 253)+"\x00", "/", 2089)},
		{"json", rawURL.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv": 2089,"start":"/ns-0/pod-000020\u0000"}`))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := decodeContinue(bc.token, "/"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cleanRooted is path.Clean(p) == p for rooted paths.
func TestCleanRootedMatchesPathClean(t *testing.T) {
	for _, p := range []string{"/", "//", "/a", "/a/", "/a//b", "/./a", "/a/.", "/a/..", "/../a", "/.a", "/a..", "/a/.b/c",
		"/..", "/.", "/ns/pod\x00", "/ns/../x\x00", "/ns/./x", "/ns//x\x00", "/ns/x/", "/a/b/c/d"} {
		if got, want := cleanRooted(p), path.Clean(p) == p; got != want {
			t.Errorf("cleanRooted(%q) = %v, path.Clean says %v", p, got, want)
		}
	}
}

func FuzzCleanRooted(f *testing.F) {
	for _, p := range []string{"/", "/a/b", "/a/../b", "/a//b/", "/./\x00"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		p = "/" + p
		if got, want := cleanRooted(p), path.Clean(p) == p; got != want {
			t.Errorf("cleanRooted(%q) = %v, path.Clean says %v", p, got, want)
		}
	})
}

// TestDecodesToAgreesWithDecode: the memo answers a token only where decoding it gives the same
// start and RV (decodesTo), for start keys built from the characters that make the decoder refuse
// or escape (empty and dot segments, NUL, quotes, non-ASCII), under the root and a namespace.
func TestDecodesToAgreesWithDecode(t *testing.T) {
	alphabet := []string{"a", "/", ".", "..", "-", "\x00", `"`, `\`, "é", "<"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		for _, prefix := range []string{"/", "/ns/"} {
			tok := issuedToken{prefix: prefix, start: prefix + b.String() + "\x00", rv: int64(rng.IntN(3))}
			start, rv, err := decodeContinue(encodeContinue(tok.start, prefix, tok.rv), prefix)
			decodes := err == nil && start == tok.start && rv == tok.rv
			if decodesTo(tok) && !decodes {
				t.Fatalf("decodesTo(%q at %d under %q) but decoding gives %q, %d, %v", tok.start, tok.rv, prefix, start, rv, err)
			}
		}
	}
}

// TestTokenMemo: a remembered token answers only for the prefix it was issued for, with the view
// its page read; the same token issued again from the same view keeps its record, from another
// view (its own reclaimed, say) takes the new one; a token issued into the same slot replaces it,
// and clear forgets every token.
func TestTokenMemo(t *testing.T) {
	var m tokenMemo
	snap, snap2 := &snapshot{pin: &pin{}}, &snapshot{pin: &pin{}}
	same := func(a, b issuedToken) bool {
		return a.prefix == b.prefix && a.start == b.start && a.rv == b.rv && a.remaining == b.remaining
	}
	first := issuedToken{prefix: "/a/", start: "/a/p\x00", rv: 7, remaining: 3}
	m.add("t0", first, snap)
	got, ok := m.lookup("t0", "/a/")
	if !ok || !same(got, first) {
		t.Fatalf("lookup(t0, /a/) = %+v, %v; want %+v", got, ok, first)
	}
	if v := got.enter(); v != view(snap) {
		t.Fatalf("the remembered token's view: %v, want %v", v, snap)
	} else {
		v.leave()
	}
	if _, ok := m.lookup("t0", "/b/"); ok {
		t.Fatal("a token issued for /a/ answered for /b/")
	}
	if _, ok := m.lookup("t1", "/a/"); ok {
		t.Fatal("a token never issued answered")
	}
	m.add("t0", issuedToken{prefix: "/a/", start: "/a/other\x00", rv: 7}, snap)
	if got, _ := m.lookup("t0", "/a/"); !same(got, first) {
		t.Fatalf("the same token issued again: %+v, want the first record %+v", got, first)
	}
	m.add("t0", first, snap2)
	if got, _ := m.lookup("t0", "/a/"); got.snap.Value() != snap2 {
		t.Fatal("the same token issued from another view kept the first view")
	}
	snap2.pin.dead.Store(true)
	if got, _ := m.lookup("t0", "/a/"); got.enter() != nil {
		t.Fatal("a token whose view the window evicted entered it")
	}
	other := ""
	for i := 1; other == ""; i++ {
		if tok := fmt.Sprint("t", i); m.slot(tok) == m.slot("t0") {
			other = tok
		}
	}
	m.add(other, issuedToken{prefix: "/a/", start: "/a/q\x00", rv: 8}, snap)
	if _, ok := m.lookup("t0", "/a/"); ok {
		t.Fatalf("t0 is still remembered after %s took its slot", other)
	}
	if got, ok := m.lookup(other, "/a/"); !ok || got.rv != 8 {
		t.Fatalf("%s: %+v, %v", other, got, ok)
	}
	m.clear()
	if _, ok := m.lookup(other, "/a/"); ok {
		t.Fatalf("%s is remembered after clear", other)
	}
	runtime.KeepAlive(snap)
	runtime.KeepAlive(snap2)
}

// TestRememberedTokenOtherNamespace: a token issued for one namespace's list, sent with another
// namespace, is decoded for that namespace as the apiserver decodes it (its start is relative to
// the list's root), not answered from the memo.
func TestRememberedTokenOtherNamespace(t *testing.T) {
	c := newPodCache(t)
	var objs [][]byte
	for _, ns := range []string{"a", "b"} {
		for i := range 4 {
			objs = append(objs, pod(ns, fmt.Sprint("p", i), "", "", 0))
		}
	}
	if err := c.Replace(objs, 10); err != nil {
		t.Fatal(err)
	}
	first := mustList(t, c, ListOptions{Namespace: "a", Limit: 2})
	res := mustList(t, c, ListOptions{Namespace: "b", Limit: 2, Continue: first.Continue})
	if got, want := names(res.Items), []string{"b/p2", "b/p3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("namespace b from a's token: %v, want %v", got, want)
	}
}
