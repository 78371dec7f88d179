package patch

import (
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldCheck carries one request's fieldValidation directive and the warnings it produces. The
// apiserver's default, for an empty directive, is Warn.
type fieldCheck struct {
	strict   bool // Strict or Warn: decode strictly to find unknown and duplicate fields
	fail     bool // Strict: such fields are an error rather than a warning
	warnings []string
}

func newFieldCheck(directive string) *fieldCheck {
	switch directive {
	case metav1.FieldValidationIgnore:
		return &fieldCheck{}
	case metav1.FieldValidationStrict:
		return &fieldCheck{strict: true, fail: true}
	default:
		return &fieldCheck{strict: true}
	}
}

// decoded judges the outcome of decoding a patched document into the kind. A document that does
// not decode is the apiserver's 422 with one Invalid cause on the field "patch", whose value is
// the patched document (the patch map for strategic merge); a non-strict error wins over the
// strict ones, which would then be incomplete. Unknown or duplicate fields (strictErrs from the
// patch itself, and those of err) are that 422 under Strict and warnings under Warn.
func (c *fieldCheck) decoded(value string, err error, strictErrs []error) error {
	invalid := func(detail string) error {
		return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), value, detail)})
	}
	all := strictErrs
	if err != nil {
		se, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict {
			return invalid(err.Error())
		}
		all = append(all, se.Errors()...)
	}
	if len(all) == 0 {
		return nil
	}
	if c.fail {
		return invalid(runtime.NewStrictDecodingError(all).Error())
	}
	for _, e := range all {
		c.warn(e)
	}
	return nil
}

// yamlStrictPrefixes begin a YAML strict decoding error that lists one problem a line.
var yamlStrictPrefixes = []string{"yaml: unmarshal errors:\n", "error converting YAML to JSON: yaml: unmarshal errors:\n"}

// warn records err as warnings the way the apiserver words them: a YAML strict error becomes one
// warning per problem it lists (without the prefix), anything else one warning with its text.
func (c *fieldCheck) warn(err error) {
	msg := err.Error()
	for _, prefix := range yamlStrictPrefixes {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			for _, line := range strings.Split(rest, "\n") {
				c.warnings = append(c.warnings, strings.TrimSpace(line))
			}
			return
		}
	}
	c.warnings = append(c.warnings, msg)
}
