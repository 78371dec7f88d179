package patch

import (
	"bytes"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	jsonutil "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// apply merges a server-side apply configuration into live (an empty object of the kind when live
// is nil, so apply creates) with the structured-merge field manager: ownership, conflicts (409 with
// one cause per conflicting field) and force are the library's.
//
// read is the body as readApplyBody read it, or nil when it did not.
func (p *Patcher) apply(k kind, fm *fieldManager, live runtime.Object, req Request, fc *fieldCheck, read map[string]any) (runtime.Object, error) {
	cfg := &unstructured.Unstructured{Object: read}
	if read == nil {
		// A body readApplyBody leaves: one that errs, warns, or has duplicate fields, read as
		// the apiserver reads every apply body, as YAML.
		cfg.Object = map[string]any{}
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
	if fc.strict && read == nil {
		if err := yaml.UnmarshalStrict(req.Patch, &map[string]any{}); err != nil {
			if fc.fail {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
			}
			fc.warn(err)
		}
	}
	return out, nil
}

// readApplyBody reads an apply body as apply reads it when that raises no error, no warning and
// no strict error: the body converts from YAML to JSON (validateBody's check), decodes into an
// object, and has no duplicate field (fieldValidation's strict reading). It returns false
// otherwise, for apply to read the body its own way, with the apiserver's errors and warnings.
//
// A body that jsonReadsAsYAML lets through reads the same as JSON, which costs a fifth as much:
// readObject reads it when it can (client-go's bodies), in a third of sigs.k8s.io/json's time,
// else sigs.k8s.io/json does. Another is converted to JSON once, strictly (sigs.k8s.io/yaml's YAMLToJSONStrict, which is its
// YAMLToJSON with duplicate fields refused), then decoded as k8s.io/apimachinery's
// yaml.Unmarshal decodes the JSON it converts a body to: numbers as json.Number, then int64 or
// float64. That one conversion stands for the three apply would make otherwise (validateBody's,
// the decoding's, the strict check's), which each parse the YAML; none of them converts
// otherwise, as none converts towards a Go type that would coerce a scalar.
func readApplyBody(body []byte) (map[string]any, bool) {
	if jsonReadsAsYAML(body) {
		if obj, ok := readObject(body); ok {
			return obj, true
		}
		obj := map[string]any{}
		if dups, err := sigsjson.UnmarshalStrict(body, &obj, sigsjson.DisallowDuplicateFields); err == nil && len(dups) == 0 {
			return obj, true
		}
		return nil, false
	}
	j, err := sigsyaml.YAMLToJSONStrict(body)
	if err != nil {
		return nil, false
	}
	obj := map[string]any{}
	var into any = &obj
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	if err := d.Decode(&into); err != nil {
		return nil, false
	}
	if err := jsonutil.ConvertMapNumbers(obj, 0); err != nil {
		return nil, false
	}
	return obj, true
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
