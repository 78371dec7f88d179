package testdata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// podJSON is the subset of a Pod the tests inspect.
type podJSON struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name            string            `json:"name"`
		Namespace       string            `json:"namespace"`
		UID             string            `json:"uid"`
		ResourceVersion *string           `json:"resourceVersion"`
		Generation      int64             `json:"generation"`
		Labels          map[string]string `json:"labels"`
		Annotations     map[string]string `json:"annotations"`
		OwnerReferences []struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
			UID  string `json:"uid"`
		} `json:"ownerReferences"`
		ManagedFields []struct {
			Manager     string          `json:"manager"`
			Time        string          `json:"time"`
			Subresource string          `json:"subresource"`
			FieldsV1    json.RawMessage `json:"fieldsV1"`
		} `json:"managedFields"`
	} `json:"metadata"`
	Spec struct {
		Containers []struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		} `json:"containers"`
		RestartPolicy string `json:"restartPolicy"`
		NodeName      string `json:"nodeName"`
		HostNetwork   bool   `json:"hostNetwork"`
		SchedulerName string `json:"schedulerName"`
		Tolerations   []any  `json:"tolerations"`
	} `json:"spec"`
	Status struct {
		Phase             string `json:"phase"`
		NominatedNodeName string `json:"nominatedNodeName"`
		HostIP            string `json:"hostIP"`
		PodIP             string `json:"podIP"`
		PodIPs            []struct {
			IP string `json:"ip"`
		} `json:"podIPs"`
		Conditions        []any  `json:"conditions"`
		ContainerStatuses []any  `json:"containerStatuses"`
		QOSClass          string `json:"qosClass"`
	} `json:"status"`
}

func decodePod(t testing.TB, b []byte) podJSON {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("invalid JSON: %s", b)
	}
	var p podJSON
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("decode: %v\n%s", err, b)
	}
	return p
}

// labelSet renders labels canonically, for counting distinct sets.
func labelSet(l map[string]string) string {
	var sb strings.Builder
	for _, k := range slices.Sorted(maps.Keys(l)) {
		sb.WriteString(k + "=" + l[k] + ",")
	}
	return sb.String()
}

func TestConfigDefaults(t *testing.T) {
	tests := []struct {
		in, want Config
	}{
		{Config{}, Config{Pods: 1000, Nodes: 100, Namespaces: 10}},
		{Config{Pods: 5, Seed: 7}, Config{Pods: 5, Nodes: 100, Namespaces: 10, Seed: 7}},
		{Config{Pods: -1, Nodes: 3, Namespaces: 2}, Config{Pods: 1000, Nodes: 3, Namespaces: 2}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.in), func(t *testing.T) {
			if got := New(tt.in).Config(); got != tt.want {
				t.Errorf("Config() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	g := New(Config{Namespaces: 10})
	tests := []struct{ got, want string }{
		{g.PodName(0), "pod-000000"},
		{g.PodName(42), "pod-000042"},
		{g.PodName(1234567), "pod-1234567"},
		{g.PodNamespace(0), "ns-0"},
		{g.PodNamespace(13), "ns-3"},
		{g.NodeName(7), "node-7"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestPodShape(t *testing.T) {
	g := New(Config{Seed: 1})
	for i := range 1000 {
		b := g.Pod(i, uint64(i+100))
		p := decodePod(t, b)
		if p.Kind != "Pod" || p.APIVersion != "v1" {
			t.Fatalf("pod %d: kind/apiVersion %q/%q", i, p.Kind, p.APIVersion)
		}
		if p.Metadata.Name != g.PodName(i) || p.Metadata.Namespace != g.PodNamespace(i) {
			t.Fatalf("pod %d: name %s/%s", i, p.Metadata.Namespace, p.Metadata.Name)
		}
		if rv := p.Metadata.ResourceVersion; rv == nil || *rv != strconv.Itoa(i+100) {
			t.Fatalf("pod %d: resourceVersion %v", i, rv)
		}
		if len(p.Metadata.UID) != 36 || p.Metadata.UID[14] != '4' {
			t.Fatalf("pod %d: uid %q", i, p.Metadata.UID)
		}
		if n := len(p.Spec.Containers); n < 1 || n > 3 || len(p.Status.ContainerStatuses) != n && p.Spec.NodeName != "" {
			t.Fatalf("pod %d: %d containers, %d statuses", i, n, len(p.Status.ContainerStatuses))
		}
		if len(p.Metadata.OwnerReferences) != 1 || p.Metadata.OwnerReferences[0].Kind != "ReplicaSet" ||
			p.Metadata.OwnerReferences[0].Name != p.Metadata.Labels["app"]+"-"+p.Metadata.Labels["pod-template-hash"] {
			t.Fatalf("pod %d: ownerReferences %+v", i, p.Metadata.OwnerReferences)
		}
		if len(p.Metadata.ManagedFields) < 2 || p.Metadata.ManagedFields[0].Manager != "kube-controller-manager" ||
			!json.Valid(p.Metadata.ManagedFields[0].FieldsV1) {
			t.Fatalf("pod %d: managedFields %+v", i, p.Metadata.ManagedFields)
		}
		if p.Spec.NodeName != g.PodNode(i) {
			t.Fatalf("pod %d: nodeName %q, PodNode %q", i, p.Spec.NodeName, g.PodNode(i))
		}
		if p.Spec.NodeName == "" {
			if p.Status.Phase != "Pending" || p.Status.PodIP != "" || p.Status.HostIP != "" {
				t.Fatalf("unscheduled pod %d: phase %s podIP %q hostIP %q", i, p.Status.Phase, p.Status.PodIP, p.Status.HostIP)
			}
		} else if p.Status.Phase != "Pending" {
			if p.Status.PodIP == "" || len(p.Status.PodIPs) != 1 || p.Status.PodIPs[0].IP != p.Status.PodIP {
				t.Fatalf("pod %d: podIP %q podIPs %+v", i, p.Status.PodIP, p.Status.PodIPs)
			}
		}
		if p.Status.QOSClass == "" || len(p.Status.Conditions) == 0 || len(p.Spec.Tolerations) < 2 {
			t.Fatalf("pod %d: incomplete status/spec: %s", i, b)
		}
	}
	// rv 0: no resourceVersion at all.
	if p := decodePod(t, g.Pod(3, 0)); p.Metadata.ResourceVersion != nil {
		t.Errorf("rv 0: resourceVersion %q present", *p.Metadata.ResourceVersion)
	}
	if bytes.Contains(g.Pod(3, 0), []byte("resourceVersion")) {
		t.Errorf("rv 0: resourceVersion key present")
	}
}

// TestPodSize pins what benchmarks rely on: pods of 2–4 KiB averaging
// about 3.5 KiB, for several seeds and cluster shapes.
func TestPodSize(t *testing.T) {
	tests := []Config{
		{Seed: 1},
		{Seed: 2},
		{Seed: 99, Pods: 1000, Nodes: 5000, Namespaces: 500},
	}
	for _, cfg := range tests {
		t.Run(fmt.Sprintf("seed=%d/nodes=%d", cfg.Seed, cfg.Nodes), func(t *testing.T) {
			g := New(cfg)
			minN, maxN, sum := 1<<30, 0, 0
			for i := range 1000 {
				n := len(g.Pod(i, 1<<40)) // 13-digit resourceVersion
				minN, maxN, sum = min(minN, n), max(maxN, n), sum+n
			}
			avg := sum / 1000
			t.Logf("pod size: min %d, max %d, avg %d bytes", minN, maxN, avg)
			if minN < 2048 || maxN > 4096 {
				t.Errorf("pod sizes [%d, %d], want within [2048, 4096]", minN, maxN)
			}
			if avg < 3300 || avg > 4000 {
				t.Errorf("average pod size %d, want about 3.5 KiB", avg)
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	cfg := Config{Seed: 42}
	a, b := New(cfg), New(cfg)
	for i := range 200 {
		if !bytes.Equal(a.Pod(i, 7), b.Pod(i, 7)) {
			t.Fatalf("Pod(%d) differs between generators with the same seed", i)
		}
		if !bytes.Equal(a.PodVersion(i, i%17, 9), b.PodVersion(i, i%17, 9)) {
			t.Fatalf("PodVersion(%d) differs between generators with the same seed", i)
		}
	}
	for j := range 100 {
		if !bytes.Equal(a.Node(j, 3), b.Node(j, 3)) {
			t.Fatalf("Node(%d) differs", j)
		}
	}
	for k := range 10 {
		if !bytes.Equal(a.Namespace(k, 3), b.Namespace(k, 3)) {
			t.Fatalf("Namespace(%d) differs", k)
		}
	}
}

// TestConcurrentUse shares one Generator between goroutines (run with
// -race) and checks they see the same bytes as a sequential pass.
func TestConcurrentUse(t *testing.T) {
	g := New(Config{Seed: 5})
	want := make([][]byte, 300)
	for i := range want {
		want[i] = g.PodVersion(i, i%5, uint64(i))
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range want {
				i = (i + w*37) % len(want)
				if got := g.PodVersion(i, i%5, uint64(i)); !bytes.Equal(got, want[i]) {
					t.Errorf("goroutine %d: pod %d differs", w, i)
					return
				}
				_ = g.Node(i%100, 1)
			}
		})
	}
	wg.Wait()
}

func TestSeedSensitivity(t *testing.T) {
	a, b := New(Config{Seed: 1}), New(Config{Seed: 2})
	for i := range 100 {
		pa, pb := decodePod(t, a.Pod(i, 1)), decodePod(t, b.Pod(i, 1))
		if pa.Metadata.UID == pb.Metadata.UID {
			t.Fatalf("pod %d: same uid for seeds 1 and 2", i)
		}
	}
	differ := 0
	for i := range 100 {
		if labelSet(decodePod(t, a.Pod(i, 1)).Metadata.Labels) != labelSet(decodePod(t, b.Pod(i, 1)).Metadata.Labels) {
			differ++
		}
	}
	if differ < 50 {
		t.Errorf("only %d of 100 pods have different labels for seeds 1 and 2", differ)
	}
	if bytes.Equal(a.Node(1, 1), b.Node(1, 1)) || bytes.Equal(a.Namespace(1, 1), b.Namespace(1, 1)) {
		t.Errorf("node or namespace identical across seeds")
	}
}

// TestLabelCardinality: label sets repeat like a Deployment's pods do, and
// app popularity is skewed.
func TestLabelCardinality(t *testing.T) {
	pods := population()
	n := len(pods)
	sets := map[string]int{}
	values := map[string]map[string]int{}
	for _, p := range pods {
		sets[labelSet(p.Metadata.Labels)]++
		for k, v := range p.Metadata.Labels {
			if values[k] == nil {
				values[k] = map[string]int{}
			}
			values[k][v]++
		}
	}
	t.Logf("%d distinct label sets for %d pods; %d apps, %d teams", len(sets), n, len(values["app"]), len(values["team"]))
	if len(sets) > 3000 {
		t.Errorf("%d distinct label sets for %d pods, want low thousands at most", len(sets), n)
	}
	tests := []struct {
		key      string
		min, max int
	}{
		{"app", 40, 50},
		{"team", 10, 20},
		{"tier", 3, 3},
		{"version", 5, 5},
		{"pod-template-hash", 150, 250},
	}
	for _, tt := range tests {
		if got := len(values[tt.key]); got < tt.min || got > tt.max {
			t.Errorf("label %s: %d values, want %d..%d", tt.key, got, tt.min, tt.max)
		}
	}
	apps := slices.Sorted(maps.Values(values["app"]))
	if top, bottom := apps[len(apps)-1], apps[0]; top < 10*bottom {
		t.Errorf("app popularity not skewed: most common %d pods, least %d", top, bottom)
	}
}

// population decodes 20,000 pods once for the statistical tests; decoding
// dominates their cost, especially under -race.
var population = sync.OnceValue(func() []podJSON {
	const n = 20000
	g := New(Config{Pods: n, Seed: 11})
	pods := make([]podJSON, n)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if err := json.Unmarshal(g.Pod(i, 1), &pods[i]); err != nil {
					panic(err)
				}
			}
		})
	}
	wg.Wait()
	return pods
})

// TestDistributions checks the advertised fractions over 20,000 pods.
func TestDistributions(t *testing.T) {
	pods := population()
	const n = 20000
	tests := []struct {
		name     string
		is       func(p *podJSON) bool
		min, max float64
	}{
		{"unscheduled", func(p *podJSON) bool { return p.Spec.NodeName == "" }, 0.005, 0.015},
		{"Running", func(p *podJSON) bool { return p.Status.Phase == "Running" }, 0.85, 0.93},
		{"Succeeded or Failed", func(p *podJSON) bool { return p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed" }, 0.03, 0.09},
		{"hostNetwork", func(p *podJSON) bool { return p.Spec.HostNetwork }, 0.01, 0.035},
		{"custom-scheduler", func(p *podJSON) bool { return p.Spec.SchedulerName == "custom-scheduler" }, 0.015, 0.05},
		{"restartPolicy not Always", func(p *podJSON) bool { return p.Spec.RestartPolicy != "Always" }, 0.003, 0.05},
		{"nominatedNodeName", func(p *podJSON) bool { return p.Status.NominatedNodeName != "" }, 0.0005, 0.01},
		{"several containers", func(p *podJSON) bool { return len(p.Spec.Containers) > 1 }, 0.1, 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := 0
			for i := range pods {
				if tt.is(&pods[i]) {
					c++
				}
			}
			if f := float64(c) / n; f < tt.min || f > tt.max {
				t.Errorf("%s: %.2f%% of pods, want %.1f%%..%.1f%%", tt.name, 100*f, 100*tt.min, 100*tt.max)
			}
		})
	}
}

func TestPodNodeCoverage(t *testing.T) {
	g := New(Config{Seed: 8}) // 1000 pods, 100 nodes
	perNode := map[string]int{}
	for i := range 1000 {
		if n := g.PodNode(i); n != "" {
			perNode[n]++
		}
	}
	if len(perNode) < 90 {
		t.Errorf("pods on %d of 100 nodes, want most", len(perNode))
	}
	for n := range perNode {
		j, err := strconv.Atoi(strings.TrimPrefix(n, "node-"))
		if err != nil || j < 0 || j >= 100 {
			t.Errorf("PodNode returned %q, not one of node-0..node-99", n)
		}
	}
}

func TestPodVersion(t *testing.T) {
	g := New(Config{Seed: 4})
	const versions = 300
	var updates, nodeMoves, labelChanges, phaseChanges, annotChanges, ipChanges int
	for _, i := range []int{0, 1, 2, 3, 5, 8, 13, 21, 34, 55} {
		if !bytes.Equal(g.PodVersion(i, 0, 77), g.Pod(i, 77)) {
			t.Fatalf("PodVersion(%d, 0) != Pod(%d)", i, i)
		}
		prevB := g.Pod(i, 77)
		prev := decodePod(t, prevB)
		for v := 1; v <= versions; v++ {
			b := g.PodVersion(i, v, 77)
			p := decodePod(t, b)
			if p.Metadata.Name != prev.Metadata.Name || p.Metadata.Namespace != prev.Metadata.Namespace || p.Metadata.UID != prev.Metadata.UID {
				t.Fatalf("pod %d v%d: identity changed", i, v)
			}
			if bytes.Equal(b, prevB) {
				t.Fatalf("pod %d v%d: same bytes as v%d", i, v, v-1)
			}
			if p.Metadata.Generation != int64(v)+1 {
				t.Fatalf("pod %d v%d: generation %d", i, v, p.Metadata.Generation)
			}
			if (p.Spec.NodeName == "") != (prev.Spec.NodeName == "") {
				t.Fatalf("pod %d v%d: scheduled state changed", i, v)
			}
			updates++
			if p.Spec.NodeName != prev.Spec.NodeName {
				nodeMoves++
			}
			if p.Metadata.Labels["tier"] != prev.Metadata.Labels["tier"] || p.Metadata.Labels["version"] != prev.Metadata.Labels["version"] {
				labelChanges++
			}
			if p.Status.Phase != prev.Status.Phase {
				phaseChanges++
			}
			if !maps.Equal(p.Metadata.Annotations, prev.Metadata.Annotations) {
				annotChanges++
			}
			if p.Status.PodIP != prev.Status.PodIP {
				ipChanges++
			}
			prev, prevB = p, b
		}
	}
	frac := func(n int) float64 { return float64(n) / float64(updates) }
	t.Logf("over %d updates: node %.0f%%, labels %.0f%%, phase %.0f%%, annotations %.0f%%, podIP %.0f%%",
		updates, 100*frac(nodeMoves), 100*frac(labelChanges), 100*frac(phaseChanges), 100*frac(annotChanges), 100*frac(ipChanges))
	// A move may land on the same node (1 in Nodes) and a label or phase
	// change may redraw the same value, so the observed rates sit a little
	// under the per-update probabilities.
	tests := []struct {
		name     string
		n        int
		min, max float64
	}{
		{"node moves", nodeMoves, 0.2, 0.4},
		{"label changes", labelChanges, 0.15, 0.4},
		{"phase changes", phaseChanges, 0.01, 0.15},
		{"annotation changes", annotChanges, 0.15, 0.6},
		{"podIP changes", ipChanges, 0.2, 0.6},
	}
	for _, tt := range tests {
		if f := frac(tt.n); f < tt.min || f > tt.max {
			t.Errorf("%s in %.1f%% of updates, want %.0f%%..%.0f%%", tt.name, 100*f, 100*tt.min, 100*tt.max)
		}
	}
}

// TestPodVersionHigh: a version far beyond any test's reach still costs a
// few steps of walking back, not millions.
func TestPodVersionHigh(t *testing.T) {
	g := New(Config{Seed: 4})
	start := time.Now()
	for i := range 100 {
		p := decodePod(t, g.PodVersion(i, 1_000_000_000, 1))
		if p.Metadata.Name != g.PodName(i) {
			t.Fatalf("pod %d: name %q", i, p.Metadata.Name)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("100 pods at version 1e9 took %v", d)
	}
}

func TestNode(t *testing.T) {
	g := New(Config{Nodes: 1000, Seed: 6})
	type nodeJSON struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name            string            `json:"name"`
			UID             string            `json:"uid"`
			ResourceVersion string            `json:"resourceVersion"`
			Labels          map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			PodCIDR       string `json:"podCIDR"`
			Unschedulable bool   `json:"unschedulable"`
			Taints        []any  `json:"taints"`
		} `json:"spec"`
		Status struct {
			Capacity    map[string]string `json:"capacity"`
			Allocatable map[string]string `json:"allocatable"`
			Conditions  []struct {
				Type, Status string
			} `json:"conditions"`
			Addresses []any          `json:"addresses"`
			NodeInfo  map[string]any `json:"nodeInfo"`
		} `json:"status"`
	}
	unschedulable, tainted := 0, 0
	zones := map[string]bool{}
	for j := range 1000 {
		b := g.Node(j, 10)
		if !json.Valid(b) {
			t.Fatalf("node %d: invalid JSON: %s", j, b)
		}
		var n nodeJSON
		if err := json.Unmarshal(b, &n); err != nil {
			t.Fatal(err)
		}
		if n.Kind != "Node" || n.Metadata.Name != g.NodeName(j) || n.Metadata.ResourceVersion != "10" ||
			n.Metadata.Labels["kubernetes.io/hostname"] != g.NodeName(j) || n.Spec.PodCIDR == "" ||
			n.Status.Capacity["pods"] != "110" || len(n.Status.Addresses) != 2 || n.Status.NodeInfo["kubeletVersion"] == nil {
			t.Fatalf("node %d: %s", j, b)
		}
		if c := n.Status.Conditions; len(c) == 0 || c[len(c)-1].Type != "Ready" || c[len(c)-1].Status != "True" {
			t.Fatalf("node %d: conditions %+v", j, c)
		}
		zones[n.Metadata.Labels["topology.kubernetes.io/zone"]] = true
		if n.Spec.Unschedulable {
			unschedulable++
		}
		if len(n.Spec.Taints) > 0 {
			tainted++
		}
	}
	if unschedulable < 15 || unschedulable > 50 {
		t.Errorf("%d of 1000 nodes unschedulable, want about 3%%", unschedulable)
	}
	if tainted <= unschedulable {
		t.Errorf("%d tainted nodes, want more than the %d cordoned", tainted, unschedulable)
	}
	if len(zones) != 3 {
		t.Errorf("zones %v, want 3", zones)
	}
	if bytes.Contains(g.Node(1, 0), []byte("resourceVersion")) {
		t.Errorf("rv 0: resourceVersion present")
	}
}

func TestNamespace(t *testing.T) {
	g := New(Config{Seed: 6})
	var ns struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name            string            `json:"name"`
			UID             string            `json:"uid"`
			ResourceVersion string            `json:"resourceVersion"`
			Labels          map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Finalizers []string `json:"finalizers"`
		} `json:"spec"`
		Status struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}
	b := g.Namespace(12, 99)
	if err := json.Unmarshal(b, &ns); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if ns.Kind != "Namespace" || ns.Metadata.Name != "ns-12" || ns.Metadata.ResourceVersion != "99" ||
		ns.Metadata.Labels["kubernetes.io/metadata.name"] != "ns-12" || len(ns.Metadata.UID) != 36 ||
		!slices.Equal(ns.Spec.Finalizers, []string{"kubernetes"}) || ns.Status.Phase != "Active" {
		t.Errorf("namespace: %s", b)
	}
}

func TestAppendQuoted(t *testing.T) {
	tests := []string{"", "plain", `a"b`, `back\slash`, "tab\tnew\nline\r", "ctl\x00\x1f", "ünïcode ✓", "</script>"}
	for _, s := range tests {
		b := appendQuoted(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil || got != s {
			t.Errorf("appendQuoted(%q) = %s, decodes to %q, %v", s, b, got, err)
		}
	}
}

// TestChurn runs the stream against a model of the live set.
func TestChurn(t *testing.T) {
	const pods, steps = 200, 10000
	g := New(Config{Pods: pods, Seed: 9})
	c := g.NewChurn(1)
	live := map[int]bool{}
	last := map[int][]byte{} // last object of each live pod
	uids := map[int]string{} // uid of each pod, live or last deleted
	for i := range pods {
		live[i] = true
		last[i] = g.Pod(i, 1)
		uids[i] = decodePod(t, last[i]).Metadata.UID
	}
	var counts [3]int
	recreated, brandNew := 0, 0
	for s := range steps {
		rv := uint64(1000 + s)
		ch := c.Next(rv)
		counts[ch.Type]++
		p := decodePod(t, ch.Object)
		if p.Metadata.Name != ch.Name || p.Metadata.Namespace != ch.Namespace ||
			ch.Name != g.PodName(ch.Index) || ch.Namespace != g.PodNamespace(ch.Index) {
			t.Fatalf("step %d: change %d %s/%s, object %s/%s", s, ch.Index, ch.Namespace, ch.Name, p.Metadata.Namespace, p.Metadata.Name)
		}
		if got := *p.Metadata.ResourceVersion; got != strconv.FormatUint(rv, 10) {
			t.Fatalf("step %d: resourceVersion %s, want %d", s, got, rv)
		}
		switch ch.Type {
		case Added:
			if live[ch.Index] {
				t.Fatalf("step %d: Added live pod %d", s, ch.Index)
			}
			if old, ok := uids[ch.Index]; ok {
				recreated++
				if old == p.Metadata.UID {
					t.Fatalf("step %d: re-created pod %d kept uid %s", s, ch.Index, old)
				}
			} else {
				brandNew++
				if ch.Index < pods {
					t.Fatalf("step %d: new index %d < Pods", s, ch.Index)
				}
			}
			live[ch.Index] = true
			uids[ch.Index] = p.Metadata.UID
		case Modified:
			if !live[ch.Index] {
				t.Fatalf("step %d: Modified dead pod %d", s, ch.Index)
			}
			if p.Metadata.UID != uids[ch.Index] {
				t.Fatalf("step %d: Modified changed uid of pod %d", s, ch.Index)
			}
			if withoutRV(ch.Object) == withoutRV(last[ch.Index]) {
				t.Fatalf("step %d: Modified pod %d did not change", s, ch.Index)
			}
		case Deleted:
			if !live[ch.Index] {
				t.Fatalf("step %d: Deleted dead pod %d", s, ch.Index)
			}
			if withoutRV(ch.Object) != withoutRV(last[ch.Index]) {
				t.Fatalf("step %d: Deleted pod %d does not carry its last object", s, ch.Index)
			}
			delete(live, ch.Index)
		}
		last[ch.Index] = ch.Object
		if c.Live() != len(live) {
			t.Fatalf("step %d: Live() = %d, model has %d", s, c.Live(), len(live))
		}
	}
	t.Logf("added %d (re-created %d, new %d), modified %d, deleted %d; live %d",
		counts[Added], recreated, brandNew, counts[Modified], counts[Deleted], c.Live())
	if f := float64(counts[Modified]) / steps; f < 0.77 || f > 0.83 {
		t.Errorf("Modified %.1f%% of changes, want ~80%%", 100*f)
	}
	if recreated == 0 || brandNew == 0 {
		t.Errorf("re-created %d, brand-new %d: want both", recreated, brandNew)
	}
}

// withoutRV blanks metadata.resourceVersion, to compare one object as
// stamped by different changes.
func withoutRV(b []byte) string {
	s := string(b)
	i := strings.Index(s, `"resourceVersion":"`)
	if i < 0 {
		return s
	}
	j := strings.IndexByte(s[i+19:], '"')
	return s[:i] + s[i+19+j:]
}

func TestChurnDeterminism(t *testing.T) {
	g := New(Config{Pods: 50, Seed: 2})
	a, b, other := g.NewChurn(7), g.NewChurn(7), g.NewChurn(8)
	same := true
	for s := range 2000 {
		ca, cb, co := a.Next(uint64(s+1)), b.Next(uint64(s+1)), other.Next(uint64(s+1))
		if ca.Type != cb.Type || ca.Index != cb.Index || !bytes.Equal(ca.Object, cb.Object) {
			t.Fatalf("step %d: churns with the same seed diverge", s)
		}
		same = same && ca.Index == co.Index && ca.Type == co.Type
	}
	if same {
		t.Errorf("churns with seeds 7 and 8 produced the same sequence")
	}
}

// TestChurnEmpty: with a single pod the live set often empties; the next
// change must then be an Added, never a delete or update of nothing.
func TestChurnEmpty(t *testing.T) {
	g := New(Config{Pods: 1, Seed: 1})
	c := g.NewChurn(3)
	emptied := 0
	for s := range 2000 {
		wasEmpty := c.Live() == 0
		ch := c.Next(uint64(s + 1))
		if wasEmpty {
			emptied++
			if ch.Type != Added {
				t.Fatalf("step %d: %v with no live pods", s, ch.Type)
			}
		}
	}
	if emptied == 0 {
		t.Skip("live set never emptied; nothing checked")
	}
}

func BenchmarkPod(b *testing.B) {
	g := New(Config{Seed: 1})
	for _, v := range []int{0, 10, 1000000} {
		b.Run(fmt.Sprintf("version=%d", v), func(b *testing.B) {
			b.ReportAllocs()
			var bytes int
			i := 0
			for b.Loop() {
				bytes += len(g.PodVersion(i%1000, v, 12345))
				i++
			}
			b.SetBytes(int64(bytes / max(i, 1)))
		})
	}
}

// BenchmarkGenerate is the cost of filling a cache of n pods.
func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			g := New(Config{Pods: n, Nodes: n / 10, Namespaces: n / 100, Seed: 1})
			b.ReportAllocs()
			for b.Loop() {
				for i := range n {
					_ = g.Pod(i, uint64(i+1))
				}
			}
		})
	}
}

func BenchmarkNode(b *testing.B) {
	g := New(Config{Seed: 1})
	b.ReportAllocs()
	j := 0
	for b.Loop() {
		_ = g.Node(j%100, 1)
		j++
	}
}

func BenchmarkChurnNext(b *testing.B) {
	g := New(Config{Pods: 10000, Seed: 1})
	c := g.NewChurn(1)
	b.ReportAllocs()
	rv := uint64(1)
	for b.Loop() {
		_ = c.Next(rv)
		rv++
	}
}
