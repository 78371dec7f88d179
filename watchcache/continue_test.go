package watchcache

import (
	"encoding/base64"
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

func FuzzDecodeContinue(f *testing.F) {
	f.Add("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjA4OSwic3RhcnQiOiIvbnMtMC9wb2QtMDAwMDIwXHUwMDAwIn0", "/")
	f.Add("not-a-valid-token", "/ns/")
	f.Add(rawURL.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":-1,"start":"/../x"}`)), "/ns/")
	f.Fuzz(func(t *testing.T, token, ns string) {
		prefix := "/"
		if ns != "" && !strings.ContainsAny(ns, "/%") {
			prefix = "/" + ns + "/"
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
	})
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
