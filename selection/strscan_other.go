//go:build !amd64 || purego

package selection

// markChunks sets, for each of the first len(out) 64-byte chunks of b, bit k of out[w] iff byte
// 64w+k ends plain string content (a quote, a backslash or a control character < 0x20); len(b)
// must be at least 64·len(out). It returns whether one of those bytes is not ASCII (≥ 0x80).
func markChunks(b []byte, out []uint64) (nonASCII bool) {
	var high byte
	for w := range out {
		var m uint64
		for k, c := range b[64*w : 64*w+64] {
			if isStringEnd(c) {
				m |= 1 << k
			}
			high |= c
		}
		out[w] = m
	}
	return high >= 0x80
}
