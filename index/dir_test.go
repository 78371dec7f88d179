package index

import (
	"fmt"
	"math/bits"
	"math/rand"
	"testing"
)

// TestDirAgainstModel: the directory's puts, removes and clones against a map, with hash functions
// that make values share chunks (a few bits of hash: deep sub-tries) and whole hashes (collision
// lists past the last chunk), as well as the real one. Clones taken along the way keep their content
// whichever side writes afterwards.
func TestDirAgainstModel(t *testing.T) {
	real := newDir[int]().hash
	for name, h := range map[string]func(string) uint64{
		"maphash": real,
		"3 bits":  func(s string) uint64 { return real(s) & 7 },           // the same chunk at every level but the first
		"high":    func(s string) uint64 { return real(s) & (0xF << 60) }, // hashes differ only in the last chunk
		"equal":   func(string) uint64 { return 42 },                      // every hash collides
	} {
		t.Run(name, func(t *testing.T) { dirAgainstModel(t, h) })
	}
}

func dirAgainstModel(t *testing.T, h func(string) uint64) {
	rng := rand.New(rand.NewSource(1))
	type snap struct {
		d     dir[int]
		model map[string]int
	}
	check := func(s snap) {
		t.Helper()
		if err := trieShape(s.d.root, 0); err != nil {
			t.Fatal(err)
		}
		for v := range 300 {
			val := fmt.Sprint("v", v)
			b, ok := s.d.get(val)
			want, wok := s.model[val]
			if ok != wok || (ok && (b.value != val || b.one == nil || b.one.Item != want)) {
				t.Fatalf("get(%s) = %+v, %v; want %d, %v", val, b, ok, want, wok)
			}
		}
	}
	cur := snap{dir[int]{own: new(owner), hash: h}, map[string]int{}}
	var snaps []snap
	for i := range 20000 {
		val := fmt.Sprint("v", rng.Intn(300))
		if _, ok := cur.model[val]; ok && rng.Intn(2) == 0 {
			cur.d.remove(val)
			delete(cur.model, val)
		} else {
			cur.d.put(bucket[int]{value: val, one: &KeyItem[int]{Key: "k", Item: i}})
			cur.model[val] = i
		}
		if rng.Intn(100) == 0 {
			frozen := snap{cur.d.clone(), copyModel(cur.model)}
			if rng.Intn(2) == 0 {
				frozen.d, cur.d = cur.d, frozen.d
			}
			snaps = append(snaps, frozen)
			check(snaps[rng.Intn(len(snaps))])
		}
	}
	check(cur)
	for _, s := range snaps {
		check(s)
	}
	// Emptied, the trie is gone.
	for val := range cur.model {
		cur.d.remove(val)
	}
	if cur.d.root != nil {
		t.Fatalf("root %+v after removing every value", cur.d.root)
	}
}

// trieShape checks the trie's invariants below n (at shift): one slot per bitmap bit, no empty
// node, and no node below the root holding a single leaf (removes pull those up).
func trieShape[T any](n *dirNode[T], shift uint) error {
	if n == nil {
		return nil
	}
	switch {
	case len(n.slots) == 0:
		return fmt.Errorf("empty node at shift %d", shift)
	case shift > 0 && len(n.slots) == 1 && n.slots[0].node == nil:
		return fmt.Errorf("node holding one leaf at shift %d", shift)
	case shift < hashBits && bits.OnesCount32(n.bitmap) != len(n.slots):
		return fmt.Errorf("bitmap %b for %d slots at shift %d", n.bitmap, len(n.slots), shift)
	}
	for _, s := range n.slots {
		if err := trieShape(s.node, shift+dirBits); err != nil {
			return err
		}
	}
	return nil
}

func copyModel(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// BenchmarkDirGet: a lookup of one of 5,000 node names.
func BenchmarkDirGet(b *testing.B) {
	x := New[int]()
	for i := range 100_000 {
		x.Insert(fmt.Sprint("node-", i%5000), fmt.Sprintf("/ns-%d/pod-%06d", i%200, i), i)
	}
	i := 0
	for b.Loop() {
		x.Lookup(fmt.Sprint("node-", i%5000))
		i++
	}
}
