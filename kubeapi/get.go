package kubeapi

import (
	"bufio"
	"net/http"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/internal/wire"
)

// serveObject serves a get of one object, or a watch of it (?watch=true or a /watch/ path).
//
// Rule 4.5: a watch naming an object may carry a field selector only if it selects that name
// (`metadata.name=<name>`), else 400 `fieldSelector metadata.name doesn't match requested name`.
// As in the apiserver, a plain get ignores the field selector.
func (s *Server) serveObject(w http.ResponseWriter, r *http.Request, res *resource, namespace, name string, watchPath bool, view View) {
	req, ok := s.parseRequest(w, r, res, namespace, name)
	if !ok {
		return
	}
	watch := req.opts.Watch || watchPath
	if watch && view != nil {
		writeStatus(w, methodNotSupported(res.gr, "watch", false))
		return
	}
	if fs := req.opts.FieldSelector; fs != "" && watch {
		sel, err := fields.ParseSelector(fs)
		if err != nil {
			writeStatus(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		if v, ok := sel.RequiresExactMatch("metadata.name"); !ok || v != name {
			writeStatus(w, apierrors.NewBadRequest("fieldSelector metadata.name doesn't match requested name"))
			return
		}
	} else {
		req.opts.FieldSelector = "metadata.name=" + fields.EscapeValue(name)
	}
	if watch {
		s.serveWatch(w, r, req)
		return
	}
	r, cancel, st := s.withDeadline(r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	defer cancel()
	obj, _, err := res.cache.Get(r.Context(), namespace, name, req.opts.ResourceVersion)
	if err != nil {
		if timedOut(r, err) {
			writeTimeout(w)
			return
		}
		writeStatus(w, apistatus.FromError(err))
		return
	}
	if view != nil {
		// A view reads the object in the requested version; its answer is written as it is.
		if obj, err = view(res.withKind(obj)); err != nil {
			writeStatus(w, apistatus.FromError(err))
			return
		}
	}
	if req.out.format == formatMeta && req.out.as != "PartialObjectMetadata" {
		writeStatusIndented(w, res.wrongShape(false))
		return
	}
	switch req.out.enc {
	case wire.Protobuf:
		res.writeProtobufObject(w, req.out, obj)
		return
	case wire.YAML:
		y := &yamlResponse{ResponseWriter: w}
		defer y.finish()
		w = y
	}
	w.Header().Set("Content-Type", req.out.contentType())
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, bodyBuffer)
	switch req.out.format {
	case formatTable:
		t := s.newTable(req)
		t.writeHead(bw, objectMeta(obj), true)
		t.writeRow(bw, obj)
		t.writeTail(bw)
	case formatMeta:
		writePartial(bw, req.out.metaVersion, obj)
	default:
		if view == nil {
			obj = res.withKind(obj)
		}
		bw.Write(obj)
	}
	bw.WriteByte('\n')
	_ = bw.Flush()
}

// objectMeta is the metadata of a Table of one object: the object's resourceVersion, as the
// apiserver's table convertor sets it.
func objectMeta(obj []byte) []byte {
	rv := gjson.GetBytes(obj, "metadata.resourceVersion").String()
	if rv == "" {
		return []byte("{}")
	}
	b := append([]byte(`{"resourceVersion":`), jsonString(rv)...)
	return append(b, '}')
}
