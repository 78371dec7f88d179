package bench

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/watchcache/watchcache/bench/peers"
	"github.com/watchcache/watchcache/watchcache"
)

// A benchmark that compares different answers is worthless: these tests check, on a small cluster,
// that every peer returns the same items for every query the benchmarks run, and that the
// mutating workloads (continue after churn, watch dispatch) behave as the benchmarks assume.

// small is the test cluster: 50 pods per node, ≈30 pods with app=web.
func small() *world { return getWorld(3000, 60, 20) }

// reference answers q by brute force over the typed pods: every pod matching the selectors
// (apiserver attributes), in key order, truncated to the limit; and the full match set.
func reference(t *testing.T, pods []*corev1.Pod, q peers.Query) (page, all []string) {
	t.Helper()
	ls, err := labels.Parse(q.LabelSelector)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := fields.ParseSelector(q.FieldSelector)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		l, f, _ := peers.PodAttrs(p)
		if ls.Matches(l) && fs.Matches(f) {
			all = append(all, p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(all)
	page = all
	if q.Limit > 0 && int64(len(page)) > q.Limit {
		page = page[:q.Limit]
	}
	return page, all
}

func TestPeersAgree(t *testing.T) {
	w := small()
	ctx := context.Background()
	var pods []*corev1.Pod
	for _, r := range w.d.Raw {
		p, err := peers.DecodePod(r)
		if err != nil {
			t.Fatal(err)
		}
		pods = append(pods, p)
	}
	ours, oursLabel, cg, store, cacher := w.Ours(t), w.OursLabel(t), w.ClientGo(t), w.Store(t), w.Cacher(t)

	queries := map[string]peers.Query{
		"head page":       {Limit: 500},
		"full list":       {},
		"label 1% page":   {LabelSelector: selective1pct, Limit: 500},
		"label 1% list":   {LabelSelector: selective1pct},
		"label page of 5": {LabelSelector: selective1pct, Limit: 5},
	}
	for _, node := range queryNodes(w.nodes)[:6] {
		queries["node "+node] = qNode(node)
		queries["node+label "+node] = qNodeLabel(node)
	}
	nonEmpty := 0
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			want, all := reference(t, pods, q)
			if len(want) > 0 {
				nonEmpty++
			}
			ordered := map[string]func() ([]string, error){
				"ours": func() ([]string, error) {
					r, err := peers.OursList(ctx, ours, q, "")
					return keysOf(r, err)
				},
				"ours-rv0": func() ([]string, error) {
					r, err := peers.OursList(ctx, ours, q, "0")
					return keysOf(r, err)
				},
				"ours-labelidx": func() ([]string, error) {
					r, err := peers.OursList(ctx, oursLabel, q, "")
					return keysOf(r, err)
				},
				"etcd": func() ([]string, error) {
					l, err := peers.StoreList(ctx, store, q, "")
					return podListKeys(l, err)
				},
				"cacher": func() ([]string, error) {
					l, err := cacher.List(ctx, q, "")
					return podListKeys(l, err)
				},
			}
			for peer, list := range ordered {
				got, err := list()
				if err != nil {
					t.Fatalf("%s: %v", peer, err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: %d items %v…, want %d %v…", peer, len(got), head(got), len(want), head(want))
				}
			}
			// The apiserver cache ignores the limit at RV=0 (kubernetes#125335): the whole match set.
			l, err := cacher.List(ctx, q, "0")
			if err != nil {
				t.Fatal(err)
			}
			if got := peers.PodListKeys(l); !slices.Equal(got, all) {
				t.Errorf("cacher-rv0: %d items, want all %d", len(got), len(all))
			}
			// client-go has no order: the first limit matches in map order, a subset of the match set.
			cq, err := peers.CompileClientGo(q)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := peers.ClientGoList(cg, cq)
			if err != nil {
				t.Fatal(err)
			}
			got := peers.PodKeys(pl)
			slices.Sort(got)
			if len(got) != len(want) || !isSubset(got, all) {
				t.Errorf("client-go: %d items, want %d from the match set", len(got), len(want))
			}
		})
	}
	if nonEmpty < len(queries)-2 {
		t.Errorf("only %d of %d queries match anything: the test data no longer exercises the selectors", nonEmpty, len(queries))
	}
	if d := cacher.Delegated(); d != 0 {
		t.Errorf("the apiserver cache sent %d lists to etcd: the benchmarks would measure etcd", d)
	}
}

// TestContinueAfterChurn checks the continue workload: a page deep in a list, read after churn,
// returns the old snapshot's items, from ours and from the apiserver cache (not from etcd).
func TestContinueAfterChurn(t *testing.T) {
	w := small()
	ctx := context.Background()
	m, cacher := w.Mutable(t), w.Cacher(t)
	const limit, pages, churn = 100, 5, 2000

	var snapshot []string
	tok := prepareOursContinue(t, w, limit, pages, churn, func() {
		before, err := peers.OursList(ctx, m.c, peers.Query{}, "")
		if err != nil {
			t.Fatal(err)
		}
		snapshot = peers.OurVersions(before.Items)
	})
	ctok := prepareCacherContinue(t, w, limit, pages, churn)
	want := snapshot[pages*limit : (pages+1)*limit]

	r, err := peers.OursList(ctx, m.c, peers.Query{Limit: limit, Continue: tok}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := peers.OurVersions(r.Items); !slices.Equal(got, want) {
		t.Errorf("ours: page after churn %v…, want the old snapshot's %v…", head(got), head(want))
	}
	delegated := cacher.Delegated()
	l, err := cacher.List(ctx, peers.Query{Limit: limit, Continue: ctok}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := peers.PodListVersions(l); !slices.Equal(got, want) {
		t.Errorf("cacher: page after churn %v…, want the old snapshot's %v…", head(got), head(want))
	}
	if cacher.Delegated() != delegated {
		t.Errorf("the apiserver cache served the continue page from etcd, not from a snapshot")
	}

	// Both followed the same churn: their latest states agree.
	after, err := peers.OursList(ctx, m.c, peers.Query{}, "")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cacher.List(ctx, peers.Query{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := peers.OurVersions(after.Items), peers.PodListVersions(cl); !slices.Equal(a, b) {
		t.Errorf("after churn: ours %d items, cacher %d: the churn streams diverged", len(a), len(b))
	}
	if slices.Equal(peers.OurVersions(after.Items), snapshot) {
		t.Error("churn changed nothing")
	}
}

// warmChurn is how many changes precede the first page of the continue workload. The apiserver
// cache drops the snapshot of its initial list once its event history first fills (the snapshot
// predates every event it holds), so a token taken right after the initial list is served by etcd;
// a token taken after a few events — the normal case in a live cluster — is served from a snapshot.
const warmChurn = 200

// prepareOursContinue applies warmChurn changes to the mutable cache, calls at (if not nil),
// follows pages of limit to the token after page pages, applies churn more changes and returns
// the token.
func prepareOursContinue(tb testing.TB, w *world, limit int64, pages, churn int, at func()) string {
	tb.Helper()
	m := w.Mutable(tb)
	apply := func(n int) {
		for range n {
			ch, _ := m.next()
			if err := m.applyOurs(ch); err != nil {
				tb.Fatal(err)
			}
		}
	}
	apply(warmChurn)
	if at != nil {
		at()
	}
	tok := oursToken(tb, context.Background(), m.c, limit, pages)
	apply(churn)
	return tok
}

// prepareCacherContinue is prepareOursContinue for the apiserver cache: the changes go to etcd.
func prepareCacherContinue(tb testing.TB, w *world, limit int64, pages, churn int) string {
	tb.Helper()
	em, c := w.EtcdChurn(tb), w.Cacher(tb)
	writeChurn(tb, w, em, warmChurn)
	tok := cacherToken(tb, context.Background(), c, limit, pages)
	writeChurn(tb, w, em, churn)
	return tok
}

// TestWatchDeliveries checks the watch workload's bookkeeping: one watcher per node receives
// exactly the events the benchmark expects (the benchmark waits for that count).
func TestWatchDeliveries(t *testing.T) {
	w := small()
	ctx := context.Background()
	m, em, cacher := w.Mutable(t), w.EtcdChurn(t), w.Cacher(t)
	const events = 1000

	op, err := oursWatchers(ctx, m.c, w.nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Stop()
	var want int64
	for range events {
		ch, n := m.next()
		want += int64(n)
		if err := m.applyOurs(ch); err != nil {
			t.Fatal(err)
		}
	}
	if err := op.wait(want, 10*time.Second); err != nil {
		t.Fatalf("ours: %v", err)
	}

	rev, err := w.Etcd(t).Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := cacherWatchers(ctx, cacher, strconv.FormatInt(rev, 10), w.nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	cwant := writeChurn(t, w, em, events)
	if err := cp.wait(cwant, 30*time.Second); err != nil {
		t.Fatalf("cacher: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if op.received.Load() != want || cp.received.Load() != cwant {
		t.Errorf("received ours %d (want %d), cacher %d (want %d)", op.received.Load(), want, cp.received.Load(), cwant)
	}
}

// writeChurn writes n changes of em's stream to etcd, waits until the cacher has seen them and
// returns the watch deliveries they cause.
func writeChurn(tb testing.TB, w *world, em *mutable, n int) int64 {
	tb.Helper()
	ctx := context.Background()
	cw := w.Etcd(tb).NewChangeWriter(ctx, 4)
	var deliveries int64
	for range n {
		ch, d := em.next()
		deliveries += int64(d)
		writeEtcd(cw, ch)
	}
	if err := cw.Close(); err != nil {
		tb.Fatal(err)
	}
	if c := w.cacher.v; c != nil {
		// A consistent read waits until the cache has reached etcd's current revision.
		if _, err := c.List(ctx, peers.Query{Limit: 1}, ""); err != nil {
			tb.Fatal(err)
		}
	}
	return deliveries
}

// oursToken follows pages of limit from the start and returns the token after page pages.
func oursToken(tb testing.TB, ctx context.Context, c *watchcache.Cache, limit int64, pages int) string {
	tb.Helper()
	tok := ""
	for range pages {
		r, err := peers.OursList(ctx, c, peers.Query{Limit: limit, Continue: tok}, "")
		if err != nil {
			tb.Fatal(err)
		}
		if r.Continue == "" {
			tb.Fatal("list ended early")
		}
		tok = r.Continue
	}
	return tok
}

func cacherToken(tb testing.TB, ctx context.Context, c *peers.Cacher, limit int64, pages int) string {
	tb.Helper()
	tok := ""
	for range pages {
		l, err := c.List(ctx, peers.Query{Limit: limit, Continue: tok}, "")
		if err != nil {
			tb.Fatal(err)
		}
		if l.Continue == "" {
			tb.Fatal("list ended early")
		}
		tok = l.Continue
	}
	return tok
}

func keysOf(r *watchcache.ListResult, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return peers.OurKeys(r.Items), nil
}

func podListKeys(l *corev1.PodList, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return peers.PodListKeys(l), nil
}

func head(s []string) []string { return s[:min(3, len(s))] }

func isSubset(sub, set []string) bool {
	for _, s := range sub {
		if _, ok := slices.BinarySearch(set, s); !ok {
			return false
		}
	}
	return true
}
