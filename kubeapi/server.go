package kubeapi

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/watchcache/watchcache/internal/wire"
	"github.com/watchcache/watchcache/watchcache"
)

// DefaultMinRequestTimeout is the apiserver's --min-request-timeout (1800 s): a watch without
// timeoutSeconds ends after a random time between one and two times this, so that clients spread
// their re-watches (rule 5.7 notes the deadline this gives the watch's bookmarks).
const DefaultMinRequestTimeout = 30 * time.Minute

// Options configure a Server. The zero value is usable.
type Options struct {
	// Version is what /version answers; nil means DefaultVersion().
	Version *version.Info
	// Logger receives one record per request (Debug; Error for 5xx answers); nil discards them.
	Logger *slog.Logger
	// MinRequestTimeout bounds watches without timeoutSeconds (see DefaultMinRequestTimeout);
	// 0 means DefaultMinRequestTimeout.
	MinRequestTimeout time.Duration
	// Now is the clock Table ages are measured against; nil means time.Now.
	Now func() time.Time
	// RequestTimeout bounds a list or a get (see DefaultRequestTimeout); 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
}

// DefaultVersion is the /version of a Server without Options.Version: the Kubernetes version whose
// semantics the cache reproduces, with its emulation and minimum compatibility versions as
// kube-apiserver 1.37.2 states them (reference/observed-kube-apiserver.md, "/version"), marked as
// this server in gitVersion; the commit and build date are the apiserver build's own, and left out.
func DefaultVersion() *version.Info {
	return &version.Info{
		Major:                 "1",
		Minor:                 "37",
		EmulationMajor:        "1",
		EmulationMinor:        "37",
		MinCompatibilityMajor: "1",
		MinCompatibilityMinor: "36",
		GitVersion:            "v1.37.2+watchcache",
		GitTreeState:          "clean",
		GoVersion:             runtime.Version(),
		Compiler:              runtime.Compiler,
		Platform:              runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// Server is an http.Handler serving the Kubernetes REST read path — discovery, list, get and
// watch, in JSON, YAML or protobuf, as objects, kubectl's Tables or metadata only — from watch
// caches, one per resource.
//
// Concurrency: ServeHTTP may be called by any number of goroutines, and Register may be called at
// any time, also while serving. The caches are read only through their List, Get and Watch.
type Server struct {
	opts Options
	log  *slog.Logger

	mu          sync.RWMutex
	groups      []*apiGroup  // registration order; the core group, if any, is among them with name ""
	readyChecks []readyCheck // AddReadyCheck's, in order
	gen         uint64       // counts registrations: what openapi and discovery were made for
	// openapi is the OpenAPI documents for the registrations of gen, nil until asked for.
	openapi *openAPISet
	// discovery is the aggregated discovery documents, made for the registrations of its gen.
	discovery *aggregatedSet
}

// apiGroup is one API group and its versions, by version priority (the first is preferred).
// Server.groups keeps them in the apiserver's order of groups (compareGroups).
type apiGroup struct {
	name     string
	versions []*groupVersion
}

// groupVersion is the resources of one group/version, in registration order.
type groupVersion struct {
	group, version string
	resources      []*resource
	byName         map[string]*resource
}

// resource is one registered resource.
type resource struct {
	info  ResourceInfo
	cache *watchcache.Cache
	gv    string // apiVersion of its objects
	gr    schema.GroupResource
	gvk   schema.GroupVersionKind // of one object
	// protobuf says its objects have a protobuf encoding: a kind of k8s.io/api, not unstructured.
	protobuf bool
	// typePrefix is `{"kind":"<Kind>","apiVersion":"<gv>",`, how its objects begin (typemeta.go).
	typePrefix []byte
	// emptyTail ends a bookmark's object after its metadata (typemeta.go).
	emptyTail []byte
}

// NewServer returns a Server with no resources.
func NewServer(opts Options) *Server {
	if opts.Version == nil {
		opts.Version = DefaultVersion()
	}
	if opts.MinRequestTimeout <= 0 {
		opts.MinRequestTimeout = DefaultMinRequestTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Server{opts: opts, log: log}
}

// Register serves a resource from a cache: /api/v1/... for the core group (Group ""), and
// /apis/{group}/{version}/... otherwise. The cache must hold that resource (same plural name,
// group and scope). Registering the same group, version and resource twice is an error.
func (s *Server) Register(info ResourceInfo, c *watchcache.Cache) error {
	if c == nil {
		return fmt.Errorf("kubeapi: register %s: nil cache", info.Resource)
	}
	info, err := info.withDefaults()
	if err != nil {
		return fmt.Errorf("kubeapi: register %s: %w", info.Resource, err)
	}
	if err := info.checkCache(c); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupLocked(info.Group)
	if g == nil {
		g = &apiGroup{name: info.Group}
		s.groups = append(s.groups, g)
		slices.SortStableFunc(s.groups, func(a, b *apiGroup) int { return compareGroups(a.name, b.name) })
	}
	gv := g.version(info.Version)
	if gv == nil {
		gv = &groupVersion{group: info.Group, version: info.Version, byName: map[string]*resource{}}
		g.versions = append(g.versions, gv)
		// Discovery lists a group's versions by the apiserver's priority, the first preferred:
		// GA before beta before alpha, higher numbers first (v10, v2, v1, v2beta1, v1beta1, v1alpha1;
		// testdata/oracle/discovery-version-priority.http).
		slices.SortStableFunc(g.versions, func(a, b *groupVersion) int {
			return version.CompareKubeAwareVersionStrings(b.version, a.version)
		})
	}
	if _, dup := gv.byName[info.Resource]; dup {
		return fmt.Errorf("kubeapi: %s is already registered in %s", info.Resource, info.GroupVersion())
	}
	r := &resource{
		info:       info,
		cache:      c,
		gv:         info.GroupVersion(),
		gr:         schema.GroupResource{Group: info.Group, Resource: info.Resource},
		gvk:        schema.GroupVersionKind{Group: info.Group, Version: info.Version, Kind: info.Kind},
		protobuf:   !info.Unstructured && info.Convert == nil && wire.HasProtobuf(schema.GroupVersionKind{Group: info.Group, Version: info.Version, Kind: info.Kind}),
		typePrefix: typePrefix(info.Kind, info.GroupVersion()),
		emptyTail:  emptyTail(schema.GroupVersionKind{Group: info.Group, Version: info.Version, Kind: info.Kind}),
	}
	gv.resources = append(gv.resources, r)
	gv.byName[info.Resource] = r
	s.gen++
	return nil
}

func (s *Server) groupLocked(name string) *apiGroup {
	for _, g := range s.groups {
		if g.name == name {
			return g
		}
	}
	return nil
}

func (g *apiGroup) version(v string) *groupVersion {
	for _, gv := range g.versions {
		if gv.version == v {
			return gv
		}
	}
	return nil
}

// lookup returns a group/version, or nil.
func (s *Server) lookup(group, version string) *groupVersion {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if g := s.groupLocked(group); g != nil {
		return g.version(version)
	}
	return nil
}

// ServeHTTP serves one request:
//
//	GET /version, /api, /api/v1, /apis, /apis/{group}, /apis/{group}/{version}   discovery
//	GET /openapi/v2, /openapi/v3, /openapi/v3/{api/v1 | apis/{group}/{version}}   OpenAPI (openapi.go)
//	GET {prefix}/{resource}                                  list (watch with ?watch=true)
//	GET {prefix}/namespaces/{namespace}/{resource}           list in a namespace (watch with ?watch=true)
//	GET {prefix}/namespaces/{namespace}/{resource}/{name}    get (namespaced)
//	GET {prefix}/{resource}/{name}                           get (cluster-scoped)
//	GET {prefix}/watch/...                                   the deprecated watch paths
//
// where {prefix} is /api/v1 or /apis/{group}/{version}. Anything else is a 404 Status; methods
// other than GET and HEAD are a 405 Status.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w}
	s.route(rec, r)
	level := slog.LevelDebug
	if rec.status >= 500 {
		level = slog.LevelError
	}
	if s.log.Enabled(r.Context(), level) {
		s.log.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method), slog.String("uri", r.URL.RequestURI()),
			slog.Int("status", rec.code()), slog.Duration("duration", time.Since(start)))
	}
}

// route dispatches on the path.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	segs := splitPath(r.URL.Path)
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	if len(segs) >= 3 && (segs[0] == "api" || (segs[0] == "apis" && len(segs) >= 4)) {
		var gv *groupVersion
		var rest []string
		if segs[0] == "api" {
			gv, rest = s.lookup("", segs[1]), segs[2:]
		} else {
			gv, rest = s.lookup(segs[1], segs[2]), segs[3:]
		}
		if gv == nil {
			writeStatus(w, notFound())
			return
		}
		s.serveResource(w, r, gv, rest)
		return
	}
	if !read && (len(segs) <= 3 && (len(segs) == 0 || segs[0] == "api" || segs[0] == "apis" || segs[0] == "version")) {
		writeStatus(w, methodNotAllowed())
		return
	}
	switch {
	case len(segs) == 0:
		s.serveRoot(w, r)
	case len(segs) == 1 && segs[0] == "version":
		s.serveVersion(w, r)
	case segs[0] == "openapi":
		s.serveOpenAPI(w, r, segs)
	case len(segs) >= 1 && (segs[0] == "healthz" || segs[0] == "livez" || segs[0] == "readyz"):
		s.serveHealth(w, r, segs)
	case segs[0] == "api" && len(segs) == 1:
		s.serveAPIVersions(w, r)
	case segs[0] == "api" && len(segs) == 2:
		s.serveResourceList(w, r, "", segs[1])
	case segs[0] == "apis" && len(segs) == 1:
		s.serveGroupList(w, r)
	case segs[0] == "apis" && len(segs) == 2:
		s.serveGroup(w, r, segs[1])
	case segs[0] == "apis" && len(segs) == 3:
		s.serveResourceList(w, r, segs[1], segs[2])
	default:
		writeStatus(w, notFound())
	}
}

// splitPath splits a URL path into its non-empty segments.
func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// serveResource resolves the path below a group/version to a resource, a namespace and a name,
// and serves the collection or the object.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, gv *groupVersion, rest []string) {
	watchPath := false
	if rest[0] == "watch" {
		watchPath, rest = true, rest[1:]
	}
	var namespace, name, sub string
	var res *resource
	s.mu.RLock()
	switch {
	case len(rest) >= 3 && len(rest) <= 5 && rest[0] == "namespaces":
		namespace = rest[1]
		if res = gv.byName[rest[2]]; res != nil && !res.info.Namespaced {
			res = nil
		}
		if len(rest) >= 4 {
			name = rest[3]
		}
		if len(rest) == 5 {
			sub = rest[4]
		}
		if res == nil && len(rest) == 3 {
			// /api/v1/namespaces/{name}/{subresource}: a subresource of a namespace, as
			// /api/v1/namespaces/ns/status, where no namespaced resource has that name.
			if ns := gv.byName["namespaces"]; ns != nil && !ns.info.Namespaced {
				res, namespace, name, sub = ns, "", rest[1], rest[2]
			}
		}
	case len(rest) >= 1 && len(rest) <= 3:
		res = gv.byName[rest[0]]
		if len(rest) >= 2 {
			name = rest[1]
			if res != nil && res.info.Namespaced {
				res = nil // /api/v1/pods/{name} does not exist
			}
		}
		if len(rest) == 3 {
			sub = rest[2]
		}
	}
	s.mu.RUnlock()
	if res == nil || namespace == "." || namespace == ".." || name == "." || name == ".." || (sub != "" && watchPath) {
		writeStatus(w, notFound())
		return
	}
	var view View
	if sub != "" {
		switch view = res.info.Views[sub]; {
		case res.info.Views == nil:
			writeStatus(w, notFound())
			return
		case view == nil && res.info.Unstructured:
			// The apiextensions apiserver's answer to a subresource a custom resource does not
			// have names the object, as if it were missing.
			writeStatus(w, apierrors.NewNotFound(res.gr, name))
			return
		case view == nil:
			// kube-apiserver routes a built-in resource's subresources by path: one it does
			// not have is an unknown path.
			writeStatus(w, notFound())
			return
		}
	}
	if res.info.Warning != "" { // on every answer, errors included, as the apiserver sends it
		w.Header().Add("Warning", `299 - "`+res.info.Warning+`"`)
	}
	// From here on, an error is answered in the encoding the request asked for; a JSON request
	// keeps its writer (no allocation on the JSON path).
	if accept := r.Header.Get("Accept"); accept != "" {
		if enc := errorEncoding(accept); enc != wire.JSON {
			w = &errorEncoded{ResponseWriter: w, enc: enc}
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeStatus(w, methodNotSupported(res.gr, r.Method, name == ""))
		return
	}
	if name == "" {
		s.serveCollection(w, r, res, namespace, watchPath)
		return
	}
	s.serveObject(w, r, res, namespace, name, watchPath, view)
}

// withKind returns the object with kind and apiVersion (this version's, for an AnyVersion
// resource), adding them in front when the stored bytes lack them (objects read from etcd have them; others may not). A single-object answer
// (get, watch event) needs them to be decodable; list items are spliced as stored.
func (r *resource) withKind(obj []byte) []byte {
	obj = r.converted(r.inVersion(obj))
	if bytes.HasPrefix(obj, []byte(`{"kind":`)) {
		return obj
	}
	hasKind, hasVersion := gjson.GetBytes(obj, "kind").Exists(), gjson.GetBytes(obj, "apiVersion").Exists()
	if hasKind && hasVersion {
		return obj
	}
	body := bytes.TrimLeft(obj, " \t\r\n")
	if len(body) == 0 || body[0] != '{' {
		return obj
	}
	body = body[1:]
	out := make([]byte, 0, len(obj)+len(r.info.Kind)+len(r.gv)+32)
	out = append(out, '{')
	if !hasKind {
		out = append(out, `"kind":"`...)
		out = append(out, r.info.Kind...)
		out = append(out, `",`...)
	}
	if !hasVersion {
		out = append(out, `"apiVersion":"`...)
		out = append(out, r.gv...)
		out = append(out, `",`...)
	}
	if len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '}' {
		out = out[:len(out)-1] // empty object: no comma before the closing brace
	}
	return append(out, body...)
}

// recorder remembers the status code for the request log. Unwrap lets http.ResponseController
// reach the connection's Flush.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// FlushError flushes the connection and reports a client that went away; http.ResponseController
// prefers it to Flush.
func (r *recorder) FlushError() error {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return http.NewResponseController(r.ResponseWriter).Flush()
}

// Flush implements http.Flusher for handlers that type-assert it.
func (r *recorder) Flush() { _ = r.FlushError() }

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}
