package peers

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	gen "github.com/watchcache/watchcache/internal/testdata"
)

// Dataset is one generated cluster: N pods over a number of nodes and namespaces, as the raw JSON
// every peer is fed. Raw[i] is pod i at version 0, stamped with resourceVersion i+2, so that a
// cache started empty at RV 1 can also Apply them in order as ADDED events (the cache takes each
// object's own RV; etcd and the apiserver overwrite it with the etcd revision on read). The slices are shared by every peer and must not be modified.
type Dataset struct {
	Gen *gen.Generator
	Raw [][]byte
}

// Shape of the benchmark cluster: 5,000 nodes and 200 namespaces at every size, so a
// spec.nodeName selector matches ≈ N/5000 pods (20 at 100k).
const (
	Nodes      = 5000
	Namespaces = 200
	Seed       = 7
)

// NewDataset generates n pods with the shape above, on all cores.
func NewDataset(n, nodes, namespaces int) *Dataset {
	g := gen.New(gen.Config{Pods: n, Nodes: nodes, Namespaces: namespaces, Seed: Seed})
	raw := make([][]byte, n)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				raw[i] = g.Pod(i, uint64(i+2))
			}
		})
	}
	wg.Wait()
	return &Dataset{Gen: g, Raw: raw}
}

// ListRV is the resourceVersion the cache is Replaced at: above every object's own RV.
func (d *Dataset) ListRV() uint64 { return uint64(len(d.Raw) + 2) }

// Key is pod i's key relative to the resource root, "<namespace>/<name>", the form tests compare.
func (d *Dataset) Key(i int) string { return d.Gen.PodNamespace(i) + "/" + d.Gen.PodName(i) }

// SizeName renders a pod count the way benchmark names show it: 10k, 100k, 1m.
func SizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "m"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// ParseSize parses what SizeName renders.
func ParseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "m"):
		mult, s = 1_000_000, strings.TrimSuffix(s, "m")
	case strings.HasSuffix(s, "k"):
		mult, s = 1000, strings.TrimSuffix(s, "k")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
