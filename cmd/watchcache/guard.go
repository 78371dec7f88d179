package main

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// retryAfter is the Retry-After of a 429 for a limit, as the apiserver's max-in-flight filter
// sends it (k8s.io/apiserver/pkg/server/filters/maxinflight.go: retryAfter = "1").
const retryAfter = "1"

// tooManyRequestsBody is the apiserver's 429 body for a request over its in-flight limits: plain
// text, written by http.Error (k8s.io/apiserver/pkg/server/filters: tooManyRequests; recorded in
// reference/observed-authn.md).
const tooManyRequestsBody = "Too many requests, please try again later."

// limits are serve's bounds on concurrent work, as the apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight (0: no bound), plus a bound on concurrent watches, which the
// apiserver's in-flight limits exempt as long-running.
type limits struct {
	readOnly, mutating chan struct{} // semaphores; nil: unbounded
	watches            chan struct{}
	// minRequestTimeout is the apiserver's --min-request-timeout: a watch without timeoutSeconds
	// ends after a random time between one and two times it, so that clients spread their
	// re-watches.
	minRequestTimeout time.Duration
	// writeTimeout bounds the writing of a whole non-watch response (serve's default: the request
	// timeout plus a second, so a list that took its whole timeout still has a second to be read)
	// and of each write of a watch.
	writeTimeout time.Duration
	// drain ends every watch when it is done (graceful shutdown); nil: never.
	drain context.Context
}

func semaphore(n int) chan struct{} {
	if n <= 0 {
		return nil
	}
	return make(chan struct{}, n)
}

// acquire takes a slot without waiting: false when all are taken.
func acquire(sem chan struct{}) bool {
	if sem == nil {
		return true
	}
	select {
	case sem <- struct{}{}:
		return true
	default:
		return false
	}
}

func release(sem chan struct{}) {
	if sem != nil {
		<-sem
	}
}

// tooMany answers a request over a limit as the apiserver does.
func tooMany(w http.ResponseWriter) {
	w.Header().Set("Retry-After", retryAfter)
	http.Error(w, tooManyRequestsBody, http.StatusTooManyRequests)
}

// isWatch says whether a request is a watch: RequestInfo's verb (a ?watch=true list or the
// legacy /watch/ paths).
func isWatch(r *http.Request) bool {
	info, ok := request.RequestInfoFrom(r.Context())
	return ok && info.IsResourceRequest && info.Verb == "watch"
}

// privileged says whether the request's user is in system:masters, which the apiserver's in-flight
// limits never refuse (so that an operator can act on an overloaded server).
func privileged(r *http.Request) bool {
	u, ok := request.UserFrom(r.Context())
	if !ok {
		return false
	}
	for _, g := range u.GetGroups() {
		if g == user.SystemPrivilegedGroup {
			return true
		}
	}
	return false
}

// Wrap applies the limits to next. Requests carry a RequestInfo (and a user when authentication
// is on).
func (l *limits) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isWatch(r) {
			l.watch(next, w, r)
			return
		}
		sem := l.readOnly
		if info, ok := request.RequestInfoFrom(r.Context()); ok && !readOnlyVerbs[info.Verb] {
			sem = l.mutating
		}
		if !privileged(r) {
			if !acquire(sem) {
				tooMany(w)
				return
			}
			defer release(sem)
		}
		next.ServeHTTP(w, r)
	})
}

// readOnlyVerbs are the apiserver's non-mutating verbs (maxinflight.go: nonMutatingRequestVerbs);
// a non-resource request's verb is its method in lower case, so a GET of /version is read-only.
var readOnlyVerbs = map[string]bool{"get": true, "list": true, "watch": true}

// watch runs a watch within the watch limit, with the apiserver's timeout when the client gives
// none, a deadline on each write, and an end when the server drains.
func (l *limits) watch(next http.Handler, w http.ResponseWriter, r *http.Request) {
	if !privileged(r) {
		if !acquire(l.watches) {
			tooMany(w)
			return
		}
		defer release(l.watches)
	}
	if l.minRequestTimeout > 0 && !r.URL.Query().Has("timeoutSeconds") {
		// The apiserver's jitter (handlers/get.go: minRequestTimeout × (1 + rand)); the façade
		// ends the stream at timeoutSeconds like any client-given timeout.
		d := time.Duration(float64(l.minRequestTimeout) * (1 + rand.Float64()))
		q := r.URL.Query()
		q.Set("timeoutSeconds", strconv.Itoa(max(1, int(d/time.Second))))
		r = r.Clone(r.Context())
		r.URL.RawQuery = q.Encode()
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if l.drain != nil {
		stop := context.AfterFunc(l.drain, cancel)
		defer stop()
	}
	if l.writeTimeout > 0 {
		// The whole-response deadline (withResponseDeadline) gives way to one per write.
		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(time.Time{})
		w = &deadlineWriter{ResponseWriter: w, rc: rc, timeout: l.writeTimeout}
	}
	next.ServeHTTP(w, r.WithContext(ctx))
}

// deadlineWriter gives each write of a watch its own deadline: a watch lives for minutes, but a
// client that stops reading is cut within timeout of the write it blocks. The deadline is cleared
// once the write is done: an HTTP/2 stream is reset when its deadline passes even while nothing is
// being written, and a watch may be idle for longer than the timeout.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	defer d.rc.SetWriteDeadline(time.Time{})
	return d.ResponseWriter.Write(p)
}

// FlushError flushes within the write deadline; http.ResponseController finds it.
func (d *deadlineWriter) FlushError() error {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	defer d.rc.SetWriteDeadline(time.Time{})
	return d.rc.Flush()
}

// withResponseDeadline gives every response a deadline of timeout from its start, answers of the
// open paths and refusals (401, 403, 429) included: a client that stops reading must not hold a
// response (and the snapshot it reads) for ever. It is per request rather than the server's
// WriteTimeout because a watch replaces it by one per write (limits.watch); net/http clears it
// once the response is done.
func withResponseDeadline(timeout time.Duration, next http.Handler) http.Handler {
	if timeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(timeout))
		next.ServeHTTP(w, r)
	})
}

func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// inFlightCollector exports the slots taken as the apiserver's apiserver_current_inflight_requests
// (request_kind readOnly or mutating; without a limit, nothing is counted and it reads 0), and
// watches as watchcache_current_watches.
func (l *limits) inFlightCollector() prometheus.Collector {
	return inFlight{l}
}

type inFlight struct{ l *limits }

var (
	inFlightDesc = prometheus.NewDesc("apiserver_current_inflight_requests",
		"Slots of the in-flight limits taken at the scrape, per request kind (the apiserver reports the maximum of the last second).", []string{"request_kind"}, nil)
	watchesDesc = prometheus.NewDesc("watchcache_current_watches", "Watches running within --max-watches.", nil, nil)
)

func (i inFlight) Describe(ch chan<- *prometheus.Desc) {
	ch <- inFlightDesc
	ch <- watchesDesc
}

func (i inFlight) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(inFlightDesc, prometheus.GaugeValue, float64(len(i.l.readOnly)), "readOnly")
	ch <- prometheus.MustNewConstMetric(inFlightDesc, prometheus.GaugeValue, float64(len(i.l.mutating)), "mutating")
	ch <- prometheus.MustNewConstMetric(watchesDesc, prometheus.GaugeValue, float64(len(i.l.watches)))
}
