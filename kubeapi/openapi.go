package kubeapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"embed"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"github.com/munnerz/goautoneg"
	"github.com/tidwall/gjson"
	"google.golang.org/protobuf/proto"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// OpenAPI: /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>, for `kubectl explain`, and
// for `kubectl apply`'s schema lookups. The documents are kube-apiserver 1.37.2's own, recorded
// from the oracle (reference/record-fidelity.sh writes openapi/*.json.gz; the README says how to
// regenerate them), with their paths narrowed to the resources registered: a path stays when it
// names a registered resource of its group/version (its collection, an object, a subresource, the
// watch paths) or none (the group/version's resource list). Everything else — definitions,
// components, the order of every byte — is as recorded, so with every resource of a group/version
// registered its document is the apiserver's byte for byte.
//
// As in kube-openapi's handlers (pkg/handler, pkg/handler3), each document is served as JSON or
// as its gnostic protobuf, with the ETag the apiserver computes (the SHA-512 of the JSON in upper
// case hex), and the /openapi/v3 index lists each group/version with `?hash=<etag>`; a request
// with a stale hash is redirected to the current one.

//go:embed openapi/*.json.gz
var openAPIFiles embed.FS

// Media types of the OpenAPI documents (kube-openapi's handlers).
const (
	openAPIV2Proto           = "com.github.proto-openapi.spec.v2.v1.0+protobuf"
	openAPIV2ProtoDeprecated = "com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIV3Proto           = "com.github.proto-openapi.spec.v3.v1.0+protobuf"
	openAPIV3ProtoDeprecated = "com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// openAPIDoc is one document as served: its JSON, its ETag, and its protobuf, made on first use.
type openAPIDoc struct {
	json []byte
	etag string
	v3   bool

	protoOnce sync.Once
	proto     []byte
	protoErr  error
}

func newOpenAPIDoc(b []byte, v3 bool) *openAPIDoc {
	return &openAPIDoc{json: b, etag: fmt.Sprintf("%X", sha512.Sum512(b)), v3: v3}
}

func (d *openAPIDoc) protobuf() ([]byte, error) {
	d.protoOnce.Do(func() {
		var m proto.Message
		if d.v3 {
			m, d.protoErr = openapi_v3.ParseDocument(d.json)
		} else {
			m, d.protoErr = openapi_v2.ParseDocument(d.json)
		}
		if d.protoErr == nil {
			d.proto, d.protoErr = proto.Marshal(m)
		}
	})
	return d.proto, d.protoErr
}

// openAPISet is the documents for one set of registrations.
type openAPISet struct {
	gen uint64 // Server.gen they were made for
	v2  *openAPIDoc
	v3  map[string]*openAPIDoc // by group/version path: "api/v1", "apis/apps/v1"
	idx []byte                 // the /openapi/v3 index
}

// recorded decompresses an embedded document; nil if there is none.
func recorded(name string) []byte {
	f, err := openAPIFiles.Open("openapi/" + name + ".json.gz")
	if err != nil {
		return nil
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	return b
}

// served is the set of (group/version path, resource) registered, e.g. {"api/v1": {"pods": {}}}.
type served map[string]map[string]struct{}

// gvPath is the URL path of a group/version below /openapi/v3: "api/v1", "apis/apps/v1".
func gvPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

// keep reports whether an OpenAPI path (e.g. "/api/v1/namespaces/{namespace}/pods/{name}/log")
// belongs to a registered resource, or to none (the group/version's resource list).
func (s served) keep(p string) bool {
	for gv, rs := range s {
		rest, ok := strings.CutPrefix(p, "/"+gv+"/")
		if !ok {
			continue
		}
		rest = strings.TrimPrefix(rest, "watch/")
		if r, ok := strings.CutPrefix(rest, "namespaces/{namespace}/"); ok {
			rest = r
		}
		name, _, _ := strings.Cut(rest, "/")
		if name == "" {
			return true
		}
		_, ok = rs[name]
		return ok
	}
	return false
}

// narrow returns doc with its "paths" object reduced to the members keep admits, every other
// byte as it was.
func narrow(doc []byte, keep func(string) bool) []byte {
	view := unsafe.String(unsafe.SliceData(doc), len(doc))
	paths := gjson.Get(view, "paths")
	if !paths.IsObject() || paths.Index <= 0 {
		return doc
	}
	out := make([]byte, 0, len(doc))
	out = append(out, doc[:paths.Index]...)
	out = append(out, '{')
	n := 0
	paths.ForEach(func(k, v gjson.Result) bool {
		if keep(k.Str) {
			if n > 0 {
				out = append(out, ',')
			}
			n++
			out = append(out, k.Raw...)
			out = append(out, ':')
			out = append(out, v.Raw...)
		}
		return true
	})
	out = append(out, '}')
	return append(out, doc[paths.Index+len(paths.Raw):]...)
}

// openAPI returns the documents for the current registrations, building them on first use after
// a change.
func (s *Server) openAPI() *openAPISet {
	s.mu.RLock()
	gen, set := s.gen, s.openapi
	reg := served{}
	models := map[string][]ResourceInfo{} // by group/version path
	for _, g := range s.groups {
		for _, gv := range g.versions {
			rs := map[string]struct{}{}
			for _, r := range gv.resources {
				rs[r.info.Resource] = struct{}{}
				if r.info.Model != nil {
					models[gvPath(g.name, gv.version)] = append(models[gvPath(g.name, gv.version)], r.info)
				}
			}
			reg[gvPath(g.name, gv.version)] = rs
		}
	}
	s.mu.RUnlock()
	if set != nil && set.gen == gen {
		return set
	}
	set = &openAPISet{gen: gen, v3: map[string]*openAPIDoc{}}
	if v2 := recorded("v2"); v2 != nil {
		doc := narrow(v2, reg.keep)
		var infos []ResourceInfo
		for _, gv := range slices.Sorted(maps.Keys(models)) {
			infos = append(infos, models[gv]...)
		}
		if custom, err := withCustomV2(doc, infos); err != nil {
			s.log.Error("openapi v2", "err", err)
		} else {
			doc = custom
		}
		set.v2 = newOpenAPIDoc(doc, false)
	}
	var gvs []string
	for gv := range reg {
		if doc := recorded("v3_" + strings.ReplaceAll(gv, "/", "_")); doc != nil {
			set.v3[gv] = newOpenAPIDoc(narrow(doc, reg.keep), true)
			gvs = append(gvs, gv)
		} else if infos := models[gv]; len(infos) > 0 {
			doc, err := customV3Document(infos)
			if err != nil {
				s.log.Error("openapi", "groupVersion", gv, "err", err)
				continue
			}
			set.v3[gv] = newOpenAPIDoc(doc, true)
			gvs = append(gvs, gv)
		}
	}
	sort.Strings(gvs)
	// The index as handler3 writes it: {"paths":{"<gv>":{"serverRelativeURL":"/openapi/v3/<gv>?hash=<etag>"}}}.
	idx := []byte(`{"paths":{`)
	for i, gv := range gvs {
		if i > 0 {
			idx = append(idx, ',')
		}
		idx = append(idx, jsonString(gv)...)
		idx = append(idx, `:{"serverRelativeURL":`...)
		idx = append(idx, jsonString("/openapi/v3/"+gv+"?hash="+set.v3[gv].etag)...)
		idx = append(idx, '}')
	}
	set.idx = append(idx, "}}"...)
	s.mu.Lock()
	if s.gen == gen {
		s.openapi = set
	}
	s.mu.Unlock()
	return set
}

// serveOpenAPI answers /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, segs []string) {
	set := s.openAPI()
	switch {
	case len(segs) == 2 && segs[1] == "v2":
		if set.v2 == nil {
			writeStatus(w, notFound())
			return
		}
		serveOpenAPIDoc(w, r, set.v2, openAPIV2Proto, openAPIV2ProtoDeprecated)
	case len(segs) == 2 && segs[1] == "v3":
		// The apiserver's Content-Type for the index (testdata/oracle/openapi-v3.http).
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Etag", strconv.Quote(fmt.Sprintf("%X", sha512.Sum512(set.idx))))
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(set.idx))
	case len(segs) > 2 && segs[1] == "v3":
		gv := strings.Join(segs[2:], "/")
		doc := set.v3[gv]
		if doc == nil {
			writeStatus(w, notFound())
			return
		}
		if hash := r.URL.Query().Get("hash"); hash != "" {
			if hash != doc.etag {
				http.Redirect(w, r, "/openapi/v3/"+gv+"?hash="+doc.etag, http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Cache-Control", "public, immutable")
			w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).Format(time.RFC1123))
		}
		serveOpenAPIDoc(w, r, doc, openAPIV3Proto, openAPIV3ProtoDeprecated)
	default:
		writeStatus(w, notFound())
	}
}

// serveOpenAPIDoc writes a document as JSON or protobuf, whichever the Accept header prefers
// (kube-openapi's negotiation: the first clause that matches; none is 406).
func serveOpenAPIDoc(w http.ResponseWriter, r *http.Request, doc *openAPIDoc, protoTypes ...string) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	w.Header().Add("Vary", "Accept")
	for _, c := range goautoneg.ParseAccept(accept) {
		if c.Type != "application" && c.Type != "*" {
			continue
		}
		body, typ := []byte(nil), ""
		switch {
		case c.SubType == "json" || c.SubType == "*":
			body, typ = doc.json, "application/json"
		case c.SubType == protoTypes[0] || c.SubType == protoTypes[1]:
			b, err := doc.protobuf()
			if err != nil {
				writeStatus(w, apierrors.NewInternalError(fmt.Errorf("openapi protobuf: %w", err)))
				return
			}
			body, typ = b, "application/"+protoTypes[0]
		default:
			continue
		}
		w.Header().Set("Content-Type", typ)
		w.Header().Set("Etag", strconv.Quote(doc.etag))
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
		return
	}
	w.WriteHeader(http.StatusNotAcceptable)
}
