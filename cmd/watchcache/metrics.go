package main

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apiserver/pkg/endpoints/metrics"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// requestMetrics are the kube-apiserver's request metrics (k8s.io/apiserver/pkg/endpoints/metrics:
// the same names, labels and histogram buckets), so that dashboards and alerts written for an
// apiserver read serve's. component is always "apiserver"; dry_run is "" (serve does not dry-run).
type requestMetrics struct {
	total       *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	longrunning *prometheus.GaugeVec
	watchEvents *prometheus.CounterVec
	registry    *prometheus.Registry
}

// durationBuckets are the apiserver's apiserver_request_duration_seconds buckets.
var durationBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// newRequestMetrics registers the request metrics, Go's and the process's on a new registry, and
// the extra collectors (the caches' and the source's figures).
func newRequestMetrics(extra ...prometheus.Collector) *requestMetrics {
	m := &requestMetrics{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets: durationBuckets,
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}),
		longrunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_longrunning_requests",
			Help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		watchEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_events_total",
			Help: "Number of events sent in watch clients",
		}, []string{"group", "version", "resource"}),
		registry: prometheus.NewRegistry(),
	}
	m.registry.MustRegister(m.total, m.duration, m.longrunning, m.watchEvents,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, c := range extra {
		m.registry.MustRegister(c)
	}
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *requestMetrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Wrap counts and times the resource requests next answers (RequestInfo in their context), and
// counts the events written to watches: one per line of the JSON watch stream.
func (m *requestMetrics) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := request.RequestInfoFrom(r.Context())
		if !ok || !info.IsResourceRequest {
			next.ServeHTTP(w, r)
			return
		}
		scope := metrics.CleanScope(info)
		verb := metrics.CleanVerb(metrics.CanonicalVerb(strings.ToUpper(r.Method), scope), r, info)
		const component = "apiserver"
		rw := &countingWriter{ResponseWriter: w, code: http.StatusOK}
		if verb == "WATCH" {
			g := m.longrunning.WithLabelValues(verb, info.APIGroup, info.APIVersion, info.Resource, info.Subresource, scope, component)
			g.Inc()
			defer g.Dec()
			rw.events = m.watchEvents.WithLabelValues(info.APIGroup, info.APIVersion, info.Resource)
		}
		start := time.Now()
		next.ServeHTTP(rw, r)
		m.total.WithLabelValues(verb, "", info.APIGroup, info.APIVersion, info.Resource, info.Subresource, scope, component, strconv.Itoa(rw.code)).Inc()
		m.duration.WithLabelValues(verb, "", info.APIGroup, info.APIVersion, info.Resource, info.Subresource, scope, component).Observe(time.Since(start).Seconds())
	})
}

// countingWriter remembers the status code and, on a watch, counts the newlines written: the JSON
// watch stream is one event a line. Unwrap lets http.ResponseController reach the connection.
type countingWriter struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
	events      prometheus.Counter // nil unless a watch
}

func (c *countingWriter) WriteHeader(code int) {
	if !c.wroteHeader {
		c.code, c.wroteHeader = code, true
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.wroteHeader = true
	n, err := c.ResponseWriter.Write(p)
	if c.events != nil && c.code == http.StatusOK {
		if k := bytes.Count(p[:n], []byte{'\n'}); k > 0 {
			c.events.Add(float64(k))
		}
	}
	return n, err
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
