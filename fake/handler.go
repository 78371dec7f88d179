package fake

import (
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/internal/wire"
	"github.com/watchcache/watchcache/kubeapi"
)

// writeProduces are the media types the apiserver's write endpoints answer in, as its 406 lists
// them.
var writeProduces = []string{wire.MediaJSON, wire.MediaYAML, wire.MediaProtobuf}

// target is what a request's path names: a resource, and within it a namespace, an object name and
// a subresource, each possibly empty.
type target struct {
	res                          *served
	namespace, name, subresource string
	// admit is the request as its admission webhooks see it; nil for the fake's own writes.
	admit *admissionRequest
	// bodyProblems are a create's strict decoding problems that its JSON no longer shows (a YAML
	// body's duplicate keys).
	bodyProblems []string
	// lockCommit says the write holds no lock of its object while it is admitted, and takes it
	// for its commit (lockForAdmission).
	lockCommit bool
}

// maxPathSegments is the most segments a path the fake routes has
// (/apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}/{subresource}): splitPath's
// callers keep a path's segments in an array of this size on their stack.
const maxPathSegments = 8

// splitPath is strings.Split(strings.Trim(path, "/"), "/"), the segments in buf when they fit
// (else in a new slice): routing and the request log split every request's path several times.
func splitPath(path string, buf *[maxPathSegments]string) []string {
	rest := strings.Trim(path, "/")
	for n := range buf {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			buf[n] = rest
			return buf[:n+1]
		}
		buf[n], rest = rest[:i], rest[i+1:]
	}
	return strings.Split(strings.Trim(path, "/"), "/")
}

// parsePath resolves /api/v1/... and /apis/{group}/{version}/... to a target; ok is false for
// paths that name no served resource (discovery, /version, unknown resources), which the read path
// answers.
func (s *Server) parsePath(path string) (target, bool) {
	var buf [maxPathSegments]string
	segs := splitPath(path, &buf)
	var group, version string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		version, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		group, version, segs = segs[1], segs[2], segs[3:]
	default:
		return target{}, false
	}
	if segs[0] == "watch" {
		return target{}, false
	}
	lookup := func(resource string) *served {
		if r := s.res[group+"/"+version+"/"+resource]; r != nil {
			return r
		}
		return s.lookupCustom(group + "/" + version + "/" + resource)
	}
	var t target
	if len(segs) >= 3 && segs[0] == "namespaces" {
		if r := lookup(segs[2]); r != nil && r.namespaced {
			t = target{res: r, namespace: segs[1]}
			segs = segs[3:]
		}
	}
	if t.res == nil {
		r := lookup(segs[0])
		if r == nil || r.namespaced {
			return target{}, false
		}
		t.res, segs = r, segs[1:]
	}
	switch len(segs) {
	case 0:
	case 1:
		t.name = segs[0]
	case 2:
		t.name, t.subresource = segs[0], segs[1]
	default:
		return target{}, false
	}
	return t, true
}

// writeVerb is the verb of a write with method to an object (name) or a collection.
func writeVerb(method, name string) string {
	switch {
	case method == http.MethodPost:
		return "create"
	case method == http.MethodPut:
		return "update"
	case method == http.MethodDelete && name == "":
		return "deletecollection"
	}
	return strings.ToLower(method)
}

// allNamespacesPath says whether path is under a built-in namespaced resource's all-namespaces
// path (/api/v1/configmaps, /apis/apps/v1/deployments/...), and whether it is the collection
// itself.
func (s *Server) allNamespacesPath(path string) (collection, found bool) {
	var buf [maxPathSegments]string
	segs := splitPath(path, &buf)
	var key string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		key, segs = "/"+segs[1]+"/"+segs[2], segs[3:]
	case len(segs) >= 4 && segs[0] == "apis":
		key, segs = segs[1]+"/"+segs[2]+"/"+segs[3], segs[4:]
	default:
		return false, false
	}
	r := s.res[key]
	if r == nil || !r.namespaced {
		return false, false
	}
	return len(segs) == 0, true
}

// serveAPI serves the Kubernetes API: reads through kubeapi's read path, writes here.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	t, ok := s.parsePath(r.URL.Path)
	switch ns, collection, named := bindingsPath(r.URL.Path); {
	case collection:
		if pods := s.servedGR(podsGR); pods != nil {
			// The bindings collection: the pods' binding subresource under another name.
			t, ok = target{res: pods, namespace: ns, subresource: "binding"}, true
		}
	case named:
		writeError(w, notFoundPath())
		return
	}
	podWrite := ok && t.res.gvr.GroupResource() == podsGR && t.res.custom == nil && (t.subresource == "binding" || t.subresource == "eviction")
	tokenWrite := ok && t.res.gvr.GroupResource() == serviceAccountsGR && t.subresource == "token"
	if !ok && s.namespacedPathOfClusterCustom(r.URL.Path) {
		http.NotFound(w, r) // the apiserver's CR handler: a plain-text 404
		return
	}
	if ok && t.res.custom != nil && t.subresource != "" && !(t.subresource == "status" && t.res.status) && !(t.subresource == "scale" && t.res.scale) {
		writeError(w, customNotFound(t))
		return
	}
	review, isReview := parseReviewPath(r.URL.Path)
	if !ok && !read && !isReview {
		if collection, found := s.allNamespacesPath(r.URL.Path); found {
			// kube-apiserver serves a namespaced resource's all-namespaces path for reads
			// only: a write to the collection is a method its route lacks, one to a name
			// below it a path it does not have.
			if collection {
				writeError(w, methodNotAllowed())
			} else {
				writeError(w, notFoundPath())
			}
			return
		}
	}
	if !isReview && (!ok || (read && t.subresource == "" && !podWrite && !tokenWrite)) {
		s.api.ServeHTTP(w, r)
		return
	}
	if ok && !isReview {
		// Before any of the write's own, as the apiserver's handler; a verb the resource lacks
		// has no handler (go-restful refuses it first).
		if msg := kubeapi.DeprecationWarning(t.res.gvr); msg != "" && t.res.custom == nil && (t.subresource != "" || t.res.hasVerb(writeVerb(r.Method, t.name))) {
			addWarnings(w, []string{msg})
		}
	}
	w, ok = negotiate(w, r, isReview || t.res.custom == nil)
	if !ok {
		return
	}
	if isReview {
		s.serveReview(w, r, review)
		return
	}
	if podWrite {
		s.servePodWrite(w, r, t.namespace, t.name, t.subresource)
		return
	}
	if t.subresource == "token" && t.res.gvr.GroupResource() == serviceAccountsGR && t.res.custom == nil {
		s.serveToken(w, r, t)
		return
	}
	if t.subresource == "scale" && t.res.custom != nil && t.res.scale {
		s.customScale(w, r, t)
		return
	}
	if t.subresource == "finalize" && t.res.gvr.GroupResource() == namespacesGR {
		if r.Method != http.MethodPut {
			writeError(w, methodNotAllowed())
			return
		}
		s.update(w, r, t)
		return
	}
	if t.subresource != "" && !(t.subresource == "status" && t.res.status) && !(t.subresource == "scale" && t.res.scale) && !(t.subresource == "approval" && isCSR(t)) && !isPodSubresource(t, "ephemeralcontainers") && !isPodSubresource(t, "resize") {
		writeError(w, notFoundPath())
		return
	}
	if t.namespace == "." || t.namespace == ".." || t.name == "." || t.name == ".." {
		writeError(w, notFoundPath())
		return
	}
	if t.subresource == "scale" {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			s.getScale(w, r, t)
		case http.MethodPut, http.MethodPatch:
			s.writeScale(w, r, t)
		default:
			writeError(w, methodNotSupported(t, r.Method))
		}
		return
	}
	switch {
	case read: // GET of the status subresource: the object
		s.getStatus(w, r, t)
	case r.Method == http.MethodPost && t.name == "":
		s.create(w, r, t)
	case r.Method == http.MethodPut && t.name != "":
		s.update(w, r, t)
	case r.Method == http.MethodPatch && t.name != "":
		s.patch(w, r, t)
	case r.Method == http.MethodDelete && t.name != "" && t.subresource == "":
		s.delete(w, r, t)
	case r.Method == http.MethodDelete && t.name == "":
		s.deleteCollection(w, r, t)
	case r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch || r.Method == http.MethodDelete:
		// A verb on the wrong path (POST to an object, PUT to a collection).
		writeError(w, methodNotAllowed())
	default:
		writeError(w, methodNotSupported(t, r.Method))
	}
}

// negotiate returns w answering in the encoding r accepts (builtin: protobuf is one of them), or
// false after answering 406. The encoding is negotiated before anything is written (a create with
// an Accept nothing admits stores nothing: reference/observed-encodings.md), and errors after it
// are answered in it.
func negotiate(w http.ResponseWriter, r *http.Request, builtin bool) (http.ResponseWriter, bool) {
	accept := r.Header.Get("Accept")
	if accept != "" && !wire.RouteAdmits(accept, writeProduces) {
		writeError(w, notAcceptable())
		return w, false
	}
	enc, ok := wire.ObjectEncoding(accept, builtin)
	ew := &encodedWriter{ResponseWriter: w, enc: enc}
	if !ok {
		ew.enc = wire.ErrorEncoding(accept)
		writeError(ew, statusError(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
			"only the following media types are accepted: "+strings.Join(writeProduces, ", ")))
		return ew, false
	}
	return ew, true
}
