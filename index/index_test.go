package index

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"testing"
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
