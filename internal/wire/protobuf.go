package wire

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	sigsjson "sigs.k8s.io/json"
)

// The protobuf encoding of an object (k8s.io/apimachinery/pkg/runtime/serializer/protobuf) is
//
//	"k8s\x00"                                  magic number
//	runtime.Unknown{                           a protobuf message:
//	  1: TypeMeta{1: apiVersion, 2: kind}       the object's kind, e.g. {"v1","Pod"}
//	  2: raw                                    the object's own protobuf encoding
//	  3: contentEncoding ""  4: contentType ""  always written, empty
//	}
//
// A list's raw is its ListMeta as field 1 and each item as field 2, in order (the layout every
// k8s.io/api list shares, which the apiserver's streaming list encoder relies on too). A watch
// stream is a sequence of frames, each a 4-byte big-endian length and a metav1.WatchEvent
// without envelope: {1: type, 2: RawExtension{1: the object's enveloped encoding}}.

// magic starts every enveloped protobuf body.
var magic = []byte("k8s\x00")

// Protobuf field tags (field number << 3 | wire type 2).
const (
	tagField1 = 0x0a
	tagField2 = 0x12
)

// message is what gogo-generated types implement.
type message interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// marshaller is an object of a k8s.io/api type.
type marshaller interface {
	runtime.Object
	message
}

// HasProtobuf reports whether objects of a kind can be encoded in protobuf: the kinds of
// client-go's scheme (k8s.io/api's types) can; custom resources, unknown to it, cannot.
func HasProtobuf(gvk schema.GroupVersionKind) bool {
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return false
	}
	_, ok := obj.(marshaller)
	return ok
}

// decode decodes an object's JSON into a new object of its kind, as the apiserver's JSON
// serializer decodes (case-sensitive field names).
func decode(gvk schema.GroupVersionKind, obj []byte) (marshaller, error) {
	o, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("wire: protobuf of %s: %w", gvk.Kind, err)
	}
	m, ok := o.(marshaller)
	if !ok {
		return nil, fmt.Errorf("wire: %s has no protobuf encoding", gvk.Kind)
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(obj, m); err != nil {
		return nil, fmt.Errorf("wire: decode %s for protobuf: %w", gvk.Kind, err)
	}
	return m, nil
}

// appendMessage appends m's protobuf encoding of known size n.
func appendMessage(dst []byte, m message, n int) ([]byte, error) {
	start := len(dst)
	dst = grow(dst, n)
	if _, err := m.MarshalToSizedBuffer(dst[start:]); err != nil {
		return dst[:start], fmt.Errorf("wire: marshal %T: %w", m, err)
	}
	return dst, nil
}

// grow extends dst by n bytes.
func grow(dst []byte, n int) []byte {
	l := len(dst)
	return slices.Grow(dst, n)[:l+n]
}

func appendVarint(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

func varintSize(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// appendString appends a length-delimited string field.
func appendString(dst []byte, tag byte, s string) []byte {
	dst = append(dst, tag)
	dst = appendVarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// appendEnvelopeHead appends the magic number and the Unknown's fields up to its raw's bytes, for
// a raw of rawSize bytes; appendEnvelopeTail closes it.
func appendEnvelopeHead(dst []byte, apiVersion, kind string, rawSize int) []byte {
	dst = append(dst, magic...)
	tm := 1 + varintSize(uint64(len(apiVersion))) + len(apiVersion) + 1 + varintSize(uint64(len(kind))) + len(kind)
	dst = append(dst, tagField1)
	dst = appendVarint(dst, uint64(tm))
	dst = appendString(dst, tagField1, apiVersion)
	dst = appendString(dst, tagField2, kind)
	dst = append(dst, tagField2)
	return appendVarint(dst, uint64(rawSize))
}

// envelopeTail is the Unknown's empty contentEncoding (3) and contentType (4).
var envelopeTail = []byte{0x1a, 0x00, 0x22, 0x00}

// appendEnveloped appends m in its envelope.
func appendEnveloped(dst []byte, apiVersion, kind string, m message) ([]byte, error) {
	n := m.Size()
	dst = appendEnvelopeHead(dst, apiVersion, kind, n)
	dst, err := appendMessage(dst, m, n)
	if err != nil {
		return dst, err
	}
	return append(dst, envelopeTail...), nil
}

// AppendObject appends the enveloped protobuf encoding of an object of kind gvk, given as JSON
// (kind and apiVersion in the JSON are not read: the envelope names gvk).
func AppendObject(dst []byte, gvk schema.GroupVersionKind, obj []byte) ([]byte, error) {
	m, err := decode(gvk, obj)
	if err != nil {
		return dst, err
	}
	return appendEnveloped(dst, gvk.GroupVersion().String(), gvk.Kind, m)
}

// Decode decodes an object's JSON into a new object of kind gvk, as AppendObject does before it
// encodes it: for a caller that keeps the decoded object (AppendDecoded encodes it).
func Decode(gvk schema.GroupVersionKind, obj []byte) (runtime.Object, error) {
	return decode(gvk, obj)
}

// AppendDecoded appends the enveloped protobuf encoding of obj, an object of kind gvk that Decode
// returned (or any object of a k8s.io/api type). It changes obj only as marshalling a
// resource.Quantity does: a Quantity field without its string gets it (Quantity.String), so an
// object other goroutines read must be marshalled before they may.
func AppendDecoded(dst []byte, gvk schema.GroupVersionKind, obj runtime.Object) ([]byte, error) {
	m, ok := obj.(marshaller)
	if !ok {
		return dst, fmt.Errorf("wire: %s has no protobuf encoding", gvk.Kind)
	}
	return appendEnveloped(dst, gvk.GroupVersion().String(), gvk.Kind, m)
}

// statusGV is the apiVersion the apiserver writes on every Status, whatever the group.
const statusGV = "v1"

// Status returns a Status's enveloped protobuf encoding (apiVersion v1, kind Status).
func Status(st *metav1.Status) []byte {
	s := *st
	s.TypeMeta = metav1.TypeMeta{}
	b, err := appendEnveloped(nil, statusGV, "Status", &s)
	if err != nil {
		// A Status is strings and integers: its marshalling cannot fail.
		panic(err)
	}
	return b
}

// List encodes a list in protobuf one item at a time: each item's JSON is decoded and marshalled
// when it is added, into one buffer, so that the typed objects of a page never exist together.
// A List is used by one goroutine; Release returns its buffer for reuse.
type List struct {
	gvk      schema.GroupVersionKind // of an item
	listKind string
	items    []byte // the items' field-2 encodings, in order
}

var listBuffers = sync.Pool{New: func() any { return new([]byte) }}

// NewList starts a list of items of kind gvk whose list kind is listKind (e.g. PodList).
func NewList(gvk schema.GroupVersionKind, listKind string) *List {
	bp := listBuffers.Get().(*[]byte)
	return &List{gvk: gvk, listKind: listKind, items: (*bp)[:0]}
}

// Add decodes one item's JSON and appends its encoding.
func (l *List) Add(obj []byte) error {
	m, err := decode(l.gvk, obj)
	if err != nil {
		return err
	}
	n := m.Size()
	l.items = append(l.items, tagField2)
	l.items = appendVarint(l.items, uint64(n))
	l.items, err = appendMessage(l.items, m, n)
	return err
}

// WriteTo writes the enveloped list with its ListMeta to w, in two writes.
func (l *List) WriteTo(w io.Writer, meta *metav1.ListMeta) (int64, error) {
	mn := meta.Size()
	raw := 1 + varintSize(uint64(mn)) + mn + len(l.items)
	head := appendEnvelopeHead(make([]byte, 0, 64+mn), l.gvk.GroupVersion().String(), l.listKind, raw)
	head = append(head, tagField1)
	head = appendVarint(head, uint64(mn))
	head, err := appendMessage(head, meta, mn)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(head)
	if err != nil {
		return int64(n), err
	}
	l.items = append(l.items, envelopeTail...)
	m, err := w.Write(l.items)
	l.items = l.items[:len(l.items)-len(envelopeTail)]
	return int64(n + m), err
}

// Size is the length of the body WriteTo writes.
func (l *List) Size(meta *metav1.ListMeta) int {
	mn := meta.Size()
	raw := 1 + varintSize(uint64(mn)) + mn + len(l.items)
	apiVersion := l.gvk.GroupVersion().String()
	tm := 2 + varintSize(uint64(len(apiVersion))) + len(apiVersion) + varintSize(uint64(len(l.listKind))) + len(l.listKind)
	return len(magic) + 1 + varintSize(uint64(tm)) + tm + 1 + varintSize(uint64(raw)) + raw + len(envelopeTail)
}

// Release returns the list's buffer to the pool; the List must not be used after.
func (l *List) Release() {
	if cap(l.items) <= 16<<20 { // a page of a few MB is kept; a rare huge one is left to the collector
		b := l.items[:0]
		listBuffers.Put(&b)
	}
	l.items = nil
}

// AppendWatchFrame appends one frame of a protobuf watch stream: the event's type and its object,
// already enveloped (AppendObject, Status).
func AppendWatchFrame(dst []byte, eventType string, object []byte) []byte {
	ext := 1 + varintSize(uint64(len(object))) + len(object)
	ev := 1 + varintSize(uint64(len(eventType))) + len(eventType) + 1 + varintSize(uint64(ext)) + ext
	dst = binary.BigEndian.AppendUint32(dst, uint32(ev))
	dst = appendString(dst, tagField1, eventType)
	dst = append(dst, tagField2)
	dst = appendVarint(dst, uint64(ext))
	dst = append(dst, tagField1)
	dst = appendVarint(dst, uint64(len(object)))
	return append(dst, object...)
}
