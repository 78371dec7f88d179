package fake

import (
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/types"
)

// pcgBytes is the io.Reader names once gave uuid.NewRandomFromReader: a byte of each value.
type pcgBytes struct{ r *rand.Rand }

func (p pcgBytes) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(p.r.Uint32())
	}
	return len(b), nil
}

// TestNamesUID checks that a seed gives the uids uuid.NewRandomFromReader makes from the seeded
// source, and that a uid allocates only its string.
func TestNamesUID(t *testing.T) {
	for _, seed := range []int64{0, 1, 42} {
		n := newNames(seed)
		ref := pcgBytes{rand.New(rand.NewPCG(uint64(seed), 0x6e616d6573))}
		for i := range 50 {
			want, err := uuid.NewRandomFromReader(ref)
			if err != nil {
				t.Fatal(err)
			}
			if got := n.uid(); got != types.UID(want.String()) {
				t.Fatalf("seed %d, uid %d: %s, want %s", seed, i, got, want)
			}
		}
	}
	n := newNames(1)
	if a := testing.AllocsPerRun(100, func() { _ = n.uid() }); a != 1 {
		t.Errorf("uid allocates %v times, want 1 (its string)", a)
	}
}
