package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"

	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// reviewingCluster is a cluster for serve --kubeconfig: a kubeapi server holding pods and nodes,
// behind the two review APIs a delegating server asks. The token "jane-token" is the user jane,
// who may list and get pods and nothing else; every other token is refused. It counts the reviews
// it answers.
type reviewingCluster struct {
	api                 *kubeapi.Server
	tokenReviews, sars  atomic.Int64
	lastSARUser         atomic.Value // string
	lastSARResourceVerb atomic.Value // string: "verb resource"
}

func (c *reviewingCluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == "POST" && r.URL.Path == "/apis/authentication.k8s.io/v1/tokenreviews":
		c.tokenReviews.Add(1)
		var tr authnv1.TokenReview
		if err := json.NewDecoder(r.Body).Decode(&tr); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if tr.Spec.Token == "jane-token" {
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "jane", UID: "uid-jane", Groups: []string{"developers"}}}
		}
		writeReview(w, &tr)
	case r.Method == "POST" && r.URL.Path == "/apis/authorization.k8s.io/v1/subjectaccessreviews":
		c.sars.Add(1)
		var sar authzv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&sar); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ra := sar.Spec.ResourceAttributes
		c.lastSARUser.Store(sar.Spec.User)
		if ra != nil {
			c.lastSARResourceVerb.Store(ra.Verb + " " + ra.Resource)
		}
		sar.Status.Allowed = sar.Spec.User == "jane" && ra != nil && ra.Resource == "pods" && (ra.Verb == "list" || ra.Verb == "get")
		writeReview(w, &sar)
	default:
		c.api.ServeHTTP(w, r)
	}
}

func writeReview(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// startReviewingCluster serves a reviewingCluster and returns it with a kubeconfig for it.
func startReviewingCluster(t *testing.T) (*reviewingCluster, string) {
	t.Helper()
	c := &reviewingCluster{api: kubeapi.NewServer(kubeapi.Options{})}
	pods := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	nodes := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "nodes"}})
	for _, r := range []struct {
		name string
		c    *watchcache.Cache
	}{{"pods", pods}, {"nodes", nodes}} {
		info, _ := kubeapi.CoreResource(r.name)
		if err := c.api.Register(info, r.c); err != nil {
			t.Fatal(err)
		}
	}
	if err := pods.Replace([][]byte{[]byte(podJSON("ns-a", "p1", "node-1"))}, 10); err != nil {
		t.Fatal(err)
	}
	if err := nodes.Replace([][]byte{[]byte(`{"kind":"Node","apiVersion":"v1","metadata":{"name":"node-1"}}`)}, 10); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(c)
	t.Cleanup(hs.Close)
	t.Cleanup(pods.Stop)
	t.Cleanup(nodes.Stop)
	return c, writeKubeconfig(t, hs.URL)
}

// TestServeKubeconfigDelegatesAuth: serve --kubeconfig asks the cluster it serves who a bearer
// token is (TokenReview) and whether the user may make the request (SubjectAccessReview), with no
// flag, as an aggregated apiserver delegates to the kube-apiserver: a request without a token or
// with a token the cluster refuses gets the apiserver's 401, a user the cluster does not allow
// the apiserver's 403, an allowed one the data. --delegated-auth=false serves without credentials
// (on loopback only), and the generated cluster stays without them.
func TestServeKubeconfigDelegatesAuth(t *testing.T) {
	cluster, kubeconfig := startReviewingCluster(t)
	base, _ := startServe(t, "--kubeconfig", kubeconfig)
	c := &http.Client{}
	defer c.CloseIdleConnections()
	const unauthorized = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`
	for _, tc := range []struct {
		name, path, token string
		code              int
		body              string // the whole body, or for 200 a part of it
	}{
		{"no credentials", "/api/v1/pods", "", 401, unauthorized},
		{"a token the cluster refuses", "/api/v1/pods", "not-a-token", 401, unauthorized},
		{"allowed", "/api/v1/pods", "jane-token", 200, `"name":"p1"`},
		{"allowed get", "/api/v1/namespaces/ns-a/pods/p1", "jane-token", 200, `"name":"p1"`},
		{"not allowed", "/api/v1/nodes", "jane-token", 403,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes is forbidden: User \"jane\" cannot list resource \"nodes\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"nodes"},"code":403}`},
		{"probes need none", "/readyz", "", 200, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := get(t, c, base+tc.path, tc.token)
			body = strings.TrimSpace(body)
			if code != tc.code || (code == 200 && !strings.Contains(body, tc.body)) || (code != 200 && body != tc.body) {
				t.Errorf("GET %s: %d %s\nwant %d %s", tc.path, code, body, tc.code, tc.body)
			}
		})
	}
	if cluster.tokenReviews.Load() == 0 || cluster.sars.Load() == 0 {
		t.Errorf("reviews asked: %d TokenReviews, %d SubjectAccessReviews; want both", cluster.tokenReviews.Load(), cluster.sars.Load())
	}
	if u, _ := cluster.lastSARUser.Load().(string); u != "jane" {
		t.Errorf("the last SubjectAccessReview was for %q, want jane", u)
	}

	// The explicit opt-out: serve answers without credentials, asking nothing.
	before := cluster.tokenReviews.Load() + cluster.sars.Load()
	open, _ := startServe(t, "--kubeconfig", kubeconfig, "--delegated-auth=false")
	if code, _, body := get(t, c, open+"/api/v1/nodes", ""); code != 200 || !strings.Contains(body, `"name":"node-1"`) {
		t.Errorf("--delegated-auth=false: GET /api/v1/nodes without credentials: %d %.200s", code, body)
	}
	if after := cluster.tokenReviews.Load() + cluster.sars.Load(); after != before {
		t.Errorf("--delegated-auth=false asked the cluster %d reviews", after-before)
	}

	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"opt-out off loopback", []string{"--listen", "0.0.0.0:0", "--tls-self-signed", "--kubeconfig", kubeconfig, "--delegated-auth=false"}, "give an authenticator"},
		{"without a cluster", append([]string{"--listen", "127.0.0.1:0", "--delegated-auth=false"}, tinyCluster...), "--delegated-auth needs --kubeconfig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(t.Context(), append([]string{"serve"}, tc.args...), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("serve %q: %v, want an error with %q", tc.args, err, tc.err)
			}
		})
	}

	// The generated cluster has no cluster to ask: it still serves without credentials.
	gen, _ := startServe(t, tinyCluster...)
	if code, _, _ := get(t, c, gen+"/api/v1/pods", ""); code != 200 {
		t.Errorf("generated cluster without credentials: %d", code)
	}
}
