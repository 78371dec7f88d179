package testdata

import "math/rand/v2"

// ChangeType is the kind of a Change, as in a watch event.
type ChangeType int

// The change types.
const (
	Added ChangeType = iota
	Modified
	Deleted
)

// String returns the watch event name: ADDED, MODIFIED or DELETED.
func (t ChangeType) String() string {
	switch t {
	case Added:
		return "ADDED"
	case Modified:
		return "MODIFIED"
	case Deleted:
		return "DELETED"
	}
	return "ChangeType(?)"
}

// Change is one step of a Churn. Object is the pod after the change
// (Added, Modified) or its last state (Deleted), with
// metadata.resourceVersion set to the rv passed to Next; it is freshly
// allocated and owned by the caller.
type Change struct {
	Type            ChangeType
	Index           int // pod index: Namespace == PodNamespace(Index), Name == PodName(Index)
	Namespace, Name string
	Object          []byte
}

// Churn mix: updates dominate, creates and deletes balance so the live set
// stays near Config.Pods, as in a steady-state cluster.
const (
	churnModifyPct = 80
	churnDeletePct = 10 // the remaining 10% are Added
	// churnRecreatePct of Added re-create a deleted pod (same name, new
	// uid), the rest create a brand-new index >= Pods: both paths matter to
	// a cache (a key that comes back vs a key never seen).
	churnRecreatePct = 50
)

// Churn is a deterministic stream of changes over a Generator's pods,
// starting from pods 0..Pods-1 at version 0. It never modifies or deletes a
// pod that is not live and never adds one that is. A Churn is not safe for
// concurrent use; the Generator behind it may be shared.
type Churn struct {
	g   *Generator
	rng *rand.Rand

	// Per index: current version and incarnation (bumped by each
	// re-create, which changes the uid), and position in live or dead.
	version []int
	inc     []int
	alive   []bool
	pos     []int
	live    []int // live indexes, in no particular order
	dead    []int // deleted indexes that may be re-created
}

// NewChurn returns a change stream over g's pods; the same seed yields the
// same sequence of changes (given the same rv arguments, the same bytes).
// Setup costs O(Pods).
func (g *Generator) NewChurn(seed int64) *Churn {
	n := g.cfg.Pods
	c := &Churn{
		g:       g,
		rng:     rand.New(rand.NewPCG(uint64(seed), g.key)),
		version: make([]int, n),
		inc:     make([]int, n),
		alive:   make([]bool, n),
		pos:     make([]int, n),
		live:    make([]int, n),
	}
	for i := range n {
		c.alive[i] = true
		c.pos[i] = i
		c.live[i] = i
	}
	return c
}

// Live returns the number of live pods.
func (c *Churn) Live() int { return len(c.live) }

// Next returns the next change, stamped with resourceVersion rv. About 80%
// are Modified (the pod's next PodVersion), 10% Deleted, 10% Added; when
// no pod is live the change is an Added.
func (c *Churn) Next(rv uint64) Change {
	r := c.rng.IntN(100)
	switch {
	case len(c.live) == 0:
		return c.add(rv)
	case r < churnModifyPct:
		i := c.live[c.rng.IntN(len(c.live))]
		c.version[i]++
		return c.change(Modified, i, rv)
	case r < churnModifyPct+churnDeletePct:
		i := c.live[c.rng.IntN(len(c.live))]
		ch := c.change(Deleted, i, rv)
		c.remove(&c.live, i)
		c.alive[i] = false
		c.insert(&c.dead, i)
		return ch
	default:
		return c.add(rv)
	}
}

func (c *Churn) add(rv uint64) Change {
	var i int
	if len(c.dead) > 0 && c.rng.IntN(100) < churnRecreatePct {
		i = c.dead[c.rng.IntN(len(c.dead))]
		c.remove(&c.dead, i)
		c.inc[i]++
		c.version[i] = 0
	} else {
		i = len(c.alive)
		c.version = append(c.version, 0)
		c.inc = append(c.inc, 0)
		c.alive = append(c.alive, false)
		c.pos = append(c.pos, 0)
	}
	c.alive[i] = true
	c.insert(&c.live, i)
	return c.change(Added, i, rv)
}

func (c *Churn) change(t ChangeType, i int, rv uint64) Change {
	return Change{
		Type:      t,
		Index:     i,
		Namespace: c.g.PodNamespace(i),
		Name:      c.g.PodName(i),
		Object:    c.g.pod(i, c.inc[i], c.version[i], rv),
	}
}

// insert and remove keep live and dead as unordered sets with O(1)
// updates: pos[i] is i's slot in whichever list holds it.
func (c *Churn) insert(list *[]int, i int) {
	c.pos[i] = len(*list)
	*list = append(*list, i)
}

func (c *Churn) remove(list *[]int, i int) {
	l := *list
	p, last := c.pos[i], l[len(l)-1]
	l[p] = last
	c.pos[last] = p
	*list = l[:len(l)-1]
}
