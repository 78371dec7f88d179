package index

import (
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"testing"
	"unsafe"
)

func keys(x *Index[int], value, from string) []string {
	var out []string
	for e := range x.Ascend(value, from) {
		out = append(out, e.Key)
	}
	return out
}

func TestAscendKeyOrderFromKey(t *testing.T) {
	x := New[int]()
	x.Insert("node-1", "/ns-b/p2", 1)
	x.Insert("node-1", "/ns-a/p9", 2)
	x.Insert("node-2", "/ns-a/p1", 3)
	x.Insert("node-1", "/ns-a/p1", 4)
	tests := []struct {
		name, value, from string
		want              []string
	}{
		{"all of a value in key order", "node-1", "", []string{"/ns-a/p1", "/ns-a/p9", "/ns-b/p2"}},
		{"from a continue key", "node-1", "/ns-a/p1\x00", []string{"/ns-a/p9", "/ns-b/p2"}},
		{"from a key between entries", "node-1", "/ns-a/p5", []string{"/ns-a/p9", "/ns-b/p2"}},
		{"other value not mixed in", "node-2", "", []string{"/ns-a/p1"}},
		{"absent value", "node-3", "", nil},
		{"past the end", "node-1", "/ns-z", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keys(x, tt.value, tt.from); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Ascend(%q, %q) = %q, want %q", tt.value, tt.from, got, tt.want)
			}
		})
	}
}

func TestReplaceDeleteCount(t *testing.T) {
	x := New[int]()
	x.Insert("a", "k1", 0)
	x.Insert("a", "k2", 0)
	x.Insert("a", "k2", 1) // replace: no new entry, no new value
	x.Insert("b", "k3", 0)
	if x.Len() != 3 {
		t.Fatalf("Len = %d; want 3", x.Len())
	}
	if got := x.Count("a", 0); got != 2 {
		t.Fatalf("Count(a) = %d, want 2", got)
	}
	if got := x.Count("a", 1); got != 1 {
		t.Fatalf("Count(a, max 1) = %d, want 1", got)
	}
	if x.Delete("a", "nope") {
		t.Fatal("Delete of an absent entry reported true")
	}
	x.Delete("a", "k1")
	x.Delete("a", "k2")
	if x.Len() != 1 || x.Count("a", 0) != 0 || x.Count("b", 0) != 1 {
		t.Fatalf("Len = %d, Count(a) = %d; want 1, 0", x.Len(), x.Count("a", 0))
	}
}

// TestCloneIsolation: a clone is a frozen snapshot; writes to either side are invisible to the other.
func TestCloneIsolation(t *testing.T) {
	x := New[int]()
	for i := range 1000 {
		x.Insert(fmt.Sprint(i%7), fmt.Sprintf("k%04d", i), i)
	}
	snap := x.Clone()
	before := keys(snap, "3", "")
	for i := range 1000 {
		if i%2 == 0 {
			x.Delete(fmt.Sprint(i%7), fmt.Sprintf("k%04d", i))
		}
	}
	x.Insert("3", "k9999", 0)
	if got := keys(snap, "3", ""); !reflect.DeepEqual(got, before) {
		t.Fatal("snapshot changed after writes to the original")
	}
	if snap.Len() != 1000 || x.Len() != 501 {
		t.Fatalf("Len: snapshot %d (want 1000), original %d (want 501)", snap.Len(), x.Len())
	}
}

// TestAgainstModel: random inserts/deletes agree with a map model on every value's key list.
func TestAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	x := New[int]()
	model := map[string]string{} // key -> value
	for range 5000 {
		k := fmt.Sprintf("k%03d", rng.Intn(300))
		v := fmt.Sprint(rng.Intn(20))
		if old, ok := model[k]; ok {
			x.Delete(old, k)
			delete(model, k)
		}
		if rng.Intn(3) > 0 {
			x.Insert(v, k, 0)
			model[k] = v
		}
	}
	byValue := map[string][]string{}
	for k, v := range model {
		byValue[v] = append(byValue[v], k)
	}
	if x.Len() != len(model) {
		t.Fatalf("Len = %d; want %d", x.Len(), len(model))
	}
	for v, ks := range byValue {
		sort.Strings(ks)
		if got := keys(x, v, ""); !slices.Equal(got, ks) {
			t.Fatalf("value %s: got %q want %q", v, got, ks)
		}
	}
}

func BenchmarkAscendPage(b *testing.B) {
	x := New[int]()
	for i := range 100_000 {
		x.Insert(fmt.Sprintf("node-%d", i%5000), fmt.Sprintf("/ns-%d/pod-%06d", i%200, i), i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		n := 0
		for range x.Ascend(fmt.Sprintf("node-%d", i%5000), "") {
			n++
		}
		if n != 20 {
			b.Fatal(n)
		}
	}
}

// TestClonesAgainstModel: snapshots taken between random writes stay exactly as they were taken,
// whichever side is written afterwards (the original, or a clone that becomes the writer), and
// every value's keys, counts and Len agree with a map model at each snapshot.
func TestClonesAgainstModel(t *testing.T) {
	// 2 and 3 values: ≈33 and ≈22 keys each, crossing between a key slice and a B-tree (up at
	// maxSmall, back at maxSmall/2); 12 and 30: 2–8 keys in a slice; 150: most have one or two
	// keys, inline or in a slice.
	for _, values := range []int{2, 3, 12, 30, 150} {
		t.Run(fmt.Sprint(values, " values"), func(t *testing.T) { clonesAgainstModel(t, values) })
	}
}

func clonesAgainstModel(t *testing.T, values int) {
	rng := rand.New(rand.NewSource(2))
	type snap struct {
		x     *Index[int]
		model map[string]string // key -> value
		items map[string]int    // key -> item
	}
	check := func(s snap) {
		t.Helper()
		byValue := map[string][]string{}
		for k, v := range s.model {
			byValue[v] = append(byValue[v], k)
		}
		if s.x.Len() != len(s.model) {
			t.Fatalf("Len = %d; want %d", s.x.Len(), len(s.model))
		}
		for v := range values {
			val := fmt.Sprint(v)
			want := byValue[val]
			sort.Strings(want)
			if got := keys(s.x, val, ""); !slices.Equal(got, want) {
				t.Fatalf("value %s: got %q want %q", val, got, want)
			}
			if got := s.x.Count(val, 0); got != len(want) {
				t.Fatalf("Count(%s) = %d; want %d", val, got, len(want))
			}
			from := fmt.Sprintf("k%03d", rng.Intn(100)) // often a key of the value: the bound is inclusive
			var wantFrom []string
			for _, k := range want {
				if k >= from {
					wantFrom = append(wantFrom, k)
				}
			}
			if got := keys(s.x, val, from); !slices.Equal(got, wantFrom) {
				t.Fatalf("value %s from %s: got %q want %q", val, from, got, wantFrom)
			}
			for e := range s.x.Ascend(val, "k050") {
				if e.Value != val || e.Item != s.items[e.Key] || e.Key < "k050" {
					t.Fatalf("entry %+v; want value %s, item %d, key ≥ k050", e, val, s.items[e.Key])
				}
			}
		}
	}
	cur := snap{New[int](), map[string]string{}, map[string]int{}}
	var snaps []snap
	for i := range 20000 {
		k := fmt.Sprintf("k%03d", rng.Intn(100))
		v := fmt.Sprint(rng.Intn(values))
		switch old, had := cur.model[k]; {
		case had && rng.Intn(3) == 0:
			if !cur.x.Delete(old, k) {
				t.Fatalf("Delete(%s, %s) = false for a present entry", old, k)
			}
			delete(cur.model, k)
			delete(cur.items, k)
		default:
			if had && old != v {
				cur.x.Delete(old, k)
			}
			cur.x.Insert(v, k, i)
			cur.model[k], cur.items[k] = v, i
		}
		if cur.x.Delete(v, "absent") {
			t.Fatal("Delete of an absent key reported true")
		}
		if rng.Intn(50) == 0 {
			clone := cur.x.Clone()
			frozen := snap{clone, maps.Clone(cur.model), maps.Clone(cur.items)}
			if rng.Intn(2) == 0 { // the clone becomes the writer; the original is frozen
				frozen.x, cur.x = cur.x, clone
			}
			snaps = append(snaps, frozen)
			check(snaps[rng.Intn(len(snaps))])
		}
	}
	check(cur)
	for _, s := range snaps {
		check(s)
	}
}

// TestValueNotAliased: the directory keeps its own copy of a value — watchcache passes views of an
// object's JSON, which the index must neither keep alive nor change with — and one copy per value.
func TestValueNotAliased(t *testing.T) {
	x := New[int]()
	buf := []byte("node-7")
	view := unsafe.String(unsafe.SliceData(buf), len(buf))
	x.Insert(view, "/a/p1", 1)
	x.Insert("node-7", "/a/p2", 2)
	var stored []string
	for e := range x.Ascend("node-7", "") {
		stored = append(stored, e.Value)
	}
	if len(stored) != 2 || unsafe.StringData(stored[0]) == unsafe.SliceData(buf) || unsafe.StringData(stored[0]) != unsafe.StringData(stored[1]) {
		t.Fatalf("values %q: a view of the caller's bytes, or not one shared copy", stored)
	}
	copy(buf, "node-8")
	if got := keys(x, "node-7", ""); !slices.Equal(got, []string{"/a/p1", "/a/p2"}) {
		t.Fatalf("after the caller's bytes changed: %q", got)
	}
}
