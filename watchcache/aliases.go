package watchcache

import (
	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/selection"
)

// The names a user of one cache needs from the packages the cache is built of (index, rvclock,
// selection), so that the common case needs this package only. Each is the same type or value as
// the original: errors.Is and errors.As match either name.

// IndexSpec names an index (AddIndex, Indexes): a selectable field or a label key. A plain value.
type IndexSpec = index.Spec

// IndexKind says what an index is keyed on: IndexField or IndexLabel.
type IndexKind = index.Kind

// The kinds of index.
const (
	// IndexField indexes the value of a selectable field (a field selector name such as
	// spec.nodeName); a missing field indexes as "", as it matches in a field selector.
	IndexField = index.Field
	// IndexLabel indexes the value of one label key; objects without the label are not in it.
	IndexLabel = index.Label
)

// FieldIndex is the spec of an index on a selectable field, e.g. FieldIndex("spec.nodeName").
func FieldIndex(field string) IndexSpec { return IndexSpec{Kind: index.Field, Name: field} }

// LabelIndex is the spec of an index on a label key, e.g. LabelIndex("app").
func LabelIndex(key string) IndexSpec { return IndexSpec{Kind: index.Label, Name: key} }

// Errors of reads that wait for the cache (List, Get, Watch), as rvclock returns them.
var (
	// ErrNotReady is matched by *NotReadyError: the cache has not had its first Replace, or a
	// source marked it pending (SetPending) while it re-lists (rules 3.6, 3.7; a 429).
	ErrNotReady = rvclock.ErrNotReady
	// ErrStopped: the cache was stopped (Stop); every read and write fails with it (a 503).
	ErrStopped = rvclock.ErrStopped
	// ErrTooLarge is matched by *TooLargeError: a read asked for a resourceVersion the cache did
	// not reach within Options.WaitTimeout (rules 3.3, 3.4; a 504 with Retry-After).
	ErrTooLarge = rvclock.ErrTooLarge
)

// NotReadyError is the error of a read while the cache is not ready; see ErrNotReady.
type NotReadyError = rvclock.NotReadyError

// TooLargeError is the error of a read at a resourceVersion the cache did not reach; see ErrTooLarge.
type TooLargeError = rvclock.TooLargeError

// Errors of selectors and selectable fields, as selection returns them; the cache wraps them with
// the request's context.
var (
	// ErrInvalidSelector is matched by *SelectorError: a label or field selector that does not
	// parse (rules 4.1, 4.2; a 400 with the parser's message).
	ErrInvalidSelector = selection.ErrInvalidSelector
	// ErrUnsupportedField is matched by *UnsupportedFieldError: a field selector names a field the
	// resource does not offer (rule 4.3; a 400).
	ErrUnsupportedField = selection.ErrUnsupportedField
	// ErrInvalidField is wrapped by the errors of RegisterField: a name no selector can spell, a
	// name already selectable, an empty path.
	ErrInvalidField = selection.ErrInvalidField
)

// SelectorError is a selector that did not parse; see ErrInvalidSelector.
type SelectorError = selection.SelectorError

// UnsupportedFieldError is a field selector term on a field the resource does not offer; see
// ErrUnsupportedField.
type UnsupportedFieldError = selection.UnsupportedFieldError
