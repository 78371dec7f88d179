package apistatus

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/selection"
	"github.com/watchcache/watchcache/watchcache"
)

// FromError maps any error returned by watchcache (and by rvclock and selection, which it passes
// through) to the Status the kube-apiserver answers for the same case: code, reason, message,
// causes and retry-after. A *apierrors.StatusError anywhere in the chain is returned as it is.
// Errors it does not know become 500 InternalError. nil maps to nil.
//
// FromError is a pure function; any goroutine may call it. The result is new on every call
// (except a StatusError found in err), so the caller may modify it.
func FromError(err error) *apierrors.StatusError {
	if err == nil {
		return nil
	}
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se
	}
	var (
		tooLarge *rvclock.TooLargeError
		notReady *rvclock.NotReadyError
		expired  *watchcache.ExpiredError
		bad      *watchcache.BadRequestError
		invalid  *watchcache.InvalidOptionsError
		notFound *watchcache.NotFoundError
	)
	switch {
	case errors.As(err, &tooLarge):
		// Rule 3.4: 504, reason Timeout, cause ResourceVersionTooLarge, Retry-After 1.
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusGatewayTimeout,
			Reason:  metav1.StatusReasonTimeout,
			Message: "Timeout: " + tooLarge.Error(),
			Details: &metav1.StatusDetails{
				Causes: []metav1.StatusCause{{
					Type:    metav1.CauseTypeResourceVersionTooLarge,
					Message: "Too large resource version",
				}},
				RetryAfterSeconds: int32(tooLarge.RetryAfterSeconds()),
			},
		}}
	case errors.As(err, &notReady):
		// Rule 3.7: 429 with a retry-after growing with the time since the last state change.
		return apierrors.NewTooManyRequests(notReady.Error(), notReady.RetryAfterSeconds())
	case errors.Is(err, rvclock.ErrStopped):
		return apierrors.NewServiceUnavailable(rvclock.ErrStopped.Error())
	case errors.As(err, &expired):
		st := apierrors.NewResourceExpired(expired.Message)
		st.ErrStatus.ListMeta.Continue = expired.Continue
		return st
	case errors.As(err, &bad):
		return apierrors.NewBadRequest(bad.Message)
	case errors.As(err, &invalid):
		return apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}, "", invalid.Errs)
	case errors.As(err, &notFound):
		// The apiserver's message names the resource with its group (`deployments.apps "x" not
		// found`); the cache's error carries both from its Options.Resource.
		return apierrors.NewNotFound(schema.GroupResource{Group: notFound.Group, Resource: notFound.Resource}, notFound.Name)
	case errors.Is(err, selection.ErrInvalidSelector), errors.Is(err, selection.ErrUnsupportedField):
		// Rules 4.2, 4.3: selector parse and conversion errors are 400 with the parser's message.
		return apierrors.NewBadRequest(innermostMessage(err))
	case errors.Is(err, context.DeadlineExceeded):
		return apierrors.NewTimeoutError(err.Error(), 0)
	case isRejectedInput(err):
		return apierrors.NewBadRequest(err.Error())
	}
	return apierrors.NewInternalError(err)
}

// rejectedInput are the sentinels of input the cache refuses (an event, a re-list, an index
// registration): the caller's mistake, so 400 rather than 500.
var rejectedInput = []error{
	watchcache.ErrMalformedObject, watchcache.ErrInvalidName, watchcache.ErrNamespaceMismatch,
	watchcache.ErrInvalidKey, watchcache.ErrResourceVersion, watchcache.ErrUnknownKey,
	watchcache.ErrEventType, watchcache.ErrDuplicateKey, watchcache.ErrIndexExists,
	watchcache.ErrUnknownIndexField,
}

func isRejectedInput(err error) bool {
	for _, s := range rejectedInput {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// innermostMessage returns the message of the selection error itself, without the context the
// cache wrapped around it, because the apiserver's message is the parser's message verbatim.
func innermostMessage(err error) string {
	var sel *selection.SelectorError
	if errors.As(err, &sel) {
		return sel.Error()
	}
	var unsup *selection.UnsupportedFieldError
	if errors.As(err, &unsup) {
		return unsup.Error()
	}
	return err.Error()
}
