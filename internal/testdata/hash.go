package testdata

// Every generated value is drawn from a 64-bit hash of (seed, object,
// incarnation, step, field), never from a stateful random source, so any
// object at any version can be produced directly, in any order, from any
// goroutine.

const golden = 0x9e3779b97f4a7c15

// mix is the SplitMix64 output function: a bijection on uint64 whose output
// bits each depend on every input bit.
func mix(x uint64) uint64 {
	x += golden
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// sub derives an independent hash for part a of whatever key names.
func sub(key, a uint64) uint64 { return mix(key ^ mix(a)) }

// stepKey names update number k (1-based) of an object. The high bit keeps
// steps apart from the small field salts passed to sub.
func stepKey(key uint64, k int) uint64 { return sub(key, 1<<63|uint64(k)) }

// per returns whether h falls in the lowest permille of its range, using
// bits [shift, shift+10) of h so one hash can answer several questions.
func per(h uint64, shift uint, permille uint64) bool {
	return (h>>shift)&1023 < permille*1024/1000
}

// Field salts. Values are arbitrary but must stay stable: changing one
// changes every generated object.
const (
	saltPod uint64 = iota + 1
	saltNode
	saltNamespace
	saltApp
	saltAppPick
	saltTeam
	saltTier
	saltVersion
	saltSched
	saltPlacement
	saltPhase
	saltHostNet
	saltScheduler
	saltGPU
	saltCreated
	saltRestarts
	saltVolume
	saltIP
	saltTime
	saltChange
	saltNodeMove
	saltRS
	saltImage
	saltContainer
	saltChecksum
	saltNominated
)
