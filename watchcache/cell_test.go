package watchcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/selection"
)

// An index whose values have many keys holds cells: an update that keeps the indexed value writes
// nothing in the index, and a state reads the version at its own RV through the cell — also a
// state the window evicted while a reader had entered it: the versions it needs stay linked until
// the reader leaves. An index whose values have a few keys holds records.
func TestIndexedReadsThroughCells(t *testing.T) {
	c := newPodCache(t, func(o *Options) { o.WindowEvents = 3 })
	objs := [][]byte{pod("ns", "a", "n1", "app=web", 1), pod("ns", "b", "n1", "app=web", 2)}
	for i := range index.MaxSlice { // more keys than a slice holds: the index holds cells
		objs = append(objs, pod("ns", fmt.Sprintf("p%02d", i), "n1", "app=db", 2))
	}
	if err := c.Replace(objs, 2); err != nil {
		t.Fatal(err)
	}
	for _, s := range []index.Spec{{Kind: index.Field, Name: "spec.nodeName"}, {Kind: index.Label, Name: "app"}} {
		if err := c.AddIndex(s); err != nil {
			t.Fatal(err)
		}
	}
	held := c.current().st // a reader's state at RV 2
	if !held.enter() {
		t.Fatal("cannot enter the head state")
	}
	si := held.findIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"})
	if app := held.findIndex(index.Spec{Kind: index.Label, Name: "app"}); !si.cells || app.cells {
		t.Fatalf("cells: spec.nodeName (%d keys, %d values) %v, app (%d keys, %d values) %v",
			si.idx.Len(), si.idx.Values(), si.cells, app.idx.Len(), app.idx.Values(), app.cells)
	}
	entries := func(st *snapshot) map[string]*cell {
		out := map[string]*cell{}
		st.findIndex(si.spec).idx.Lookup("n1").Ascend("", func(key string, p unsafe.Pointer) bool {
			out[key] = (*cell)(p)
			return true
		})
		return out
	}
	before := entries(held)
	// Updates of a that keep its node: the index is not written, the cell takes each version.
	for rv := uint64(3); rv <= 8; rv++ {
		mustApply(t, c, Modified, pod("ns", "a", "n1", fmt.Sprintf("app=web,gen=g%d", rv), rv), rv)
	}
	head := c.current().st
	after := entries(head)
	if after["/ns/a"] != before["/ns/a"] {
		t.Error("an update that kept spec.nodeName gave a new cell to a: its versions are not chained")
	}
	if got := after["/ns/a"].head.Load(); got.rv != 8 {
		t.Errorf("a's cell holds RV %d as newest, want 8", got.rv)
	}
	// The window keeps 3 events (6–8): the event at 3, which replaced the version at 1, left it,
	// but the held state's reader needs the link to that version.
	if r := before["/ns/a"].at(2); r == nil || r.rv != 1 {
		t.Errorf("a's cell reads %v at RV 2 while a reader is in the state at RV 2, want RV 1", r)
	}
	read := func(v view) map[string]uint64 {
		pl := plan{prefix: "/", si: v.findIndex(si.spec), value: "n1"}
		pl.keys = pl.si.idx.Lookup("n1")
		got := map[string]uint64{}
		v.walk(pl, func(h hit) bool {
			got[h.key] = h.version(v.at()).rv
			return true
		})
		out := collectAll(v, pl, &predicate{})
		if len(out) != len(got) {
			t.Errorf("collect returned %d items, walk %d", len(out), len(got))
		}
		for _, raw := range out {
			key := "/" + getPath(raw, "metadata.namespace") + "/" + getPath(raw, "metadata.name")
			if rv := getPath(raw, "metadata.resourceVersion"); rv != strconv.FormatUint(got[key], 10) {
				t.Errorf("%s: collect read RV %s, walk %d", key, rv, got[key])
			}
		}
		return got
	}
	// The held state reads a at RV 1, the head at 8, both through the cell.
	if got := read(held); got["/ns/a"] != 1 || got["/ns/b"] != 2 || len(got) != 2+index.MaxSlice {
		t.Errorf("held state at RV 2 reads %v, want a@1 b@2", got)
	}
	if rec, ok := held.get("/ns/a"); !ok || rec.rv != 1 {
		t.Errorf("held state at RV 2 gets a at %v", rec)
	}
	// Once its reader left, the next eviction unlinks what only that state needed, and no reader
	// enters it again.
	held.leave()
	mustApply(t, c, Modified, pod("ns", "b", "n1", "app=web,gen=x", 9), 9)
	if r := before["/ns/a"].at(2); r != nil {
		t.Errorf("a's cell still reaches RV %d after the reader of RV 2 left", r.rv)
	}
	if held.enter() {
		t.Error("a reader entered the evicted state at RV 2")
	}
	if got := read(head); got["/ns/a"] != 8 || got["/ns/b"] != 2 {
		t.Errorf("head reads %v, want a@8 b@2", got)
	}
	// A state in the window reads its own version through the cell.
	mid, ok := c.viewAt(7)
	if !ok {
		t.Fatal("no state at RV 7")
	}
	if got := read(mid); got["/ns/a"] != 7 {
		t.Errorf("state at RV 7 reads a@%d", got["/ns/a"])
	}
	// A change of node writes the index; the old state keeps a under n1, the new one does not.
	mustApply(t, c, Modified, pod("ns", "a", "n2", "app=web", 10), 10)
	if got := read(c.current().st); got["/ns/a"] != 0 || len(got) != 1+index.MaxSlice {
		t.Errorf("after a moved to n2, n1 reads %v", got)
	}
	if got := read(head); got["/ns/a"] != 8 {
		t.Errorf("the state at RV 8 lost a under n1: %v", got)
	}
	// A value with a few keys in an index of cells is a slice, which a page walks in a plain loop:
	// it reads each key's version through its cell too (under -race, checkptr refuses a cell read
	// as a record). a, moved to n2 at 10, is n2's only key; then it gets a new version there.
	mustApply(t, c, Modified, pod("ns", "a", "n2", "app=web,gen=x", 11), 11)
	for _, tc := range []struct{ rv, want string }{{"", "11"}, {"10", "10"}} {
		o := ListOptions{FieldSelector: "spec.nodeName=n2", ResourceVersion: tc.rv}
		if tc.rv != "" {
			o.ResourceVersionMatch = MatchExact
		}
		res := mustList(t, c, o)
		if got := names(res.Items); len(got) != 1 || getPath(res.Items[0], "metadata.resourceVersion") != tc.want {
			t.Errorf("spec.nodeName=n2 at RV %q lists %v, want a at %s", tc.rv, got, tc.want)
		}
	}
}

// An update that keeps a key's value in an index whose entries hold records replaces the entry in
// place: it does not remove the value and add it again, which for a value with one key dropped the
// directory's copy of the value and made a new one on every update.
func TestUpdateKeepingValueRewritesEntryInPlace(t *testing.T) {
	c := newPodCache(t)
	if err := c.Replace([][]byte{pod("ns", "a", "n1", "id=a", 1), pod("ns", "b", "n2", "id=b", 2)}, 2); err != nil {
		t.Fatal(err)
	}
	spec := index.Spec{Kind: index.Label, Name: "id"}
	if err := c.AddIndex(spec); err != nil {
		t.Fatal(err)
	}
	stored := func() string { return c.current().st.findIndex(spec).idx.Lookup("a").Value() }
	before := stored()
	if before != "a" || c.current().st.findIndex(spec).cells {
		t.Fatalf("value %q, cells %v", before, c.current().st.findIndex(spec).cells)
	}
	mustApply(t, c, Modified, pod("ns", "a", "n3", "id=a", 3), 3)
	if after := stored(); unsafe.StringData(after) != unsafe.StringData(before) {
		t.Error("an update that kept the value removed it from the directory and added it again")
	}
	res := mustList(t, c, ListOptions{LabelSelector: "id=a"})
	if len(res.Items) != 1 || getPath(res.Items[0], "metadata.resourceVersion") != "3" {
		t.Errorf("id=a lists %d items, RV %s", len(res.Items), getPath(res.Items[0], "metadata.resourceVersion"))
	}
}

// A reader that entered a state keeps reading it whole — key scans, label scans and gets, at the
// state's own versions — after the window evicted it and every key changed; once it leaves, the
// next event unlinks what only it needed, and nothing stays queued.
func TestEnteredStateSurvivesEviction(t *testing.T) {
	c := newPodCache(t, func(o *Options) { o.WindowEvents = 2 })
	var objs [][]byte
	for i := range 40 {
		objs = append(objs, pod("ns", fmt.Sprintf("p%02d", i), "n1", fmt.Sprintf("gen=g%d", i%2), 1))
	}
	if err := c.Replace(objs, 1); err != nil {
		t.Fatal(err)
	}
	want := mustList(t, c, ListOptions{ResourceVersion: "0"}).Items
	wantG0 := mustList(t, c, ListOptions{ResourceVersion: "0", LabelSelector: "gen=g0"}).Items
	held := c.current().st
	if !held.enter() {
		t.Fatal("cannot enter the head state")
	}
	rv := uint64(1)
	for round := range 3 {
		for i := range 40 {
			rv++
			name := fmt.Sprintf("p%02d", i)
			switch {
			case round == 2 && i%4 == 0:
				mustApply(t, c, Deleted, pod("ns", name, "n1", "", rv), rv)
			case round == 1 && i%3 == 0:
				mustApply(t, c, Modified, pod("ns", name, "n1", "gen=g9", rv), rv) // a new label set
			default:
				mustApply(t, c, Modified, pod("ns", name, "n2", fmt.Sprintf("gen=g%d", i%2), rv), rv)
			}
		}
	}
	for i := range 5 {
		rv++
		mustApply(t, c, Added, pod("ns", fmt.Sprintf("new%d", i), "n1", "gen=g0", rv), rv)
	}
	if len(c.pub.retired) != 1 || len(c.pub.unlinkable) == 0 {
		t.Fatalf("with a reader in an evicted state: %d retired pins, %d versions left linked", len(c.pub.retired), len(c.pub.unlinkable))
	}
	scan := func(labels string) [][]byte {
		sel, err := selection.ParseLabels(labels)
		if err != nil {
			t.Fatal(err)
		}
		pred := makePredicate(held.schema, c.labels.Load(), sel, selection.FieldSelector{})
		return collectAll(held, plan{prefix: "/", start: "/"}, &pred)
	}
	equal := func(what string, got, want [][]byte) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: item %d is %s, want %s", what, i, got[i], want[i])
			}
		}
	}
	equal("key scan of the held state", scan(""), want)
	equal("label scan of the held state", scan("gen=g0"), wantG0)
	if rec, ok := held.get("/ns/p00"); !ok || rec.rv != 1 {
		t.Errorf("held state gets p00 at %v", rec)
	}
	if _, ok := held.get("/ns/new0"); ok {
		t.Error("held state gets a key created after it")
	}

	held.leave()
	rv++
	mustApply(t, c, Modified, pod("ns", "p01", "n1", "", rv), rv)
	if len(c.pub.retired) != 0 || len(c.pub.unlinkable) != 0 {
		t.Errorf("after the reader left: %d retired pins, %d versions left linked", len(c.pub.retired), len(c.pub.unlinkable))
	}
	if held.enter() {
		t.Error("a reader entered the evicted state")
	}
	if _, err := c.List(context.Background(), ListOptions{ResourceVersion: "1", ResourceVersionMatch: MatchExact}); !errors.Is(err, ErrExpired) {
		t.Errorf("exact list at the evicted RV: %v", err)
	}
}

// Readers list and get while a writer churns through a two-event window, so that the states they
// read are evicted under them: every answer is exactly the state at its RV, rebuilt from the
// writer's log (run with -race).
func TestReadsWhileWindowEvicts(t *testing.T) {
	c := newPodCache(t, func(o *Options) { o.WindowEvents = 2 })
	const keys = 150
	var log changeLog
	var objs [][]byte
	for i := range keys {
		name := fmt.Sprintf("p%03d", i)
		objs = append(objs, pod("ns", name, "", "gen=a", 1))
		log.add(loggedChange{rv: 1, key: "/ns/" + name, gen: "a"})
	}
	if err := c.Replace(objs, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		defer cancel()
		rng := rand.New(rand.NewSource(7))
		live := map[string]bool{}
		for i := range keys {
			live[fmt.Sprintf("p%03d", i)] = true
		}
		for rv := uint64(2); rv < 4000; rv++ {
			name := fmt.Sprintf("p%03d", rng.Intn(keys+20))
			e := loggedChange{rv: rv, key: "/ns/" + name}
			del := live[name] && rng.Intn(8) == 0
			if !del {
				e.gen = []string{"a", "a", "a", "b"}[rng.Intn(4)] // mostly updates keeping the labels
			}
			log.add(e)
			var err error
			switch {
			case del:
				err = c.Apply(Event{Type: Deleted, Object: pod("ns", name, "", "", 0), ResourceVersion: rv})
				delete(live, name)
			case live[name]:
				err = c.Apply(Event{Type: Modified, Object: pod("ns", name, "", "gen="+e.gen, 0), ResourceVersion: rv})
			default:
				err = c.Apply(Event{Type: Added, Object: pod("ns", name, "", "gen="+e.gen, 0), ResourceVersion: rv})
				live[name] = true
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	check := func(res *ListResult, sel string) error {
		want := log.at(res.ResourceVersion) // key -> its last change: gen label and RV
		n := 0
		for _, v := range want {
			if sel == "" || "gen="+v.gen == sel {
				n++
			}
		}
		if len(res.Items) != n {
			return fmt.Errorf("list %q at RV %d: %d items, want %d", sel, res.ResourceVersion, len(res.Items), n)
		}
		for _, raw := range res.Items {
			key := "/ns/" + getPath(raw, "metadata.name")
			v, ok := want[key]
			if got := getPath(raw, "metadata.resourceVersion"); !ok || got != strconv.FormatUint(v.rv, 10) || getPath(raw, "metadata.labels.gen") != v.gen {
				return fmt.Errorf("list %q at RV %d: %s at RV %s gen %s, want %+v (present %v)", sel, res.ResourceVersion, key, got, getPath(raw, "metadata.labels.gen"), v, ok)
			}
		}
		return nil
	}
	errs := make(chan error, 3)
	for g := range 3 {
		wg.Go(func() {
			sels := []string{"", "gen=a", "gen=b"}
			for i := 0; ctx.Err() == nil; i++ {
				sel := sels[(i+g)%len(sels)]
				res, err := c.List(context.Background(), ListOptions{ResourceVersion: "0", LabelSelector: sel})
				if err == nil {
					err = check(res, sel)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// A reader may still have been inside a state the writer's last events evicted; its pin is
	// retired then, and the writer collects it at its next event, once the reader has left.
	if err := c.Apply(Event{Type: Added, Object: pod("ns", "after", "", "gen=a", 0), ResourceVersion: 4000}); err != nil {
		t.Fatal(err)
	}
	if len(c.pub.retired) != 0 {
		t.Errorf("%d retired pins after every reader left and the next event", len(c.pub.retired))
	}
}

// The worked example of the publisher's design comment, step by step: the chain of /ns/a's
// versions, the pin of the re-list's view held by a reader, and the unlinks after it leaves.
func TestDesignExample(t *testing.T) {
	c := newPodCache(t, func(o *Options) { o.WindowEvents = 3; o.WindowAge = -1 })
	if err := c.Replace([][]byte{pod("ns", "a", "n1", "", 10)}, 10); err != nil {
		t.Fatal(err)
	}
	cellA := func() *cell {
		rec, ok := c.current().st.get("/ns/a")
		if !ok {
			t.Fatal("no /ns/a")
		}
		return rec.cell
	}
	a := cellA()
	chain := func() []uint64 {
		var out []uint64
		for r := a.head.Load(); r != nil; r = r.prev.Load() {
			out = append(out, r.rv)
		}
		return out
	}
	window := func() []uint64 {
		c.pub.mu.RLock()
		defer c.pub.mu.RUnlock()
		var out []uint64
		for _, e := range c.pub.win.entries {
			out = append(out, e.rv)
		}
		return out
	}
	r := c.current().st // R, in the re-list's view
	if !r.enter() {
		t.Fatal("R cannot enter the view at 10")
	}
	steps := []struct {
		typ               EventType
		name              string
		rv                uint64
		leave             bool // R leaves before the event
		window, chain     []uint64
		retired, unlinked int // retired pins, versions waiting to lose their link
	}{
		{Modified, "a", 11, false, []uint64{10, 11}, []uint64{11, 10}, 0, 0},
		{Modified, "a", 12, false, []uint64{10, 11, 12}, []uint64{12, 11, 10}, 0, 0},
		{Added, "b", 13, false, []uint64{11, 12, 13}, []uint64{12, 11, 10}, 1, 0},
		{Modified, "a", 14, false, []uint64{12, 13, 14}, []uint64{14, 12, 11, 10}, 1, 1},
		{Modified, "a", 15, true, []uint64{13, 14, 15}, []uint64{15, 14, 12}, 0, 0},
	}
	for _, s := range steps {
		if s.leave {
			r.leave()
		}
		mustApply(t, c, s.typ, pod("ns", s.name, "n1", "", s.rv), s.rv)
		if got := window(); !slices.Equal(got, s.window) {
			t.Errorf("after %d: window %v, want %v", s.rv, got, s.window)
		}
		if got := chain(); !slices.Equal(got, s.chain) {
			t.Errorf("after %d: chain of /ns/a %v, want %v", s.rv, got, s.chain)
		}
		if len(c.pub.retired) != s.retired || len(c.pub.unlinkable) != s.unlinked {
			t.Errorf("after %d: %d retired pins, %d versions waiting, want %d and %d", s.rv, len(c.pub.retired), len(c.pub.unlinkable), s.retired, s.unlinked)
		}
		if s.rv == 14 {
			if rec, ok := r.get("/ns/a"); !ok || rec.rv != 10 {
				t.Errorf("at 14, R reads /ns/a at %v, want 10", rec)
			}
			v, ok := c.viewAt(12)
			if !ok {
				t.Fatal("no view at 12")
			}
			if rec, ok := v.get("/ns/a"); !ok || rec.rv != 12 {
				t.Errorf("at 14, the view at 12 reads /ns/a at %v, want 12", rec)
			}
		}
	}
	if r.enter() {
		t.Error("a reader entered the evicted view at 10")
	}
}
