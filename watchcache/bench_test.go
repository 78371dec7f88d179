package watchcache

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/internal/testdata"
)

// The benchmark workload of bench/CORE.md: 100k generated pods (≈3.6 KiB each) over 5,000 nodes
// and 200 namespaces, with a spec.nodeName field index and an app label index.
const (
	benchPods       = 100_000
	benchNodes      = 5_000
	benchNamespaces = 200
)

type benchFixture struct {
	gen     *testdata.Generator
	objs    [][]byte
	c       *Cache
	churn   *testdata.Churn
	rv      uint64
	rawSize int64
	pending []Event // generated churn events not applied yet
}

var (
	benchOnce, plainOnce sync.Once
	bench, plainBench    *benchFixture
)

// loadBench returns the shared fixture: 100k pods with the spec.nodeName and app indexes.
func loadBench(b *testing.B) *benchFixture {
	b.Helper()
	benchOnce.Do(func() { bench = newBenchFixture(true) })
	return bench
}

// loadPlainBench returns a fixture of the same pods without indexes: the core cache alone.
func loadPlainBench(b *testing.B) *benchFixture {
	b.Helper()
	plainOnce.Do(func() { plainBench = newBenchFixture(false) })
	return plainBench
}

func newBenchFixture(indexed bool) *benchFixture {
	f := &benchFixture{gen: testdata.New(testdata.Config{Pods: benchPods, Nodes: benchNodes, Namespaces: benchNamespaces, Seed: 1})}
	for i := range benchPods {
		p := f.gen.Pod(i, uint64(i+1))
		f.rawSize += int64(len(p))
		f.objs = append(f.objs, p)
	}
	f.c = New(Options{Resource: Resource{Name: "pods", Namespaced: true}, WindowEvents: 20_000, WindowAge: -1})
	f.rv = benchPods + 1
	if err := f.c.Replace(f.objs, f.rv); err != nil {
		panic(err)
	}
	if indexed {
		for _, s := range []index.Spec{{Kind: index.Field, Name: "spec.nodeName"}, {Kind: index.Label, Name: "app"}} {
			if err := f.c.AddIndex(s); err != nil {
				panic(err)
			}
		}
	}
	f.churn = f.gen.NewChurn(2)
	return f
}

func (f *benchFixture) applyChurn(n int) {
	for range n {
		f.rv++
		if err := f.c.Apply(f.nextEvent()); err != nil {
			panic(err)
		}
	}
}

// nextEvent returns the next churn event at f.rv, or the oldest one generated but not applied yet
// (BenchmarkApply generates in batches): the stream and the cache must never diverge.
func (f *benchFixture) nextEvent() Event {
	if len(f.pending) > 0 {
		f.rv-- // the pending event keeps the RV it was generated with
		ev := f.pending[0]
		f.pending = f.pending[1:]
		return ev
	}
	return churnEvent(f.churn.Next(f.rv), f.rv)
}

func churnEvent(ch testdata.Change, rv uint64) Event {
	typ := map[testdata.ChangeType]EventType{testdata.Added: Added, testdata.Modified: Modified, testdata.Deleted: Deleted}[ch.Type]
	return Event{Type: typ, Object: ch.Object, ResourceVersion: rv}
}

// BenchmarkApply: one churn event (80% update, 10% delete, 10% create) into a 100k-pod cache with
// two indexes, including extraction, indexing, the snapshot and the window (bench/CORE.md: target ≤ 8 µs unindexed).
func BenchmarkApply(b *testing.B) { benchApply(b, loadBench(b)) }

// BenchmarkApplyUnindexed: BenchmarkApply without indexes — the core cache alone
// (extraction, the store, the snapshot and the window), so that what indexes add shows apart.
func BenchmarkApplyUnindexed(b *testing.B) { benchApply(b, loadPlainBench(b)) }

func benchApply(b *testing.B, f *benchFixture) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(f.pending) == 0 {
			// Generating a pod costs about as much as applying it: do it outside the timer, in
			// batches. Events not applied by this run stay pending for the next one, so the churn
			// stream and the cache never diverge.
			b.StopTimer()
			for range 4096 {
				f.rv++
				f.pending = append(f.pending, churnEvent(f.churn.Next(f.rv), f.rv))
			}
			b.StartTimer()
		}
		if err := f.c.Apply(f.pending[0]); err != nil {
			b.Fatal(err)
		}
		f.pending = f.pending[1:]
	}
}

// BenchmarkReplace100k: building the cache from a 100k list (target ≤ 0.7 s).
func BenchmarkReplace100k(b *testing.B) {
	f := loadBench(b)
	b.ReportAllocs()
	for b.Loop() {
		c := New(Options{Resource: Resource{Name: "pods", Namespaced: true}})
		if err := c.Replace(f.objs, benchPods+1); err != nil {
			b.Fatal(err)
		}
	}
}

// benchList lists with o in the benchmark's loop (want ≥ 0: the page's required size). It reports
// the page's items (items/op): the churn that earlier benchmarks apply to the shared fixture moves
// pods between nodes, so a node's page has more or fewer items from one benchmark (or run) to the
// next.
func benchList(b *testing.B, o ListOptions, want int) {
	f := loadBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	items := 0
	for b.Loop() {
		res, err := f.c.List(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		if want >= 0 && len(res.Items) != want {
			b.Fatalf("%d items, want %d", len(res.Items), want)
		}
		items = len(res.Items)
	}
	b.ReportMetric(float64(items), "items/op")
}

// BenchmarkListPage: a first page of 500, all namespaces, at the latest state (target ≤ 100 µs).
func BenchmarkListPage(b *testing.B) {
	benchList(b, ListOptions{Limit: 500, ResourceVersion: "0"}, 500)
}

// oldToken lists a first page, then applies 10,000 churn events, and returns the page's token:
// its continue pages read a snapshot 10,000 events old.
func oldToken(b *testing.B, o ListOptions) string {
	f := loadBench(b)
	res, err := f.c.List(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	f.applyChurn(10_000)
	// The churn's garbage is the setup's: collect it now, or its collection runs during the timed
	// loop and is charged to the continue page, which the head page's benchmark does not pay.
	runtime.GC()
	return res.Continue
}

// BenchmarkListContinueOld: a continue page of 500 from a snapshot 10,000 events old (≤ 1.2× head).
func BenchmarkListContinueOld(b *testing.B) {
	benchList(b, ListOptions{Limit: 500, Continue: oldToken(b, ListOptions{Limit: 500})}, 500)
}

// BenchmarkListContinueOldDecoded: BenchmarkListContinueOld with a token the cache did not issue
// (foreignToken), so that the page decodes it and counts the keys after its start: a client paging
// with another server's tokens, or more lists paged at once than the cache remembers.
func BenchmarkListContinueOldDecoded(b *testing.B) {
	benchList(b, ListOptions{Limit: 500, Continue: foreignToken(b, oldToken(b, ListOptions{Limit: 500}))}, 500)
}

// foreignToken returns tok in the etcd form (no leading '/' in its start key), which decodes to
// the same start and RV but is not a token the cache remembers issuing.
func foreignToken(b *testing.B, tok string) string {
	start, rv, err := decodeContinue(tok, "/")
	if err != nil {
		b.Fatal(err)
	}
	return encodeContinueEtcdForm(start, "/", rv)
}

// BenchmarkListFull: the whole 100k list, no selector.
func BenchmarkListFull(b *testing.B) { benchList(b, ListOptions{ResourceVersion: "0"}, -1) }

// BenchmarkIndexedPage ((a) of bench/CORE.md): spec.nodeName=X, ≈20 of 100k, key-ordered page of 500.
func BenchmarkIndexedPage(b *testing.B) {
	benchList(b, ListOptions{Limit: 500, ResourceVersion: "0", FieldSelector: "spec.nodeName=node-7"}, -1)
}

// BenchmarkIndexedPageCold: BenchmarkIndexedPage on a different node each time (node names
// from a fixed rotation over all nodes), so the entries and records read are mostly not in the CPU
// cache — bench/'s access pattern, and a controller's serving many nodes.
func BenchmarkIndexedPageCold(b *testing.B) {
	f := loadBench(b)
	sels := make([]string, benchNodes)
	for i := range sels {
		sels[i] = fmt.Sprintf("spec.nodeName=node-%d", (i*2654435761)%benchNodes)
	}
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := f.c.List(ctx, ListOptions{Limit: 500, ResourceVersion: "0", FieldSelector: sels[i%len(sels)]}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkIndexedFieldAndLabel ((b)): spec.nodeName=X,status.phase=Running + a label.
func BenchmarkIndexedFieldAndLabel(b *testing.B) {
	benchList(b, ListOptions{Limit: 500, ResourceVersion: "0", FieldSelector: "spec.nodeName=node-7,status.phase=Running", LabelSelector: "tier"}, -1)
}

// BenchmarkIndexedContinueOld ((d)): an indexed page from a continue token 10,000 events old.
func BenchmarkIndexedContinueOld(b *testing.B) {
	tok := oldToken(b, ListOptions{Limit: 5, FieldSelector: "spec.nodeName=node-7"})
	benchList(b, ListOptions{Limit: 500, Continue: tok, FieldSelector: "spec.nodeName=node-7"}, -1)
}

// BenchmarkIndexedContinueOldDecoded: BenchmarkIndexedContinueOld with a token the cache did not
// issue (foreignToken).
func BenchmarkIndexedContinueOldDecoded(b *testing.B) {
	tok := foreignToken(b, oldToken(b, ListOptions{Limit: 5, FieldSelector: "spec.nodeName=node-7"}))
	benchList(b, ListOptions{Limit: 500, Continue: tok, FieldSelector: "spec.nodeName=node-7"}, -1)
}

// BenchmarkExactUnpublished: a page of 500 at the RV farthest from any published state — Apply
// publishes every publishEvery events, so the read goes through the nearest published state and an
// overlay of the publishEvery/2 events in between (publisher.viewAt). Target: a page of 500 at any
// RV ≤ 100 µs.
func BenchmarkExactUnpublished(b *testing.B) {
	f := loadBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		f.c.current() // publish: the next events are unpublished
		f.applyChurn(publishEvery / 2)
		rv := f.rv
		f.applyChurn(publishEvery/2 - 1) // the read publishes the state after these
		b.StartTimer()
		res, err := f.c.List(ctx, ListOptions{ResourceVersion: strconv.FormatUint(rv, 10), ResourceVersionMatch: MatchExact, Limit: 500})
		if err != nil || len(res.Items) != 500 {
			b.Fatal(err)
		}
	}
}

// rareSelector matches about 1% of the generated pods (picked from the data at setup).
func rareSelector(b *testing.B) string {
	f := loadBench(b)
	for _, sel := range []string{"team=team-07", "team=team-12", "team=team-15", "team=team-19"} {
		res, err := f.c.List(context.Background(), ListOptions{ResourceVersion: "0", LabelSelector: sel})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(res.Items); n > benchPods/200 && n < benchPods/50 {
			return sel
		}
	}
	// Fall back to a computed selector with a known share.
	return "team=team-19"
}

// BenchmarkUnindexedLabelPage ((c)): a 1%-selective label selector, first page of 500.
func BenchmarkUnindexedLabelPage(b *testing.B) {
	benchList(b, ListOptions{Limit: 500, ResourceVersion: "0", LabelSelector: rareSelector(b)}, -1)
}

// BenchmarkUnindexedLabelFull ((c)): the same selector, full list; ns/object reported.
func BenchmarkUnindexedLabelFull(b *testing.B) {
	sel := rareSelector(b)
	f := loadBench(b)
	benchList(b, ListOptions{ResourceVersion: "0", LabelSelector: sel}, -1)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(f.c.Len()), "ns/scanned")
}

// BenchmarkHeapPerObject (run with -benchtime 1x: each iteration loads 100k pods) reports the heap
// held per object after loading 100k pods, as a ratio of
// the raw JSON held (target ≤ 1.25×), and with 10,000 snapshots retained under churn.
func BenchmarkHeapPerObject(b *testing.B) {
	gen := testdata.New(testdata.Config{Pods: benchPods, Nodes: benchNodes, Namespaces: benchNamespaces, Seed: 3})
	for b.Loop() {
		objs := make([][]byte, benchPods)
		var raw int64
		for i := range objs {
			objs[i] = gen.Pod(i, uint64(i+1))
			raw += int64(len(objs[i]))
		}
		before := heapInUse()
		c := New(Options{Resource: Resource{Name: "pods", Namespaced: true}, WindowEvents: 10_001, WindowAge: -1})
		if err := c.Replace(objs, benchPods+1); err != nil {
			b.Fatal(err)
		}
		_ = c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"})
		objs = nil
		loaded := heapInUse()
		churn := gen.NewChurn(9)
		rv := uint64(benchPods + 1)
		for range 10_000 {
			rv++
			if err := c.Apply(churnEvent(churn.Next(rv), rv)); err != nil {
				b.Fatal(err)
			}
		}
		// The displaced versions are what 10,000 snapshots retain; compare with a cache holding only
		// the current state of the same content.
		churned := heapInUse()
		// The objects were allocated before `before`: the cache's heap is its overhead plus them.
		held := float64(loaded-before) + float64(raw)
		b.ReportMetric(held/float64(benchPods), "B/object")
		b.ReportMetric(held/float64(raw), "heap/raw")
		b.ReportMetric(float64(churned-loaded)/held, "snapshots/heap")
		runtime.KeepAlive(c)
	}
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func ExampleCache_List() {
	c := New(Options{Resource: Resource{Name: "pods", Namespaced: true}})
	_ = c.Replace([][]byte{
		[]byte(`{"metadata":{"name":"a","namespace":"default","resourceVersion":"1","labels":{"app":"web"}},"spec":{"nodeName":"n1"}}`),
		[]byte(`{"metadata":{"name":"b","namespace":"default","resourceVersion":"2"},"spec":{"nodeName":"n2"}}`),
	}, 2)
	_ = c.AddIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"})
	res, _ := c.List(context.Background(), ListOptions{FieldSelector: "spec.nodeName=n1", Limit: 10})
	fmt.Println(len(res.Items), res.ResourceVersion)
	// Output: 1 2
}
