package fuzz

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// continueToken is the apiserver's continue token (rules 2.1–2.3). The type and field names are
// the apiserver's own (k8s.io/apiserver/pkg/storage/continue.go), because encoding/json puts them
// in its error messages, which reach clients verbatim.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// encodeToken returns the token resuming a list rooted at root ("/" or "/<ns>/") at the absolute
// key start, at rv. Start is written relative to the root without its trailing slash, as the
// 1.37 watch cache writes it.
func encodeToken(start, root string, rv int64) string {
	data, err := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rv, StartKey: strings.TrimPrefix(start, strings.TrimSuffix(root, "/"))})
	if err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(data)
}

// decodeToken applies rule 2.3 for a list rooted at root and returns the absolute start key and
// the token's RV; the error is the apiserver's message after "invalid continue token: ".
func decodeToken(token, root string) (string, int64, error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, fmt.Errorf("continue key is not valid: %v", err)
	}
	var t continueToken
	if err := json.Unmarshal(data, &t); err != nil {
		// The apiserver's type lives in package storage, which encoding/json names in the
		// message of a top-level type mismatch.
		return "", 0, fmt.Errorf("continue key is not valid: %v", strings.Replace(err.Error(), "fuzz.continueToken", "storage.continueToken", 1))
	}
	switch {
	case t.APIVersion != "meta.k8s.io/v1":
		return "", 0, fmt.Errorf("continue key is not valid: server does not recognize this encoded version %v", t.APIVersion)
	case t.ResourceVersion == 0:
		return "", 0, fmt.Errorf("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	case t.StartKey == "":
		return "", 0, fmt.Errorf("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
	}
	key := t.StartKey
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	if path.Clean(key) != key {
		return "", 0, fmt.Errorf("continue key is not valid: %v", t.StartKey)
	}
	return root + key[1:], t.ResourceVersion, nil
}
