package watchcache

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/watchcache/watchcache/index"
)

// publishRun applies a random event stream (creates, updates moving pods between nodes and labels,
// deletes) and returns the expected content after each RV: key → object bytes as List returns them.
type publishRun struct {
	c     *Cache
	first uint64
	want  map[uint64]map[string][]byte
}

func newPublishRun(t *testing.T, seed int64, events int, readEvery int) *publishRun {
	t.Helper()
	c := newPodCache(t, func(o *Options) { o.WindowEvents = events + 1000; o.WindowAge = -1 })
	for _, spec := range []index.Spec{{Kind: index.Field, Name: "spec.nodeName"}, {Kind: index.Label, Name: "app"}} {
		if err := c.AddIndex(spec); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewSource(seed))
	live := map[string][]byte{}
	var initial [][]byte
	for i := range 20 {
		p := pod("ns"+strconv.Itoa(i%3), "p"+strconv.Itoa(i), "n"+strconv.Itoa(i%4), "app=a"+strconv.Itoa(i%2), 10)
		initial = append(initial, p)
		live["/ns"+strconv.Itoa(i%3)+"/p"+strconv.Itoa(i)] = p
	}
	if err := c.Replace(initial, 10); err != nil {
		t.Fatal(err)
	}
	r := &publishRun{c: c, first: 10, want: map[uint64]map[string][]byte{10: maps(live)}}
	for rv := uint64(11); rv < uint64(11+events); rv++ {
		i := rng.Intn(40)
		ns, name := "ns"+strconv.Itoa(i%3), "p"+strconv.Itoa(i)
		key := "/" + ns + "/" + name
		obj := pod(ns, name, "n"+strconv.Itoa(rng.Intn(4)), "app=a"+strconv.Itoa(rng.Intn(3)), rv)
		typ := Added
		if _, ok := live[key]; ok {
			typ = Modified
			if rng.Intn(4) == 0 {
				typ = Deleted
			}
		}
		mustApply(t, c, typ, obj, rv)
		if typ == Deleted {
			delete(live, key)
		} else {
			live[key] = obj
		}
		r.want[rv] = maps(live)
		if readEvery > 0 && rng.Intn(readEvery) == 0 {
			mustList(t, c, ListOptions{ResourceVersion: "0"}) // publishes the newest state
		}
	}
	return r
}

func maps(m map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// check lists at rv (Exact) in pages of limit, without a selector, with the indexed field selector
// and with the indexed label selector, and compares with the expected content; and reads every key
// of the state at rv.
func (r *publishRun) check(t testing.TB, rv uint64, limit int64) error {
	want := r.want[rv]
	for _, sel := range []string{"", "node=n1", "app=a1"} {
		o := ListOptions{ResourceVersion: strconv.FormatUint(rv, 10), ResourceVersionMatch: MatchExact, Limit: limit}
		node, app := strings.CutPrefix(sel, "node=")
		if node != "" && app {
			o.FieldSelector = "spec.nodeName=" + node
		} else if sel != "" {
			o.LabelSelector = sel
		}
		var got [][]byte
		for {
			res, err := r.c.List(context.Background(), o)
			if err != nil {
				return fmt.Errorf("list at %d %+v: %w", rv, o, err)
			}
			if res.ResourceVersion != rv {
				return fmt.Errorf("list at %d answered at %d", rv, res.ResourceVersion)
			}
			got = append(got, res.Items...)
			if sel == "" && res.Continue != "" {
				// Rule 2.7: the objects after this page, at rv.
				if res.RemainingItemCount == nil || *res.RemainingItemCount != int64(len(want)-len(got)) {
					return fmt.Errorf("at %d after %d items: remainingItemCount %v, want %d", rv, len(got), res.RemainingItemCount, len(want)-len(got))
				}
			}
			if res.Continue == "" {
				break
			}
			o = ListOptions{Continue: res.Continue, Limit: limit, FieldSelector: o.FieldSelector, LabelSelector: o.LabelSelector}
		}
		keys := make([]string, 0, len(want))
		for k, v := range want {
			switch {
			case sel == "",
				app && getPath(v, "spec.nodeName") == node,
				!app && getPath(v, "metadata.labels.app") == "a1":
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		if len(got) != len(keys) {
			return fmt.Errorf("at %d node %q: %d items, want %d", rv, node, len(got), len(keys))
		}
		for i, k := range keys {
			if !bytes.Equal(got[i], want[k]) {
				return fmt.Errorf("at %d %q item %d: got %s, want %s", rv, sel, i, got[i], want[k])
			}
		}
	}
	st, ok := r.c.viewAt(rv)
	if !ok {
		return fmt.Errorf("no state at %d", rv)
	}
	for i := range 40 {
		key := "/ns" + strconv.Itoa(i%3) + "/p" + strconv.Itoa(i)
		rec, ok := st.get(key)
		if w, wok := want[key]; ok != wok || ok && !bytes.Equal(rec.raw, w) {
			return fmt.Errorf("at %d get(%s) = %v; want %v", rv, key, ok, wok)
		}
	}
	return nil
}

// TestExactReadsOfUnpublishedStates: Apply publishes a state only every publishEvery events; every
// RV in the window still reads exactly its state (rule 2.2), in pages, with and without an index,
// whether or not readers published states in between, and whatever order the RVs are read in.
func TestExactReadsOfUnpublishedStates(t *testing.T) {
	for _, tc := range []struct {
		name      string
		readEvery int
		order     func(rvs []uint64, rng *rand.Rand)
	}{
		{"no readers, newest first", 0, func(rvs []uint64, _ *rand.Rand) { slices.Reverse(rvs) }},
		{"no readers, oldest first", 0, func([]uint64, *rand.Rand) {}},
		{"readers publish, random order", 5, func(rvs []uint64, rng *rand.Rand) {
			rng.Shuffle(len(rvs), func(i, j int) { rvs[i], rvs[j] = rvs[j], rvs[i] })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newPublishRun(t, 1, 5*publishEvery+7, tc.readEvery)
			var rvs []uint64
			for rv := range r.want {
				rvs = append(rvs, rv)
			}
			slices.Sort(rvs)
			tc.order(rvs, rand.New(rand.NewSource(2)))
			for _, rv := range rvs {
				if err := r.check(t, rv, 3); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestApplyPublishesInBatches: without readers, the window holds a published state every
// publishEvery events (not one per event); a latest read publishes the newest state.
func TestApplyPublishesInBatches(t *testing.T) {
	r := newPublishRun(t, 3, 4*publishEvery, 0)
	c := r.c
	published := 0
	c.pub.mu.RLock()
	for _, e := range c.pub.win.entries[1:] {
		if e.snap != nil {
			published++
		}
	}
	c.pub.mu.RUnlock()
	if published != 4 {
		t.Fatalf("%d published states after %d events, want 4", published, 4*publishEvery)
	}
	late := uint64(10 + 4*publishEvery + 1)
	mustApply(t, c, Added, pod("ns0", "late", "n0", "", late), late)
	if !c.pub.dirty.Load() {
		t.Fatalf("state at %d published by Apply, want lazily", late)
	}
	res := mustList(t, c, ListOptions{ResourceVersion: "0"})
	if res.ResourceVersion != late || c.pub.dirty.Load() {
		t.Fatalf("latest read answered at %d (dirty %v), want %d and published", res.ResourceVersion, c.pub.dirty.Load(), late)
	}
}

// TestExactReadsConcurrentWithApply: readers rebuild unpublished states while the writer applies
// (run with -race).
func TestExactReadsConcurrentWithApply(t *testing.T) {
	r := newPublishRun(t, 4, 6*publishEvery, 0)
	last := uint64(10 + 6*publishEvery)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 3 {
		wg.Go(func() {
			rng := rand.New(rand.NewSource(int64(g)))
			for range 60 {
				if err := r.check(t, 10+uint64(rng.Intn(int(last-10+1))), 4); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for rv := last + 1; rv < last+200; rv++ {
		mustApply(t, r.c, Modified, pod("ns0", "p0", "n2", "", rv), rv)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
