package selection

import (
	"errors"
	"fmt"
)

// Sentinels. Mapping to HTTP status codes happens once, at the edge; every error this package
// returns matches exactly one of them with errors.Is.
var (
	// ErrMalformed is wrapped by every error of Extract: the bytes are not valid JSON, the top
	// level is not an object, metadata is missing or not an object, metadata.name is missing,
	// empty or not a string, metadata.labels is not an object of string values, or
	// metadata.namespace / metadata.resourceVersion is present but not a string.
	ErrMalformed = errors.New("selection: malformed object")

	// ErrInvalidSelector is matched by *SelectorError: ParseLabels or ParseFields could not
	// parse the selector (rules 4.1, 4.2). The apiserver answers 400 BadRequest with the
	// parser's message, which SelectorError.Error returns verbatim.
	ErrInvalidSelector = errors.New("selection: invalid selector")

	// ErrUnsupportedField is matched by *UnsupportedFieldError: a field selector names a field
	// the schema does not know (rule 4.3). The apiserver answers 400 BadRequest with the
	// conversion message, which UnsupportedFieldError.Error returns verbatim.
	ErrUnsupportedField = errors.New("selection: field label not supported")

	// ErrInvalidField is wrapped by the errors of Schema.WithField: an empty name, a name that
	// no field selector can spell (it contains ',' or '=', or ends in '!'), a name the schema
	// already accepts, or an empty path.
	ErrInvalidField = errors.New("selection: invalid field registration")
)

// SelectorError is a selector that did not parse. Kind is "label" or "field", Selector the
// text as given, Err the parser's error (from k8s.io/apimachinery/pkg/labels or .../fields).
type SelectorError struct {
	Kind     string
	Selector string
	Err      error
}

// Error returns the parser's message exactly, because that is the apiserver's message:
// e.g. `invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'`.
func (e *SelectorError) Error() string { return e.Err.Error() }

// Unwrap returns the parser's error.
func (e *SelectorError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidSelector.
func (e *SelectorError) Is(target error) bool { return target == ErrInvalidSelector }

// UnsupportedFieldError is a field selector term whose field the schema does not accept.
type UnsupportedFieldError struct {
	// Field is the field name as the client spelled it.
	Field string
	// Known lists the names the schema accepts (aliases included), sorted.
	Known []string
	// Generic selects the message of a kind without its own field-label conversion
	// (runtime.DefaultMetaV1FieldSelectorConversion) instead of "field label not supported".
	Generic bool
}

// Error returns the apiserver's conversion message (rule 4.3):
//
//	field label not supported: <field>                                                pods, nodes, custom resources, schemas with registered fields
//	"<field>" is not a known field selector: only "metadata.name", "metadata.namespace"   other kinds
func (e *UnsupportedFieldError) Error() string {
	if e.Generic {
		return fmt.Sprintf("%q is not a known field selector: only %q, %q", e.Field, "metadata.name", "metadata.namespace")
	}
	return "field label not supported: " + e.Field
}

// Is reports whether target is ErrUnsupportedField.
func (e *UnsupportedFieldError) Is(target error) bool { return target == ErrUnsupportedField }

// malformed returns an error wrapping ErrMalformed with what was wrong.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}
