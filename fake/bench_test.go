package fake_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/internal/inproc"
)

// BenchmarkNewServer is the time to a ready server with no objects of its own (the four default
// namespaces), listener included, and its Close.
func BenchmarkNewServer(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		srv, err := fake.NewServer(fake.Options{})
		if err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
}

// BenchmarkNewServerObjects is the time to a ready server loaded with 10,000 pods (Options.Objects).
func BenchmarkNewServerObjects(b *testing.B) {
	objs := make([]runtime.Object, 10_000)
	for i := range objs {
		objs[i] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Namespace: fmt.Sprintf("ns-%d", i%20), Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%50)}},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i%500), Containers: []corev1.Container{{
				Name: "main", Image: "registry.example.com/app:1.2.3", Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
			}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1"},
		}
	}
	b.ReportAllocs()
	cpu := cpuNow()
	for b.Loop() {
		srv, err := fake.NewServer(fake.Options{Objects: objs})
		if err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
	reportCPU(b, cpu)
}

// cpuNow is the CPU time (user + system) the process has used, every goroutine and the garbage
// collector included: on a machine shared with other jobs it is steadier than wall time, which
// counts the time other processes hold the cores.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per op since start as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
}

// writeTarget is where a write benchmark writes: a client config for it, and the CPU its server
// used outside the benchmark's process (nil when the server runs inside it, as the fake does).
type writeTarget struct {
	config    func(b *testing.B) *rest.Config
	serverCPU func() time.Duration
}

// writeTargets are the fake through Config (in process) and through NetworkConfig (its loopback
// listener), the floor served the same two ways, and the oracle when WATCHCACHE_ORACLE_URL is
// set. The oracle's server CPU is that of the processes listed in WATCHCACHE_ORACLE_PIDS
// (kube-apiserver and etcd: the pids in the oracle's run/*.pid): on a shared 2-core machine the
// CPU each side spends per write is steadier than its wall time, and it says which side is
// CPU-bound.
//
// They are listed in one order, the oracle last. A kube-apiserver that has just taken thousands of
// writes goes on spending CPU for seconds after them (its garbage collector, its watch cache,
// etcd's compaction), which a benchmark that runs meanwhile pays on two cores; so each of the
// others first waits for the oracle's processes to settle (settle).
func writeTargets(b *testing.B) []namedTarget {
	targets := map[string]writeTarget{
		"fake":          {config: func(b *testing.B) *rest.Config { return fake.NewTest(b, fake.Options{}).Config() }},
		"fake-network":  {config: func(b *testing.B) *rest.Config { return fake.NewTest(b, fake.Options{}).NetworkConfig() }},
		"floor":         {config: func(b *testing.B) *rest.Config { return floorConfig(b, true) }},
		"floor-network": {config: func(b *testing.B) *rest.Config { return floorConfig(b, false) }},
	}
	if base := os.Getenv("WATCHCACHE_ORACLE_URL"); base != "" {
		pids := strings.Fields(os.Getenv("WATCHCACHE_ORACLE_PIDS"))
		t := writeTarget{config: func(*testing.B) *rest.Config {
			return &rest.Config{Host: base, BearerToken: os.Getenv("WATCHCACHE_ORACLE_TOKEN"), QPS: -1,
				TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
		}}
		if len(pids) > 0 {
			t.serverCPU = func() time.Duration { return processesCPU(b, pids) }
			for name, other := range targets {
				config := other.config
				other.config = func(b *testing.B) *rest.Config {
					settle(b, pids)
					return config(b)
				}
				targets[name] = other
			}
		}
		targets["oracle"] = t
	}
	out := make([]namedTarget, 0, len(targets))
	for _, name := range slices.Sorted(maps.Keys(targets)) {
		if name != "oracle" {
			out = append(out, namedTarget{name, targets[name]})
		}
	}
	if t, ok := targets["oracle"]; ok {
		out = append(out, namedTarget{"oracle", t})
	}
	return out
}

// settle waits, up to 30 seconds, until the processes pids use less than a tenth of a core over
// half a second.
func settle(b *testing.B, pids []string) {
	const window = 500 * time.Millisecond
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		before := processesCPU(b, pids)
		time.Sleep(window)
		if processesCPU(b, pids)-before < window/10 {
			return
		}
	}
	b.Logf("the oracle's processes did not settle in 30s")
}

// namedTarget is a writeTarget and its name in the benchmarks' names.
type namedTarget struct {
	name string
	writeTarget
}

// floorConfig is a client config for an HTTP handler that does no work: it reads each request's
// body and answers with one fixed protobuf object of the request's resource, as the fake would.
// inProcess serves it as the fake's Config does (internal/inproc's transport), else on a loopback
// listener as NetworkConfig. What the write benchmarks spend against it is what client-go (and
// net/http on both ends of the connection, over the network) cost in one process: the least CPU
// per write the fake can use through the same kind of Config, whatever its handler does.
func floorConfig(b *testing.B, inProcess bool) *rest.Config {
	codec := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	encode := func(obj runtime.Object) []byte {
		var buf bytes.Buffer
		if err := codec.Encode(obj, &buf); err != nil {
			b.Fatal(err)
		}
		return buf.Bytes()
	}
	now := metav1.Now()
	meta := metav1.ObjectMeta{Name: "cm-1", Namespace: "bench", UID: "6f1c7c0e-0c1d-4d0a-9d59-000000000001", ResourceVersion: "12345",
		CreationTimestamp: now, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "bench", Operation: metav1.ManagedFieldsOperationApply,
			APIVersion: "v1", Time: &now, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:n":{}}}`)}}}}
	cm := encode(&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta, Data: map[string]string{"n": "1"}})
	ns := encode(&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "bench"}})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		body := cm
		if r.URL.Path == "/api/v1/namespaces" {
			body = ns
		}
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = w.Write(body)
	})
	if inProcess {
		t := inproc.New(h, "floor.invalid")
		t.Streams = func(*http.Request) bool { return false } // it answers no watch: every request inline, as the fake's writes
		return &rest.Config{Host: "http://floor.invalid", QPS: -1, UserAgent: rest.DefaultKubernetesUserAgent(), Transport: t}
	}
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL, QPS: -1, UserAgent: rest.DefaultKubernetesUserAgent()}
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on every Linux
// architecture's ABI).
const userHZ = 100

// processesCPU is the CPU time (user + system) the processes pids have used, from
// /proc/<pid>/stat.
func processesCPU(b *testing.B, pids []string) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			b.Fatalf("oracle process %s: %v", pid, err)
		}
		// The fields after the command name, which is in parentheses and may hold spaces: state is
		// the first, utime the 12th, stime the 13th.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 13 {
			b.Fatalf("oracle process %s: short stat %q", pid, stat)
		}
		for _, v := range f[11:13] {
			ticks, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatalf("oracle process %s: stat: %v", pid, err)
			}
			total += time.Duration(ticks) * time.Second / userHZ
		}
	}
	return total
}

var benchNS atomic.Int64

// BenchmarkCreate creates ConfigMaps through client-go's typed clientset with 1 and 16 concurrent
// writers (ns/op is per create, over all writers).
func BenchmarkCreate(b *testing.B) {
	for _, target := range writeTargets(b) {
		name := target.name
		for _, writers := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/writers=%d", name, writers), func(b *testing.B) {
				cs, ns := benchClient(b, target.config(b))
				var next atomic.Int64
				runWriters(b, writers, target.serverCPU, func(ctx context.Context) error {
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", next.Add(1))}, Data: map[string]string{"k": "v"}}
					_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
					return err
				})
			})
		}
	}
}

// BenchmarkUpdate updates ConfigMaps (one per writer, unconditionally) through client-go with 1
// and 16 concurrent writers.
func BenchmarkUpdate(b *testing.B) {
	for _, target := range writeTargets(b) {
		name := target.name
		for _, writers := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/writers=%d", name, writers), func(b *testing.B) {
				cs, ns := benchClient(b, target.config(b))
				for w := range writers {
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("u-", w)}}
					if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				var n atomic.Int64
				runWriters(b, writers, target.serverCPU, func(ctx context.Context) error {
					w := ctx.Value(writerKey{}).(int)
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("u-", w)}, Data: map[string]string{"n": fmt.Sprint(n.Add(1))}}
					_, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
					return err
				})
			})
		}
	}
}

// BenchmarkApply server-side applies ConfigMaps (one per writer, each apply a new value, forced)
// through client-go's typed Apply with 1 and 16 concurrent writers.
func BenchmarkApply(b *testing.B) {
	for _, target := range writeTargets(b) {
		name := target.name
		for _, writers := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/writers=%d", name, writers), func(b *testing.B) {
				cs, ns := benchClient(b, target.config(b))
				var n atomic.Int64
				runWriters(b, writers, target.serverCPU, func(ctx context.Context) error {
					w := ctx.Value(writerKey{}).(int)
					cm := corev1apply.ConfigMap(fmt.Sprint("a-", w), ns).WithData(map[string]string{"n": fmt.Sprint(n.Add(1))})
					_, err := cs.CoreV1().ConfigMaps(ns).Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "bench", Force: true})
					return err
				})
			})
		}
	}
}

type writerKey struct{}

// benchClient returns a clientset for cfg and a new namespace to write in.
func benchClient(b *testing.B, cfg *rest.Config) (kubernetes.Interface, string) {
	b.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ns := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano()%1_000_000, benchNS.Add(1))
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	return cs, ns
}

// runWriters runs b.N calls of op spread over writers goroutines. It reports cpu-ns/op, the
// benchmark process's CPU per write (the client's, and the server's for the fake), and with
// serverCPU, server-cpu-ns/op (the oracle's processes) and total-cpu-ns/op.
func runWriters(b *testing.B, writers int, serverCPU func() time.Duration, op func(ctx context.Context) error) {
	b.Helper()
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	var server time.Duration
	if serverCPU != nil {
		server = serverCPU()
	}
	b.ResetTimer()
	cpu := cpuNow()
	for w := range writers {
		ctx := context.WithValue(context.Background(), writerKey{}, w)
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := op(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	cpu = cpuNow() - cpu
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	if serverCPU != nil {
		server = serverCPU() - server
		b.ReportMetric(float64(server)/float64(b.N), "server-cpu-ns/op")
	}
	b.ReportMetric(float64(cpu+server)/float64(b.N), "total-cpu-ns/op")
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkWritePath measures the server's own work per write, without HTTP or a client: create
// of ConfigMaps, update and apply of a ConfigMap's data (the writes of BenchmarkUpdate and
// BenchmarkApply), update, merge patch and strategic merge patch of a Deployment, and server-side
// apply of a Deployment (JSON body, as client-go sends it, and the same in YAML), through the
// server's handler. cpu-ns/op is the process's CPU per write, the garbage collector's included.
func BenchmarkWritePath(b *testing.B) {
	const deployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"app":"web"}},"spec":{"replicas":%d,` +
		`"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[` +
		`{"name":"c1","image":"nginx:1","ports":[{"containerPort":80}]},{"name":"c2","image":"busybox:1","args":["sleep","1d"]}]}}}}`
	const deploymentYAML = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels:\n    app: web\nspec:\n  replicas: %d\n" +
		"  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n" +
		"      - name: c1\n        image: nginx:1\n        ports:\n        - containerPort: 80\n      - name: c2\n        image: busybox:1\n        args: [sleep, 1d]\n"
	do := func(b *testing.B, h http.Handler, method, path, ct, body string, want int) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("User-Agent", "bench/v0.0.0") // a manager for managedFields, as every client sends
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
	}
	newHandler := func(b *testing.B) *fake.Server {
		s, err := fake.NewHandler(fake.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(s.Close)
		return s
	}
	// Creates of new objects: body is a format with one %d, the object's number.
	for _, c := range []struct{ name, path, body string }{
		{"create", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"cm-%d","labels":{"a":"b"}},"data":{"k":"v"}}`},
		{"create-pod", "/api/v1/namespaces/default/pods", `{"metadata":{"name":"p-%d","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := newHandler(b)
			create := func(i int) {
				do(b, h, "POST", c.path, "application/json", fmt.Sprintf(c.body, i), http.StatusCreated)
			}
			create(0) // the process's first managedFields update builds the type converter
			b.ReportAllocs()
			cpu := cpuNow()
			i := 0
			for b.Loop() {
				i++
				create(i)
			}
			reportCPU(b, cpu)
		})
	}
	b.Run("update", func(b *testing.B) {
		h := newHandler(b)
		do(b, h, "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", fmt.Sprintf(deployment, 0), http.StatusCreated)
		b.ReportAllocs()
		cpu := cpuNow()
		i := 0
		for b.Loop() {
			i++
			do(b, h, "PUT", "/apis/apps/v1/namespaces/default/deployments/d", "application/json", fmt.Sprintf(deployment, i), http.StatusOK)
		}
		reportCPU(b, cpu)
	})
	// The writes of BenchmarkUpdate and BenchmarkApply, without the client: a ConfigMap's data.
	for _, c := range []struct{ name, method, path, ct, body string }{
		{"update-configmap", "PUT", "/api/v1/namespaces/default/configmaps/c", "application/json", `{"metadata":{"name":"c"},"data":{"n":"%d"}}`},
		{"apply-configmap", "PATCH", "/api/v1/namespaces/default/configmaps/c?fieldManager=bench&force=true", "application/apply-patch+yaml",
			`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"default"},"data":{"n":"%d"}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := newHandler(b)
			do(b, h, "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"c"}}`, http.StatusCreated)
			do(b, h, c.method, c.path, c.ct, fmt.Sprintf(c.body, 0), http.StatusOK)
			b.ReportAllocs()
			cpu := cpuNow()
			i := 0
			for b.Loop() {
				i++
				do(b, h, c.method, c.path, c.ct, fmt.Sprintf(c.body, i), http.StatusOK)
			}
			reportCPU(b, cpu)
		})
	}
	for _, c := range []struct{ name, ct, body string }{
		{"merge-patch", "application/merge-patch+json", `{"spec":{"replicas":%d}}`},
		{"strategic-patch", "application/strategic-merge-patch+json", `{"spec":{"template":{"spec":{"containers":[{"name":"c1","image":"nginx:%d"}]}}}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := newHandler(b)
			do(b, h, "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", fmt.Sprintf(deployment, 0), http.StatusCreated)
			b.ReportAllocs()
			cpu := cpuNow()
			i := 0
			for b.Loop() {
				i++
				do(b, h, "PATCH", "/apis/apps/v1/namespaces/default/deployments/d", c.ct, fmt.Sprintf(c.body, i), http.StatusOK)
			}
			reportCPU(b, cpu)
		})
	}
	for _, c := range []struct{ name, body string }{{"apply-json", deployment}, {"apply-yaml", deploymentYAML}} {
		b.Run(c.name, func(b *testing.B) {
			h := newHandler(b)
			path := "/apis/apps/v1/namespaces/default/deployments/d?fieldManager=bench&force=true"
			do(b, h, "PATCH", path, "application/apply-patch+yaml", fmt.Sprintf(c.body, 0), http.StatusCreated)
			b.ReportAllocs()
			cpu := cpuNow()
			i := 0
			for b.Loop() {
				i++
				do(b, h, "PATCH", path, "application/apply-patch+yaml", fmt.Sprintf(c.body, i), http.StatusOK)
			}
			reportCPU(b, cpu)
		})
	}
}
