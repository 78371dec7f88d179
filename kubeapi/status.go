package kubeapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/internal/wire"
)

// statusJSON encodes a Status as the apiserver does: kind Status, apiVersion v1, and an empty
// metadata object unless it carries a continue token (rule 2.9).
func statusJSON(st *apierrors.StatusError) []byte {
	s := st.ErrStatus
	s.Kind, s.APIVersion = "Status", "v1"
	b, err := json.Marshal(&s)
	if err != nil {
		// A Status holds strings and integers only; Marshal cannot fail on it.
		return []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":500}`)
	}
	return b
}

// writeStatus answers a request with a Status: its code, a JSON body, and the Retry-After header
// when details.retryAfterSeconds > 0 (rule 3.4: the 504 for a too-large RV; rule 3.7: the 429 of
// a cache that is not ready), as the apiserver's ErrorNegotiated does.
//
// The body is JSON, or the encoding errorEncoding chose for the request (errorEncoded): protobuf
// or YAML, as the apiserver encodes the Statuses of a request that asked for them
// (testdata/encodings: error-404-pb, error-404-yaml).
func writeStatus(w http.ResponseWriter, st *apierrors.StatusError) {
	code := int(st.ErrStatus.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	h := w.Header()
	if d := st.ErrStatus.Details; d != nil && d.RetryAfterSeconds > 0 {
		h.Set("Retry-After", strconv.Itoa(int(d.RetryAfterSeconds)))
	}
	enc, body := wire.JSON, append(statusJSON(st), '\n')
	if e, ok := w.(*errorEncoded); ok {
		enc = e.enc
	}
	switch enc {
	case wire.Protobuf:
		body = wire.Status(&st.ErrStatus)
	case wire.YAML:
		if y, err := wire.ToYAML(body); err == nil {
			body = y
		} else {
			enc = wire.JSON
		}
	}
	h.Set("Content-Type", enc.MediaType())
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// errorEncoded is a response whose error Statuses are written in enc (writeStatus). Unwrap lets
// http.ResponseController reach the connection.
type errorEncoded struct {
	http.ResponseWriter
	enc wire.Encoding
}

func (e *errorEncoded) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// notFound is the apiserver's 404 for a path that names no resource.
func notFound() *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Message: "the server could not find the requested resource",
		Details: &metav1.StatusDetails{},
	}}
}

// methodNotSupported is the 405 for any method but GET (and HEAD) on a resource: this server
// only reads.
func methodNotSupported(gr schema.GroupResource, method string, collection bool) *apierrors.StatusError {
	verb := strings.ToLower(method)
	switch method {
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodDelete:
		if collection {
			verb = "deletecollection"
		}
	}
	return apierrors.NewMethodNotSupported(gr, verb)
}

// methodNotAllowed is the 405 for a method other than GET on a discovery path.
func methodNotAllowed() *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusMethodNotAllowed,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Message: "the server does not allow this method on the requested resource",
		Details: &metav1.StatusDetails{},
	}}
}

// notAcceptable is the apiserver's 406 for an Accept header that names no media type the endpoint
// serves: the representations it serves, and empty details (testdata/oracle/notacceptable-xml.http).
func notAcceptable(representations ...string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReason("NotAcceptable"),
		Message: "406: Not Acceptable\n\nAvailable representations: " + strings.Join(representations, ", "),
		Details: &metav1.StatusDetails{},
	}}
}

// onlyMediaTypes is the apiserver's 406 for a media type it serves asked in a form it does not
// (`as=Table;v=v2`), and the aggregated discovery endpoints' 406: no details
// (testdata/oracle/notacceptable-table-v2.http).
func onlyMediaTypes(accepted ...string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReason("NotAcceptable"),
		Message: "only the following media types are accepted: " + strings.Join(accepted, ", "),
	}}
}
