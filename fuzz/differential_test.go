package fuzz

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestDifferential runs random operation sequences against the cache and the model and requires
// identical answers. Each seed is a subtest; a failure prints the command that replays it.
func TestDifferential(t *testing.T) {
	seeds, ops := *flagSeeds, 400
	if *flagLong {
		seeds, ops = 20**flagSeeds, 4*ops
	}
	first := int64(1)
	if *flagSeed != 0 {
		first, seeds = *flagSeed, 1
	}
	for seed := first; seed < first+int64(seeds); seed++ {
		// Stop at the first failing seed: one mismatch with its replay command says more than
		// thirty runs into the same bug.
		ok := t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			// Windows from tiny (every continue soon expires) to larger than the run.
			window := []int{2, 5, 20, 100000}[rng.Intn(4)]
			replay := fmt.Sprintf("go test ./fuzz -run 'TestDifferential$' -seed=%d -v", seed)
			if *flagLong {
				replay += " -long"
			}
			h := newHarness(t, window, replay)
			h.keyed = true
			runOps(h, randChooser{rng}, ops)
			t.Logf("compared: %v", h.stats)
		})
		if !ok {
			break
		}
	}
}
