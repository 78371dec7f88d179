// Package handlers decodes JSON patch operations strictly. It exists for its name: the
// apiserver's error for a JSON patch that is not an array of operations names the Go type it
// decodes into ("cannot unmarshal object into Go value of type []handlers.jsonPatchOp"), and a
// client comparing messages sees the same text here.
//
// Its functions are pure and safe for concurrent use.
package handlers

import (
	"fmt"

	sigsjson "sigs.k8s.io/json"
)

// jsonPatchOp is one RFC 6902 operation as the apiserver reads it to find unknown or duplicate
// fields; it is never used to apply a patch.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// StrictOps decodes a JSON patch strictly. It returns the unknown or duplicate fields it found,
// each as "json patch <problem>", and an error when the body is not an array of operations.
func StrictOps(patch []byte) ([]error, error) {
	var ops []jsonPatchOp
	strictErrs, err := sigsjson.UnmarshalStrict(patch, &ops)
	if err != nil {
		return nil, err
	}
	for i, e := range strictErrs {
		strictErrs[i] = fmt.Errorf("json patch %v", e)
	}
	return strictErrs, nil
}
