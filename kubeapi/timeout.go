package kubeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// DefaultRequestTimeout is the apiserver's --request-timeout (60 s): the longest a list or a get
// may take, waiting for the source included, before it is answered with a 504.
const DefaultRequestTimeout = 60 * time.Second

// errAllottedTimeout is the apiserver's message when a request outlives its deadline
// (k8s.io/apiserver server/filters timeout.go, WithTimeoutForNonLongRunningRequests), recorded from
// kube-apiserver 1.37.2 with its etcd stopped (reference/observed-faults.md).
const errAllottedTimeout = "request did not complete within the allotted timeout"

// withDeadline returns r with the deadline of a non-watch request, as the apiserver's
// WithRequestDeadline sets it: Options.RequestTimeout, or the request's ?timeout= when it is
// positive and shorter. An unparsable ?timeout= is the apiserver's 400.
func (s *Server) withDeadline(r *http.Request) (*http.Request, context.CancelFunc, *apierrors.StatusError) {
	timeout := s.opts.RequestTimeout
	if v := r.URL.Query().Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("invalid timeout specified in the request URL - %s", err))
		}
		if d > 0 && d < timeout {
			timeout = d
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	return r.WithContext(ctx), cancel, nil
}

// timedOut reports whether err ended a request because its deadline passed, whatever inside the
// request (a wait for the source, an etcd read) saw the deadline first.
func timedOut(r *http.Request, err error) bool {
	return errors.Is(r.Context().Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded)
}

// writeTimeout answers a request that outlived its deadline with the apiserver's 504, byte for
// byte as its timeout filter writes it over HTTP/1.1 (reference/observed-faults.md): the Status
// encoded without kind and apiVersion, as text/plain. (Over HTTP/2 the apiserver resets the
// stream instead; this server speaks HTTP/1.1.)
func writeTimeout(w http.ResponseWriter) {
	st := apierrors.NewTimeoutError(errAllottedTimeout, 0).ErrStatus
	body, _ := json.Marshal(&st) // a Status of strings and integers: Marshal cannot fail
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusGatewayTimeout)
	_, _ = w.Write(append(body, '\n'))
}
