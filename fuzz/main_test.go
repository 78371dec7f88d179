package fuzz

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

var (
	flagSeed  = flag.Int64("seed", 0, "TestDifferential: run only this seed (0: seeds 1..n)")
	flagSeeds = flag.Int("seeds", 30, "TestDifferential: number of seeds")
	flagLong  = flag.Bool("long", false, "TestDifferential: 20× more seeds and 4× more operations per seed")
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
