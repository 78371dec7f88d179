package conformance

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Token is a decoded continue token (rules 2.1–2.3). On the wire it is
//
//	base64.RawURLEncoding( {"v":"meta.k8s.io/v1","rv":<int64>,"start":"<start key>"} )
//
// with the JSON compact, its fields in that order and the NUL that ends the start key written
// \u0000. Start is the key to resume at relative to the list's root: the last returned key
// followed by NUL, with a leading '/' as the 1.37 watch cache emits it (for an all-namespaces pod
// list "/ns-0/pod-02\x00", in namespace ns-0 "/pod-02\x00"); the etcd form has no leading '/'.
// RV is the list's resourceVersion, or -1 for "continue at the latest state" (rule 2.9).
type Token struct {
	Version string `json:"v"`
	RV      int64  `json:"rv"`
	Start   string `json:"start"`
}

// TokenVersion is the only version a token may carry.
const TokenVersion = "meta.k8s.io/v1"

// DecodeToken decodes a token's base64 and JSON without judging its content.
func DecodeToken(s string) (Token, error) {
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Token{}, err
	}
	var t Token
	err = json.Unmarshal(data, &t)
	return t, err
}

// Encode returns the token's wire form.
func (t Token) Encode() string {
	data, err := json.Marshal(t)
	if err != nil {
		panic(err) // two strings and an int always marshal
	}
	return base64.RawURLEncoding.EncodeToString(data)
}

// relStart is the start key without the leading '/' of the cache form, so that the cache and the
// etcd forms compare equal.
func (t Token) relStart() string { return strings.TrimPrefix(t.Start, "/") }
