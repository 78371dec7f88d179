package fuzz

import (
	"encoding/json"
	"fmt"
	"math/rand"
)

// chooser is where the operations' choices come from: a seeded PRNG (TestDifferential) or the
// bytes of a fuzz input (FuzzOperations).
type chooser interface {
	// intn returns a choice in [0, n), n ≥ 1.
	intn(n int) int
	// done reports whether the source is exhausted (never, for a PRNG).
	done() bool
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int { return c.r.Intn(n) }
func (c randChooser) done() bool     { return false }

// byteChooser reads one byte per choice (two for n > 256); an exhausted input yields 0.
type byteChooser struct {
	data []byte
	i    int
}

func (c *byteChooser) intn(n int) int {
	v := 0
	for range 1 + min(1, n/257) {
		v <<= 8
		if c.i < len(c.data) {
			v |= int(c.data[c.i])
			c.i++
		}
	}
	return v % n
}

func (c *byteChooser) done() bool { return c.i >= len(c.data) }

func pick[T any](c chooser, xs ...T) T { return xs[c.intn(len(xs))] }

// The generated pods live in these namespaces ("a-b/" sorts before "a/") with these names.
var (
	namespaces = []string{"a", "a-b", "ns-0", "ns-1"}
	podNames   = []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"}
)

// genPod is a pod with the attributes the selectors look at.
type genPod struct {
	Kind       string    `json:"kind"`
	APIVersion string    `json:"apiVersion"`
	Metadata   genMeta   `json:"metadata"`
	Spec       genSpec   `json:"spec"`
	Status     genStatus `json:"status"`
}

type genMeta struct {
	Name            string            `json:"name"`
	Namespace       string            `json:"namespace,omitempty"` // empty: none, under a key (ops_test.go)
	ResourceVersion string            `json:"resourceVersion"`
	Labels          map[string]string `json:"labels,omitempty"`
}

type genSpec struct {
	NodeName           string `json:"nodeName,omitempty"`
	RestartPolicy      string `json:"restartPolicy,omitempty"`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	ServiceAccount     string `json:"serviceAccount,omitempty"`
	HostNetwork        *bool  `json:"hostNetwork,omitempty"`
	PriorityClassName  string `json:"priorityClassName,omitempty"`
	Priority           *int   `json:"priority,omitempty"`
}

type genStatus struct {
	Phase             string  `json:"phase,omitempty"`
	NominatedNodeName string  `json:"nominatedNodeName,omitempty"`
	PodIP             string  `json:"podIP,omitempty"`
	PodIPs            []genIP `json:"podIPs,omitempty"`
}

type genIP struct {
	IP string `json:"ip"`
}

// randomPod draws a pod for key ns/name.
func randomPod(c chooser, ns, name string) genPod {
	p := genPod{Kind: "Pod", APIVersion: "v1", Metadata: genMeta{Name: name, Namespace: ns}}
	p.Spec.NodeName = pick(c, "", "n0", "n1", "n2", "n1")
	labels := map[string]string{}
	if v := pick(c, "-", "web", "db", "", "web"); v != "-" {
		labels["app"] = v
	}
	if v := pick(c, "-", "1", "2", "10", "x"); v != "-" {
		labels["tier"] = v
	}
	if len(labels) > 0 || c.intn(2) == 0 {
		p.Metadata.Labels = labels
	}
	p.Status.Phase = pick(c, "Running", "Pending", "", "Running")
	switch c.intn(3) {
	case 1:
		t := true
		p.Spec.HostNetwork = &t
	case 2:
		f := false
		p.Spec.HostNetwork = &f
	}
	ip := fmt.Sprintf("10.0.0.%d", c.intn(4))
	switch c.intn(4) {
	case 1:
		p.Status.PodIP, p.Status.PodIPs = ip, []genIP{{ip}, {"fd00::1"}}
	case 2:
		p.Status.PodIPs = []genIP{{ip}}
	case 3:
		p.Status.PodIP = ip
	}
	p.Spec.RestartPolicy = pick(c, "", "Always", "Never")
	switch c.intn(3) {
	case 1:
		p.Spec.ServiceAccountName = "sa1"
	case 2:
		p.Spec.ServiceAccount = "sa2"
	}
	if c.intn(4) == 0 {
		p.Status.NominatedNodeName = "n1"
	}
	p.Spec.PriorityClassName = pick(c, "", "high", "low")
	if v := c.intn(3); v > 0 {
		n := []int{0, 1000}[v-1]
		p.Spec.Priority = &n
	}
	return p
}

// render returns the pod's JSON with metadata.resourceVersion rv.
func (p genPod) render(rv uint64) []byte {
	p.Metadata.ResourceVersion = fmt.Sprint(rv)
	data, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return data
}
