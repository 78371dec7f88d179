package wire

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/munnerz/goautoneg"
)

// Encoding is the media type of a response body.
type Encoding uint8

const (
	// JSON is `application/json`, the cache's own bytes.
	JSON Encoding = iota + 1
	// YAML is `application/yaml`: sigs.k8s.io/yaml's conversion of the JSON answer.
	YAML
	// Protobuf is `application/vnd.kubernetes.protobuf`: the `k8s\x00` envelope around the
	// object's protobuf encoding.
	Protobuf
)

// Media types, as the apiserver names them.
const (
	MediaJSON     = "application/json"
	MediaYAML     = "application/yaml"
	MediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// Encodings are the encodings of a built-in resource in the apiserver's order of preference:
// `*/*` and an empty Accept header get the first.
var Encodings = []Encoding{JSON, YAML, Protobuf}

// MediaType is the Content-Type of a body in this encoding.
func (e Encoding) MediaType() string {
	switch e {
	case YAML:
		return MediaYAML
	case Protobuf:
		return MediaProtobuf
	default:
		return MediaJSON
	}
}

// Streams reports whether a watch can be served in this encoding: YAML has no framing, so the
// apiserver serves watches in JSON and protobuf only.
func (e Encoding) Streams() bool { return e != YAML }

// StreamMediaType is the Content-Type of a watch in this encoding: JSON's is plain
// `application/json`, protobuf's has `;stream=watch` (the apiserver's serveWatchHandler).
func (e Encoding) StreamMediaType() string {
	if e == Protobuf {
		return MediaProtobuf + ";stream=watch"
	}
	return e.MediaType()
}

// matches reports whether an Accept clause's type admits the encoding: the same type and
// subtype, `type/*`, or `*/*`, as the apiserver's NegotiateMediaTypeOptions matches them.
func (e Encoding) matches(c goautoneg.Accept) bool {
	typ, sub := "application", "json"
	switch e {
	case YAML:
		sub = "yaml"
	case Protobuf:
		sub = "vnd.kubernetes.protobuf"
	}
	return (c.Type == typ && (c.SubType == sub || c.SubType == "*")) || (c.Type == "*" && c.SubType == "*")
}

// Clause is one media range of an Accept header.
type Clause struct {
	// Params are its parameters other than q (as, g, v, stream, ...); nil when it has none.
	Params map[string]string
	accept goautoneg.Accept
}

// Admits reports whether the clause admits the encoding.
func (c Clause) Admits(e Encoding) bool { return e.matches(c.accept) }

// ParseAccept splits an Accept header into its clauses in the order the apiserver tries them
// (goautoneg's: by q, then specific types before wildcards). A clause with q=0 is kept, last, as
// the apiserver keeps it.
func ParseAccept(header string) []Clause {
	parsed := goautoneg.ParseAccept(header)
	out := make([]Clause, len(parsed))
	for i, a := range parsed {
		out[i] = Clause{Params: a.Params, accept: a}
	}
	return out
}

// RouteAdmits reports whether an Accept header names, without its parameters, one of the media
// types an endpoint produces, or `*/*`: the apiserver's router (go-restful's matchesAccept) answers
// its "406: Not Acceptable" when it does not, before any negotiation. Wildcard subtypes
// (`application/*`) and q values are not looked at.
func RouteAdmits(header string, produces []string) bool {
	for part := range strings.SplitSeq(header, ",") {
		part, _, _ = strings.Cut(part, ";")
		part = strings.Trim(part, " ") // spaces only, as go-restful trims
		if part == "*/*" || slices.Contains(produces, part) {
			return true
		}
	}
	return false
}

// plain reports whether a clause asks for no conversion (no as, g or v parameter).
func (c Clause) plain() bool {
	return c.Params["as"] == "" && c.Params["g"] == "" && c.Params["v"] == ""
}

// ErrorEncoding is the encoding of an error Status answering a request with this Accept header:
// the apiserver negotiates it again, admitting no conversion (as=, g=, v=), among all its
// encodings, and falls back to JSON (a custom resource's 406 is protobuf when protobuf was asked;
// a Table asked in protobuf gets a JSON 406).
func ErrorEncoding(header string) Encoding {
	for _, c := range ParseAccept(header) {
		if !c.plain() {
			continue
		}
		for _, enc := range Encodings {
			if c.Admits(enc) {
				return enc
			}
		}
	}
	return JSON
}

// ObjectEncoding negotiates the encoding of a write's answer (the object, or a Status) as the
// apiserver does: the first clause admitting an encoding and asking for no conversion; protobuf
// only when the kind has it. An empty header is JSON; ok is false when nothing is admitted. Safe
// for concurrent use.
func ObjectEncoding(header string, protobuf bool) (enc Encoding, ok bool) {
	slot := &objectEncodings.slots[maphash.String(objectEncodings.seed, header)%negotiatedSlots]
	if m := slot.Load(); m != nil && m.header == header && m.protobuf == protobuf {
		return m.enc, m.ok
	}
	enc, ok = objectEncoding(header, protobuf)
	slot.Store(&negotiated{header: header, protobuf: protobuf, enc: enc, ok: ok})
	return enc, ok
}

// objectEncodings keeps ObjectEncoding's recent answers: a client sends the same Accept header
// with every request (client-go's typed clients "application/vnd.kubernetes.protobuf, */*"),
// and parsing it allocates a map and slices per clause, a few percent of a small write.
var objectEncodings = struct {
	seed  maphash.Seed
	slots [negotiatedSlots]atomic.Pointer[negotiated]
}{seed: maphash.MakeSeed()}

// negotiatedSlots is how many answers objectEncodings keeps, each in the slot of its header's
// hash: a process talks to the fake with a handful of clients, and an answer replaced by another
// header's costs one parse.
const negotiatedSlots = 16

// negotiated is one answer of ObjectEncoding, which nobody changes.
type negotiated struct {
	header   string
	protobuf bool
	enc      Encoding
	ok       bool
}

// objectEncoding is ObjectEncoding without its memo.
func objectEncoding(header string, protobuf bool) (enc Encoding, ok bool) {
	if strings.TrimSpace(header) == "" {
		return JSON, true
	}
	for _, c := range ParseAccept(header) {
		if !c.plain() {
			continue
		}
		for _, enc := range Encodings {
			if c.Admits(enc) && (protobuf || enc != Protobuf) {
				return enc, true
			}
		}
	}
	return 0, false
}
