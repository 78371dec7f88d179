package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	etcdsource "github.com/watchcache/watchcache/source/etcd"
)

// oracleEnv reads the oracle's run/env (../shared/oracle/start.sh) named by WATCHCACHE_ORACLE_ENV,
// or skips: these tests need a running kube-apiserver and etcd, which CI does not have.
func oracleEnv(t *testing.T) map[string]string {
	t.Helper()
	file := os.Getenv("WATCHCACHE_ORACLE_ENV")
	if file == "" {
		t.Skip("WATCHCACHE_ORACLE_ENV (the oracle's run/env) not set")
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	return env
}

// kas is a client of the oracle's kube-apiserver.
type kas struct {
	url, token string
	c          *http.Client
}

func (k *kas) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, k.url+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := k.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func (k *kas) create(t *testing.T, path string, obj map[string]any) {
	t.Helper()
	if code, body := k.do(t, http.MethodPost, path, obj); code != http.StatusCreated && code != http.StatusConflict {
		t.Fatalf("POST %s: %d %s", path, code, body)
	}
}

// TestOracleEtcd: serve --etcd-endpoints beside a kube-apiserver 1.37.2 with its default (protobuf)
// storage gives the same lists and gets as the apiserver for pods, configmaps, events,
// deployments and nodes — every item byte for byte, apart from the kind and apiVersion our list
// items keep (oracle-compare/RESULTS.md) — and its built-in layout matches the apiserver's
// discovery and etcd keys. Run with WATCHCACHE_ORACLE_ENV=$ORACLE_WORK/run/env.
func TestOracleEtcd(t *testing.T) {
	env := oracleEnv(t)
	transport := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer transport.CloseIdleConnections()
	k := &kas{url: env["KAS_URL"], token: env["TOKEN"], c: &http.Client{Transport: transport}}
	ns := fmt.Sprintf("e2e-%d", time.Now().Unix()%100000)
	k.create(t, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
	for i := range 3 {
		k.create(t, "/api/v1/namespaces/"+ns+"/configmaps", map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i), "labels": map[string]any{"app": "web"}},
			"data":     map[string]any{"k": strings.Repeat("v", i)},
		})
		k.create(t, "/api/v1/nodes", map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("%s-node-%d", ns, i), "labels": map[string]any{"zone": "a"}},
			"spec":     map[string]any{"podCIDR": fmt.Sprintf("10.%d.0.0/24", i)},
		})
		k.create(t, "/api/v1/namespaces/"+ns+"/pods", map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("pod-%d", i), "labels": map[string]any{"app": "web"}},
			"spec": map[string]any{"nodeName": fmt.Sprintf("%s-node-%d", ns, i%2), "containers": []any{map[string]any{
				"name": "c", "image": "nginx:1.27", "resources": map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "64Mi"}},
			}}},
		})
		k.create(t, "/api/v1/namespaces/"+ns+"/events", map[string]any{
			"metadata":       map[string]any{"name": fmt.Sprintf("pod-%d.evt", i)},
			"involvedObject": map[string]any{"kind": "Pod", "namespace": ns, "name": fmt.Sprintf("pod-%d", i), "apiVersion": "v1"},
			"reason":         "Scheduled", "message": "assigned", "type": "Normal", "count": 1,
			"firstTimestamp": "2026-12-01T10:00:00Z", "lastTimestamp": "2026-12-01T10:00:00Z",
		})
		k.create(t, "/apis/apps/v1/namespaces/"+ns+"/deployments", map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("web-%d", i)},
			"spec": map[string]any{"replicas": i, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:1.27"}}}}},
		})
	}

	base, _ := startServe(t, "--etcd-endpoints", env["ETCD_URL"])
	ours := &kas{url: base, c: http.DefaultClient}
	for _, path := range []string{
		"/api/v1/pods", "/api/v1/namespaces/" + ns + "/pods", "/api/v1/configmaps", "/api/v1/events",
		"/apis/apps/v1/deployments", "/api/v1/nodes", "/api/v1/namespaces", "/api/v1/serviceaccounts",
		"/apis/rbac.authorization.k8s.io/v1/clusterroles", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", "/apis/apiregistration.k8s.io/v1/apiservices",
		"/api/v1/pods?fieldSelector=spec.nodeName%3D" + ns + "-node-1", "/api/v1/events?fieldSelector=involvedObject.name%3Dpod-1",
	} {
		t.Run("list "+path, func(t *testing.T) {
			wantCode, want := k.do(t, http.MethodGet, path, nil)
			gotCode, got := ours.do(t, http.MethodGet, path, nil)
			if wantCode != http.StatusOK || gotCode != http.StatusOK {
				t.Fatalf("apiserver %d, ours %d: %s", wantCode, gotCode, got)
			}
			compareLists(t, want, got, true)
		})
	}
	for _, path := range []string{
		"/api/v1/namespaces/" + ns + "/pods/pod-1", "/apis/apps/v1/namespaces/" + ns + "/deployments/web-2",
		"/api/v1/nodes/" + ns + "-node-0", "/api/v1/namespaces/" + ns + "/events/pod-0.evt", "/api/v1/namespaces/" + ns + "/configmaps/cm-2",
	} {
		t.Run("get "+path, func(t *testing.T) {
			_, want := k.do(t, http.MethodGet, path, nil)
			_, got := ours.do(t, http.MethodGet, path, nil)
			if !bytes.Equal(bytes.TrimSpace(want), bytes.TrimSpace(got)) {
				t.Fatalf("\n ours      %s\n apiserver %s", got, want)
			}
		})
	}
	t.Run("layout", func(t *testing.T) { checkLayout(t, k, env["ETCD_URL"]) })
	t.Run("every resource", func(t *testing.T) {
		compareEvery(t, k, ours, listablePaths(t, k), "")
	})
	t.Run("CRD created after start", func(t *testing.T) {
		path, all := createKnobs(t, k, "knob", time.Now().UnixNano()%1_000_000, ns)
		compareEvery(t, k, ours, []string{path, all}, "")
		sameTables(t, k, ours, path)
	})
}

// compareLists checks two list answers: the same resourceVersion (if sameRV), the same items in the same
// order, each byte for byte once our kind and apiVersion are taken out.
func compareLists(t *testing.T, want, got []byte, sameRV bool) {
	t.Helper()
	if w, g := gjson.GetBytes(want, "metadata.resourceVersion").String(), gjson.GetBytes(got, "metadata.resourceVersion").String(); sameRV && w != g {
		t.Errorf("list resourceVersion: ours %s, apiserver %s", g, w)
	}
	wi, gi := gjson.GetBytes(want, "items").Array(), gjson.GetBytes(got, "items").Array()
	if len(wi) != len(gi) {
		t.Fatalf("%d items, apiserver %d", len(gi), len(wi))
	}
	for i := range wi {
		g := gi[i].Raw
		for _, field := range []string{`"kind":"` + gi[i].Get("kind").Str + `",`, `"apiVersion":"` + gi[i].Get("apiVersion").Str + `",`} {
			g = strings.Replace(g, field, "", 1)
		}
		if g != wi[i].Raw {
			t.Errorf("item %d:\n ours      %s\n apiserver %s", i, g, wi[i].Raw)
		}
	}
}

// checkLayout compares source/etcd.Builtin with the apiserver's discovery (each entry a listable
// resource at its group's preferred version, with the same kind, scope, short names and
// categories) and with the etcd keys (every prefix holding keys is one of Builtin's, or named here
// as not a served built-in resource), and logs the prefixes for reference/observed-etcd-layout.md.
func checkLayout(t *testing.T, k *kas, etcdURL string) {
	type disc struct {
		groupVersion string
		r            metav1.APIResource
	}
	found := map[string]disc{} // resource.group → discovery at the preferred version
	_, coreBody := k.do(t, http.MethodGet, "/api/v1", nil)
	var core metav1.APIResourceList
	json.Unmarshal(coreBody, &core)
	for _, r := range core.APIResources {
		found[r.Name] = disc{"v1", r}
	}
	_, groupsBody := k.do(t, http.MethodGet, "/apis", nil)
	var groups metav1.APIGroupList
	json.Unmarshal(groupsBody, &groups)
	for _, g := range groups.Groups {
		_, b := k.do(t, http.MethodGet, "/apis/"+g.PreferredVersion.GroupVersion, nil)
		var l metav1.APIResourceList
		json.Unmarshal(b, &l)
		for _, r := range l.APIResources {
			found[r.Name+"."+g.Name] = disc{g.PreferredVersion.GroupVersion, r}
		}
	}
	builtin := etcdsource.Builtin()
	served := map[string]bool{}
	for _, r := range builtin {
		name := r.Resource
		gv := r.Version
		if r.Group != "" {
			name += "." + r.Group
			gv = r.Group + "/" + r.Version
		}
		served[name] = true
		d, ok := found[name]
		switch {
		case !ok:
			t.Errorf("%s: not in the apiserver's discovery at its preferred version", name)
		case d.groupVersion != gv || d.r.Kind != r.Kind || d.r.Namespaced != r.Namespaced ||
			!slices.Equal(d.r.ShortNames, r.ShortNames) || !slices.Equal(d.r.Categories, r.Categories):
			t.Errorf("%s: Builtin says %s %s namespaced=%v short=%v categories=%v; discovery %s %s namespaced=%v short=%v categories=%v",
				name, gv, r.Kind, r.Namespaced, r.ShortNames, r.Categories, d.groupVersion, d.r.Kind, d.r.Namespaced, d.r.ShortNames, d.r.Categories)
		}
	}
	var notServed []string
	for name, d := range found {
		if !served[name] && !strings.Contains(d.r.Name, "/") && slices.Contains(d.r.Verbs, "list") && slices.Contains(d.r.Verbs, "watch") {
			notServed = append(notServed, name+" ("+d.groupVersion+")")
		}
	}
	slices.Sort(notServed)
	t.Logf("listable resources of the apiserver not in Builtin: %v", notServed)

	cli, err := etcdsource.NewClient(etcdsource.ClientConfig{Endpoints: []string{etcdURL}})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	prefixes, err := etcdsource.ScanPrefixes(context.Background(), cli, "/registry", builtin)
	if err != nil {
		t.Fatal(err)
	}
	byPrefix := map[string]etcdsource.Resource{}
	for _, r := range builtin {
		byPrefix[r.Prefix] = r
	}
	for _, p := range prefixes {
		r, ok := byPrefix[p.Prefix]
		if !ok {
			t.Logf("| `/registry/%s/` | %d | — (not a served built-in resource) |", p.Prefix, p.Keys)
			continue
		}
		resp, err := cli.Get(context.Background(), "/registry/"+p.Prefix+"/", clientv3WithPrefixLimit1()...)
		if err != nil || len(resp.Kvs) == 0 {
			t.Fatalf("first key of %s: %v", p.Prefix, err)
		}
		v := resp.Kvs[0].Value
		enc := "JSON"
		switch {
		case bytes.HasPrefix(v, []byte("k8s\x00")):
			enc = "protobuf"
		case bytes.HasPrefix(v, []byte("\xd9\xd9\xf7")):
			enc = "CBOR"
		case bytes.HasPrefix(v, []byte("k8s:enc:")):
			enc = "encrypted"
		}
		t.Logf("| `/registry/%s/` | %d | %s.%s %s (%s), e.g. `%s` |", p.Prefix, p.Keys, r.Resource, r.Group, r.Kind, enc, resp.Kvs[0].Key)
	}
}

func clientv3WithPrefixLimit1() []clientv3.OpOption {
	return []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithLimit(1)}
}

// TestOracleKube: serve --kubeconfig beside a kube-apiserver 1.37.2 serves every listable resource
// its discovery lists, with the same items as the apiserver, byte for byte apart from the kind and
// apiVersion our list items keep. The list resourceVersions differ: a cache fed by a client of the
// apiserver is at the revision of its last event or bookmark, not etcd's current one.
func TestOracleKube(t *testing.T) {
	env := oracleEnv(t)
	transport := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer transport.CloseIdleConnections()
	k := &kas{url: env["KAS_URL"], token: env["TOKEN"], c: &http.Client{Transport: transport}}
	ns := fmt.Sprintf("e2e-kube-%d", time.Now().Unix()%100000)
	k.create(t, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
	// A CRD with printer columns before serve starts, one after.
	id := time.Now().UnixNano() % 1_000_000
	levers, _ := createKnobs(t, k, "lever", id, ns)
	// An Event written through each group, for events.k8s.io's field selectors.
	k.create(t, "/api/v1/namespaces/"+ns+"/events", map[string]any{"metadata": map[string]any{"name": "old.1"},
		"involvedObject": map[string]any{"kind": "Pod", "namespace": ns, "name": "p1", "apiVersion": "v1", "uid": "u-1"},
		"reason":         "Scheduled", "message": "assigned", "type": "Normal", "source": map[string]any{"component": "default-scheduler"}})
	k.create(t, "/apis/events.k8s.io/v1/namespaces/"+ns+"/events", map[string]any{"metadata": map[string]any{"name": "new.1"},
		"eventTime": "2026-12-01T11:00:00.123456Z", "reportingController": "example.com/ctl", "reportingInstance": "ctl-0",
		"action": "Binding", "reason": "Bound", "regarding": map[string]any{"kind": "Pod", "namespace": ns, "name": "p2", "apiVersion": "v1"},
		"note": "bound p2", "type": "Warning"})
	// serve asks the oracle's TokenReview and SubjectAccessReview about the admin's token.
	base, _ := startServe(t, "--kubeconfig", env["KUBECONFIG"], "--rediscover-interval", "1s")
	ours := &kas{url: base, token: env["TOKEN"], c: http.DefaultClient}
	t.Run("every resource", func(t *testing.T) {
		compareEvery(t, k, ours, listablePaths(t, k), "?resourceVersion=0")
	})
	t.Run("columns of a CRD present at start", func(t *testing.T) { sameTables(t, k, ours, levers) })
	// The field selectors testdata/etcd-events-v1.json records on events.k8s.io/v1: accepted
	// ones select the same Events, refused ones get the same 400.
	for _, sel := range []string{"regarding.name=p2", "regarding.kind=Pod", "regarding.uid=u-1", "regarding.namespace=" + ns,
		"reason=Bound", "type=Warning", "reportingController=example.com/ctl", "metadata.name=old.1",
		"reportingComponent=example.com/ctl", "involvedObject.name=p2", "source=default-scheduler", "note=bound p2"} {
		t.Run("events.k8s.io fieldSelector "+sel, func(t *testing.T) {
			path := "/apis/events.k8s.io/v1/namespaces/" + ns + "/events?fieldSelector=" + url.QueryEscape(sel)
			wantCode, want := k.do(t, http.MethodGet, path, nil)
			gotCode, got := ours.do(t, http.MethodGet, path+"&resourceVersion=0", nil)
			switch {
			case wantCode != gotCode:
				t.Fatalf("ours %d %s, apiserver %d %s", gotCode, got, wantCode, want)
			case wantCode != http.StatusOK:
				if !bytes.Equal(bytes.TrimSpace(want), bytes.TrimSpace(got)) {
					t.Errorf("\n ours      %s\n apiserver %s", got, want)
				}
			default:
				if diff := sameItems(want, got); diff != "" {
					t.Error(diff)
				}
			}
		})
	}
	t.Run("CRD created after start", func(t *testing.T) {
		path, all := createKnobs(t, k, "knob", id, ns)
		compareEvery(t, k, ours, []string{path, all}, "?resourceVersion=0")
		sameTables(t, k, ours, path)
		// Columns edited: serve serves the resource again with the new ones.
		patch := []map[string]any{{"op": "replace", "path": "/spec/versions/0/additionalPrinterColumns/0/name", "value": fmt.Sprintf("Level%d", time.Now().Unix()%1000)}}
		b, _ := json.Marshal(patch)
		req, _ := http.NewRequest(http.MethodPatch, k.url+fmt.Sprintf("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/knob%ds.example.net", id), bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+k.token)
		req.Header.Set("Content-Type", "application/json-patch+json")
		resp, err := k.c.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("patch the CRD's columns: %v %v", err, resp.Status)
		}
		resp.Body.Close()
		sameTables(t, k, ours, path)
	})
	for _, path := range []string{
		"/api/v1/pods", "/api/v1/configmaps", "/api/v1/events", "/apis/apps/v1/deployments", "/api/v1/nodes",
		"/api/v1/namespaces", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", "/apis/apiregistration.k8s.io/v1/apiservices",
		"/apis/events.k8s.io/v1/events", "/apis/storagemigration.k8s.io/v1/storageversionmigrations",
	} {
		t.Run("list "+path, func(t *testing.T) {
			wantCode, want := k.do(t, http.MethodGet, path, nil)
			gotCode, got := ours.do(t, http.MethodGet, path+"?resourceVersion=0", nil)
			if wantCode != http.StatusOK || gotCode != http.StatusOK {
				t.Fatalf("apiserver %d, ours %d: %s", wantCode, gotCode, got)
			}
			compareLists(t, want, got, false)
		})
	}
}
