package apistatus_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/selection"
	"github.com/watchcache/watchcache/watchcache"
)

// Each error the core returns, wrapped as the cache wraps it, maps to the apiserver's answer for
// the same case. The end-to-end answers (through List, Get and Watch) are asserted by the tests of
// watchcache, kubeapi and conformance; this table pins the mapping of every kind of error.
func TestFromError(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("watchcache: list pods: %w", err) }
	existing := apierrors.NewConflict(schemaGR(), "x", errors.New("changed"))
	tests := []statusCase{
		{"rule 3.4: too large RV", wrap(&rvclock.TooLargeError{Requested: 9, Current: 5}), http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
			"Timeout: Too large resource version: 9, current: 5", func(t *testing.T, s metav1.Status) {
				if s.Details == nil || s.Details.RetryAfterSeconds != 1 || len(s.Details.Causes) != 1 ||
					s.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge || s.Details.Causes[0].Message != "Too large resource version" {
					t.Errorf("details = %+v", s.Details)
				}
			}},
		{"rule 3.7: not ready", wrap(&rvclock.NotReadyError{Since: time.Second}), http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests,
			"storage is (re)initializing", func(t *testing.T, s metav1.Status) {
				if s.Details == nil || s.Details.RetryAfterSeconds != 1 {
					t.Errorf("details = %+v", s.Details)
				}
			}},
		{"stopped", wrap(rvclock.ErrStopped), http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "apiserver cacher is stopped", nil},
		{"rule 2.9: expired with a token", wrap(&watchcache.ExpiredError{Message: "too old", Continue: "tok"}), http.StatusGone, metav1.StatusReasonExpired,
			"too old", func(t *testing.T, s metav1.Status) {
				if s.Continue != "tok" {
					t.Errorf("continue = %q, want tok", s.Continue)
				}
			}},
		{"bad request", wrap(&watchcache.BadRequestError{Message: "invalid continue token"}), http.StatusBadRequest, metav1.StatusReasonBadRequest, "invalid continue token", nil},
		{"rule 0.1: invalid options", wrap(&watchcache.InvalidOptionsError{Errs: field.ErrorList{field.Forbidden(field.NewPath("resourceVersionMatch"), "forbidden")}}),
			http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: forbidden`, func(t *testing.T, s metav1.Status) {
				if s.Details == nil || s.Details.Kind != "ListOptions" || s.Details.Group != "meta.k8s.io" || len(s.Details.Causes) != 1 || s.Details.Causes[0].Field != "resourceVersionMatch" {
					t.Errorf("details = %+v", s.Details)
				}
			}},
		{"not found names the group", wrap(&watchcache.NotFoundError{Group: "apps", Resource: "deployments", Name: "x"}), http.StatusNotFound, metav1.StatusReasonNotFound,
			`deployments.apps "x" not found`, func(t *testing.T, s metav1.Status) {
				if s.Details == nil || s.Details.Group != "apps" || s.Details.Kind != "deployments" || s.Details.Name != "x" {
					t.Errorf("details = %+v", s.Details)
				}
			}},
		{"not found, core group", &watchcache.NotFoundError{Resource: "pods", Name: "x"}, http.StatusNotFound, metav1.StatusReasonNotFound, `pods "x" not found`, nil},
		{"rule 4.2: selector message without the cache's context", wrap(&selection.SelectorError{Kind: "field", Selector: "a", Err: errors.New("invalid selector: 'a'")}),
			http.StatusBadRequest, metav1.StatusReasonBadRequest, "invalid selector: 'a'", nil},
		{"rule 4.3: unsupported field", wrap(&selection.UnsupportedFieldError{Field: "spec.foo"}), http.StatusBadRequest, metav1.StatusReasonBadRequest,
			"field label not supported: spec.foo", nil},
		{"deadline", wrap(context.DeadlineExceeded), http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
			"Timeout: watchcache: list pods: context deadline exceeded", nil},
		{"a StatusError passes through", wrap(existing), http.StatusConflict, metav1.StatusReasonConflict, existing.ErrStatus.Message, nil},
		{"unknown is internal", errors.New("boom"), http.StatusInternalServerError, metav1.StatusReasonInternalError,
			"Internal error occurred: boom", nil},
	}
	for _, s := range []error{
		watchcache.ErrMalformedObject, watchcache.ErrInvalidName, watchcache.ErrNamespaceMismatch,
		watchcache.ErrInvalidKey, watchcache.ErrResourceVersion, watchcache.ErrUnknownKey,
		watchcache.ErrEventType, watchcache.ErrDuplicateKey, watchcache.ErrIndexExists,
		watchcache.ErrUnknownIndexField,
	} {
		err := fmt.Errorf("watchcache: ADDED /ns/x: %w", s)
		tests = append(tests, statusCase{"rejected input: " + s.Error(), err, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error(), nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			se := apistatus.FromError(tt.err)
			if se == nil {
				t.Fatal("nil Status")
			}
			s := se.ErrStatus
			if s.Status != metav1.StatusFailure || s.Code != tt.code || s.Reason != tt.reason || s.Message != tt.message {
				t.Fatalf("status = %s %d %s %q\nwant     Failure %d %s %q", s.Status, s.Code, s.Reason, s.Message, tt.code, tt.reason, tt.message)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
	if st := apistatus.FromError(nil); st != nil {
		t.Errorf("FromError(nil) = %v, want nil", st)
	}
}

// statusCase is an error and the Status the apiserver answers for it; check, if set, looks at the
// details.
type statusCase struct {
	name    string
	err     error
	code    int32
	reason  metav1.StatusReason
	message string
	check   func(t *testing.T, s metav1.Status)
}

func schemaGR() schema.GroupResource {
	return schema.GroupResource{Group: "apps", Resource: "deployments"}
}
