package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"k8s.io/client-go/tools/cache"

	"github.com/watchcache/watchcache/bench/peers"
	gen "github.com/watchcache/watchcache/internal/testdata"
	"github.com/watchcache/watchcache/watchcache"
)

// world is one generated cluster and every peer loaded with it. Peers are built on first use, so a
// process that benchmarks one peer pays for no other.
type world struct {
	n, nodes, namespaces int
	d                    *peers.Dataset

	ours, oursLabel lazy[*watchcache.Cache]
	cg              lazy[cache.Indexer]
	etcd            lazy[*peers.Etcd]
	store           lazy[*peers.Store]
	cacher          lazy[*peers.Cacher]

	// mut is a cache that the mutating workloads (continue after churn, watch dispatch) change,
	// with the churn stream it follows; etcdChurn is the same stream for etcd (and so the cacher).
	mut       lazy[*mutable]
	etcdChurn lazy[*mutable]

	// State of the mutating benchmarks, set up once per process.
	oursTok, cacherTok   lazy[string]
	oursPool, cacherPool lazy[*watchPool]
}

// mutable is a churn stream and the RV its next change gets.
type mutable struct {
	c     *watchcache.Cache // nil for etcd
	churn *gen.Churn
	rv    uint64
	nodes map[int]string // pod index → current spec.nodeName, for expected watch deliveries
}

// churnSeed seeds the churn stream; ours and etcd follow the same one.
const churnSeed = 11

type lazy[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (l *lazy[T]) get(tb testing.TB, f func() (T, error)) T {
	tb.Helper()
	l.once.Do(func() { l.v, l.err = f() })
	if l.err != nil {
		tb.Fatal(l.err)
	}
	return l.v
}

var (
	worldsMu sync.Mutex
	worlds   = map[[3]int]*world{}
	etcds    []*peers.Etcd // closed by TestMain
)

// getWorld returns the world of n pods (generated on first use).
func getWorld(n, nodes, namespaces int) *world {
	worldsMu.Lock()
	defer worldsMu.Unlock()
	k := [3]int{n, nodes, namespaces}
	if w, ok := worlds[k]; ok {
		return w
	}
	start := time.Now()
	w := &world{n: n, nodes: nodes, namespaces: namespaces, d: peers.NewDataset(n, nodes, namespaces)}
	logf("dataset: %d pods generated in %v", n, time.Since(start).Round(time.Millisecond))
	worlds[k] = w
	return w
}

func TestMain(m *testing.M) {
	code := m.Run()
	worldsMu.Lock()
	for _, w := range worlds {
		if w.cacher.v != nil {
			w.cacher.v.Stop()
		}
		if w.store.v != nil {
			w.store.v.Close()
		}
	}
	for _, e := range etcds {
		e.Close()
	}
	worldsMu.Unlock()
	os.Exit(code)
}

func (w *world) Ours(tb testing.TB) *watchcache.Cache {
	return w.ours.get(tb, func() (*watchcache.Cache, error) {
		defer since("ours: cache built", time.Now())
		return peers.NewOurs(w.d.Raw, w.d.ListRV(), watchcache.Options{})
	})
}

// OursLabel is ours with a label index on app as well.
func (w *world) OursLabel(tb testing.TB) *watchcache.Cache {
	return w.oursLabel.get(tb, func() (*watchcache.Cache, error) {
		return peers.NewOurs(w.d.Raw, w.d.ListRV(), watchcache.Options{}, "app")
	})
}

func (w *world) ClientGo(tb testing.TB) cache.Indexer {
	return w.cg.get(tb, func() (cache.Indexer, error) {
		defer since("client-go: indexer loaded", time.Now())
		return peers.ClientGoLoad(w.d.Raw)
	})
}

// since logs how long something took (BENCH_VERBOSE=1 or -v).
func since(what string, start time.Time) {
	logf("%s in %v", what, time.Since(start).Round(time.Millisecond))
}

func (w *world) Etcd(tb testing.TB) *peers.Etcd {
	return w.etcd.get(tb, func() (*peers.Etcd, error) {
		e, err := peers.StartEtcd()
		if err != nil {
			return nil, err
		}
		worldsMu.Lock()
		etcds = append(etcds, e)
		worldsMu.Unlock()
		start := time.Now()
		if err := e.Load(context.Background(), w.d); err != nil {
			return nil, err
		}
		logf("etcd: loaded %d pods in %v", w.n, time.Since(start).Round(time.Millisecond))
		return e, nil
	})
}

func (w *world) Store(tb testing.TB) *peers.Store {
	e := w.Etcd(tb)
	return w.store.get(tb, func() (*peers.Store, error) { return peers.NewStore(e) })
}

func (w *world) Cacher(tb testing.TB) *peers.Cacher {
	s := w.Store(tb)
	return w.cacher.get(tb, func() (*peers.Cacher, error) {
		start := time.Now()
		c, err := peers.NewCacher(context.Background(), s)
		logf("cacher: built from %d pods in %v", w.n, time.Since(start).Round(time.Millisecond))
		return c, err
	})
}

// Mutable is a cache of its own (window of 20,000 events, so that a token from before 10,000
// churn events is still served) that the mutating workloads change.
func (w *world) Mutable(tb testing.TB) *mutable {
	return w.mut.get(tb, func() (*mutable, error) {
		defer since("mutable cache built", time.Now())
		c, err := peers.NewOurs(w.d.Raw, w.d.ListRV(), watchcache.Options{WindowEvents: 20_000})
		if err != nil {
			return nil, err
		}
		return w.newMutable(c), nil
	})
}

// EtcdChurn is the churn stream written to etcd (and so seen by the cacher).
func (w *world) EtcdChurn(tb testing.TB) *mutable {
	w.Etcd(tb)
	return w.etcdChurn.get(tb, func() (*mutable, error) { return w.newMutable(nil), nil })
}

func (w *world) newMutable(c *watchcache.Cache) *mutable {
	m := &mutable{c: c, churn: w.d.Gen.NewChurn(churnSeed), rv: w.d.ListRV() + 1, nodes: make(map[int]string, w.n)}
	for i := range w.n {
		m.nodes[i] = w.d.Gen.PodNode(i)
	}
	return m
}

// next returns the next change and how many node-filtered watchers (one per node) it reaches: one
// per distinct non-empty node among the pod's node before and after.
func (m *mutable) next() (gen.Change, int) {
	ch := m.churn.Next(m.rv)
	m.rv++
	old, had := m.nodes[ch.Index]
	cur := gjson.GetBytes(ch.Object, "spec.nodeName").String()
	if ch.Type == gen.Deleted {
		delete(m.nodes, ch.Index)
	} else {
		m.nodes[ch.Index] = cur
	}
	if ch.Type == gen.Added {
		had = false // a re-created pod was deleted before: no watcher saw it since
	}
	n := 0
	if cur != "" {
		n++
	}
	if had && old != "" && old != cur {
		n++
	}
	return ch, n
}

// applyOurs applies ch to the mutable cache.
func (m *mutable) applyOurs(ch gen.Change) error {
	t := watchcache.Modified
	switch ch.Type {
	case gen.Added:
		t = watchcache.Added
	case gen.Deleted:
		t = watchcache.Deleted
	}
	return m.c.Apply(watchcache.Event{Type: t, Object: ch.Object})
}

// writeEtcd queues ch on w.
func writeEtcd(w *peers.ChangeWriter, ch gen.Change) {
	key := peers.EtcdKey(ch.Namespace, ch.Name)
	if ch.Type == gen.Deleted {
		w.Put(key, nil)
		return
	}
	w.Put(key, ch.Object)
}

// queryNodes are the nodes the node-selective workloads rotate through: 64 spread over the cluster,
// the same for every peer.
func queryNodes(nodes int) []string {
	out := make([]string, 64)
	for k := range out {
		out[k] = "node-" + strconv.Itoa(k*7919%nodes)
	}
	return out
}

// The workloads' queries.
func qNode(node string) peers.Query {
	return peers.Query{FieldSelector: "spec.nodeName=" + node, Limit: 500}
}

func qNodeLabel(node string) peers.Query {
	return peers.Query{FieldSelector: "spec.nodeName=" + node + ",status.phase=Running", LabelSelector: "app=frontend", Limit: 500}
}

// selective1pct is a label selector on an unindexed key that matches ≈1% of the pods: app=web is
// rank 23 of 50 apps under the generator's Zipf(1) weights, 1/(23·H50) = 0.97%.
const selective1pct = "app=web"

func logf(format string, args ...any) {
	if testing.Verbose() || os.Getenv("BENCH_VERBOSE") != "" {
		fmt.Fprintf(os.Stderr, "# "+format+"\n", args...)
	}
}

// sizes are the pod counts of the benchmarks: BENCH_SIZES (comma-separated, e.g. "10k,100k,1m"),
// default 10k and 100k. 1m is untested: ≈15–20 GiB per process for the cacher and etcd families.
func sizes(b *testing.B) []int {
	s := os.Getenv("BENCH_SIZES")
	if s == "" {
		s = "10k,100k"
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := peers.ParseSize(strings.TrimSpace(f))
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}
