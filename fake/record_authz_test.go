package fake_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Paths of the review APIs.
const (
	ssrPath  = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	trPath   = "/apis/authentication.k8s.io/v1/tokenreviews"
	ssarPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	sarPath  = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	ssrrPath = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	lsarPath = "/apis/authorization.k8s.io/v1/namespaces/{ns}/localsubjectaccessreviews"
)

// asUser impersonates a user (and groups, a header each), as kubectl --as and --as-group do.
func asUser(name string, groups ...string) map[string]string {
	h := map[string]string{"Impersonate-User": name}
	if len(groups) > 0 {
		h["Impersonate-Group"] = strings.Join(groups, "\n")
	}
	return h
}

// informerDelay is how long a step after RBAC writes waits for the oracle's informers to see them
// (writeStep.Pause).
const informerDelay = time.Second

// withToken authenticates with the last token an answer carried.
var withToken = map[string]string{"Authorization": "Bearer {token}"}

// sar is a SubjectAccessReview's body for user (and groups) and the attributes attrs (the JSON of
// resourceAttributes or nonResourceAttributes, with its key).
func sar(user, groups, attrs string) string {
	spec := attrs
	if user != "" {
		spec += `,"user":"` + user + `"`
	}
	if groups != "" {
		spec += `,"groups":` + groups
	}
	return `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{` + strings.TrimPrefix(spec, ",") + `}}`
}

// ssar is a SelfSubjectAccessReview's body for attrs.
func ssar(attrs string) string {
	return `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{` + attrs + `}}`
}

// authzCases are the authentication and authorization review APIs — who a request is
// (SelfSubjectReview), who a token is (TokenReview), what a user may do (SubjectAccessReview and
// its self and local forms, SelfSubjectRulesReview) — recorded from a kube-apiserver 1.37.2 with
// --authorization-mode=Node,RBAC into testdata/observed-authz.json (TestRecordOracleAuthz) and
// replayed against the fake (TestObservedAuthz). The recorder is its admin (a static token of the
// group system:masters); the other identities are impersonated or service accounts' tokens.
var authzCases = []writeCase{
	{Name: "whoami", Steps: []writeStep{
		nsStep(),
		{Name: "admin", Method: "POST", Path: ssrPath, Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`},
		{Name: "empty body", Method: "POST", Path: ssrPath, Body: `{}`},
		{Name: "with metadata", Method: "POST", Path: ssrPath, Body: `{"metadata":{"name":"x","namespace":"y","labels":{"a":"b"}},"status":{"userInfo":{"username":"forged"}}}`},
		{Name: "dryRun", Method: "POST", Path: ssrPath + "?dryRun=All", Body: `{}`},
		{Name: "bad body", Method: "POST", Path: ssrPath, Body: `{"status":`},
		{Name: "unknown field", Method: "POST", Path: ssrPath, Body: `{"bogus":1,"status":{"nope":2}}`},
		{Name: "unknown field strict", Method: "POST", Path: ssrPath + "?fieldValidation=Strict", Body: `{"bogus":1}`},
		{Name: "wrong kind", Method: "POST", Path: ssrPath, Body: `{"apiVersion":"v1","kind":"ConfigMap"}`},
		{Name: "GET", Method: "GET", Path: ssrPath},
		{Name: "GET one", Method: "GET", Path: ssrPath + "/x"},
		{Name: "DELETE", Method: "DELETE", Path: ssrPath},
		{Name: "namespaced", Method: "POST", Path: "/apis/authentication.k8s.io/v1/namespaces/{ns}/selfsubjectreviews", Body: `{}`},
		{Name: "impersonate user", Method: "POST", Path: ssrPath, Body: `{}`, Header: asUser("alice")},
		{Name: "impersonate groups", Method: "POST", Path: ssrPath, Body: `{}`, Header: asUser("alice", "devs", "ops")},
		{Name: "impersonate a group with a comma", Method: "POST", Path: ssrPath, Body: `{}`, Header: map[string]string{"Impersonate-User": "alice", "Impersonate-Group": "devs,ops"}},
		{Name: "impersonate anonymous", Method: "POST", Path: ssrPath, Body: `{}`, Header: asUser("system:anonymous")},
		{Name: "impersonate a service account with groups", Method: "POST", Path: ssrPath, Body: `{}`, Header: asUser("system:serviceaccount:{ns}:robot", "devs")},
		{Name: "impersonate uid and extra", Method: "POST", Path: ssrPath, Body: `{}`, Header: map[string]string{"Impersonate-User": "alice", "Impersonate-Uid": "u-1", "Impersonate-Extra-Scopes": "view"}},
		{Name: "impersonate service account", Method: "POST", Path: ssrPath, Body: `{}`, Header: asUser("system:serviceaccount:{ns}:robot")},
		{Name: "impersonate group only", Method: "POST", Path: ssrPath, Body: `{}`, Header: map[string]string{"Impersonate-Group": "devs"}},
		{Name: "service account", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts", Body: `{"metadata":{"name":"robot"}}`},
		{Name: "token", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/robot/token", Body: `{"spec":{}}`},
		{Name: "as the service account", Method: "POST", Path: ssrPath, Body: `{}`, Header: withToken},
		{Name: "bad token", Method: "POST", Path: ssrPath, Body: `{}`, Header: map[string]string{"Authorization": "Bearer not-a-token"}},
		{Name: "service account impersonating", Method: "POST", Path: ssrPath, Body: `{}`, Header: map[string]string{"Authorization": "Bearer {token}", "Impersonate-User": "alice"}},
		{Name: "service account impersonating a group", Method: "POST", Path: ssrPath, Body: `{}`, Header: map[string]string{"Authorization": "Bearer {token}", "Impersonate-User": "system:serviceaccount:{ns}:robot", "Impersonate-Group": "devs"}},
		{Name: "service account asks about another", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"verb":"get","resource":"pods"}`), Header: withToken},
		{Name: "service account reviews a token", Method: "POST", Path: trPath, Body: `{"spec":{"token":"x"}}`, Header: withToken},
		{Name: "service account asks about itself", Method: "POST", Path: ssarPath, Body: ssar(`"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}`), Header: withToken},
		{Name: "service account rules", Method: "POST", Path: ssrrPath, Body: `{"spec":{"namespace":"{ns}"}}`, Header: withToken},
		{Name: "service account lists pods", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods", Header: withToken},
		{Name: "service account gets a pod", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods/web-0", Header: withToken},
		{Name: "service account watches pods", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods?watch=true&timeoutSeconds=1", Header: withToken},
		{Name: "service account lists nodes", Method: "GET", Path: "/api/v1/nodes", Header: withToken},
		{Name: "service account patches a deployment's scale", Method: "PATCH", Path: "/apis/apps/v1/namespaces/{ns}/deployments/d/scale", ContentType: "application/merge-patch+json", Body: `{}`, Header: withToken},
		{Name: "service account posts to a path", Method: "POST", Path: "/version", Body: `{}`, Header: withToken},
		{Name: "service account reads health", Method: "GET", Path: "/healthz", Header: withToken},
		{Name: "bad token lists pods", Method: "GET", Path: "/api/v1/namespaces/{ns}/pods", Header: map[string]string{"Authorization": "Bearer not-a-token"}},
	}},
	{Name: "tokenreview", Steps: []writeStep{
		nsStep(),
		{Name: "service account", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts", Body: `{"metadata":{"name":"robot"}}`},
		{Name: "token", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/robot/token", Body: `{"spec":{}}`},
		{Name: "valid", Method: "POST", Path: trPath, Body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"{token}"}}`},
		{Name: "the apiserver's audience", Method: "POST", Path: trPath, Body: `{"spec":{"token":"{token}","audiences":["https://kubernetes.default.svc.cluster.local"]}}`},
		{Name: "two audiences", Method: "POST", Path: trPath, Body: `{"spec":{"token":"{token}","audiences":["other","https://kubernetes.default.svc.cluster.local"]}}`},
		{Name: "another audience", Method: "POST", Path: trPath, Body: `{"spec":{"token":"{token}","audiences":["other"]}}`},
		{Name: "dryRun", Method: "POST", Path: trPath + "?dryRun=All", Body: `{"spec":{"token":"{token}"}}`},
		{Name: "bad token", Method: "POST", Path: trPath, Body: `{"spec":{"token":"not-a-token"}}`},
		{Name: "bad token with audiences", Method: "POST", Path: trPath, Body: `{"spec":{"token":"not-a-token","audiences":["other"]}}`},
		{Name: "the admin's static token", Method: "POST", Path: trPath, Body: `{"spec":{"token":"oracle-admin-token"}}`},
		{Name: "no token", Method: "POST", Path: trPath, Body: `{"spec":{}}`},
		{Name: "unknown field", Method: "POST", Path: trPath, Body: `{"spec":{"token":"not-a-token","bogus":1}}`},
		{Name: "empty body", Method: "POST", Path: trPath, Body: `{}`},
		{Name: "bad body", Method: "POST", Path: trPath, Body: `[]`},
		{Name: "GET", Method: "GET", Path: trPath},
		{Name: "token for audience api", Method: "POST", Path: "/api/v1/namespaces/{ns}/serviceaccounts/robot/token", Body: `{"spec":{"audiences":["api"]}}`},
		{Name: "audience api, no audiences", Method: "POST", Path: trPath, Body: `{"spec":{"token":"{token}"}}`},
		{Name: "audience api, audiences api", Method: "POST", Path: trPath, Body: `{"spec":{"token":"{token}","audiences":["api","other"]}}`},
		{Name: "as the audience api token", Method: "POST", Path: ssrPath, Body: `{}`, Header: withToken},
		{Name: "delete the service account", Method: "DELETE", Path: "/api/v1/namespaces/{ns}/serviceaccounts/robot"},
		{Name: "token of a deleted account", Method: "POST", Path: trPath, Body: `{"spec":{"token":"{token}","audiences":["api"]}}`},
	}},
	{Name: "access", Steps: []writeStep{
		nsStep(),
		{Name: "role pod-reader", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles", Body: `{"metadata":{"name":"pod-reader"},"rules":[{"apiGroups":[""],"resources":["pods","pods/log"],"verbs":["get","list","watch"]},{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["cm1"],"verbs":["get","update"]}]}`},
		{Name: "binding to alice", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings", Body: `{"metadata":{"name":"read-pods"},"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"},{"kind":"ServiceAccount","name":"robot","namespace":"{ns}"}],"roleRef":{"kind":"Role","name":"pod-reader","apiGroup":"rbac.authorization.k8s.io"}}`},
		{Name: "clusterrole deployer", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles", Body: `{"metadata":{"name":"authz-deployer"},"rules":[{"apiGroups":["apps"],"resources":["deployments","deployments/scale"],"verbs":["*"]},{"nonResourceURLs":["/authz-metrics","/authz-logs/*"],"verbs":["get"]}]}`},
		{Name: "clusterrolebinding devs", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", Body: `{"metadata":{"name":"authz-devs"},"subjects":[{"kind":"Group","name":"devs","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"ClusterRole","name":"authz-deployer","apiGroup":"rbac.authorization.k8s.io"}}`},
		{Name: "clusterrole everything", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles", Body: `{"metadata":{"name":"authz-all"},"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]}`},
		{Name: "rolebinding carol to a clusterrole", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings", Body: `{"metadata":{"name":"carol-all"},"subjects":[{"kind":"User","name":"carol","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"ClusterRole","name":"authz-all","apiGroup":"rbac.authorization.k8s.io"}}`},
		{Name: "clusterrolebinding service accounts", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", Body: `{"metadata":{"name":"authz-sas"},"subjects":[{"kind":"Group","name":"system:serviceaccounts:{ns}","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"ClusterRole","name":"authz-deployer","apiGroup":"rbac.authorization.k8s.io"}}`},
		{Name: "binding to a missing role", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings", Body: `{"metadata":{"name":"dangling"},"subjects":[{"kind":"User","name":"dave","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"Role","name":"nope","apiGroup":"rbac.authorization.k8s.io"}}`},

		{Name: "admin self", Pause: informerDelay, Method: "POST", Path: ssarPath, Body: ssar(`"resourceAttributes":{"namespace":"{ns}","verb":"delete","resource":"pods"}`)},
		{Name: "admin self non-resource", Method: "POST", Path: ssarPath, Body: ssar(`"nonResourceAttributes":{"path":"/logs","verb":"get"}`)},
		{Name: "alice self get pods", Method: "POST", Path: ssarPath, Body: ssar(`"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}`), Header: asUser("alice")},
		{Name: "alice self delete pods", Method: "POST", Path: ssarPath, Body: ssar(`"resourceAttributes":{"namespace":"{ns}","verb":"delete","resource":"pods"}`), Header: asUser("alice")},
		{Name: "alice self pods elsewhere", Method: "POST", Path: ssarPath, Body: ssar(`"resourceAttributes":{"namespace":"default","verb":"get","resource":"pods"}`), Header: asUser("alice")},
		{Name: "alice self dryRun", Method: "POST", Path: ssarPath + "?dryRun=All", Body: ssar(`"resourceAttributes":{"namespace":"{ns}","verb":"list","resource":"pods"}`), Header: asUser("alice")},
		{Name: "self without attributes", Method: "POST", Path: ssarPath, Body: ssar(``)},
		{Name: "self with both attributes", Method: "POST", Path: ssarPath, Body: ssar(`"resourceAttributes":{"verb":"get","resource":"pods"},"nonResourceAttributes":{"path":"/x","verb":"get"}`)},
		{Name: "self bad body", Method: "POST", Path: ssarPath, Body: `{"spec":`},
		{Name: "self GET", Method: "GET", Path: ssarPath},

		{Name: "user get pods", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}`)},
		{Name: "user list pods all namespaces", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"verb":"list","resource":"pods"}`)},
		{Name: "user pods log", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods","subresource":"log"}`)},
		{Name: "user pods exec", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"namespace":"{ns}","verb":"create","resource":"pods","subresource":"exec"}`)},
		{Name: "user named configmap", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"configmaps","name":"cm1"}`)},
		{Name: "user other configmap", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"configmaps","name":"cm2"}`)},
		{Name: "user configmaps unnamed", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"configmaps"}`)},
		{Name: "user pods in another group", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"namespace":"{ns}","verb":"get","group":"apps","resource":"pods"}`)},
		{Name: "unknown user", Method: "POST", Path: sarPath, Body: sar("bob", "", `"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}`)},
		{Name: "group deployments", Method: "POST", Path: sarPath, Body: sar("bob", `["devs"]`, `"resourceAttributes":{"namespace":"{ns}","verb":"patch","group":"apps","resource":"deployments"}`)},
		{Name: "group deployments scale", Method: "POST", Path: sarPath, Body: sar("", `["devs"]`, `"resourceAttributes":{"verb":"update","group":"apps","resource":"deployments","subresource":"scale"}`)},
		{Name: "group deployments status", Method: "POST", Path: sarPath, Body: sar("bob", `["devs"]`, `"resourceAttributes":{"verb":"update","group":"apps","resource":"deployments","subresource":"status"}`)},
		{Name: "group non-resource", Method: "POST", Path: sarPath, Body: sar("bob", `["devs"]`, `"nonResourceAttributes":{"path":"/authz-metrics","verb":"get"}`)},
		{Name: "group non-resource prefix", Method: "POST", Path: sarPath, Body: sar("bob", `["devs"]`, `"nonResourceAttributes":{"path":"/authz-logs/a/b","verb":"get"}`)},
		{Name: "group non-resource post", Method: "POST", Path: sarPath, Body: sar("bob", `["devs"]`, `"nonResourceAttributes":{"path":"/authz-metrics","verb":"post"}`)},
		{Name: "wildcard clusterrole by rolebinding", Method: "POST", Path: sarPath, Body: sar("carol", "", `"resourceAttributes":{"namespace":"{ns}","verb":"delete","group":"batch","resource":"jobs","name":"j"}`)},
		{Name: "wildcard clusterrole elsewhere", Method: "POST", Path: sarPath, Body: sar("carol", "", `"resourceAttributes":{"namespace":"default","verb":"delete","group":"batch","resource":"jobs"}`)},
		{Name: "wildcard clusterrole cluster scope", Method: "POST", Path: sarPath, Body: sar("carol", "", `"resourceAttributes":{"verb":"list","resource":"nodes"}`)},
		{Name: "service account by subject", Method: "POST", Path: sarPath, Body: sar("system:serviceaccount:{ns}:robot", "", `"resourceAttributes":{"namespace":"{ns}","verb":"watch","resource":"pods"}`)},
		{Name: "service account by group", Method: "POST", Path: sarPath, Body: sar("system:serviceaccount:{ns}:other", `["system:serviceaccounts","system:serviceaccounts:{ns}"]`, `"resourceAttributes":{"namespace":"{ns}","verb":"create","group":"apps","resource":"deployments"}`)},
		{Name: "dangling binding", Method: "POST", Path: sarPath, Body: sar("dave", "", `"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}`)},
		{Name: "system:masters", Method: "POST", Path: sarPath, Body: sar("root", `["system:masters"]`, `"resourceAttributes":{"verb":"delete","resource":"nodes"}`)},
		{Name: "authenticated group", Method: "POST", Path: sarPath, Body: sar("erin", `["system:authenticated"]`, `"resourceAttributes":{"verb":"create","group":"authorization.k8s.io","resource":"selfsubjectaccessreviews"}`)},
		{Name: "authenticated group openapi", Method: "POST", Path: sarPath, Body: sar("erin", `["system:authenticated"]`, `"nonResourceAttributes":{"path":"/openapi/v3","verb":"get"}`)},
		{Name: "authenticated group api", Method: "POST", Path: sarPath, Body: sar("erin", `["system:authenticated"]`, `"nonResourceAttributes":{"path":"/apis/apps","verb":"get"}`)},
		{Name: "unauthenticated healthz", Method: "POST", Path: sarPath, Body: sar("system:anonymous", `["system:unauthenticated"]`, `"nonResourceAttributes":{"path":"/healthz","verb":"get"}`)},
		{Name: "with uid and extra", Method: "POST", Path: sarPath, Body: `{"spec":{"user":"alice","uid":"u1","extra":{"scopes":["a"]},"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}}}`},
		{Name: "no user or groups", Method: "POST", Path: sarPath, Body: sar("", "", `"resourceAttributes":{"verb":"get","resource":"pods"}`)},
		{Name: "no attributes", Method: "POST", Path: sarPath, Body: sar("alice", "", ``)},
		{Name: "both attributes", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"verb":"get","resource":"pods"},"nonResourceAttributes":{"path":"/x","verb":"get"}`)},
		{Name: "empty verb", Method: "POST", Path: sarPath, Body: sar("alice", "", `"resourceAttributes":{"namespace":"{ns}","resource":"pods"}`)},
		{Name: "unknown field", Method: "POST", Path: sarPath, Body: `{"spec":{"user":"alice","bogus":1,"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods","nope":2}}}`},
		{Name: "unknown field ignored", Method: "POST", Path: sarPath + "?fieldValidation=Ignore", Body: `{"spec":{"user":"alice","bogus":1,"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}}}`},
		{Name: "unknown field strict", Method: "POST", Path: sarPath + "?fieldValidation=Strict", Body: `{"spec":{"user":"alice","bogus":1,"resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}}}`},
		{Name: "with metadata", Method: "POST", Path: sarPath, Body: `{"metadata":{"name":"n","namespace":"{ns}"},"spec":{"user":"alice","resourceAttributes":{"namespace":"{ns}","verb":"get","resource":"pods"}}}`},
		{Name: "several errors", Method: "POST", Path: sarPath, Body: `{"metadata":{"name":"n","labels":{"a":"b"}},"spec":{}}`},
		{Name: "bad body", Method: "POST", Path: sarPath, Body: `{"spec":1}`},
		{Name: "GET", Method: "GET", Path: sarPath},

		{Name: "local", Method: "POST", Path: lsarPath, Body: `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"alice","resourceAttributes":{"namespace":"{ns}","verb":"list","resource":"pods"}}}`},
		{Name: "local without namespace", Method: "POST", Path: lsarPath, Body: `{"spec":{"user":"alice","resourceAttributes":{"verb":"list","resource":"pods"}}}`},
		{Name: "local namespace mismatch", Method: "POST", Path: lsarPath, Body: `{"spec":{"user":"alice","resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}}}`},
		{Name: "local metadata namespace mismatch", Method: "POST", Path: lsarPath, Body: `{"metadata":{"namespace":"default"},"spec":{"user":"alice","resourceAttributes":{"namespace":"{ns}","verb":"list","resource":"pods"}}}`},
		{Name: "local non-resource", Method: "POST", Path: lsarPath, Body: `{"spec":{"user":"alice","nonResourceAttributes":{"path":"/x","verb":"get"}}}`},
		{Name: "local several errors", Method: "POST", Path: lsarPath, Body: `{"metadata":{"name":"n"},"spec":{"nonResourceAttributes":{"path":"/x","verb":"get"},"resourceAttributes":{"verb":"get","resource":"pods"}}}`},
		{Name: "self several errors", Method: "POST", Path: ssarPath, Body: `{"metadata":{"generateName":"g"},"spec":{}}`},
		{Name: "local in a missing namespace", Method: "POST", Path: "/apis/authorization.k8s.io/v1/namespaces/nowhere/localsubjectaccessreviews", Body: `{"spec":{"user":"alice","resourceAttributes":{"namespace":"nowhere","verb":"list","resource":"pods"}}}`},
		{Name: "local GET", Method: "GET", Path: lsarPath},
		{Name: "watch path", Method: "GET", Path: "/apis/authorization.k8s.io/v1/watch/subjectaccessreviews"},
		{Name: "watch parameter", Method: "GET", Path: sarPath + "?watch=true"},
		{Name: "PUT", Method: "PUT", Path: sarPath, Body: `{}`},
		{Name: "PATCH one", Method: "PATCH", Path: sarPath + "/x", ContentType: "application/merge-patch+json", Body: `{}`},
		{Name: "local cluster-scoped path", Method: "POST", Path: "/apis/authorization.k8s.io/v1/localsubjectaccessreviews", Body: `{"spec":{"user":"alice","resourceAttributes":{"verb":"list","resource":"pods"}}}`},
	}},
	{Name: "rules", Steps: []writeStep{
		nsStep(),
		{Name: "role pod-reader", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles", Body: `{"metadata":{"name":"pod-reader"},"rules":[{"apiGroups":[""],"resources":["pods","pods/log"],"verbs":["get","list","watch"]},{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["cm1"],"verbs":["get"]}]}`},
		{Name: "binding to alice", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings", Body: `{"metadata":{"name":"read-pods"},"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"Role","name":"pod-reader","apiGroup":"rbac.authorization.k8s.io"}}`},
		{Name: "clusterrole metrics", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles", Body: `{"metadata":{"name":"authz-rules-metrics"},"rules":[{"nonResourceURLs":["/authz-rules-metrics"],"verbs":["get"]},{"apiGroups":["apps"],"resources":["deployments"],"verbs":["list"]}]}`},
		{Name: "clusterrolebinding alice", Method: "POST", Path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", Body: `{"metadata":{"name":"authz-rules-alice"},"subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}],"roleRef":{"kind":"ClusterRole","name":"authz-rules-metrics","apiGroup":"rbac.authorization.k8s.io"}}`},
		{Name: "alice rules", Pause: informerDelay, Method: "POST", Path: ssrrPath, Body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"{ns}"}}`, Header: asUser("alice")},
		{Name: "alice rules elsewhere", Method: "POST", Path: ssrrPath, Body: `{"spec":{"namespace":"default"}}`, Header: asUser("alice")},
		{Name: "alice rules no namespace", Method: "POST", Path: ssrrPath, Body: `{"spec":{}}`, Header: asUser("alice")},
		{Name: "unbound user rules", Method: "POST", Path: ssrrPath, Body: `{"spec":{"namespace":"{ns}"}}`, Header: asUser("bob")},
		{Name: "admin rules", Method: "POST", Path: ssrrPath, Body: `{"spec":{"namespace":"{ns}"}}`},
		{Name: "bad body", Method: "POST", Path: ssrrPath, Body: `{"spec":[]}`},
		{Name: "GET", Method: "GET", Path: ssrrPath},
	}},
}

// authzRecording is the record of authzCases.
var authzRecording = recording{
	cases: authzCases, file: "testdata/observed-authz.json", markdown: "observed-authz.md",
	title: "authentication and authorization reviews", recorder: "TestRecordOracleAuthz",
	replayer: "TestObservedAuthz", source: "authz_test.go",
	oracle: "a copy of `/work/shared/oracle/start.sh` with `--authorization-mode=Node,RBAC` in place of " +
		"`AlwaysAllow` (`KAS_EXTRA_ARGS` appends, and the apiserver then reads `AlwaysAllow,Node,RBAC`, whose first authorizer allows everything)",
	intro: authzIntro,
}

// authzIntro is what reference/observed-authz.md says before its cases.
const authzIntro = `The recorder is the oracle's admin: the static token ` + "`oracle-admin-token`" + ` of user ` + "`oracle-admin`" + `
(uid ` + "`oracle-admin-uid`" + `) in group ` + "`system:masters`" + `. A step's header lines are sent with it:
` + "`Impersonate-*`" + ` as kubectl ` + "`--as`/`--as-group`" + ` sends them (one ` + "`Impersonate-Group`" + ` a group), and
` + "`Authorization: Bearer {token}`" + ` with the last token a step's answer carried (a service account's). A
step after RBAC writes waits a second first: the authorizer reads RBAC objects through informers.

What follows from it, and what the fake does (fake/identity.go, fake/rbac.go, fake/reviews.go):
- Reviews answer 201 with the object: SelfSubjectReview and SelfSubjectRulesReview a new one
  (the body's metadata and spec are dropped; no managedFields), the access reviews and TokenReview the
  request with its managedFields and a status. dryRun changes nothing. GET and PUT of the collection are
  405, any path below it, its watch path and the other scope's path 404.
- Who a request is: a static token (the fake's ` + "`Options.Tokens`" + `), a service account token (a fake's
  is signed by its process; it is checked for expiry, audience and that the account still exists with the
  token's uid), with ` + "`system:authenticated`" + ` added; a token nobody issued is 401 ` + "`Unauthorized`" + `. The fake's
  request without credentials is its ` + "`Admin`" + ` (user ` + "`admin`" + `, uid ` + "`admin-uid`" + `, group ` + "`system:masters`" + `),
  where the oracle's would be ` + "`system:anonymous`" + `.
- Impersonation: ` + "`Impersonate-Group`" + ` without a user is 400 (the wanted user printed as a Go value); a
  service account's user name brings its groups unless groups are given; ` + "`system:authenticated`" + ` is added. A
  requester without the right (a service account) gets the first refusal of the impersonation modes tried in
  turn: ` + "`impersonate-on:user-info:create`" + ` on the request's own resource for a user, the legacy
  ` + "`impersonate`" + ` of ` + "`serviceaccounts`" + ` for a service account with groups.
- RBAC: ` + "`system:masters`" + ` is allowed with no reason; otherwise the first rule of a binding that applies
  (cluster role bindings, then the namespace's role bindings) gives ` + "`RBAC: allowed by <ClusterRoleBinding \"n\" | RoleBinding \"n/ns\"> of <Role|ClusterRole> \"r\" to <User|Group \"x\" | ServiceAccount \"name/ns\">`" + `;
  a refusal has no reason unless a binding names a missing role (` + "`rbac: RBAC: role.rbac.authorization.k8s.io \"nope\" not found`" + `).
  The oracle's informers list bindings in map order, so which of two bindings that both allow is named, and
  the order of a rules review's rules, vary; the fake goes by name, and the replay compares rules as sets.
  The fake has no stored bootstrap policy; the six bootstrap roles bound to ` + "`system:masters`" + `,
  ` + "`system:authenticated`" + `, ` + "`system:unauthenticated`" + ` and ` + "`system:serviceaccounts`" + ` are built in.
- Validation (422, the kind empty in the message): exactly one of resourceAttributes and
  nonResourceAttributes, a user or a group, empty metadata; a LocalSubjectAccessReview's namespace must be the
  path's, and it takes no nonResourceAttributes. A missing token is 400.
`

// authzAlwaysAllowRecording is the record of authzCases from the oracle as it is started by
// default (--authorization-mode=AlwaysAllow), which the fake does not reproduce: its reviews
// evaluate RBAC. TestObservedAuthzAlwaysAllow replays the steps the two modes answer alike.
var authzAlwaysAllowRecording = recording{
	cases: authzCases, file: "testdata/observed-authz-alwaysallow.json", markdown: "observed-authz-alwaysallow.md",
	title: "authentication and authorization reviews with AlwaysAllow", recorder: "TestRecordOracleAuthzAlwaysAllow",
	replayer: "TestObservedAuthzAlwaysAllow", source: "authz_test.go",
	intro: `The cases of observed-authz.md, against the oracle as ` + "`start.sh`" + ` starts it (` + "`--authorization-mode=AlwaysAllow`" + `):
every access review is allowed without a reason, a rules review lists one rule of ` + "`*`" + ` verbs on every resource and
one on every path, impersonation and every request of a service account are allowed. The fake's reviews evaluate RBAC
(observed-authz.md) whether or not it enforces it; ` + "`TestObservedAuthzAlwaysAllow`" + ` replays the steps whose
answers are the same in both modes.
`,
}

// TestRecordOracleAuthzAlwaysAllow records authzCases from a fresh kube-apiserver started by
// /work/shared/oracle/start.sh as it is (--authorization-mode=AlwaysAllow).
func TestRecordOracleAuthzAlwaysAllow(t *testing.T) {
	authzAlwaysAllowRecording.record(t, oracleServer(t))
}

// TestRecordOracleAuthz records authzCases from a fresh kube-apiserver started with
// --authorization-mode=Node,RBAC (reference/observed-authz.md says how) as TestRecordOracle
// records writeCases.
func TestRecordOracleAuthz(t *testing.T) { authzRecording.record(t, oracleServer(t)) }

// credentialID matches the credential id a service account token's JWT id gives its user's extra.
var credentialID = regexp.MustCompile(`^JTI=[0-9a-f-]{36}$`)

// maskTokens replaces, in an answer, a token, its expiry and the credential id of its JWT id
// (random on both servers) with placeholders.
func maskTokens(resp json.RawMessage) json.RawMessage {
	return mapLeaves(resp, func(v any, key, _ string) any {
		s, ok := v.(string)
		switch {
		case !ok:
			return v
		case key == "token" && s != "" && s != "not-a-token" && s != "oracle-admin-token":
			return "<token>"
		case key == "expirationTimestamp":
			return "<time>"
		case credentialID.MatchString(s):
			return "JTI=<jti>"
		}
		return v
	})
}
