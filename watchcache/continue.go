package watchcache

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"weak"
)

// The continue token is the apiserver's public wire format (rules 2.1–2.3), so that a token is
// portable between two caches fed from the same source and between this cache and a kube-apiserver:
//
//		base64.RawURLEncoding( {"v":"meta.k8s.io/v1","rv":<int64>,"start":"<start key>"} )
//
//	  - the JSON is encoding/json's compact output with the fields in this order; the NUL that ends
//	    the start key is written \u0000;
//	  - base64 uses the URL alphabet (- and _) and no '=' padding;
//	  - rv is the resourceVersion of the list the token continues (every page of one list carries the
//	    same rv); rv -1 means "continue at the latest state" (rule 2.9); 0 is invalid;
//	  - start is the key to resume at, relative to the list's root: the last returned key followed by
//	    "\x00" — the smallest key strictly greater than it. Emitted as the 1.37 watch cache emits it,
//	    with a leading '/': for an all-namespaces pod list "/ns-0/pod-000020\u0000", for a list in
//	    namespace ns-0 "/pod-000020\u0000". The etcd form, without the leading '/', is accepted too.
//
// Example, from a real kube-apiserver 1.37.2 (reference/observed-kube-apiserver.md):
//
//	eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjA4OSwic3RhcnQiOiIvbnMtMC9wb2QtMDAwMDIwXHUwMDAwIn0
//	= {"v":"meta.k8s.io/v1","rv":2089,"start":"/ns-0/pod-000020\u0000"}
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

const tokenVersion = "meta.k8s.io/v1"

// Decode errors, with the apiserver's messages (rule 2.3).
var (
	errTokenInvalid    = errors.New("continue key is not valid")
	errTokenStartRV    = errors.New("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	errTokenEmptyStart = errors.New("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
	errTokenVersion    = errors.New("continue key is not valid: server does not recognize this encoded version")
)

// encodeContinue returns the token that resumes a list rooted at prefix (which ends in "/") at key
// (the start key, already ending in "\x00") and resourceVersion rv, in the cache form: the start is
// relative to the root without its trailing slash, so it keeps a leading '/'.
func encodeContinue(key, prefix string, rv int64) string {
	return marshalToken(strings.TrimPrefix(key, strings.TrimSuffix(prefix, "/")), rv)
}

// encodeContinueEtcdForm is encodeContinue in the etcd form (no leading '/'), which the apiserver
// uses for the rv -1 token of a 410 (rule 2.9: it comes from its etcd path), so that the 410 body is
// byte-for-byte the apiserver's.
func encodeContinueEtcdForm(key, prefix string, rv int64) string {
	start := strings.TrimPrefix(key, prefix)
	if start == "" {
		// A token whose start is the list root itself: the etcd form would be empty, which no
		// server decodes ("encoded start key empty"); the cache form "/" is.
		return encodeContinue(key, prefix, rv)
	}
	return marshalToken(start, rv)
}

func marshalToken(start string, rv int64) string {
	var buf [128]byte
	out, ok := appendToken(buf[:0], start, rv)
	if !ok {
		var err error
		if out, err = json.Marshal(continueToken{APIVersion: tokenVersion, ResourceVersion: rv, StartKey: start}); err != nil {
			panic(err) // a struct of two strings and an int always marshals
		}
	}
	return base64.RawURLEncoding.EncodeToString(out)
}

// appendToken appends the token's JSON as encoding/json writes it, for a start key of printable
// ASCII that encoding/json writes as is (no quote, backslash or HTML character) and the final NUL
// of a continue key; false for any other key, which marshalToken leaves to encoding/json. Every
// first page of a list writes a token, and encoding/json's reflection took ≈5% of a page of 500
// (TestAppendTokenMatchesJSON).
func appendToken(out []byte, start string, rv int64) ([]byte, bool) {
	key, nul := strings.CutSuffix(start, "\x00")
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return out, false
		}
	}
	out = append(out, `{"v":"`+tokenVersion+`","rv":`...)
	out = strconv.AppendInt(out, rv, 10)
	out = append(out, `,"start":"`...)
	out = append(out, key...)
	if nul {
		out = append(out, `\u0000`...)
	}
	return append(out, `"}`...), true
}

// decodeContinue decodes a token for a list rooted at prefix (ending in "/") and returns the
// absolute start key and the token's resourceVersion (negative: latest). The path.Clean check
// keeps a token from reaching outside prefix (rule 2.3).
//
// Every page after the first pays for this, and encoding/json costs ≈1–1.5 µs and 10 allocations
// here (BenchmarkDecodeContinue/json), which alone puts BenchmarkIndexedContinueOld above 1.2× the first
// page's cost. So the canonical bytes, which are all that this cache and the
// apiserver emit, take a hand-written path (decodeCanonical, ≈120 ns and 1 allocation); any other
// token goes through encoding/json (decodeContinueJSON), the reference: decodeCanonical only ever
// answers where the two agree (TestDecodeCanonicalMatchesJSON, FuzzDecodeContinue), and leaves
// every error to decodeContinueJSON.
func decodeContinue(token, prefix string) (string, int64, error) {
	if key, rv, ok := decodeCanonical(token, prefix); ok {
		return key, rv, nil
	}
	return decodeContinueJSON(token, prefix)
}

// decodeContinueJSON is decodeContinue through encoding/json: it accepts any JSON that the
// apiserver's json.Unmarshal accepts (whitespace, escapes, any field order, duplicates, unknown
// fields, keys in any case) and returns the apiserver's errors.
func decodeContinueJSON(token, prefix string) (string, int64, error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", errTokenInvalid, err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		// The message names the Go type the token decodes into; say the apiserver's, so that
		// clients see the same text from both.
		msg := strings.ReplaceAll(err.Error(), "watchcache.continueToken", "storage.continueToken")
		return "", 0, fmt.Errorf("%w: %s", errTokenInvalid, msg)
	}
	if c.APIVersion != tokenVersion {
		return "", 0, fmt.Errorf("%w %v", errTokenVersion, c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return "", 0, errTokenStartRV
	}
	if c.StartKey == "" {
		return "", 0, errTokenEmptyStart
	}
	key := c.StartKey
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	if path.Clean(key) != key {
		return "", 0, fmt.Errorf("%w: %v", errTokenInvalid, c.StartKey)
	}
	return prefix + key[1:], c.ResourceVersion, nil
}

// canonicalHead is the base64 of `{"v":"meta.k8s.io/v1","rv":`: 27 bytes, 9 whole base64 groups,
// so a canonical token starts with these 36 characters and the rest decodes on its own.
const canonicalHead = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6"

// canonicalBuf bounds the decoded tail (`<rv>,"start":"<start>"}`, ≈ start + 31 bytes) kept on
// the stack: 256 covers a namespace and name of up to ≈220 bytes together; a longer one costs one
// more allocation.
const canonicalBuf = 256

// decodeCanonical decodes a token in the canonical encoding,
//
//	{"v":"meta.k8s.io/v1","rv":<rv>,"start":"<start>"}
//
// byte for byte: rv is 1 to 18 digits without a leading zero, optionally after '-' (so it is never
// 0 and never overflows); start is non-empty printable ASCII without '"' and '\', and escapes
// only as \u00XX for XX < 0x80 (json.Marshal writes \u0000, \u003c, \u003e, \u0026 so). It
// answers ok only for a token that decodes successfully, with decodeContinueJSON's result; for
// any other token, or a prefix not ending in "/", it answers !ok and decodes nothing. Cost: one
// allocation (the key) for a decoded tail of up to canonicalBuf bytes.
func decodeCanonical(token, prefix string) (key string, rv int64, ok bool) {
	tail, ok := strings.CutPrefix(token, canonicalHead)
	if !ok || !strings.HasSuffix(prefix, "/") {
		return "", 0, false
	}
	var buf [canonicalBuf]byte
	var d []byte
	if n := base64.RawURLEncoding.DecodedLen(len(tail)); n <= len(buf) {
		d = buf[:n]
	} else {
		d = make([]byte, n)
	}
	n, err := base64.RawURLEncoding.Decode(d, []byte(tail))
	if err != nil {
		return "", 0, false
	}
	d = d[:n]

	i := 0
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := i
	for i < len(d) && i-digits < 18 && '0' <= d[i] && d[i] <= '9' {
		rv = rv*10 + int64(d[i]-'0')
		i++
	}
	if i == digits || d[digits] == '0' {
		return "", 0, false // no digits, or a leading zero: "0", "-0", "01" (invalid JSON)
	}
	if digits == 1 {
		rv = -rv
	}
	const mid, end = `,"start":"`, `"}`
	d = d[i:]
	if len(d) < len(mid)+len(end) || string(d[:len(mid)]) != mid || string(d[len(d)-len(end):]) != end {
		return "", 0, false
	}
	// Unescape start in place: it only shrinks.
	s, m := d[len(mid):len(d)-len(end)], 0
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\\':
			if j+6 > len(s) || s[j+1] != 'u' || s[j+2] != '0' || s[j+3] != '0' || s[j+4] < '0' || s[j+4] > '7' {
				return "", 0, false
			}
			lo, ok := unhex(s[j+5])
			if !ok {
				return "", 0, false
			}
			c = (s[j+4]-'0')<<4 | lo
			j += 5
		case c < 0x20 || c >= 0x7f || c == '"':
			return "", 0, false
		}
		s[m] = c
		m++
	}
	s = s[:m]
	if len(s) == 0 {
		return "", 0, false
	}
	// prefix ends in "/", so key[len(prefix)-1:] is the start with one leading '/', the string
	// decodeContinueJSON cleans.
	if s[0] == '/' {
		key = prefix[:len(prefix)-1] + string(s)
	} else {
		key = prefix + string(s)
	}
	if !cleanRooted(key[len(prefix)-1:]) {
		return "", 0, false
	}
	return key, rv, true
}

// cleanRooted reports whether path.Clean(p) == p for a p that starts with '/': no empty, "." or
// ".." segment and no trailing slash, or p is "/". One pass, where path.Clean builds its answer
// (≈25 ns of a continue page; TestCleanRootedMatchesPathClean, FuzzCleanRooted).
func cleanRooted(p string) bool {
	if p == "/" {
		return true
	}
	for i := 0; i < len(p); { // p[i] == '/'
		j := i + 1
		for j < len(p) && p[j] != '/' {
			j++
		}
		if seg := p[i+1 : j]; seg == "" || seg == "." || seg == ".." {
			return false // also a trailing slash: an empty last segment
		}
		i = j
	}
	return true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// issuedTokens is how many continue tokens a cache remembers at most (tokenMemo). A client that
// pages through a list sends the token of its last page next, usually within milliseconds; 64
// slots keep the tokens of a few dozen lists paged at once, at a few hundred bytes a token.
const issuedTokens = 64

// issuedToken is a continue token a page of this cache issued: what decoding it for its prefix
// gives, the remainingItemCount of that page when it had no selector (-1 otherwise), and the view
// the page was read from.
type issuedToken struct {
	prefix    string
	start     string // the absolute start key, decodeContinue(token, prefix)'s
	rv        int64
	remaining int64
	// snap or over is the view at rv the page read, held weakly: the memo must not keep a view the
	// window evicted (and the versions it reaches) alive. The next page reads it again without
	// finding rv in the window (issuedToken.enter).
	snap weak.Pointer[snapshot]
	over weak.Pointer[overlay]
}

// withView returns tok holding v, the view its page was read from.
func (tok issuedToken) withView(v view) issuedToken {
	switch v := v.(type) {
	case *snapshot:
		tok.snap = weak.Make(v)
	case *overlay:
		tok.over = weak.Make(v)
	}
	return tok
}

// held reports whether the token holds v as its view.
func (tok *issuedToken) held(v view) bool {
	switch v := v.(type) {
	case *snapshot:
		return tok.snap.Value() == v
	case *overlay:
		return tok.over.Value() == v
	}
	return false
}

// enter enters the view the token's page was read from and returns it, or nil when the
// collector reclaimed it or the window evicted it: the reader then finds the token's RV in the
// window (Cache.readView), and answers the 410 of an evicted one. The state at an RV never
// changes, so the view is the one readView would find for as long as it can be entered: every
// view of an RV shares its pin, which the window marks dead when it evicts the RV, and Replace,
// which starts a new window without marking its pins, clears the memo first.
func (tok *issuedToken) enter() view {
	var v view
	if s := tok.snap.Value(); s != nil {
		v = s
	} else if o := tok.over.Value(); o != nil {
		v = o
	} else {
		return nil
	}
	if !v.enter() {
		return nil
	}
	return v
}

// tokenMemo remembers continue tokens the cache issued, so that the next page of a list neither
// decodes its token (≈180 ns and an allocation, a quarter of an indexed continue page), nor
// searches the window for its RV (the view it read is held), nor, without a selector, counts the
// keys after its start (remainingItemCount): the state at the token's RV never changes, so the
// next page's count is the previous page's less the items it returns. A token it does not hold is decoded as any other. It holds issuedTokens slots, a token
// in the one its hash names, without a lock: a lookup is a hash of the token, one atomic load and a
// comparison; a token issued later into the same slot replaces the one there.
type tokenMemo struct {
	slots [issuedTokens]atomic.Pointer[issuedEntry]
}

// issuedEntry is a token and what the cache recorded when it issued it.
type issuedEntry struct {
	token string
	tok   issuedToken
}

// tokenSeed seeds the slots' hash: a process's tokens land in slots no client chooses.
var tokenSeed = maphash.MakeSeed()

func (m *tokenMemo) slot(token string) *atomic.Pointer[issuedEntry] {
	return &m.slots[maphash.String(tokenSeed, token)%issuedTokens]
}

// clear forgets every token: the cache's window starts anew (Replace), and a token issued before
// must be found in it, or be answered as expired, as one the memo never held.
func (m *tokenMemo) clear() {
	for i := range m.slots {
		m.slots[i].Store(nil)
	}
}

// lookup returns what the cache recorded when it issued token for a list rooted at prefix.
func (m *tokenMemo) lookup(token, prefix string) (issuedToken, bool) {
	e := m.slot(token).Load()
	if e == nil || e.token != token || e.tok.prefix != prefix {
		return issuedToken{}, false
	}
	return e.tok, true
}

// decodesTo reports whether the token encodeContinue writes for tok decodes (decodeContinue, for
// tok.prefix) to tok's start and RV. A key the decoder refuses — an empty or dot segment, such
// as an object in the empty namespace — gets a token that is a 400 when it comes back, as from
// the apiserver, and the memo must not answer it.
func decodesTo(tok issuedToken) bool {
	return tok.rv > 0 && len(tok.start) > len(tok.prefix) && strings.HasPrefix(tok.start, tok.prefix) &&
		cleanRooted(tok.start[len(tok.prefix)-1:])
}

// add records token, issued for tok by a page read from v, in its slot.
func (m *tokenMemo) add(token string, tok issuedToken, v view) {
	slot := m.slot(token)
	if e := slot.Load(); e != nil && e.token == token && e.tok.prefix == tok.prefix && e.tok.held(v) {
		return // the same page again: the same record
	}
	slot.Store(&issuedEntry{token: token, tok: tok.withView(v)})
}
