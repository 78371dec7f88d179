package kubeapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/internal/wire"
	"github.com/watchcache/watchcache/watchcache"
)

// bodyBuffer is the size of the buffer a watch, Table or Get body is written through: large
// enough for few writes per body, small enough to cost nothing per request (JSON lists: writeSpliced).
const bodyBuffer = 32 << 10

// paramCodec decodes query parameters into metav1.ListOptions with the conversions the apiserver
// uses (url.Values → v1.ListOptions), so that malformed values get its messages, e.g.
// `strconv.ParseInt: parsing "abc": invalid syntax` for limit=abc, and `watch=1` means true.
var paramCodec = func() runtime.ParameterCodec {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, metav1.SchemeGroupVersion)
	return runtime.NewParameterCodec(s)
}()

// decodeListOptions reads the list/watch query parameters: labelSelector, fieldSelector, watch,
// allowWatchBookmarks, resourceVersion, resourceVersionMatch, timeoutSeconds, limit, continue,
// sendInitialEvents. A malformed value is a 400 BadRequest with the conversion's message.
func decodeListOptions(q url.Values) (metav1.ListOptions, error) {
	var o metav1.ListOptions
	if err := paramCodec.DecodeParameters(q, metav1.SchemeGroupVersion, &o); err != nil {
		return o, apierrors.NewBadRequest(err.Error())
	}
	return o, nil
}

// request is what a resource request asks for, once its path and parameters are parsed.
type request struct {
	res       *resource
	namespace string
	opts      metav1.ListOptions
	out       output
	include   string // includeObject of a Table request
}

// parseRequest negotiates the representation and decodes the parameters, in the apiserver's
// order (406 before 400). A get (a named request without watch) reads only resourceVersion and
// fieldSelector, as the apiserver decodes only GetOptions for it.
func (s *Server) parseRequest(w http.ResponseWriter, r *http.Request, res *resource, namespace, name string) (*request, bool) {
	out, why := negotiate(r.Header.Get("Accept"), res.info.Unstructured, res.protobuf)
	if why != 0 {
		writeStatus(w, notAcceptableFor(why, name == ""))
		return nil, false
	}
	q := r.URL.Query()
	req := &request{res: res, namespace: namespace, out: out}
	if _, watch := q["watch"]; name != "" && !watch {
		req.opts.ResourceVersion, req.opts.FieldSelector = q.Get("resourceVersion"), q.Get("fieldSelector")
	} else {
		opts, err := decodeListOptions(q)
		if err != nil {
			writeStatus(w, apistatus.FromError(err))
			return nil, false
		}
		req.opts = opts
	}
	if fs := req.opts.FieldSelector; fs != "" && res.info.Convert != nil {
		sel, err := fields.ParseSelector(fs)
		if err == nil {
			sel, err = sel.Transform(func(f, v string) (string, string, error) {
				if to, ok := res.info.FieldLabels[f]; ok {
					return to, v, nil
				}
				return "", "", fmt.Errorf("field label not supported: %s", f)
			})
		}
		if err != nil {
			writeStatus(w, apierrors.NewBadRequest(err.Error()))
			return nil, false
		}
		req.opts.FieldSelector = sel.String()
	}
	if fs := req.opts.FieldSelector; fs != "" && res.info.FieldSchema != nil {
		if _, err := res.info.FieldSchema.ParseFields(fs); err != nil {
			writeStatus(w, apistatus.FromError(err))
			return nil, false
		}
	}
	if out.format == formatTable {
		req.include = q.Get("includeObject")
		if err := checkInclude(req.include); err != nil {
			writeStatus(w, apierrors.NewBadRequest(err.Error()))
			return nil, false
		}
	}
	return req, true
}

// serveCollection serves a list, or a watch when asked for (?watch=true or a /watch/ path).
func (s *Server) serveCollection(w http.ResponseWriter, r *http.Request, res *resource, namespace string, watchPath bool) {
	req, ok := s.parseRequest(w, r, res, namespace, "")
	if !ok {
		return
	}
	if req.opts.Watch || watchPath {
		s.serveWatch(w, r, req)
		return
	}
	r, cancel, st := s.withDeadline(r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	defer cancel()
	s.serveList(w, r, req)
}

// serveList answers one page of a list. Items are the cache's bytes, spliced into the list
// document as they are written: no object is decoded or copied (rule 6.5: `items: []` when
// empty). Table lists decode what their columns need, with gjson.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, req *request) {
	o := req.opts
	page, err := req.res.cache.List(r.Context(), watchcache.ListOptions{
		Namespace:            req.namespace,
		LabelSelector:        o.LabelSelector,
		FieldSelector:        o.FieldSelector,
		ResourceVersion:      o.ResourceVersion,
		ResourceVersionMatch: string(o.ResourceVersionMatch),
		Limit:                o.Limit,
		Continue:             o.Continue,
		SendInitialEvents:    o.SendInitialEvents,
	})
	if err != nil {
		if timedOut(r, err) {
			writeTimeout(w)
			return
		}
		writeStatus(w, apistatus.FromError(err))
		return
	}
	if req.out.format == formatMeta && req.out.as != "PartialObjectMetadataList" {
		writeStatusIndented(w, req.res.wrongShape(true))
		return
	}
	switch req.out.enc {
	case wire.Protobuf:
		req.res.writeProtobufList(w, req.out, protobufMeta(page.ResourceVersion, page.Continue, page.RemainingItemCount), page.Items)
		return
	case wire.YAML:
		y := &yamlResponse{ResponseWriter: w}
		defer y.finish()
		w = y
	}
	w.Header().Set("Content-Type", req.out.contentType())
	meta := listMeta(page.ResourceVersion, page.Continue, page.RemainingItemCount)
	if req.res.info.Unstructured && page.Continue == "" && req.out.format == formatJSON {
		meta = append(meta[:len(meta)-1], `,"continue":""}`...)
	}
	if req.out.format == formatMeta {
		w.WriteHeader(http.StatusOK)
		writePartialList(w, req.out.metaVersion, meta, page.Items)
		return
	}
	if req.out.format == formatTable {
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, bodyBuffer)
		t := s.newTable(req)
		items := t.forList(page.Items)
		t.writeHead(bw, meta, true)
		for _, item := range items {
			t.writeRow(bw, item)
		}
		t.writeTail(bw)
		bw.WriteByte('\n')
		_ = bw.Flush() // a failed write means the client went away: nothing left to tell it
		return
	}
	head := make([]byte, 0, 128+len(meta))
	head = append(head, `{"kind":`...)
	head = append(head, jsonString(req.res.info.ListKind)...)
	head = append(head, `,"apiVersion":`...)
	head = append(head, jsonString(req.res.gv)...)
	head = append(head, `,"metadata":`...)
	head = append(head, meta...)
	head = append(head, `,"items":[`...)
	const tail = "]}\n"
	// The size is known before the first byte: sending it spares the chunked encoding, and the
	// body goes out in a few large writes (writeSpliced), not one per buffer of a few KiB.
	size := len(head) + len(tail) + max(len(page.Items)-1, 0)
	items := page.Items
	if req.res.info.Convert != nil {
		items = make([][]byte, len(page.Items))
		for i, item := range page.Items {
			items[i] = req.res.converted(item)
		}
		page.Items = items
	}
	for i, item := range page.Items {
		rest, sliced := req.res.listItem(item)
		if sliced {
			size++ // the '{' written before rest
		} else if len(rest) != len(item) {
			// An object not stored as the apiserver encodes it: keep the copy made without its
			// kind and apiVersion for the write below.
			if &items[0] == &page.Items[0] {
				items = slices.Clone(page.Items)
			}
			items[i] = rest
		}
		size += len(rest)
	}
	w.Header().Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(http.StatusOK)
	writeSpliced(w, head, items, tail, req.res.listItem)
}

// largeWrite is how many bytes writeSpliced gathers before a write: a page of 500 pods (≈1–2 MB)
// goes out in a handful of system calls.
const largeWrite = 256 << 10

var spliceBuffers = sync.Pool{New: func() any { b := make([]byte, 0, largeWrite); return &b }}

// writeSpliced writes head, the items separated by commas, and tail, gathering them into large
// writes; an item larger than the buffer is written as it is. Each item is written as item says:
// `{` then rest when sliced (resource.listItem), else rest. A failed write means the client went
// away: there is nothing left to tell it.
func writeSpliced(w io.Writer, head []byte, items [][]byte, tail string, item func([]byte) (rest []byte, sliced bool)) {
	bp := spliceBuffers.Get().(*[]byte)
	defer spliceBuffers.Put(bp)
	buf := append((*bp)[:0], head...)
	for i, obj := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		rest, sliced := item(obj)
		if sliced {
			buf = append(buf, '{')
		}
		if len(buf)+len(rest) > largeWrite {
			if _, err := w.Write(buf); err != nil {
				return
			}
			buf = buf[:0]
			if len(rest) > largeWrite {
				if _, err := w.Write(rest); err != nil {
					return
				}
				continue
			}
		}
		buf = append(buf, rest...)
	}
	buf = append(buf, tail...)
	_, _ = w.Write(buf)
	*bp = buf[:0]
}

// newTable prepares a Table writer for a request.
func (s *Server) newTable(req *request) *table {
	return &table{res: req.res, version: req.out.metaVersion, include: req.include, now: s.opts.Now()}
}

// listMeta encodes a list's metadata as the apiserver does: resourceVersion, then continue and
// remainingItemCount when set.
func listMeta(rv uint64, cont string, remaining *int64) []byte {
	b := make([]byte, 0, 64+len(cont))
	b = append(b, `{"resourceVersion":"`...)
	b = strconv.AppendUint(b, rv, 10)
	b = append(b, '"')
	if cont != "" {
		b = append(b, `,"continue":`...)
		b = append(b, jsonString(cont)...)
	}
	if remaining != nil {
		b = append(b, `,"remainingItemCount":`...)
		b = strconv.AppendInt(b, *remaining, 10)
	}
	return append(b, '}')
}

// jsonString encodes a string as a JSON string.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}
