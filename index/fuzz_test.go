package index

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// FuzzIndex runs a byte string as a sequence of writes and clones on an Index and on a map, and
// checks that every snapshot taken reads as its map did: each value's keys in order from any key
// (Keys.Ascend, and Keys.Slice when the keys are in a slice), Count and Len. The first byte picks the
// directory's hash — the real one, or one that makes most values collide — and the value count,
// so that values cross between one key, a slice and a B-tree, and the trie splits, collides and
// shrinks.
func FuzzIndex(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 1, 2, 2, 1, 1, 3, 0, 0, 2, 1, 1})
	f.Add([]byte{1, 1, 0, 1, 1, 0, 2, 1, 0, 3, 1, 1, 0, 0, 1, 2, 2, 0})
	seq := make([]byte, 0, 600)
	for i := range 200 { // 200 inserts into 2 values, then deletes: up to a B-tree and back
		seq = append(seq, 1, byte(i%2), byte(i))
	}
	for i := range 200 {
		seq = append(seq, 0, byte(i%2), byte(i))
	}
	f.Add(append([]byte{2}, seq...))
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		mode := ops[0]
		ops = ops[1:]
		values := []int{2, 5, 40}[int(mode>>1)%3]
		x := New[int]()
		if mode&1 == 1 {
			real := x.dir.hash
			x.dir.hash = func(s string) uint64 { return real(s) & 0x3 } // most values collide
		}
		type snap struct {
			x     *Index[int]
			model map[string]KeyItem[int] // key -> (value as Key, item)
		}
		cur := snap{x, map[string]KeyItem[int]{}}
		var snaps []snap
		if len(ops) > 3000 {
			ops = ops[:3000]
		}
		for i := 0; i+2 < len(ops); i += 3 {
			op, val, key := ops[i]%4, fmt.Sprint("v", int(ops[i+1])%values), fmt.Sprintf("k%03d", ops[i+2])
			switch old, had := cur.model[key]; op {
			case 0: // delete
				if got := cur.x.Delete(val, key); got != (had && old.Key == val) {
					t.Fatalf("Delete(%s, %s) = %v; model has %v %v", val, key, got, old, had)
				}
				if had && old.Key == val {
					delete(cur.model, key)
				}
			case 1, 2: // put (moving the key from its old value, as watchcache does)
				if had && old.Key != val {
					cur.x.Delete(old.Key, key)
				}
				cur.x.Insert(val, key, i)
				cur.model[key] = KeyItem[int]{Key: val, Item: i}
			case 3: // clone; either side goes on writing
				frozen := snap{cur.x.Clone(), maps.Clone(cur.model)}
				if ops[i+1]%2 == 0 {
					frozen.x, cur.x = cur.x, frozen.x
				}
				snaps = append(snaps, frozen)
			}
		}
		if len(snaps) > 8 {
			snaps = snaps[len(snaps)-8:] // the last ones: each was written around by what followed
		}
		for _, s := range append(snaps, cur) {
			checkSnap(t, s.x, s.model, values)
		}
	})
}

// checkSnap compares x with model (key -> (value, item)) for values v0..v<values-1>.
func checkSnap(t *testing.T, x *Index[int], model map[string]KeyItem[int], values int) {
	t.Helper()
	if x.Len() != len(model) {
		t.Fatalf("Len = %d; want %d", x.Len(), len(model))
	}
	byValue := map[string][]KeyItem[int]{}
	for k, e := range model {
		byValue[e.Key] = append(byValue[e.Key], KeyItem[int]{Key: k, Item: e.Item})
	}
	if x.Values() != len(byValue) {
		t.Fatalf("Values = %d; want %d", x.Values(), len(byValue))
	}
	for v := range values {
		val := fmt.Sprint("v", v)
		want := byValue[val]
		slices.SortFunc(want, func(a, b KeyItem[int]) int { return strings.Compare(a.Key, b.Key) })
		if n := x.Count(val, 0); n != len(want) {
			t.Fatalf("Count(%s) = %d; want %d", val, n, len(want))
		}
		for _, from := range []string{"", "k100", "k200"} {
			i, _ := slices.BinarySearchFunc(want, from, func(e KeyItem[int], k string) int { return strings.Compare(e.Key, k) })
			wantFrom := want[i:]
			var got []KeyItem[int]
			x.Lookup(val).Ascend(from, func(k string, item int) bool {
				got = append(got, KeyItem[int]{Key: k, Item: item})
				return true
			})
			if len(got)+len(wantFrom) > 0 && !slices.Equal(got, wantFrom) {
				t.Fatalf("value %s from %q: %v; want %v", val, from, got, wantFrom)
			}
			if s, ok := x.Lookup(val).Slice(from); ok && len(s)+len(wantFrom) > 0 && !slices.Equal(s, wantFrom) {
				t.Fatalf("Slice(%s from %q) = %v; want %v", val, from, s, wantFrom)
			}
		}
	}
}
