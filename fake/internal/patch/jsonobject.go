package patch

import "strconv"

// An apply body that client-go's typed Apply sends is JSON that jsonReadsAsYAML lets through:
// strings without escapes, integers only, ASCII. Decoding it with sigs.k8s.io/json (a scanner
// that steps byte by byte, reflection into interface values, a string and a boxed value per
// field) costs three times what reading that subset directly does (BenchmarkReadObject: 3 µs
// and 43 allocations for a ConfigMap's body, 1 µs and 12), which readObject does.

// maxObjectDepth bounds readObject's recursion: deeper bodies go to sigs.k8s.io/json, whose own
// limit (10000) and error then apply. No apply configuration of a Kubernetes kind nests a
// hundredth of it.
const maxObjectDepth = 1000

// readObject decodes body, which jsonReadsAsYAML accepts, as sigs.k8s.io/json's UnmarshalStrict
// with DisallowDuplicateFields decodes it into a map[string]any: objects as map[string]any,
// arrays as []any, integers as int64 (float64 beyond int64, as its PreserveInts does), true,
// false and null. It returns false for anything else, which the caller leaves to that decoder: a
// body that is not exactly one JSON object and whitespace, a string with a backslash, a control
// character or a byte outside ASCII, a number that is not an integer, a duplicate field, nesting
// deeper than maxObjectDepth.
//
// The strings it returns share one copy of body, which they keep alive.
func readObject(body []byte) (map[string]any, bool) {
	r := objectReader{b: body, s: string(body)}
	r.space()
	if !r.next('{') {
		return nil, false
	}
	obj, ok := r.object(1)
	if !ok {
		return nil, false
	}
	r.space()
	return obj, r.i == len(r.b)
}

// objectReader reads JSON from b at i. s is b as a string, of which the strings read are
// slices: one allocation rather than one per string.
type objectReader struct {
	b []byte
	s string
	i int
}

// space skips JSON whitespace.
func (r *objectReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\n', '\r', '\t':
			r.i++
		default:
			return
		}
	}
}

// next consumes c if it is the next byte.
func (r *objectReader) next(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// object reads the members of an object whose '{' has been read, and its '}'.
func (r *objectReader) object(depth int) (map[string]any, bool) {
	if depth > maxObjectDepth {
		return nil, false
	}
	m := map[string]any{}
	r.space()
	if r.next('}') {
		return m, true
	}
	for {
		r.space()
		k, ok := r.str()
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		r.space()
		if !r.next(':') {
			return nil, false
		}
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
		r.space()
		if r.next('}') {
			return m, true
		}
		if !r.next(',') {
			return nil, false
		}
	}
}

// array reads the elements of an array whose '[' has been read, and its ']'.
func (r *objectReader) array(depth int) ([]any, bool) {
	if depth > maxObjectDepth {
		return nil, false
	}
	a := []any{}
	r.space()
	if r.next(']') {
		return a, true
	}
	for {
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		r.space()
		if r.next(']') {
			return a, true
		}
		if !r.next(',') {
			return nil, false
		}
	}
}

// value reads one value, after whitespace, in a container at depth.
func (r *objectReader) value(depth int) (any, bool) {
	r.space()
	if r.i == len(r.b) {
		return nil, false
	}
	switch c := r.b[r.i]; {
	case c == '{':
		r.i++
		return r.object(depth + 1)
	case c == '[':
		r.i++
		return r.array(depth + 1)
	case c == '"':
		return r.str()
	case c == '-' || ('0' <= c && c <= '9'):
		return r.integer()
	}
	for _, l := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(r.b)-r.i >= len(l.text) && string(r.b[r.i:r.i+len(l.text)]) == l.text {
			r.i += len(l.text)
			return l.v, true
		}
	}
	return nil, false
}

// str reads a string without escapes, control characters or bytes outside ASCII.
func (r *objectReader) str() (string, bool) {
	if !r.next('"') {
		return "", false
	}
	start := r.i
	for ; r.i < len(r.b); r.i++ {
		switch c := r.b[r.i]; {
		case c == '"':
			s := r.s[start:r.i]
			r.i++
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", false
		}
	}
	return "", false
}

// integer reads -?(0|[1-9][0-9]*), which must not go on as a fraction or an exponent, as int64,
// or float64 when int64 cannot hold it.
func (r *objectReader) integer() (any, bool) {
	start := r.i
	r.next('-')
	digits := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	if r.i == digits || (r.b[digits] == '0' && r.i-digits > 1) {
		return nil, false
	}
	if r.i < len(r.b) {
		if c := r.b[r.i]; c == '.' || c == 'e' || c == 'E' {
			return nil, false
		}
	}
	s := r.s[start:r.i]
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, false
	}
	return f, true
}
