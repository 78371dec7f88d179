package kubeapi

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Metadata-only responses (`Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`,
// client-go's metadata client and controller-runtime's metadata-only watches): the apiserver keeps
// each object's ObjectMeta and writes it in a meta.k8s.io envelope of the version asked for
// (testdata/oracle/meta-*.http):
//
//	get:        {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}}
//	list:       {"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{<list meta>},
//	             "items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}},...]}
//	watch:      {"type":"ADDED","object":{"kind":"PartialObjectMetadata",...}}
//
// The stored metadata is ObjectMeta as the apiserver encoded it, so it is copied as it is.

// metadataOf returns obj's top-level metadata object, a sub-slice of obj, or `{}` when it has none.
// One gjson scan, which stops at the end of metadata; nothing is allocated.
func metadataOf(obj []byte) []byte {
	if len(obj) == 0 {
		return []byte("{}")
	}
	view := unsafe.String(unsafe.SliceData(obj), len(obj))
	m := gjson.Get(view, "metadata")
	if !m.IsObject() || m.Index <= 0 {
		return []byte("{}")
	}
	return obj[m.Index : m.Index+len(m.Raw)]
}

// writePartial writes obj's PartialObjectMetadata of meta.k8s.io/version.
func writePartial(bw *bufio.Writer, version string, obj []byte) {
	bw.WriteString(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/`)
	bw.WriteString(version)
	bw.WriteString(`","metadata":`)
	bw.Write(metadataOf(obj))
	bw.WriteByte('}')
}

// writePartialList writes a PartialObjectMetadataList of meta.k8s.io/version with the list
// metadata meta.
func writePartialList(w http.ResponseWriter, version string, meta []byte, items [][]byte) {
	bw := bufio.NewWriterSize(w, bodyBuffer)
	bw.WriteString(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/`)
	bw.WriteString(version)
	bw.WriteString(`","metadata":`)
	bw.Write(meta)
	bw.WriteString(`,"items":[`)
	for i, obj := range items {
		if i > 0 {
			bw.WriteByte(',')
		}
		writePartial(bw, version, obj)
	}
	bw.WriteString("]}\n")
	_ = bw.Flush() // a failed write means the client went away: nothing left to tell it
}

// wrongShape is the apiserver's 406 for PartialObjectMetadataList asked of one object, or
// PartialObjectMetadata of a list (testdata/oracle/meta-get-pod-as-list.http,
// meta-list-pods-as-object.http): it is found once the object or list was read, so the read's own
// errors come first. The message names the apiserver's internal Go type, e.g. `*core.PodList`.
// The apiserver writes this Status indented (writeStatusIndented).
func (r *resource) wrongShape(list bool) *apierrors.StatusError {
	pkg := "core"
	if r.info.Group != "" {
		pkg, _, _ = strings.Cut(r.info.Group, ".")
	}
	msg := "you requested PartialObjectMetadataList, but the requested object is not a list (*" + pkg + "." + r.info.Kind + ")"
	if list {
		msg = "you requested PartialObjectMetadata, but the requested object is a list (*" + pkg + "." + r.info.ListKind + ")"
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReason("NotAcceptable"), Message: msg,
	}}
}

// writeStatusIndented answers with a Status encoded with two-space indentation, as the apiserver
// writes the errors of its response transformations (wrongShape).
func writeStatusIndented(w http.ResponseWriter, st *apierrors.StatusError) {
	s := st.ErrStatus
	s.Kind, s.APIVersion = "Status", "v1"
	b, _ := json.MarshalIndent(&s, "", "  ") // strings and integers: cannot fail
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(s.Code))
	_, _ = w.Write(b) // without a final newline, as recorded
}
