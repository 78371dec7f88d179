package fake

import (
	"math/rand/v2"
	"sync"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/types"
)

// names is the server's source of uids and generateName suffixes: seeded by Options.Seed, so a
// server given the same seed and the same writes in the same order names its objects the same.
// Safe for concurrent use.
type names struct {
	mu   sync.Mutex
	rand *rand.Rand
}

func newNames(seed int64) *names {
	return &names{rand: rand.New(rand.NewPCG(uint64(seed), 0x6e616d6573))} // "names"
}

// uid returns a new version 4 uid, the form the apiserver gives every object: what
// uuid.NewRandomFromReader(n) returns, without the allocation of handing its array to a Reader,
// and formatted outside the lock.
func (n *names) uid() types.UID {
	var u uuid.UUID
	n.mu.Lock()
	for i := range u {
		u[i] = byte(n.rand.Uint32()) // a value a byte: a seed gives the uids it always gave
	}
	n.mu.Unlock()
	u[6] = (u[6] & 0x0f) | 0x40 // version 4
	u[8] = (u[8] & 0x3f) | 0x80 // variant RFC 4122
	return types.UID(u.String())
}

// suffixAlphabet is the alphabet of generated names (k8s.io/apimachinery util/rand: consonants and
// digits that spell no words), suffixLength their length (apiserver storage/names: 5).
const (
	suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"
	suffixLength   = 5
)

// suffix returns a generated name's random part.
func (n *names) suffix() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var b [suffixLength]byte
	for i := range b {
		b[i] = suffixAlphabet[n.rand.IntN(len(suffixAlphabet))]
	}
	return string(b[:])
}
