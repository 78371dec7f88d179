//go:build amd64 && !purego

package selection

// markChunks sets, for each of the first len(out) 64-byte chunks of b, bit k of out[w] iff byte
// 64w+k ends plain string content (a quote, a backslash or a control character < 0x20); len(b)
// must be at least 64·len(out). It returns whether one of those bytes is not ASCII (≥ 0x80). It compares 32 bytes per instruction where the CPU has AVX2
// (about 20 instructions per 64 bytes) and sixteen with SSE2, which every amd64 CPU has (about
// 45); finding the end of each string eight bytes at a time cost ≈100 instructions per string of
// a pod.
func markChunks(b []byte, out []uint64) (nonASCII bool) {
	if hasAVX2 {
		return markChunksAVX2(b, out) != 0
	}
	return markChunksSSE2(b, out) != 0
}

// hasAVX2 says whether the CPU has AVX2 and the OS saves its registers.
var hasAVX2 = detectAVX2()

func detectAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xgetbv0()&6 != 6 { // the OS saves XMM and YMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}

//go:noescape
func markChunksSSE2(b []byte, out []uint64) uint32

//go:noescape
func markChunksAVX2(b []byte, out []uint64) uint32

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv0() uint32
