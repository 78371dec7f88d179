package kubectl_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

// runAsKubectl makes the test binary act as kubectl: the test runs kubectl as a child process,
// as a user runs it, without a kubectl binary on the machine.
const runAsKubectl = "KUBECTL_EXAMPLE_RUN"

// watchcacheBin is the serve command built from this checkout by TestMain.
var watchcacheBin string

func TestMain(m *testing.M) {
	if os.Getenv(runAsKubectl) != "" {
		logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) //nolint:errcheck // as kubectl's main
		if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
			util.CheckErr(err)
		}
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "kubectl-example")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	watchcacheBin = filepath.Join(dir, "watchcache")
	build := exec.Command("go", "build", "-C", filepath.Join("..", "..", "cmd", "watchcache"), "-o", watchcacheBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building cmd/watchcache:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cluster is a server kubectl talks to: serve on a free port, or the kube-apiserver named by
// KUBECTL_EXAMPLE_KUBECONFIG (which the test then checks the same way, to show that the expected
// outputs are a real apiserver's).
type cluster struct {
	env []string // the environment kubectl runs in
}

// startServe runs `watchcache serve --pods 0` (an empty, writable cluster) until the test ends and
// returns kubectl's environment for it.
func startServe(t *testing.T) cluster {
	t.Helper()
	home := t.TempDir()
	if kc := os.Getenv("KUBECTL_EXAMPLE_KUBECONFIG"); kc != "" {
		return cluster{env: append(os.Environ(), "HOME="+home, "KUBECONFIG="+kc, runAsKubectl+"=1")}
	}
	ctx, cancel := context.WithCancel(context.Background())
	serve := exec.CommandContext(ctx, watchcacheBin, "serve", "--listen", "127.0.0.1:0", "--pods", "0")
	out, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		serve.Wait() //nolint:errcheck // killed by the cancel
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve's first line: %v (stderr: %s)", err, stderr.String())
	}
	go io.Copy(io.Discard, out) //nolint:errcheck // serve's log is not checked
	kubeconfig := filepath.Join(home, "kubeconfig")
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: serve, cluster: {server: %q}}]
contexts: [{name: serve, context: {cluster: serve, namespace: default}}]
current-context: serve
`, strings.TrimSpace(line))
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return cluster{env: append(os.Environ(), "HOME="+home, "KUBECONFIG="+kubeconfig, runAsKubectl+"=1")}
}

// kubectl runs kubectl with args (and stdin) and returns its combined output and whether it
// exited 0.
func (c cluster) kubectl(t *testing.T, stdin string, args ...string) (string, bool) {
	t.Helper()
	k := exec.Command(os.Args[0], args...)
	k.Env = c.env
	k.Stdin = strings.NewReader(stdin)
	out, err := k.CombinedOutput()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return string(out), err == nil
}

// watch runs `kubectl get configmaps -w --output-watch-events` until stop is called, which returns
// what it printed.
func (c cluster) watch(t *testing.T) (stop func() string) {
	t.Helper()
	k := exec.Command(os.Args[0], "get", "configmaps", "-w", "--output-watch-events", "-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name,DATA:.object.data")
	k.Env = c.env
	var mu sync.Mutex
	var out bytes.Buffer
	k.Stdout = writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	k.Stderr = k.Stdout
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Process.Kill(); k.Wait() }) //nolint:errcheck // the watch never ends by itself
	return func() string {
		deadline := time.Now().Add(20 * time.Second)
		for {
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if strings.Contains(s, "DELETED") || time.Now().After(deadline) {
				return s
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

const app = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
`

// TestKubectlAgainstServe: the README's kubectl session against `watchcache serve --pods 0`. Each
// expected output is what kubectl v1.37.2 prints against kube-apiserver 1.37.2 (run it with
// KUBECTL_EXAMPLE_KUBECONFIG=$KUBECONFIG, a fresh oracle from ../shared/oracle, to see the same).
func TestKubectlAgainstServe(t *testing.T) {
	c := startServe(t)
	// Wait for serve's discovery and the default namespace (serve is ready when it prints, the
	// apiserver's kubeconfig is ready when the oracle script returns).
	if out, ok := c.kubectl(t, "", "get", "namespace", "default", "-o", "name"); !ok || out != "namespace/default\n" {
		t.Fatalf("kubectl get namespace default: %q", out)
	}
	stop := c.watch(t)
	time.Sleep(500 * time.Millisecond) // the watch's initial list is empty; let it start
	steps := []struct {
		name  string
		stdin string
		args  []string
		want  string
		ok    bool
	}{
		{"apply creates", app, []string{"apply", "-f", "-"}, "deployment.apps/web created\nconfigmap/settings created\n", true},
		{"apply again", app, []string{"apply", "-f", "-"}, "deployment.apps/web unchanged\nconfigmap/settings unchanged\n", true},
		{"merge patch", "", []string{"patch", "configmap", "settings", "-p", `{"data":{"mode":"slow"}}`}, "configmap/settings patched\n", true},
		{"JSON patch", "", []string{"patch", "configmap", "settings", "--type=json", "-p", `[{"op":"add","path":"/data/extra","value":"1"}]`}, "configmap/settings patched\n", true},
		{"patch a missing object", "", []string{"patch", "configmap", "nope", "-p", `{"data":{"a":"b"}}`}, "Error from server (NotFound): configmaps \"nope\" not found\n", false},
		{"server-side apply conflicts", app, []string{"apply", "--server-side", "-f", "-"}, "deployment.apps/web serverside-applied\n" +
			"error: Apply failed with 1 conflict: conflict with \"kubectl-patch\" using v1: .data.mode\n" +
			"Please review the fields above--they currently have other managers. Here\n" +
			"are the ways you can resolve this warning:\n" +
			"* If you intend to manage all of these fields, please re-run the apply\n" +
			"  command with the `--force-conflicts` flag.\n" +
			"* If you do not intend to manage all of the fields, please edit your\n" +
			"  manifest to remove references to the fields that should keep their\n" +
			"  current managers.\n" +
			"* You may co-own fields by updating your manifest to match the existing\n" +
			"  value; in this case, you'll become the manager if the other manager(s)\n" +
			"  stop managing the field (remove it from their configuration).\n" +
			"See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n", false},
		{"data after the patches", "", []string{"get", "configmap", "settings", "-o", "jsonpath={.data}"}, `{"extra":"1","mode":"slow"}`, true},
		// The server-side apply rewrote the last-applied annotation: a Deployment's annotations bump
		// its generation, as its spec does.
		{"generation after an annotation change", "", []string{"get", "deployment", "web", "-o", "jsonpath={.metadata.generation}"}, "2", true},
		{"scale", "", []string{"scale", "deployment", "web", "--replicas=3"}, "deployment.apps/web scaled\n", true},
		{"generation bumped by scale", "", []string{"get", "deployment", "web", "-o", "jsonpath={.metadata.generation} {.spec.replicas}"}, "3 3", true},
		{"label", "", []string{"label", "configmap", "settings", "tier=backend"}, "configmap/settings labeled\n", true},
		{"field selector", "", []string{"get", "configmaps", "--field-selector", "metadata.name=settings", "-o", "name"}, "configmap/settings\n", true},
		{"label selector", "", []string{"get", "configmaps", "-l", "tier=backend", "-o", "name"}, "configmap/settings\n", true},
		{"server dry run", "", []string{"create", "configmap", "dry", "--from-literal=a=b", "--dry-run=server", "-o", "name"}, "configmap/dry\n", true},
		{"dry run stored nothing", "", []string{"get", "configmap", "dry", "--ignore-not-found", "-o", "name"}, "", true},
		{"invalid name", "", []string{"create", "configmap", "Bad_Name"}, "error: failed to create configmap: ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n", false},
		{"delete", "", []string{"delete", "configmap", "settings"}, "configmap \"settings\" deleted from default namespace\n", true},
		{"delete again", "", []string{"delete", "configmap", "settings"}, "Error from server (NotFound): configmaps \"settings\" not found\n", false},
	}
	for _, s := range steps {
		got, ok := c.kubectl(t, s.stdin, s.args...)
		if got != s.want || ok != s.ok {
			t.Errorf("%s: kubectl %s\n got (exit 0: %v):\n%s\nwant (exit 0: %v):\n%s", s.name, strings.Join(s.args, " "), ok, got, s.ok, s.want)
		}
	}
	// kubectl pads a watch's columns by the rows it printed so far: compare words, not padding.
	const events = "EVENT NAME DATA\n" +
		"ADDED settings map[mode:fast]\n" +
		"MODIFIED settings map[mode:slow]\n" +
		"MODIFIED settings map[extra:1 mode:slow]\n" +
		"MODIFIED settings map[extra:1 mode:slow]\n" +
		"DELETED settings map[extra:1 mode:slow]\n"
	if got := foldSpaces(stop()); got != events {
		t.Errorf("kubectl get configmaps -w --output-watch-events:\n got:\n%s\nwant:\n%s", got, events)
	}
}

// foldSpaces replaces each run of spaces in s's lines by one.
func foldSpaces(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		nl := strings.HasSuffix(line, "\n")
		b.WriteString(strings.Join(strings.Fields(line), " "))
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// rbac is a Role that reads pods, bound to user alice and to the service account robot.
const rbac = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: robot
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
rules:
- apiGroups: [""]
  resources: ["pods", "pods/log"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: read-pods
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
- kind: ServiceAccount
  name: robot
roleRef:
  kind: Role
  name: pod-reader
  apiGroup: rbac.authorization.k8s.io
`

// TestKubectlAuthAgainstServe: kubectl auth can-i and auth whoami against `watchcache serve
// --pods 0`, whose reviews evaluate RBAC from the roles and bindings it stores. Each expected
// output is what kubectl v1.37.2 prints against kube-apiserver 1.37.2 with
// --authorization-mode=Node,RBAC (KUBECTL_EXAMPLE_KUBECONFIG=$KUBECONFIG of a fresh oracle started
// so, as reference/observed-authz.md says; the default oracle's AlwaysAllow answers yes to all).
// The admin's own identity differs (serve's admin is "admin"), so whoami runs impersonated.
func TestKubectlAuthAgainstServe(t *testing.T) {
	c := startServe(t)
	if out, ok := c.kubectl(t, "", "get", "namespace", "default", "-o", "name"); !ok || out != "namespace/default\n" {
		t.Fatalf("kubectl get namespace default: %q", out)
	}
	if out, ok := c.kubectl(t, rbac, "apply", "-f", "-"); !ok {
		t.Fatalf("kubectl apply: %s", out)
	}
	time.Sleep(time.Second) // the apiserver's authorizer reads RBAC through informers
	steps := []struct {
		name string
		args []string
		want string
		ok   bool
	}{
		{"admin", []string{"auth", "can-i", "create", "deployments"}, "yes\n", true},
		{"admin anything", []string{"auth", "can-i", "*", "*"}, "yes\n", true},
		{"alice reads pods", []string{"auth", "can-i", "list", "pods", "--as=alice"}, "yes\n", true},
		{"alice reads logs", []string{"auth", "can-i", "get", "pods", "--subresource=log", "--as=alice"}, "yes\n", true},
		{"alice deletes pods", []string{"auth", "can-i", "delete", "pods", "--as=alice"}, "no\n", false},
		{"alice elsewhere", []string{"auth", "can-i", "list", "pods", "-n", "kube-system", "--as=alice"}, "no\n", false},
		{"alice's discovery", []string{"auth", "can-i", "get", "/apis", "--as=alice"}, "yes\n", true},
		{"robot reads pods", []string{"auth", "can-i", "watch", "pods", "--as=system:serviceaccount:default:robot"}, "yes\n", true},
		{"bob", []string{"auth", "can-i", "list", "pods", "--as=bob"}, "no\n", false},
		{"admin's list", []string{"auth", "can-i", "--list"}, "Resources                                       Non-Resource URLs   Resource Names   Verbs\n*.*                                             []                  []               [*]\n                                                [*]                 []               [*]\nselfsubjectreviews.authentication.k8s.io        []                  []               [create]\nselfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]\nselfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]\n                                                [/api/*]            []               [get]\n                                                [/api]              []               [get]\n                                                [/apis/*]           []               [get]\n                                                [/apis]             []               [get]\n                                                [/healthz]          []               [get]\n                                                [/healthz]          []               [get]\n                                                [/livez]            []               [get]\n                                                [/livez]            []               [get]\n                                                [/openapi/*]        []               [get]\n                                                [/openapi]          []               [get]\n                                                [/readyz]           []               [get]\n                                                [/readyz]           []               [get]\n                                                [/version/]         []               [get]\n                                                [/version/]         []               [get]\n                                                [/version]          []               [get]\n                                                [/version]          []               [get]\n", true},
		{"alice's list", []string{"auth", "can-i", "--list", "--as=alice"}, "Resources                                       Non-Resource URLs   Resource Names   Verbs\nselfsubjectreviews.authentication.k8s.io        []                  []               [create]\nselfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]\nselfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]\npods/log                                        []                  []               [get list watch]\npods                                            []                  []               [get list watch]\n                                                [/api/*]            []               [get]\n                                                [/api]              []               [get]\n                                                [/apis/*]           []               [get]\n                                                [/apis]             []               [get]\n                                                [/healthz]          []               [get]\n                                                [/healthz]          []               [get]\n                                                [/livez]            []               [get]\n                                                [/livez]            []               [get]\n                                                [/openapi/*]        []               [get]\n                                                [/openapi]          []               [get]\n                                                [/readyz]           []               [get]\n                                                [/readyz]           []               [get]\n                                                [/version/]         []               [get]\n                                                [/version/]         []               [get]\n                                                [/version]          []               [get]\n                                                [/version]          []               [get]\n", true},
		{"robot's list", []string{"auth", "can-i", "--list", "--as=system:serviceaccount:default:robot"}, "Resources                                       Non-Resource URLs                      Resource Names   Verbs\nselfsubjectreviews.authentication.k8s.io        []                                     []               [create]\nselfsubjectaccessreviews.authorization.k8s.io   []                                     []               [create]\nselfsubjectrulesreviews.authorization.k8s.io    []                                     []               [create]\npods/log                                        []                                     []               [get list watch]\npods                                            []                                     []               [get list watch]\nclustertrustbundles.certificates.k8s.io         []                                     []               [get list watch]\n                                                [/.well-known/openid-configuration/]   []               [get]\n                                                [/.well-known/openid-configuration]    []               [get]\n                                                [/api/*]                               []               [get]\n                                                [/api]                                 []               [get]\n                                                [/apis/*]                              []               [get]\n                                                [/apis]                                []               [get]\n                                                [/healthz]                             []               [get]\n                                                [/healthz]                             []               [get]\n                                                [/livez]                               []               [get]\n                                                [/livez]                               []               [get]\n                                                [/openapi/*]                           []               [get]\n                                                [/openapi]                             []               [get]\n                                                [/openid/v1/jwks/]                     []               [get]\n                                                [/openid/v1/jwks]                      []               [get]\n                                                [/readyz]                              []               [get]\n                                                [/readyz]                              []               [get]\n                                                [/version/]                            []               [get]\n                                                [/version/]                            []               [get]\n                                                [/version]                             []               [get]\n                                                [/version]                             []               [get]\n", true},
		{"whoami", []string{"auth", "whoami", "--as=alice", "--as-group=devs"}, "ATTRIBUTE   VALUE\nUsername    alice\nGroups      [devs system:authenticated]\n", true},
		{"whoami service account", []string{"auth", "whoami", "--as=system:serviceaccount:default:robot"}, "ATTRIBUTE   VALUE\nUsername    system:serviceaccount:default:robot\nGroups      [system:serviceaccounts system:serviceaccounts:default system:authenticated]\n", true},
		{"whoami jsonpath", []string{"auth", "whoami", "--as=alice", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"}, "alice [\"system:authenticated\"]", true},
	}
	for _, s := range steps {
		got, ok := c.kubectl(t, "", s.args...)
		if got != s.want || ok != s.ok {
			t.Errorf("%s: kubectl %s\n got (exit 0: %v):\n%s\nwant (exit 0: %v):\n%s", s.name, strings.Join(s.args, " "), ok, got, s.ok, s.want)
		}
	}
}
