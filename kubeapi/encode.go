package kubeapi

import (
	"bytes"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/internal/wire"
)

// Responses in YAML and protobuf (reference/observed-encodings.md). The cache holds JSON:
//
//   - YAML is the JSON answer converted by sigs.k8s.io/yaml, as the apiserver's YAML serializer
//     converts its own JSON, so the bytes are the apiserver's (keys sorted, a final newline). The
//     JSON answer is built whole first (yamlResponse); YAML is for people, not for bulk reads.
//   - protobuf decodes each object's JSON into its k8s.io/api type and marshals it, one item at a
//     time for a list (wire.List), in the `k8s\x00` envelope; a watch writes length-prefixed
//     metav1.WatchEvent frames.

// yamlResponse collects a JSON answer and writes it as YAML when finished. Its header is the
// response's; Content-Type and Content-Length are set for the YAML.
type yamlResponse struct {
	http.ResponseWriter
	code int
	buf  bytes.Buffer
}

func (y *yamlResponse) WriteHeader(code int) {
	if y.code == 0 {
		y.code = code
	}
}

func (y *yamlResponse) Write(b []byte) (int, error) {
	if y.code == 0 {
		y.code = http.StatusOK
	}
	return y.buf.Write(b)
}

// finish converts what was written and sends it.
func (y *yamlResponse) finish() {
	out, err := wire.ToYAML(y.buf.Bytes())
	h := y.ResponseWriter.Header()
	if err != nil {
		h.Del("Content-Length")
		writeStatus(y.ResponseWriter, apierrors.NewInternalError(err))
		return
	}
	h.Set("Content-Type", wire.MediaYAML)
	h.Set("Content-Length", strconv.Itoa(len(out)))
	y.ResponseWriter.WriteHeader(y.code)
	_, _ = y.ResponseWriter.Write(out)
}

// writeBody sends a whole body with its Content-Type and Content-Length, as the apiserver sends
// non-streamed answers.
func writeBody(w http.ResponseWriter, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// writeProtobufObject answers a get in protobuf: the object, or its PartialObjectMetadata.
func (res *resource) writeProtobufObject(w http.ResponseWriter, out output, obj []byte) {
	var b []byte
	var err error
	if out.format == formatMeta {
		b, err = wire.AppendPartial(nil, out.metaVersion, metadataOf(obj))
	} else {
		b, err = wire.AppendObject(nil, res.gvk, obj)
	}
	if err != nil {
		writeStatus(w, apierrors.NewInternalError(err))
		return
	}
	writeBody(w, wire.MediaProtobuf, b)
}

// writeProtobufList answers a list in protobuf: the typed list with meta, its items decoded and
// marshalled one at a time, or a PartialObjectMetadataList.
func (res *resource) writeProtobufList(w http.ResponseWriter, out output, meta *metav1.ListMeta, items [][]byte) {
	if out.format == formatMeta {
		md := make([][]byte, len(items))
		for i, item := range items {
			md[i] = metadataOf(item)
		}
		b, err := wire.PartialList(out.metaVersion, *meta, md)
		if err != nil {
			writeStatus(w, apierrors.NewInternalError(err))
			return
		}
		writeBody(w, wire.MediaProtobuf, b)
		return
	}
	l := wire.NewList(res.gvk, res.info.ListKind)
	defer l.Release()
	for _, item := range items {
		if err := l.Add(item); err != nil {
			writeStatus(w, apierrors.NewInternalError(err))
			return
		}
	}
	h := w.Header()
	h.Set("Content-Type", wire.MediaProtobuf)
	h.Set("Content-Length", strconv.Itoa(l.Size(meta)))
	w.WriteHeader(http.StatusOK)
	_, _ = l.WriteTo(w, meta) // a failed write means the client went away
}

// protobufMeta is a list's metadata for its protobuf encoding.
func protobufMeta(rv uint64, cont string, remaining *int64) *metav1.ListMeta {
	return &metav1.ListMeta{ResourceVersion: strconv.FormatUint(rv, 10), Continue: cont, RemainingItemCount: remaining}
}
