package watchcache

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Errors returned when an event or a re-list is rejected. The cache is left exactly as it was.
// They are wrapped with the event type and key; test with errors.Is.
var (
	// ErrMalformedObject: the object is not a JSON object with metadata.name (see selection.ErrMalformed
	// for the detail, which is wrapped as well).
	ErrMalformedObject = errors.New("watchcache: malformed object")
	// ErrInvalidName: metadata.name is not a valid path segment (contains '/' or '%', or is '.' or '..'; rule 6.3).
	ErrInvalidName = errors.New("watchcache: invalid object name")
	// ErrNamespaceMismatch: a namespaced resource's object has no namespace, or a cluster-scoped one has one.
	ErrNamespaceMismatch = errors.New("watchcache: namespace does not match the resource scope")
	// ErrResourceVersion: the event's resourceVersion is missing, unparseable, or not greater than the
	// cache's (rule 6.8: events arrive in strictly increasing RV order; a bookmark may repeat the current RV).
	ErrResourceVersion = errors.New("watchcache: resourceVersion not increasing")
	// ErrInvalidKey: an event's or re-list object's Key is not "/<namespace>/<name>" (namespaced)
	// or "/<name>" (cluster-scoped) of valid path segments, in valid UTF-8 (rules 6.1, 6.3).
	ErrInvalidKey = errors.New("watchcache: invalid key")
	// ErrUnknownKey: a DELETED event for a key the cache does not hold.
	ErrUnknownKey = errors.New("watchcache: delete of an unknown key")
	// ErrEventType: an event type other than ADDED, MODIFIED, DELETED, BOOKMARK.
	ErrEventType = errors.New("watchcache: unknown event type")
	// ErrDuplicateKey: a re-list holds the same key twice.
	ErrDuplicateKey = errors.New("watchcache: duplicate key in list")
	// ErrIndexExists: an index with the same spec is already registered.
	ErrIndexExists = errors.New("watchcache: index already registered")
	// ErrUnknownIndexField: an index names a field the resource's schema does not have.
	ErrUnknownIndexField = errors.New("watchcache: index on an unknown field")
)

// Errors returned by List, Get and Watch. Each maps to the apiserver's Status (apistatus.FromError).
var (
	// ErrExpired: the requested resourceVersion (Exact list, continue token, watch) is older than
	// the oldest snapshot or event the cache still holds (410 Gone, reason Expired). See *ExpiredError.
	ErrExpired = errors.New("watchcache: resource version expired")
	// ErrBadRequest: a malformed request parameter (400 BadRequest). See *BadRequestError.
	ErrBadRequest = errors.New("watchcache: bad request")
	// ErrInvalidOptions: list or watch options that fail validation (422 Invalid, rules 0.1–0.6).
	// See *InvalidOptionsError.
	ErrInvalidOptions = errors.New("watchcache: invalid list options")
	// ErrNotFound: Get of a key the cache does not hold (404 NotFound). See *NotFoundError.
	ErrNotFound = errors.New("watchcache: not found")
)

// ExpiredError is a 410 Gone with reason Expired.
type ExpiredError struct {
	// Message is the apiserver's exact message for the case (rules 1.18, 2.9, 5.3).
	Message string
	// Continue, when set, is the "inconsistent continue" token (rv -1, same start key) that lets the
	// client read the remainder at the latest state (rule 2.9).
	Continue string
}

// Error returns the message.
func (e *ExpiredError) Error() string { return e.Message }

// Is makes errors.Is match the sentinel of the case.
func (e *ExpiredError) Is(target error) bool { return target == ErrExpired }

// Messages of the apiserver's 410 answers, verbatim.
const (
	// msgListTooOld: an Exact (or legacy exact) list below the window (rule 1.18).
	msgListTooOld = "The resourceVersion for the provided list is too old."
	// msgContinueTooOld: a continue token below the window (rule 2.9).
	msgContinueTooOld = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response " +
		"to retrieve the remainder of the results. Continuing with the provided token results in an " +
		"inconsistent list - objects that were created, modified, or deleted between the time the first " +
		"chunk was returned and now may show up in the list."
)

// BadRequestError is a 400 BadRequest whose message is the apiserver's.
type BadRequestError struct{ Message string }

// Error returns the message.
func (e *BadRequestError) Error() string { return e.Message }

// Is makes errors.Is match the sentinel of the case.
func (e *BadRequestError) Is(target error) bool { return target == ErrBadRequest }

func badRequest(format string, args ...any) error {
	return &BadRequestError{Message: fmt.Sprintf(format, args...)}
}

// InvalidOptionsError is a 422 Invalid on ListOptions.meta.k8s.io, one cause per field error.
type InvalidOptionsError struct{ Errs field.ErrorList }

// Error returns the message.
func (e *InvalidOptionsError) Error() string {
	return fmt.Sprintf("ListOptions.meta.k8s.io \"\" is invalid: %v", e.Errs.ToAggregate())
}

// Is makes errors.Is match the sentinel of the case.
func (e *InvalidOptionsError) Is(target error) bool { return target == ErrInvalidOptions }

// NotFoundError is a 404 for one object; ResourceVersion is the cache RV at the time of the read (rule 3.9).
type NotFoundError struct {
	Group, Resource, Name string
	ResourceVersion       uint64
}

// Error returns the message.
func (e *NotFoundError) Error() string {
	if e.Group != "" {
		return fmt.Sprintf("%s.%s %q not found", e.Resource, e.Group, e.Name)
	}
	return fmt.Sprintf("%s %q not found", e.Resource, e.Name)
}

// Is makes errors.Is match the sentinel of the case.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Reasons a watch ends without an ERROR event, returned by Watcher.Err once its channel is closed
// (the HTTP façade ends the stream without an event for them, as the apiserver does).
var (
	// ErrWatcherBehind: the consumer fell more than Options.WatchBuffer events behind and the watch
	// was closed rather than allowed to slow Apply (rule 5.10); watching again from the last RV
	// received loses nothing while that RV is in the window.
	ErrWatcherBehind = errors.New("watchcache: watcher fell behind")
	// ErrRelisted: the cache's content was replaced by a re-list (Replace, rule 3.6); the window
	// restarted, so a watch from an older RV gets 410 and the consumer must list again.
	ErrRelisted = errors.New("watchcache: cache re-listed")
)
