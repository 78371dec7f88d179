package gate

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorded is reference/observed-authn.md's recording.
type recorded struct {
	Requests []struct {
		Name, Path, User, ContentType, Body string
		Code                                int
	}
}

func loadRecording(t *testing.T) recorded {
	t.Helper()
	data, err := os.ReadFile("../../testdata/oracle-authn.json")
	if err != nil {
		t.Fatal(err)
	}
	var r recorded
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// oracleUsers are the recording's users as a token file: alice and bob with their service
// accounts' names and groups, and an admin in system:masters.
const oracleUsers = `token-alice,system:serviceaccount:default:alice,uid-alice,"system:serviceaccounts,system:serviceaccounts:default"
token-bob,system:serviceaccount:default:bob,uid-bob,"system:serviceaccounts,system:serviceaccounts:default"
token-admin,admin,uid-admin,"system:masters"
`

// bobReadsPods is the recording's RBAC as an ABAC policy: bob may get, list and watch pods in
// default.
const bobReadsPods = `# bob's Role pod-reader
{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"system:serviceaccount:default:bob","namespace":"default","resource":"pods","apiGroup":"","readonly":true}}
`

func passThrough() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("served")) })
}

// TestOracleBodies replays the oracle's 401 and 403 answers (reference/observed-authn.md): the same
// requests by the same users get byte-identical bodies, and those the oracle let through reach the
// handler. The oracle's anonymous user is forbidden there (403); the gate has none, so an anonymous
// request gets the oracle's 401 of a bad token.
func TestOracleBodies(t *testing.T) {
	rec := loadRecording(t)
	g, err := New(Config{TokenAuthFile: writeFile(t, "tokens.csv", oracleUsers), AuthorizationPolicyFile: writeFile(t, "policy.jsonl", bobReadsPods)})
	if err != nil {
		t.Fatal(err)
	}
	h := WithRequestInfo(g.Handler(passThrough()))
	var unauthorized string
	for _, r := range rec.Requests {
		if r.Code == 401 {
			unauthorized = r.Body
		}
	}
	tokens := map[string]string{
		"system:serviceaccount:default:alice": "token-alice",
		"system:serviceaccount:default:bob":   "token-bob",
		"":                                    "not-a-token",
	}
	n := 0
	for _, r := range rec.Requests {
		if strings.HasPrefix(r.Path, "/healthz") {
			continue // open in serve, outside the gate
		}
		n++
		t.Run(r.Name, func(t *testing.T) {
			req := httptest.NewRequest("GET", r.Path, nil)
			req.Header.Set("User-Agent", "watchcache-recorder/1.0")
			wantCode, wantBody, wantType := r.Code, r.Body, r.ContentType
			if r.User == "system:anonymous" {
				wantCode, wantBody, wantType = 401, unauthorized, "application/json"
			} else {
				req.Header.Set("Authorization", "Bearer "+tokens[r.User])
			}
			if wantCode != 401 && wantCode != 403 {
				wantCode, wantBody, wantType = 200, "served", "text/plain; charset=utf-8"
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != wantCode || w.Body.String() != wantBody || w.Header().Get("Content-Type") != wantType {
				t.Errorf("got %d %q %s\nwant %d %q %s", w.Code, w.Header().Get("Content-Type"), w.Body, wantCode, wantType, wantBody)
			}
			if w.Header().Get("WWW-Authenticate") != "" {
				t.Errorf("WWW-Authenticate: %q; the oracle sends none", w.Header().Get("WWW-Authenticate"))
			}
		})
	}
	if n < 10 {
		t.Fatalf("replayed %d requests; the recording has more", n)
	}
}

// TestGateConfig checks what New accepts and refuses.
func TestGateConfig(t *testing.T) {
	tokens := writeFile(t, "tokens.csv", oracleUsers)
	policy := writeFile(t, "policy.jsonl", bobReadsPods)
	for _, tc := range []struct {
		name            string
		cfg             Config
		wantErr         string
		enabled, authzs bool
	}{
		{"nothing", Config{}, "", false, false},
		{"tokens", Config{TokenAuthFile: tokens}, "", true, false},
		{"tokens and policy", Config{TokenAuthFile: tokens, AuthorizationPolicyFile: policy}, "", true, true},
		{"policy alone", Config{AuthorizationPolicyFile: policy}, "an authorizer needs an authenticator", false, false},
		{"missing token file", Config{TokenAuthFile: "/nonexistent"}, "--token-auth-file", false, false},
		{"bad CA", Config{ClientCAFile: tokens}, "--client-ca-file", false, false},
		{"two authorizers", Config{TokenAuthFile: tokens, AuthorizationPolicyFile: policy, AuthorizationKubeconfig: "/x"}, "two authorizers", false, false},
		{"bad kubeconfig", Config{AuthenticationKubeconfig: "/nonexistent"}, "--authentication-kubeconfig", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := New(tc.cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Enabled() != tc.enabled || g.Authorizes() != tc.authzs {
				t.Fatalf("Enabled %v Authorizes %v", g.Enabled(), g.Authorizes())
			}
		})
	}
}

// TestMastersAlwaysAllowed: system:masters passes a policy that names nobody in it.
func TestMastersAlwaysAllowed(t *testing.T) {
	g, err := New(Config{TokenAuthFile: writeFile(t, "tokens.csv", oracleUsers), AuthorizationPolicyFile: writeFile(t, "policy.jsonl", bobReadsPods)})
	if err != nil {
		t.Fatal(err)
	}
	h := WithRequestInfo(g.Handler(passThrough()))
	req := httptest.NewRequest("DELETE", "/api/v1/namespaces/kube-system/secrets/x", nil)
	req.Header.Set("Authorization", "Bearer token-admin")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 200 {
		t.Fatalf("admin: %d %s", w.Code, w.Body)
	}
}
