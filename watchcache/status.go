package watchcache

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/selection"
)

// ToStatus maps any error returned by this package (and by rvclock and selection, which it passes
// through) to the Status the kube-apiserver answers for the same case: code, reason, message,
// causes and retry-after. Errors it does not know become 500 InternalError. nil maps to nil.
//
// This is the one place where errors become HTTP: the core returns sentinels and typed errors, the
// edge (the HTTP façade, adapters) calls ToStatus.
func ToStatus(err error) *apierrors.StatusError {
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
		expired  *ExpiredError
		bad      *BadRequestError
		invalid  *InvalidOptionsError
		notFound *NotFoundError
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
		return apierrors.NewNotFound(schema.GroupResource{Group: notFound.Group, Resource: notFound.Resource}, notFound.Name)
	case errors.Is(err, selection.ErrInvalidSelector), errors.Is(err, selection.ErrUnsupportedField):
		// Rules 4.2, 4.3: selector parse and conversion errors are 400 with the parser's message.
		return apierrors.NewBadRequest(innermostMessage(err))
	case errors.Is(err, context.DeadlineExceeded):
		return apierrors.NewTimeoutError(err.Error(), 0)
	case errors.Is(err, ErrMalformedObject), errors.Is(err, ErrInvalidName), errors.Is(err, ErrNamespaceMismatch), errors.Is(err, ErrInvalidKey),
		errors.Is(err, ErrResourceVersion), errors.Is(err, ErrUnknownKey), errors.Is(err, ErrEventType),
		errors.Is(err, ErrDuplicateKey), errors.Is(err, ErrIndexExists), errors.Is(err, ErrUnknownIndexField):
		return apierrors.NewBadRequest(err.Error())
	}
	return apierrors.NewInternalError(err)
}

// innermostMessage returns the message of the selection error itself, without the context this
// package wrapped around it, because the apiserver's message is the parser's message verbatim.
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
