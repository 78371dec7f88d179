package watchcache

import (
	"fmt"
	"strconv"
	"testing"
	"unsafe"

	"github.com/watchcache/watchcache/index"
)

// An index whose values have many keys holds cells: an update that keeps the indexed value writes
// nothing in the index, and a state reads the version at its own RV through the cell, or through
// its store once the window has unlinked the versions it needs (a reader still holding a state the
// window evicted). An index whose values have a few keys holds records.
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
	si := held.findIndex(index.Spec{Kind: index.Field, Name: "spec.nodeName"})
	if app := held.findIndex(index.Spec{Kind: index.Label, Name: "app"}); !si.cells || app.cells {
		t.Fatalf("cells: spec.nodeName (%d keys, %d values) %v, app (%d keys, %d values) %v",
			si.idx.Len(), si.idx.Values(), si.cells, app.idx.Len(), app.idx.Values(), app.cells)
	}
	entries := func(st *state) map[string]*cell {
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
	// and with it the link to that version.
	if r := before["/ns/a"].at(2); r != nil {
		t.Errorf("a's cell still reaches RV %d, older than the window", r.rv)
	}
	read := func(st *state) map[string]uint64 {
		pl := plan{prefix: "/", si: st.findIndex(si.spec), value: "n1"}
		pl.keys = pl.si.idx.Lookup("n1")
		got := map[string]uint64{}
		st.walk(pl, func(it item) bool {
			got[it.key] = it.rec.rv
			return true
		})
		out, _, _ := st.collect(pl, &predicate{}, 0)
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
	// The held state reads a at RV 1 through its store, the head at 8 through the cell.
	if got := read(held); got["/ns/a"] != 1 || got["/ns/b"] != 2 || len(got) != 2+index.MaxSlice {
		t.Errorf("held state at RV 2 reads %v, want a@1 b@2", got)
	}
	if got := read(head); got["/ns/a"] != 8 || got["/ns/b"] != 2 {
		t.Errorf("head reads %v, want a@8 b@2", got)
	}
	// A state in the window reads its own version through the cell.
	mid, ok := c.stateAt(7)
	if !ok {
		t.Fatal("no state at RV 7")
	}
	if got := read(mid); got["/ns/a"] != 7 {
		t.Errorf("state at RV 7 reads a@%d", got["/ns/a"])
	}
	// A change of node writes the index; the old state keeps a under n1, the new one does not.
	mustApply(t, c, Modified, pod("ns", "a", "n2", "app=web", 9), 9)
	if got := read(c.current().st); got["/ns/a"] != 0 || len(got) != 1+index.MaxSlice {
		t.Errorf("after a moved to n2, n1 reads %v", got)
	}
	if got := read(head); got["/ns/a"] != 8 {
		t.Errorf("the state at RV 8 lost a under n1: %v", got)
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
