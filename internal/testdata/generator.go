package testdata

import (
	"fmt"
	"sort"
	"strconv"
	"sync"
)

// Config sizes the generated cluster. Zero (or negative) fields take the
// defaults noted on them.
type Config struct {
	Pods       int // pods 0..Pods-1 exist at the start; default 1000
	Nodes      int // default 100
	Namespaces int // default 10
	Seed       int64
}

// Defaults: ten pods per node and a hundred per namespace, the density of a
// mid-sized production cluster.
const (
	defaultPods       = 1000
	defaultNodes      = 100
	defaultNamespaces = 10
)

// baseTime is 2025-01-01T00:00:00Z; pods are created within the 30 days
// after it, nodes and namespaces shortly before it.
const baseTime = 1735689600

// Generator produces objects for one Config. Apart from a pool of scratch
// buffers it holds no mutable state after New returns, so all methods are
// safe for concurrent use; each returned slice is freshly allocated and
// owned by the caller. Objects are computed on demand, never stored: memory
// use does not grow with Pods.
type Generator struct {
	cfg  Config
	key  uint64       // the seed, mixed
	apps []appProfile // one per appNames entry
	cdf  []uint64     // cumulative Zipf weights over apps, last == 1<<32
	pool sync.Pool    // of *jw scratch buffers
}

// New returns a Generator for cfg with defaults filled in.
func New(cfg Config) *Generator {
	if cfg.Pods <= 0 {
		cfg.Pods = defaultPods
	}
	if cfg.Nodes <= 0 {
		cfg.Nodes = defaultNodes
	}
	if cfg.Namespaces <= 0 {
		cfg.Namespaces = defaultNamespaces
	}
	g := &Generator{cfg: cfg, key: mix(uint64(cfg.Seed))}
	g.pool.New = func() any { return &jw{b: make([]byte, 0, 8<<10)} }
	g.apps = make([]appProfile, len(appNames))
	for a := range g.apps {
		g.apps[a] = newAppProfile(sub(g.key, saltApp<<32|uint64(a)), a)
	}
	// Zipf with exponent 1: the most popular app runs about a fifth of all
	// pods, the least popular about 0.4%, as in a cluster shared by a few
	// big services and many small ones.
	w := make([]float64, len(appNames))
	var sum float64
	for r := range w {
		w[r] = 1 / float64(r+1)
		sum += w[r]
	}
	g.cdf = make([]uint64, len(w))
	var acc float64
	for r := range w {
		acc += w[r]
		g.cdf[r] = uint64(acc / sum * (1 << 32))
	}
	g.cdf[len(g.cdf)-1] = 1 << 32
	return g
}

// Config returns the configuration with defaults filled in.
func (g *Generator) Config() Config { return g.cfg }

// PodName returns the name of pod i: "pod-%06d".
func (g *Generator) PodName(i int) string { return fmt.Sprintf("pod-%06d", i) }

// PodNamespace returns the namespace of pod i: "ns-%d" of i % Namespaces.
func (g *Generator) PodNamespace(i int) string {
	return "ns-" + strconv.Itoa(i%g.cfg.Namespaces)
}

// NodeName returns the name of node j: "node-%d".
func (g *Generator) NodeName(j int) string { return "node-" + strconv.Itoa(j) }

// PodNode returns the node pod i is bound to when created (version 0), or
// "" for the ~1% of pods the scheduler could not place. Updates may move a
// pod; PodVersion's spec.nodeName is authoritative for later versions.
func (g *Generator) PodNode(i int) string {
	s := g.podState(i, 0, 0)
	if s.node < 0 {
		return ""
	}
	return g.NodeName(s.node)
}

// Pod returns pod i at version 0 with metadata.resourceVersion rv (omitted
// when rv is 0).
func (g *Generator) Pod(i int, rv uint64) []byte { return g.pod(i, 0, 0, rv) }

// PodVersion returns pod i after version updates, with
// metadata.resourceVersion rv; PodVersion(i, 0, rv) equals Pod(i, rv).
//
// Each update independently, by a hash of (seed, i, update number):
// moves spec.nodeName to a random node (30% of updates; hostIP and podIP
// follow), redraws the tier and/or version labels (30%; a new version is a
// rollout: new image tag, pod-template-hash and owning ReplicaSet), redraws
// status.phase (20%; 90% of draws are Running, so the phase actually
// changes on ~4% of updates), restamps the annotations (25%, and whenever
// nothing else was drawn) and reassigns status.podIPs (15%). A redraw may
// land on the old value, but the managedFields time of the manager that
// made the update always advances, so consecutive versions never have
// equal bytes. metadata.generation is version+1.
//
// Name, namespace and uid never change, nor does whether the pod is
// scheduled: an unscheduled pod stays Pending on every version and only its
// labels and annotations change. Updated pods are up to ~300 bytes larger
// than version 0 (a kubectl-patch managedFields entry and a restartedAt
// annotation).
//
// The cost does not grow with version: each field's value is found by
// walking back from version to the last update that touched it, a few
// steps on average.
func (g *Generator) PodVersion(i int, version int, rv uint64) []byte {
	return g.pod(i, 0, version, rv)
}

// pod renders incarnation inc of pod i at the given version. Incarnation 0
// is what Pod and PodVersion return; a Churn bumps it when it re-creates a
// deleted pod, which makes a new pod under the old name: every hashed
// attribute (uid, creation time, app, labels, node) is drawn afresh.
func (g *Generator) pod(i, inc, version int, rv uint64) []byte {
	s := g.podState(i, inc, version)
	w := g.pool.Get().(*jw)
	w.b = w.b[:0]
	g.writePod(w, &s, rv)
	return g.finish(w)
}

// finish copies the object out of the scratch buffer and recycles it: one
// exact-size allocation per object, so a cache holding millions of them
// wastes no capacity.
func (g *Generator) finish(w *jw) []byte {
	out := make([]byte, len(w.b))
	copy(out, w.b)
	g.pool.Put(w)
	return out
}

// Phases.
const (
	pending = iota
	running
	succeeded
	failed
)

var phaseNames = [...]string{"Pending", "Running", "Succeeded", "Failed"}

// pickPhase: 90% Running, 4% Pending (scheduled, containers being
// created), 3% Succeeded, 3% Failed.
func pickPhase(h uint64) int {
	switch r := h % 100; {
	case r < 90:
		return running
	case r < 94:
		return pending
	case r < 97:
		return succeeded
	default:
		return failed
	}
}

// Change bits of one update step.
const (
	chNode uint8 = 1 << iota
	chTier
	chVersion
	chPhase
	chAnnot
	chIPs
	chAll = chNode | chTier | chVersion | chPhase | chAnnot | chIPs
)

// stepChanges returns what update k of the pod with key changes. Fields
// that only exist for a scheduled pod never change on an unscheduled one;
// an update that would change nothing changes the annotations instead.
func stepChanges(key uint64, k int, scheduled bool) uint8 {
	h := sub(stepKey(key, k), saltChange)
	var m uint8
	if scheduled && per(h, 0, 300) {
		m |= chNode
	}
	if per(h, 10, 300) {
		switch (h >> 20) & 3 {
		case 0, 1:
			m |= chVersion
		case 2:
			m |= chTier
		default:
			m |= chTier | chVersion
		}
	}
	if scheduled && per(h, 22, 200) {
		m |= chPhase
	}
	if per(h, 32, 250) {
		m |= chAnnot
	}
	if scheduled && per(h, 42, 150) {
		m |= chIPs
	}
	if m == 0 {
		m = chAnnot
	}
	return m
}

// podState is everything that varies between pods, resolved for one
// (index, incarnation, version).
type podState struct {
	i, version  int
	key         uint64
	ns          int
	app         *appProfile
	team        int
	tier, ver   int // tier index, version label 1..5
	node        int // -1 when unscheduled
	phase       int
	hostNet     bool
	customSched bool
	gpu         bool
	restarts    int
	created     int64

	// Last update that changed each part; 0 means "as created".
	nodeStep, phaseStep, annotStep, ipStep int
	specStep, statusStep                   int
}

func (g *Generator) podKey(i, inc int) uint64 {
	return sub(sub(g.key^saltPod, uint64(i)), uint64(inc))
}

func (g *Generator) podState(i, inc, version int) podState {
	key := g.podKey(i, inc)
	s := podState{i: i, version: version, key: key, ns: i % g.cfg.Namespaces}

	s.app = &g.apps[g.pickApp(sub(key, saltAppPick))]
	s.team = s.app.teams[0]
	if sub(key, saltTeam)%4 == 0 {
		s.team = s.app.teams[1]
	}
	s.tier = int(sub(key, saltTier) % uint64(len(tiers)))
	s.ver = 1 + int(sub(key, saltVersion)%5)
	scheduled := !per(sub(key, saltSched), 0, 10) // ~1% unschedulable
	s.node = -1
	s.phase = pending
	if scheduled {
		s.node = int(sub(key, saltPlacement) % uint64(g.cfg.Nodes))
		s.phase = pickPhase(sub(key, saltPhase))
	}
	s.hostNet = per(sub(key, saltHostNet), 0, 20)
	s.customSched = per(sub(key, saltScheduler), 0, 30)
	s.gpu = s.app.gpu && per(sub(key, saltGPU), 0, 200)
	switch r := sub(key, saltRestarts) % 100; {
	case r < 85:
	case r < 95:
		s.restarts = 1
	default:
		s.restarts = 2 + int(r%6)
	}
	s.created = baseTime + int64(sub(key, saltCreated)%(30*86400))

	// Walk back from version to the last update of each part. An update
	// touches a given part with probability 15–30%, so this stops after
	// about ten steps on average whatever version is.
	need := chAll
	if !scheduled {
		need &^= chNode | chPhase | chIPs
	}
	var tierStep, verStep int
	for k := version; k >= 1 && need != 0; k-- {
		m := stepChanges(key, k, scheduled) & need
		need &^= m
		if m&chNode != 0 {
			s.nodeStep = k
		}
		if m&chTier != 0 {
			tierStep = k
		}
		if m&chVersion != 0 {
			verStep = k
		}
		if m&chPhase != 0 {
			s.phaseStep = k
		}
		if m&chAnnot != 0 {
			s.annotStep = k
		}
		if m&chIPs != 0 {
			s.ipStep = k
		}
	}
	if s.nodeStep > 0 {
		s.node = int(sub(stepKey(key, s.nodeStep), saltNodeMove) % uint64(g.cfg.Nodes))
	}
	if tierStep > 0 {
		s.tier = int(sub(stepKey(key, tierStep), saltTier) % uint64(len(tiers)))
	}
	if verStep > 0 {
		s.ver = 1 + int(sub(stepKey(key, verStep), saltVersion)%5)
	}
	if s.phaseStep > 0 {
		s.phase = pickPhase(sub(stepKey(key, s.phaseStep), saltPhase))
	}
	// A pod that moved gets an address from its new node's range.
	s.ipStep = max(s.ipStep, s.nodeStep)
	s.specStep = max(s.nodeStep, tierStep, verStep, s.annotStep)
	s.statusStep = max(s.nodeStep, s.phaseStep, s.ipStep)
	return s
}

// pickApp maps h onto the Zipf distribution over apps.
func (g *Generator) pickApp(h uint64) int {
	u := h >> 32
	return sort.Search(len(g.cdf)-1, func(r int) bool { return g.cdf[r] > u })
}

// stepTime is when update k happened: about a minute apart, strictly
// increasing in k.
func (s *podState) stepTime(k int) int64 {
	if k == 0 {
		return s.created
	}
	return s.created + 60*int64(k) + int64(sub(stepKey(s.key, k), saltTime)%40)
}

func (s *podState) scheduled() bool { return s.node >= 0 }

// hasPodIP: the kubelet reports an address once the sandbox exists.
func (s *podState) hasPodIP() bool { return s.scheduled() && s.phase != pending }
