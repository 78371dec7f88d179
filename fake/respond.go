package fake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/internal/wire"
)

// writeError answers with the Status of err: the err's own when it carries one, else a 500.
func writeError(w http.ResponseWriter, err error) {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		st = apierrors.NewInternalError(err)
	}
	s := st.Status()
	s.Kind, s.APIVersion = "Status", "v1"
	code := int(s.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	if s.Details != nil && s.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(s.Details.RetryAfterSeconds)))
	}
	b, jerr := json.Marshal(&s)
	if jerr != nil {
		b = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":500}`)
	}
	writeBody(w, code, b)
}

// writeBody answers with a JSON body, as the apiserver does: the bytes and a newline. b is often
// the cache's own (shared, immutable) bytes, so nothing is appended to it. When the request
// negotiated protobuf or YAML (encodedWriter), the JSON is converted: the object's kind and
// apiVersion name its type.
func writeBody(w http.ResponseWriter, code int, b []byte) {
	h := w.Header()
	enc := wire.JSON
	if e, ok := w.(*encodedWriter); ok {
		enc = e.enc
	}
	var out []byte
	var err error
	switch enc {
	case wire.Protobuf:
		bp := answerBuffers.Get().(*[]byte)
		defer putAnswerBuffer(bp)
		out, err = protobufBody((*bp)[:0], b)
		*bp = out // the buffer as grown, for the next answer; a Write does not keep what it is given
	case wire.YAML:
		out, err = wire.ToYAML(b)
	}
	if err != nil || enc == wire.JSON {
		h.Set("Content-Type", "application/json")
		h.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(code)
		_, _ = w.Write(b)
		_, _ = w.Write(newline)
		return
	}
	h.Set("Content-Type", enc.MediaType())
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(out)
}

// answerBuffers are the buffers of writeBody's protobuf answers.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledAnswer is the largest answer buffer kept for reuse: most objects are a few KiB, and a
// rare large one (up to the 3 MiB body limit) should not stay allocated.
const maxPooledAnswer = 64 << 10

// putAnswerBuffer returns a buffer to answerBuffers unless it is larger than maxPooledAnswer.
func putAnswerBuffer(bp *[]byte) {
	if cap(*bp) <= maxPooledAnswer {
		answerBuffers.Put(bp)
	}
}

// protobufBody appends to dst the protobuf answer of a JSON object or Status.
func protobufBody(dst, b []byte) ([]byte, error) {
	if obj, ok := storedDecodings.get(b, nil); ok {
		// A stored object's decoding, whose kind and apiVersion are the JSON's.
		return wire.AppendDecoded(dst, obj.GetObjectKind().GroupVersionKind(), obj)
	}
	kind, apiVersion := gjson.GetBytes(b, "kind").String(), gjson.GetBytes(b, "apiVersion").String()
	if kind == "Status" {
		var st metav1.Status
		if err := json.Unmarshal(b, &st); err != nil {
			return nil, fmt.Errorf("fake: protobuf of a Status: %w", err)
		}
		return append(dst, wire.Status(&st)...), nil
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("fake: protobuf of %s: %w", kind, err)
	}
	gvk := gv.WithKind(kind)
	obj, err := wire.Decode(gvk, b)
	if err != nil {
		return nil, err
	}
	out, err := wire.AppendDecoded(dst, gvk, obj)
	if err == nil {
		// Kept only once marshalled: marshalling a Quantity that decoding left in a form other
		// than its canonical one caches its string in the object, a write that another write's
		// copy of the kept object must not race.
		storedDecodings.decoded(b, obj)
	}
	return out, err
}

// encodedWriter is a response negotiated to enc; writeBody converts to it. Unwrap lets
// http.ResponseController reach the connection.
type encodedWriter struct {
	http.ResponseWriter
	enc wire.Encoding
}

func (e *encodedWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// notAcceptable is the apiserver router's 406 for an Accept naming no media type a write endpoint
// answers in.
func notAcceptable() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: "406: Not Acceptable\n\nAvailable representations: " + strings.Join(writeProduces, ", "),
		Details: &metav1.StatusDetails{},
	}}
}

var newline = []byte{'\n'}

// addWarnings sets the Warning headers of a response, in the apiserver's form
// (`299 - "<text>"`, RFC 7234 warn-code 299 with agent "-").
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, text := range warnings {
		w.Header().Add("Warning", "299 - "+strconv.Quote(text))
	}
}

// notFoundPath is the apiserver's 404 for a path that names no resource or subresource.
func notFoundPath() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Message: "the server could not find the requested resource",
		Details: &metav1.StatusDetails{},
	}}
}

// methodNotAllowed is the apiserver's 405 for a method no route of the path has.
func methodNotAllowed() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusMethodNotAllowed,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Message: "the server does not allow this method on the requested resource",
		Details: &metav1.StatusDetails{},
	}}
}

// methodNotSupported is the apiserver's 405 for a verb a resource does not have: go-restful's terse one for
// a built-in resource, the custom resource handler's naming the verb.
func methodNotSupported(t target, method string) error {
	if t.res.custom == nil {
		// go-restful has no route for a verb a built-in resource lacks.
		return methodNotAllowed()
	}
	return apierrors.NewMethodNotSupported(t.res.gvr.GroupResource(), writeVerb(method, t.name))
}

// internalError wraps an unexpected failure in the apiserver's 500.
func internalError(format string, args ...any) error {
	return apierrors.NewInternalError(fmt.Errorf(format, args...))
}

// statusError is a Status error with the given code, reason and message.
func statusError(code int32, reason metav1.StatusReason, message string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message,
	}}
}

// unsupportedMediaType is the apiserver's 415 for a body whose media type it does not decode.
func unsupportedMediaType(accepted ...string) error {
	return statusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: "+strings.Join(accepted, ", "))
}
