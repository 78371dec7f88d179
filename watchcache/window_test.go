package watchcache

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestWindowUpper checks the interpolated search against a binary search over windows whose RVs
// are dense, sparse, uneven and at the ends of uint64, for targets below, inside and above them.
func TestWindowUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gaps := map[string]func() uint64{
		"dense":   func() uint64 { return 1 },
		"sparse":  func() uint64 { return 1 + rng.Uint64N(50) },
		"uneven":  func() uint64 { return []uint64{1, 1, 1, 1_000_000}[rng.IntN(4)] },
		"huge":    func() uint64 { return 1 + rng.Uint64N(math.MaxUint64/100_000) },
		"one-gap": nil, // dense but for one gap the size of the rest
	}
	for name, gap := range gaps {
		for _, n := range []int{0, 1, 2, 3, 10, 1000, 20_000} {
			w := &window{}
			rv := uint64(rng.IntN(3))
			if name == "huge" {
				rv = math.MaxUint64 / 2
			}
			for i := range n {
				w.entries = append(w.entries, entry{rv: rv})
				switch {
				case gap != nil:
					rv += gap()
				case i == n/3:
					rv += uint64(100 * n)
				default:
					rv++
				}
			}
			want := func(target uint64) int {
				return sort.Search(n, func(i int) bool { return w.entries[i].rv > target })
			}
			targets := []uint64{0, 1, math.MaxUint64, rv, rv + 1}
			for _, e := range w.entries {
				targets = append(targets, e.rv, e.rv-1, e.rv+1)
			}
			if n > 0 {
				for range 2000 {
					lo, hi := w.entries[0].rv, w.entries[n-1].rv
					targets = append(targets, lo+rng.Uint64N(hi-lo+1))
				}
			}
			for _, target := range targets {
				if got, want := w.upper(target), want(target); got != want {
					t.Fatalf("%s, %d entries: upper(%d) = %d, want %d", name, n, target, got, want)
				}
				if i, ok := w.find(target); ok != (i < n && w.entries[i].rv == target) || i != sort.Search(n, func(i int) bool { return w.entries[i].rv >= target }) {
					t.Fatalf("%s, %d entries: find(%d) = %d, %v", name, n, target, i, ok)
				}
			}
		}
	}
}

// BenchmarkWindowAtOrBefore: the read of a continue page's state in a full 20,000-entry window.
func BenchmarkWindowAtOrBefore(b *testing.B) {
	w := &window{}
	for i := range 20_000 {
		w.entries = append(w.entries, entry{rv: uint64(1000 + i)})
	}
	for b.Loop() {
		if _, ok := w.atOrBefore(5_432); !ok {
			b.Fatal("not found")
		}
	}
}
