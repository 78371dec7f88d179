package patch

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
)

// apply merges a server-side apply configuration into live (an empty object of the kind when live
// is nil, so apply creates) with the structured-merge field manager: ownership, conflicts (409 with
// one cause per conflicting field) and force are the library's.
func (p *Patcher) apply(k kind, fm *fieldManager, live runtime.Object, req Request, fc *fieldCheck) (runtime.Object, error) {
	cfg := &unstructured.Unstructured{Object: map[string]any{}}
	// The apiserver reads every apply body as YAML; a JSON body that YAML reads the same is read
	// as JSON, which costs a fifth as much, by readObject when it can (client-go's bodies), which
	// costs a third of sigs.k8s.io/json. A JSON body with duplicate fields goes the YAML way,
	// whose strict error is the apiserver's warning or 400.
	strictChecked := false
	if jsonReadsAsYAML(req.Patch) {
		if obj, ok := readObject(req.Patch); ok {
			cfg.Object, strictChecked = obj, true
		} else if dups, err := sigsjson.UnmarshalStrict(req.Patch, &cfg.Object, sigsjson.DisallowDuplicateFields); err == nil && len(dups) == 0 {
			strictChecked = true
		} else {
			cfg.Object = map[string]any{}
		}
	}
	if !strictChecked {
		if err := yaml.Unmarshal(req.Patch, &cfg.Object); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
	}
	if live == nil {
		live = k.empty()
	}
	out, err := fm.Apply(live, cfg, req.FieldManager, req.Force)
	if err != nil {
		return nil, err
	}
	if fc.strict && !strictChecked {
		if err := yaml.UnmarshalStrict(req.Patch, &map[string]any{}); err != nil {
			if fc.fail {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
			}
			fc.warn(err)
		}
	}
	return out, nil
}

// maxPlainString is the longest string jsonReadsAsYAML lets through: YAML (go-yaml v2) reads a
// flow-mapping key of more than 1024 characters as an error.
const maxPlainString = 1024

// jsonReadsAsYAML reports whether body is a JSON object that the apiserver's YAML decoder (go-yaml
// v2, then JSON with numbers as int64 or float64) reads exactly as a JSON decoder with the same
// number rule does. It is a conservative byte scan, not a parse: it refuses what YAML reads
// differently or might — tabs (go-yaml refuses some outside flow context), any backslash escape (YAML's double-quoted escapes differ from JSON's:
// surrogate pairs, `\/`), any byte outside ASCII (YAML folds U+0085, U+2028 and U+2029 as line
// breaks), a number with a fraction or an exponent (YAML turns 1.0 into 1 and 1e3 into 1000,
// which then decode as integers, where JSON keeps float64), strings longer than maxPlainString,
// and a document that does not start with `{`. Malformed JSON is left to the YAML decoder too.
func jsonReadsAsYAML(body []byte) bool {
	i := 0
	for i < len(body) && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r') {
		i++
	}
	if i == len(body) || body[i] != '{' {
		return false
	}
	inString, start := false, 0
	prevDigit := false
	for ; i < len(body); i++ {
		c := body[i]
		if c >= 0x80 || c == '\\' || c == '\t' {
			return false
		}
		if inString {
			if c == '"' {
				inString = false
				if i-start > maxPlainString {
					return false
				}
			} else if c < 0x20 {
				return false
			}
			continue
		}
		switch {
		case c == '"':
			inString, start, prevDigit = true, i, false
		case c == '.':
			return false
		case (c == 'e' || c == 'E') && prevDigit:
			return false
		default:
			prevDigit = c >= '0' && c <= '9'
		}
	}
	return !inString
}
