package main

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestOracleDelegatedAuth: serve with --authentication-kubeconfig and --authorization-kubeconfig
// pointing at a kube-apiserver 1.37.2 running RBAC (reference/observed-authn.md says how to start
// it) answers each request as the apiserver does: the same status, and for 401 and 403 the same
// body byte for byte. Users are service accounts the test creates: one without any role and one
// that may read pods in default; their tokens go through the cluster's TokenReview, their requests
// through its SubjectAccessReview. A request without credentials gets serve's 401 (it has no
// anonymous user), whose body is the apiserver's 401. serve --kubeconfig without those flags
// answers the same: it delegates to the cluster it serves by itself. Run with WATCHCACHE_ORACLE_ENV=$ORACLE_WORK/run/env.
func TestOracleDelegatedAuth(t *testing.T) {
	env := oracleEnv(t)
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer insecure.CloseIdleConnections()
	k := &kas{url: env["KAS_URL"], token: env["TOKEN"], c: insecure}
	if code, body := k.do(t, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles", nil); code != 200 {
		t.Skipf("the oracle does not serve RBAC (%d %.100s): start it with --authorization-mode=Node,RBAC", code, body)
	}
	if code, _ := (&kas{url: env["KAS_URL"], token: "not-a-token", c: insecure}).do(t, "GET", "/api/v1/namespaces/default/pods", nil); code != 401 {
		t.Fatalf("oracle: a bad token got %d", code)
	}
	sa := "/api/v1/namespaces/default/serviceaccounts"
	k.create(t, sa, map[string]any{"metadata": map[string]any{"name": "wc-nobody"}})
	k.create(t, sa, map[string]any{"metadata": map[string]any{"name": "wc-reader"}})
	k.create(t, "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", map[string]any{
		"metadata": map[string]any{"name": "wc-pod-reader"},
		"rules":    []any{map[string]any{"apiGroups": []string{""}, "resources": []string{"pods"}, "verbs": []string{"get", "list", "watch"}}},
	})
	k.create(t, "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", map[string]any{
		"metadata": map[string]any{"name": "wc-reader-reads-pods"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "wc-pod-reader"},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "wc-reader", "namespace": "default"}},
	})
	token := func(name string) string {
		code, body := k.do(t, "POST", sa+"/"+name+"/token", map[string]any{"spec": map[string]any{"expirationSeconds": 3600}})
		var tr struct{ Status struct{ Token string } }
		if code != 201 || json.Unmarshal(body, &tr) != nil || tr.Status.Token == "" {
			t.Fatalf("token for %s: %d %s", name, code, body)
		}
		return tr.Status.Token
	}
	nobody, reader := token("wc-nobody"), token("wc-reader")
	// An oracle started with --authorization-mode=AlwaysAllow serves RBAC's objects too, but
	// lets every user read everything: the comparison needs one that refuses.
	if code, _ := (&kas{url: env["KAS_URL"], token: nobody, c: insecure}).do(t, "GET", "/api/v1/namespaces/default/pods", nil); code != 403 {
		t.Skipf("the oracle lets a user without roles list pods (%d): start it with --authorization-mode=Node,RBAC", code)
	}

	// serve with the review flags, on a generated cluster, and serve --kubeconfig alone, which
	// delegates to the cluster it serves by itself.
	explicit, _ := startServe(t, "--pods", "20", "--nodes", "2", "--namespaces", "2", "--churn", "0",
		"--authentication-kubeconfig", env["KUBECONFIG"], "--authorization-kubeconfig", env["KUBECONFIG"])
	delegating, _ := startServe(t, "--kubeconfig", env["KUBECONFIG"], "--resources", "pods,nodes,deployments")
	local := &http.Client{}
	defer local.CloseIdleConnections()
	send := func(c *http.Client, base, path, token string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", "watchcache-test")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == 200 {
			return 200, "" // the content differs: serve holds a generated cluster
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct {
		name, path, token string
		oracleToken       string // the request sent to the oracle, when not the same
		code              int
	}{
		{"no credentials", "/api/v1/namespaces/default/pods", "", "not-a-token", 401},
		{"bad token", "/api/v1/namespaces/default/pods", "not-a-token", "", 401},
		{"no role: list", "/api/v1/namespaces/default/pods", nobody, "", 403},
		{"no role: get", "/api/v1/namespaces/default/pods/web-0", nobody, "", 403},
		{"no role: watch", "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1", nobody, "", 403},
		{"no role: list all namespaces", "/api/v1/pods", nobody, "", 403},
		{"no role: deployments", "/apis/apps/v1/namespaces/default/deployments", nobody, "", 403},
		{"reader: list", "/api/v1/namespaces/default/pods", reader, "", 200},
		{"reader: watch", "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1", reader, "", 200},
		{"reader: list all namespaces", "/api/v1/pods", reader, "", 403},
		{"reader: nodes", "/api/v1/nodes", reader, "", 403},
		{"admin (system:masters)", "/api/v1/nodes", env["TOKEN"], "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ot := tc.token
			if tc.oracleToken != "" {
				ot = tc.oracleToken
			}
			oc, ob := send(insecure, env["KAS_URL"], tc.path, ot)
			for mode, url := range map[string]string{"review flags": explicit, "--kubeconfig alone": delegating} {
				sc, sb := send(local, url, tc.path, tc.token)
				if oc != tc.code || sc != tc.code || sb != ob {
					t.Errorf("%s:\noracle %d %s\nserve  %d %s\nwant %d, the same bodies", mode, oc, ob, sc, sb, tc.code)
				}
			}
		})
	}
}
