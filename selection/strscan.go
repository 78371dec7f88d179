package selection

import (
	"encoding/binary"
	"math/bits"
)

// maxMarkedLen is the longest document whose string ends Extract marks before its pass (a bitmap
// of 256 words on Extract's stack): pods are ≈4–15 KiB. A longer document is read without the
// bitmap, each string's end found eight bytes at a time.
const maxMarkedLen = 256 * 64

// endsBuf holds the bitmap of a document of up to maxMarkedLen bytes, on its user's stack.
type endsBuf [maxMarkedLen / 64]uint64

// mark returns the bitmap of b's string ends (markStringEnds) in buf and whether b is all ASCII,
// or nil and false when b is too long.
func (buf *endsBuf) mark(b []byte) (ends []uint64, ascii bool) {
	if len(b) > maxMarkedLen {
		return nil, false
	}
	ends = buf[:(len(b)+63)/64]
	return ends, !markStringEnds(b, ends)
}

// markStringEnds fills ends (len(ends) == (len(b)+63)/64) so that bit k of ends[w] is set iff
// b[64w+k] ends plain string content: a quote, a backslash or a control character. With it,
// skipString finds a string's end with a shift and a bit count instead of reading its bytes
// (a pod's ≈250 strings are most of its bytes). It returns whether a byte of b is not ASCII, which
// the same pass sees at no cost.
func markStringEnds(b []byte, ends []uint64) (nonASCII bool) {
	full := len(b) / 64
	nonASCII = markChunks(b, ends[:full])
	if full == len(ends) {
		return nonASCII
	}
	// The last, partial chunk: its bytes padded with a byte that ends nothing, so that no bit is
	// set past len(b).
	var pad [64]byte
	for k := range pad {
		pad[k] = 'a'
	}
	copy(pad[:], b[64*full:])
	return markChunks(pad[:], ends[full:]) || nonASCII
}

// nextStringEnd returns the index of the first byte at or after b[i] that ends plain string
// content, or len(b): from the bitmap ends (markStringEnds) when it is not nil.
func nextStringEnd(b []byte, ends []uint64, i int) int {
	if ends == nil {
		return i + stringEnd(b[i:])
	}
	w := i >> 6
	if w >= len(ends) {
		return len(b)
	}
	if m := ends[w] >> (uint(i) & 63); m != 0 {
		return i + bits.TrailingZeros64(m)
	}
	for w++; w < len(ends); w++ {
		if m := ends[w]; m != 0 {
			return w<<6 + bits.TrailingZeros64(m)
		}
	}
	return len(b)
}

// chunkEnd is nextStringEnd's common case, small enough to inline into the scanning loops: the
// index of the first string end at or after i in the 64-byte chunk of b[i], or -1 if there is
// none there (or no bitmap). Most strings of a pod (≈10 bytes) end in the chunk where they start;
// a loop that finds the quote there has skipped the string without a call.
func chunkEnd(ends []uint64, i int) int {
	if w := i >> 6; w < len(ends) {
		if m := ends[w] >> (uint(i) & 63); m != 0 {
			return i + bits.TrailingZeros64(m)
		}
	}
	return -1
}

func isStringEnd(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stringEnd returns the index in b of the first byte that ends plain string content, or len(b),
// eight bytes at a time: the scan of documents too long for the bitmap.
func stringEnd(b []byte) int {
	i := 0
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		// A byte is special if it is < 0x20, '"' or '\\'. The usual zero-byte test
		// ((x - lsb) &^ x & msb) is exact for the lowest special byte, which is the one used.
		ctl := (w - lsb*0x20) &^ w
		quote := w ^ (lsb * '"')
		quote = (quote - lsb) &^ quote
		bs := w ^ (lsb * '\\')
		bs = (bs - lsb) &^ bs
		if m := (ctl | quote | bs) & msb; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(b) && !isStringEnd(b[i]) {
		i++
	}
	return i
}
