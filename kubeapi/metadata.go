package kubeapi

import (
	"bufio"
	"net/http"
	"unsafe"

	"github.com/tidwall/gjson"
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
