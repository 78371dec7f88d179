package testdata

import (
	"strconv"
	"time"
)

// jw appends JSON to a byte slice. Commas are inserted by looking at the last
// byte written: after '{', '[' or a key's ':' no separator is needed, after
// anything else (a closing bracket, a quote, a digit, true/false/null) one is.
// That keeps the emitting code as flat as the object it writes.
type jw struct{ b []byte }

func (w *jw) sep() {
	if n := len(w.b); n > 0 {
		switch w.b[n-1] {
		case '{', '[', ':':
		default:
			w.b = append(w.b, ',')
		}
	}
}

// key starts a member (or, with k == "", an array element). Keys are
// literals of this package or FieldsV1 paths built from its own names, so
// they are written unescaped; values go through appendQuoted.
func (w *jw) key(k string) {
	w.sep()
	if k != "" {
		w.b = append(w.b, '"')
		w.b = append(w.b, k...)
		w.b = append(w.b, '"', ':')
	}
}

func (w *jw) obj(k string) { w.key(k); w.b = append(w.b, '{') }
func (w *jw) arr(k string) { w.key(k); w.b = append(w.b, '[') }
func (w *jw) end()         { w.b = append(w.b, '}') }
func (w *jw) endArr()      { w.b = append(w.b, ']') }

// leaf writes k:{} — the FieldsV1 marker for "this field is owned".
func (w *jw) leaf(k string) { w.key(k); w.b = append(w.b, '{', '}') }

func (w *jw) str(k, v string) { w.key(k); w.b = appendQuoted(w.b, v) }

func (w *jw) int(k string, v int64) { w.key(k); w.b = strconv.AppendInt(w.b, v, 10) }

func (w *jw) bool(k string, v bool) { w.key(k); w.b = strconv.AppendBool(w.b, v) }

// time writes an RFC 3339 timestamp in UTC, as metav1.Time marshals.
func (w *jw) time(k string, unix int64) {
	w.key(k)
	w.b = append(w.b, '"')
	w.b = time.Unix(unix, 0).UTC().AppendFormat(w.b, time.RFC3339)
	w.b = append(w.b, '"')
}

// open and close bracket a string value whose content the caller appends
// to w.b directly; only for content that needs no escaping (digits, hex,
// names built from safe parts).
func (w *jw) open(k string) { w.key(k); w.b = append(w.b, '"') }
func (w *jw) close()        { w.b = append(w.b, '"') }

// rv writes metadata.resourceVersion, omitted for rv == 0 like an object
// that has not been stored yet.
func (w *jw) rv(rv uint64) {
	if rv != 0 {
		w.open("resourceVersion")
		w.b = strconv.AppendUint(w.b, rv, 10)
		w.close()
	}
}

// appendQuoted appends s as a JSON string. The generated names are plain
// ASCII, so the fast path is a single append; the slow path exists so that a
// future caller-supplied value cannot produce invalid JSON.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendHex appends n lowercase hex digits drawn from the hashes of key
// under consecutive salts: a stable fake digest or container id.
func appendHex(b []byte, key uint64, n int) []byte {
	for i := 0; n > 0; i++ {
		h := mix(key + uint64(i)*golden)
		for j := 0; j < 16 && n > 0; j++ {
			b = append(b, hexDigits[h&0xf])
			h >>= 4
			n--
		}
	}
	return b
}

// appendUID appends a version-4-looking UUID derived from key.
func appendUID(b []byte, key uint64) []byte {
	hi, lo := mix(key^0x5555), mix(key^0xaaaa)
	hi = hi&^(0xf<<12) | 4<<12         // version nibble
	lo = lo&^(0x3<<62) | uint64(2)<<62 // RFC 4122 variant
	b = appendHexDigits(b, hi>>32, 8)
	b = append(b, '-')
	b = appendHexDigits(b, hi>>16, 4)
	b = append(b, '-')
	b = appendHexDigits(b, hi, 4)
	b = append(b, '-')
	b = appendHexDigits(b, lo>>48, 4)
	b = append(b, '-')
	b = appendHexDigits(b, lo, 12)
	return b
}

// appendHexDigits appends the low digits*4 bits of v as hex, most
// significant first.
func appendHexDigits(b []byte, v uint64, digits int) []byte {
	for s := (digits - 1) * 4; s >= 0; s -= 4 {
		b = append(b, hexDigits[(v>>uint(s))&0xf])
	}
	return b
}

// appendPadded appends n in decimal, zero-padded to width digits, as
// fmt's %0*d does for non-negative n.
func appendPadded(b []byte, n, width int) []byte {
	var tmp [20]byte
	d := strconv.AppendInt(tmp[:0], int64(n), 10)
	for i := len(d); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, d...)
}

// appendIPv4 appends a dotted quad.
func appendIPv4(b []byte, a, c, d, e uint64) []byte {
	b = strconv.AppendUint(b, a&0xff, 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, c&0xff, 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, d&0xff, 10)
	b = append(b, '.')
	return strconv.AppendUint(b, e&0xff, 10)
}
