package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// startServe runs serve with args until the test ends and returns its URL and its log.
func startServe(t *testing.T, args ...string) (string, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	out, w := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), w, stderr)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v (stderr: %s)", err, stderr.String())
	}
	go io.Copy(io.Discard, out)
	return strings.TrimSpace(line), stderr
}

func getJSON(t *testing.T, u string, into any) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if into != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, into); err != nil {
			t.Fatalf("GET %s: %v: %s", u, err, body)
		}
	}
	return resp.StatusCode
}

// etcdPut returns a function that writes a key and returns the revision of the write.
func etcdPut(t *testing.T, cli *clientv3.Client) func(key, value string) int64 {
	return func(key, value string) int64 {
		t.Helper()
		resp, err := cli.Put(t.Context(), key, value)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Revision
	}
}

// putProtobuf writes obj under key as the apiserver's default storage codec does.
func putProtobuf(t *testing.T, put func(key, value string) int64, key string, obj runtime.Object) {
	t.Helper()
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	put(key, buf.String())
}

// TestServeEtcdResources: serve --etcd-endpoints serves every built-in resource from its prefix,
// protobuf values included — deployments under /registry/deployments, events under
// /registry/events — with discovery naming them as kubectl resolves them (deploy, ev), and
// --resources narrows the set.
func TestServeEtcdResources(t *testing.T) {
	cli, endpoint := startEtcd(t)
	put := etcdPut(t, cli)
	putProtobuf(t, put, "/registry/deployments/ns-a/web", &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns-a"},
	})
	putProtobuf(t, put, "/registry/events/ns-a/web.1", &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Name: "web.1", Namespace: "ns-a"},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Name: "web", Namespace: "ns-a"},
		Reason:         "ScalingReplicaSet",
	})
	put("/registry/pods/ns-a/p", podJSON("ns-a", "p", "node-1"))
	put("/registry/example.com/widgets/ns-a/w", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns-a"}}`)

	t.Run("all", func(t *testing.T) {
		base, logs := startServe(t, "--etcd-endpoints", endpoint)
		var deploys struct {
			Kind, APIVersion string
			Items            []appsv1.Deployment
		}
		if code := getJSON(t, base+"/apis/apps/v1/namespaces/ns-a/deployments", &deploys); code != http.StatusOK ||
			len(deploys.Items) != 1 || deploys.Items[0].Name != "web" || deploys.Items[0].ResourceVersion == "" || deploys.Kind != "DeploymentList" {
			t.Fatalf("deployments: %d %+v", code, deploys)
		}
		var events corev1.EventList
		if code := getJSON(t, base+"/api/v1/events?fieldSelector=involvedObject.kind%3DDeployment", &events); code != http.StatusOK ||
			len(events.Items) != 1 || events.Items[0].Reason != "ScalingReplicaSet" {
			t.Fatalf("events: %d %+v", code, events)
		}
		var apps metav1.APIResourceList
		if code := getJSON(t, base+"/apis/apps/v1", &apps); code != http.StatusOK {
			t.Fatalf("discovery of apps/v1: %d", code)
		}
		found := false
		for _, r := range apps.APIResources {
			if r.Name == "deployments" && r.Kind == "Deployment" && r.Namespaced && strings.Join(r.ShortNames, ",") == "deploy" {
				found = true
			}
		}
		if !found {
			t.Fatalf("apps/v1 discovery lacks deployments (deploy): %+v", apps.APIResources)
		}
		// Empty built-in resources are served too, as the apiserver serves them.
		if code := getJSON(t, base+"/apis/rbac.authorization.k8s.io/v1/clusterroles", nil); code != http.StatusOK {
			t.Fatalf("clusterroles: %d", code)
		}
		resp, err := http.Get(base + "/readyz?verbose")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, want := range []string{"[+]etcd ok\n", "[+]etcd/deployments.apps ok\n", "[+]etcd/events ok\n", "[+]resource/deployments.apps ok\n", "readyz check passed"} {
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
				t.Fatalf("readyz: %d, lacks %q:\n%s", resp.StatusCode, want, body)
			}
		}
		if !strings.Contains(logs.String(), "example.com/widgets (1 keys)") {
			t.Errorf("the log does not name the prefix it does not serve:\n%s", logs.String())
		}
	})

	t.Run("narrowed", func(t *testing.T) {
		base, _ := startServe(t, "--etcd-endpoints", endpoint, "--resources", "deploy,ev")
		for path, want := range map[string]int{
			"/apis/apps/v1/deployments": http.StatusOK,
			"/api/v1/events":            http.StatusOK,
			"/api/v1/pods":              http.StatusNotFound,
			"/apis/batch/v1/jobs":       http.StatusNotFound,
		} {
			if code := getJSON(t, base+path, nil); code != want {
				t.Errorf("GET %s: %d, want %d", path, code, want)
			}
		}
	})

	if err := run(t.Context(), []string{"serve", "--listen", "127.0.0.1:0", "--etcd-endpoints", endpoint, "--resources", "pods,gadgets"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), `"gadgets"`) {
		t.Fatalf("--resources with an unknown name: %v", err)
	}
}
