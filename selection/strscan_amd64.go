//go:build amd64 && !purego

package selection

// markChunks sets, for each of the first len(out) 64-byte chunks of b, bit k of out[w] iff byte
// 64w+k ends plain string content (a quote, a backslash or a control character < 0x20); len(b)
// must be at least 64·len(out). It compares sixteen bytes per instruction (SSE2, which every
// amd64 CPU has): about 45 instructions per 64 bytes, where finding the end of each string
// eight bytes at a time cost ≈100 instructions per string of a pod.
//
//go:noescape
func markChunks(b []byte, out []uint64)
