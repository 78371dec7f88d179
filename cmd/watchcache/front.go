package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/watchcache/watchcache/cmd/watchcache/internal/gate"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/promcollector"
)

// The apiserver's defaults for its limits (k8s.io/apiserver/pkg/server/options:
// ServerRunOptions), and serve's own for what the apiserver does not bound.
const (
	defaultMaxRequestsInFlight         = 400
	defaultMaxMutatingRequestsInFlight = 200
	// defaultMaxWatches bounds concurrent watches: each holds a buffer and a goroutine (a few KiB),
	// so 10,000 cost tens of MiB, well within what a server holding a cluster's objects has.
	defaultMaxWatches = 10_000
	// defaultShutdownTimeout is how long serve drains requests in flight when it stops, as a
	// kubelet's default termination grace period.
	defaultShutdownTimeout = 30 * time.Second
	// readHeaderTimeout bounds reading a request's headers: a client that opens connections and
	// sends nothing holds none for long.
	readHeaderTimeout = 10 * time.Second
)

// safetyFlags are serve's flags for serving beyond a developer's machine: TLS, credentials,
// limits, timeouts, shutdown, and reading values encrypted at rest.
type safetyFlags struct {
	tlsCertFile, tlsKeyFile string
	tlsSelfSigned           bool
	gate                    gate.Config
	// delegatedAuth is --delegated-auth: with --kubeconfig, the cluster authenticates and
	// authorizes serve's clients (delegate).
	delegatedAuth bool

	maxInFlight, maxMutatingInFlight, maxWatches int
	minRequestTimeout, writeTimeout              time.Duration
	shutdownTimeout, shutdownDelay               time.Duration
	encryptionConfig                             string
}

func addSafetyFlags(fs *flag.FlagSet, f *safetyFlags) {
	fs.StringVar(&f.tlsCertFile, "tls-cert-file", "", "PEM certificate (chain) to serve HTTPS with (as the kube-apiserver's); needs --tls-private-key-file")
	fs.StringVar(&f.tlsKeyFile, "tls-private-key-file", "", "PEM private key of --tls-cert-file")
	fs.BoolVar(&f.tlsSelfSigned, "tls-self-signed", false, "serve HTTPS with a new self-signed certificate (its SHA-256 fingerprint is logged)")
	fs.StringVar(&f.gate.TokenAuthFile, "token-auth-file", "", "static bearer tokens, CSV token,user,uid[,\"group1,group2\"] (as the kube-apiserver's)")
	fs.StringVar(&f.gate.ClientCAFile, "client-ca-file", "", "authenticate client certificates signed by this PEM CA bundle: common name as user, organizations as groups (as the kube-apiserver's)")
	fs.StringVar(&f.gate.AuthenticationKubeconfig, "authentication-kubeconfig", "", "authenticate bearer tokens with this cluster's TokenReview, cached 10s (\"in-cluster\": the pod's service account)")
	fs.StringVar(&f.gate.AuthorizationKubeconfig, "authorization-kubeconfig", "", "authorize requests with this cluster's SubjectAccessReview, cached 5m when allowed and 30s when denied (\"in-cluster\": the pod's service account)")
	fs.StringVar(&f.gate.AuthorizationPolicyFile, "authorization-policy-file", "", "authorize requests with this ABAC policy file (the kube-apiserver's format, one Policy a line)")
	fs.BoolVar(&f.delegatedAuth, "delegated-auth", true, "with --kubeconfig: authenticate bearer tokens with that cluster's TokenReview and authorize requests with its SubjectAccessReview, as an aggregated apiserver does (serve's account needs the system:auth-delegator ClusterRole); --delegated-auth=false serves without credentials, on loopback only")
	fs.IntVar(&f.maxInFlight, "max-requests-inflight", defaultMaxRequestsInFlight, "non-mutating requests (list, get) in flight before 429 with Retry-After (0: no limit; watches are counted by --max-watches)")
	fs.IntVar(&f.maxMutatingInFlight, "max-mutating-requests-inflight", defaultMaxMutatingRequestsInFlight, "mutating requests in flight before 429 with Retry-After (0: no limit)")
	fs.IntVar(&f.maxWatches, "max-watches", defaultMaxWatches, "concurrent watches before 429 with Retry-After (0: no limit)")
	fs.DurationVar(&f.minRequestTimeout, "min-request-timeout", kubeapi.DefaultMinRequestTimeout, "a watch without timeoutSeconds ends after a random time between this and twice this (as the kube-apiserver's)")
	fs.DurationVar(&f.writeTimeout, "write-timeout", 0, "the longest a client may take to read a whole non-watch response, or one write of a watch, before its connection is closed (default --request-timeout + 1s)")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "on SIGTERM or SIGINT, how long requests in flight may finish before they are cut")
	fs.DurationVar(&f.shutdownDelay, "shutdown-delay-duration", 0, "on SIGTERM or SIGINT, how long serve goes on serving with /readyz failing before it stops accepting and drains, so that load balancers and endpoints take it out first (as the kube-apiserver's)")
	fs.StringVar(&f.encryptionConfig, "encryption-provider-config", "", "the kube-apiserver's EncryptionConfiguration file: read the values it encrypted at rest (with --etcd-endpoints)")
}

// front is serve's HTTP(S) server in front of the API: TLS, credentials, limits, metrics and
// graceful shutdown.
type front struct {
	flags safetyFlags
	tls   *tls.Config
	gate  *gate.Gate
	log   *slog.Logger
}

// testWrap, when set by a test, wraps the API handler inside every check, as a stand-in for a
// slow endpoint.
var testWrap func(http.Handler) http.Handler

// newFront checks the flags: plain HTTP only on loopback, and off loopback TLS and an
// authenticator.
func newFront(listen string, f safetyFlags, log *slog.Logger) (*front, error) {
	for _, n := range []struct {
		flag string
		v    int64
	}{
		{"max-requests-inflight", int64(f.maxInFlight)}, {"max-mutating-requests-inflight", int64(f.maxMutatingInFlight)},
		{"max-watches", int64(f.maxWatches)}, {"min-request-timeout", int64(f.minRequestTimeout)},
		{"write-timeout", int64(f.writeTimeout)}, {"shutdown-timeout", int64(f.shutdownTimeout)},
		{"shutdown-delay-duration", int64(f.shutdownDelay)},
	} {
		if n.v < 0 {
			return nil, fmt.Errorf("--%s must be ≥ 0", n.flag)
		}
	}
	// k8s.io/apiserver's authenticators and client-go log through klog: into serve's log.
	logKlogTo(log)
	g, err := gate.New(f.gate)
	if err != nil {
		return nil, err
	}
	tc, fp, err := tlsConfig(f.tlsCertFile, f.tlsKeyFile, f.tlsSelfSigned, g.ClientCAs())
	if err != nil {
		return nil, err
	}
	if !isLoopback(listen) {
		if tc == nil {
			return nil, fmt.Errorf("--listen %s is not a loopback address: plain HTTP is served only on loopback; give --tls-cert-file and --tls-private-key-file, or --tls-self-signed", listen)
		}
		if !g.Enabled() {
			return nil, fmt.Errorf("--listen %s is not a loopback address: give an authenticator (--token-auth-file, --client-ca-file or --authentication-kubeconfig)", listen)
		}
	}
	if f.gate.ClientCAFile != "" && tc == nil {
		return nil, errors.New("--client-ca-file needs TLS (--tls-cert-file and --tls-private-key-file, or --tls-self-signed)")
	}
	if tc != nil {
		log.Info("serving certificate", "sha256", fp, "selfSigned", f.tlsSelfSigned)
	}
	if g.Enabled() && !g.Authorizes() {
		log.Warn("no authorizer (--authorization-kubeconfig or --authorization-policy-file): every authenticated user may read and write everything")
	}
	return &front{flags: f, tls: tc, gate: g, log: log}, nil
}

// listen binds the address.
func (f *front) listen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// openPaths are answered without credentials or limits: probes must work for a kubelet or a load
// balancer that has no token, and must answer on a loaded server.
var openPaths = []string{"/healthz", "/livez", "/readyz"}

func isOpen(p string) bool {
	for _, o := range openPaths {
		if p == o || strings.HasPrefix(p, o+"/") {
			return true
		}
	}
	return false
}

// revisionSource is a source with one revision across its resources (etcd), which the metrics
// compare with each cache's.
type revisionSource interface {
	revision(ctx context.Context) (uint64, error)
}

// revisionTimeout bounds the request for the source's revision at a scrape: a scrape must answer
// while the source is down (the lag is left out then).
const revisionTimeout = 2 * time.Second

// statsSource is a source whose counters the metrics export.
type statsSource interface {
	stats() (name string, stats any)
}

// readyAdder is a handler with a /readyz serve adds its own checks to: kubeapi.Server and the
// fake.
type readyAdder interface {
	AddReadyCheck(name string, check func() error) error
}

// errShuttingDown is why the "shutdown" check fails, as kube-apiserver's says it at
// /readyz/shutdown (reference/observed-shutdown.md).
var errShuttingDown = errors.New("process is shutting down")

// serve answers on ln until ctx ends, then shuts down: /readyz fails at once, with the
// apiserver's "[-]shutdown failed" line, while every other request is still served for
// --shutdown-delay-duration; then it stops accepting, ends the watches (their
// streams end cleanly, as when a watch times out), lets the other requests finish within
// --shutdown-timeout and cuts those still running after it, then stops the source. The caller
// stops the caches.
func (f *front) serve(ctx context.Context, ln net.Listener, app http.Handler, cs caches, src source, stdout io.Writer) error {
	col := promcollector.New()
	for _, c := range cs {
		r := c.Resource()
		col.AddCache(r.Group, r.Name, c)
	}
	if s, ok := src.(statsSource); ok {
		name, _ := s.stats()
		col.AddSource(name, func() any { _, st := s.stats(); return st })
	}
	if s, ok := src.(revisionSource); ok {
		col.SetRevision(func() (uint64, error) {
			ctx, cancel := context.WithTimeout(context.Background(), revisionTimeout)
			defer cancel()
			return s.revision(ctx)
		})
	}
	// kube-apiserver's readyz lists "shutdown" last, after its other checks; serve's resources
	// followed later are listed among the resources, before it.
	var shuttingDown atomic.Bool
	if ra, ok := app.(readyAdder); ok {
		if err := ra.AddReadyCheck("shutdown", func() error {
			if shuttingDown.Load() {
				return errShuttingDown
			}
			return nil
		}); err != nil {
			return err
		}
	}
	drain, startDrain := context.WithCancel(context.Background())
	defer startDrain()
	lim := &limits{
		readOnly:          semaphore(f.flags.maxInFlight),
		mutating:          semaphore(f.flags.maxMutatingInFlight),
		watches:           semaphore(f.flags.maxWatches),
		minRequestTimeout: f.flags.minRequestTimeout,
		writeTimeout:      f.flags.writeTimeout,
		drain:             drain,
	}
	m := newRequestMetrics(col, lim.inFlightCollector())
	metricsHandler := m.Handler()
	var api http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			metricsHandler.ServeHTTP(w, r)
			return
		}
		app.ServeHTTP(w, r)
	})
	if testWrap != nil {
		api = testWrap(api)
	}
	checked := gate.WithRequestInfo(m.Wrap(f.gate.Handler(lim.Wrap(api))))
	top := withResponseDeadline(f.flags.writeTimeout, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isOpen(r.URL.Path) {
			app.ServeHTTP(w, r)
			return
		}
		checked.ServeHTTP(w, r)
	}))

	// Requests derive their context from base: cancelling it cuts those still running at the
	// shutdown deadline.
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	hs := &http.Server{
		Handler:           top,
		ReadHeaderTimeout: readHeaderTimeout,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(f.log.Handler(), slog.LevelWarn),
		TLSConfig:         f.tls,
	}
	scheme := "http"
	if f.tls != nil {
		scheme = "https"
	}
	url := dialable(scheme, ln.Addr())
	if _, err := fmt.Fprintln(stdout, url); err != nil {
		return err
	}
	example := "kubectl --server " + url + " get pods -A --chunk-size=500"
	if f.tls != nil {
		example = "kubectl --server " + url + " --certificate-authority=<the certificate> --token=<a token> get pods -A"
	}
	f.log.Info("serving", "url", url, "example", example)

	serveErr := make(chan error, 1)
	go func() {
		if f.tls != nil {
			serveErr <- hs.ServeTLS(ln, "", "")
			return
		}
		serveErr <- hs.Serve(ln)
	}()
	// The source runs until the drain is over, not until the signal: through the shutdown delay
	// and the drain the caches stay current, and reads waiting for a resourceVersion can finish.
	runCtx, stopRun := context.WithCancel(context.Background())
	defer stopRun()
	runErr := make(chan error, 1)
	go func() { runErr <- src.Run(runCtx, cs) }()

	// Whichever ends first, stop the rest; the channels are buffered, so a value read here is
	// put back for the collection below.
	select {
	case <-ctx.Done():
		f.log.Info("shutting down", "timeout", f.flags.shutdownTimeout, "delay", f.flags.shutdownDelay)
		shuttingDown.Store(true)
		if d := f.flags.shutdownDelay; d > 0 {
			// Everything is still served, /readyz failing, so that whoever routes clients here
			// sees it and stops before the listener closes (kube-apiserver's
			// --shutdown-delay-duration).
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case err := <-serveErr:
				serveErr <- err
			case err := <-runErr:
				runErr <- err
			}
			t.Stop()
		}
	case err := <-serveErr:
		serveErr <- err
	case err := <-runErr:
		runErr <- err
	}
	shuttingDown.Store(true)
	var failure error
	startDrain()
	sctx, cancel := context.WithTimeout(context.Background(), f.flags.shutdownTimeout)
	defer cancel()
	start := time.Now()
	if err := hs.Shutdown(sctx); err != nil {
		// The deadline passed with requests still running (a client that stopped reading, a
		// long list): cut them, so that the process ends when its supervisor expects.
		f.log.Warn("shutdown deadline passed: cutting the requests still running", "after", time.Since(start).Round(time.Millisecond))
		cancelBase()
		_ = hs.Close()
	} else {
		f.log.Info("drained", "took", time.Since(start).Round(time.Millisecond))
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) && failure == nil {
		failure = fmt.Errorf("serve: %w", err)
	}
	stopRun()
	if err := <-runErr; err != nil && failure == nil {
		failure = fmt.Errorf("source: %w", err)
	}
	return failure
}
