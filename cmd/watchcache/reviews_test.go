package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestServeReviews: serve's own cluster (the fake) answers the review APIs for the user serve's
// gate authenticated (kubectl auth whoami, auth can-i), and for the fake's admin without a gate.
func TestServeReviews(t *testing.T) {
	tokens := writeTemp(t, "tokens.csv", testTokens)
	gated, _ := startServe(t, append(tinyCluster, "--token-auth-file", tokens)...)
	open, _ := startServe(t, tinyCluster...)
	const (
		ssr  = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
		ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	)
	canList := `{"spec":{"resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}}}`
	for _, tc := range []struct {
		name, base, path, token, as, body string
		code                              int
		want                              string // a JSON path's value: status.userInfo or status.allowed
	}{
		{"gate user", gated, ssr, "user-token", "", `{}`, http.StatusCreated, `{"username":"jane","uid":"uid-jane","groups":["system:authenticated"]}`},
		{"gate admin", gated, ssr, "admin-token", "", `{}`, http.StatusCreated, `{"username":"admin","uid":"uid-admin","groups":["system:masters","system:authenticated"]}`},
		{"gate admin impersonating", gated, ssr, "admin-token", "alice", `{}`, http.StatusCreated, `{"username":"alice","groups":["system:authenticated"]}`},
		{"no credentials", gated, ssr, "", "", `{}`, http.StatusUnauthorized, ""},
		{"gate user can-i", gated, ssar, "user-token", "", canList, http.StatusCreated, `false`},
		{"gate admin can-i", gated, ssar, "admin-token", "", canList, http.StatusCreated, `true`},
		{"no gate", open, ssr, "", "", `{}`, http.StatusCreated, `{"username":"admin","uid":"admin-uid","groups":["system:masters","system:authenticated"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, tc.base+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			if tc.as != "" {
				req.Header.Set("Impersonate-User", tc.as)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out struct {
				Status struct {
					UserInfo json.RawMessage `json:"userInfo"`
					Allowed  *bool           `json:"allowed"`
				} `json:"status"`
			}
			if resp.StatusCode != tc.code {
				t.Fatalf("code %d, want %d", resp.StatusCode, tc.code)
			}
			if tc.want == "" {
				return
			}
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				t.Fatal(err)
			}
			got := string(out.Status.UserInfo)
			if out.Status.Allowed != nil {
				b, _ := json.Marshal(*out.Status.Allowed)
				got = string(b)
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
