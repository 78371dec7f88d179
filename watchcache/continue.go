package watchcache

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
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
	out, err := json.Marshal(continueToken{APIVersion: tokenVersion, ResourceVersion: rv, StartKey: start})
	if err != nil {
		panic(err) // a struct of two strings and an int always marshals
	}
	return base64.RawURLEncoding.EncodeToString(out)
}

// decodeContinue decodes a token for a list rooted at prefix (ending in "/") and returns the
// absolute start key and the token's resourceVersion (negative: latest). The path.Clean check
// keeps a token from reaching outside prefix (rule 2.3).
func decodeContinue(token, prefix string) (string, int64, error) {
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
