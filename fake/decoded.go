package fake

import (
	"bytes"
	"hash/maphash"
	"reflect"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
)

// A write decodes the stored object it changes (decodeStored), and a protobuf answer decodes the
// object the write stored (protobufBody): the same JSON, decoded twice, one write apart, whenever
// a client writes an object again after writing it (an update loop, a controller's status writes,
// a re-apply). storedDecodings keeps the second decoding for the first.
//
// It is keyed by content: an entry holds the stored JSON and the object decoded from it, and a
// lookup hits only for equal bytes and the same Go type, so what it returns is what decoding the
// bytes gives, whoever stored them and in whichever server of the process. Only JSON the fake
// encoded itself (commitEncoded's, registered by stored) gets an object: such JSON has exactly the
// field names of its Go type and no field of an interface type (k8s.io/api has none), on which the
// protobuf answer's decoder (wire.Decode: case-sensitive, integers kept as int64) and
// decodeStored's (encoding/json) decode alike; JSON written by Server.Store or Options.Objects may
// spell a field in another case, which they do not read alike.
var storedDecodings = newDecodingMemo()

// decodingSlots is the number of entries decodingMemo keeps: an object is written again soon
// after it was written, or its entry has been replaced, which costs one decoding. 64 entries are
// a few hundred KiB of objects at most and cover the objects a test or a controller's loop
// writes in turn.
const decodingSlots = 64

// decodingMemo maps stored JSON to its decoded object, in decodingSlots entries chosen by the
// JSON's hash; an entry replaces the one in its slot. Safe for concurrent use: entries are
// published by atomic stores and never changed.
type decodingMemo struct {
	seed  maphash.Seed
	slots [decodingSlots]atomic.Pointer[decodedEntry]
}

// decodedEntry is one stored object's JSON and, once decoded, its object, which nobody changes.
type decodedEntry struct {
	raw []byte
	obj runtime.Object // nil until decoded
}

// newDecodingMemo returns an empty memo with a seed of its own.
func newDecodingMemo() *decodingMemo { return &decodingMemo{seed: maphash.MakeSeed()} }

func (m *decodingMemo) slot(raw []byte) *atomic.Pointer[decodedEntry] {
	return &m.slots[maphash.Bytes(m.seed, raw)%decodingSlots]
}

// stored registers raw, the JSON of an object the fake encoded and stored, for its decoding to be
// kept (decoded). raw must not change afterwards: it is the cache's record, which never does.
func (m *decodingMemo) stored(raw []byte) {
	m.slot(raw).Store(&decodedEntry{raw: raw})
}

// keep registers raw, as stored does, with obj as its decoding: an object losslessJSON found
// raw to give back. Neither may change afterwards.
func (m *decodingMemo) keep(raw []byte, obj runtime.Object) {
	m.slot(raw).Store(&decodedEntry{raw: raw, obj: obj})
}

// decoded keeps obj as the decoding of raw when raw is registered (stored) and has no object yet.
// obj must not change afterwards.
func (m *decodingMemo) decoded(raw []byte, obj runtime.Object) {
	s := m.slot(raw)
	e := s.Load()
	if e == nil || e.obj != nil || !bytes.Equal(e.raw, raw) {
		return
	}
	s.CompareAndSwap(e, &decodedEntry{raw: e.raw, obj: obj})
}

// get returns the kept decoding of raw, which the caller must not change, or false. A non-nil typ
// is the Go type the caller decodes into: an object of another type is not returned.
func (m *decodingMemo) get(raw []byte, typ reflect.Type) (runtime.Object, bool) {
	e := m.slot(raw).Load()
	if e == nil || e.obj == nil || (typ != nil && reflect.TypeOf(e.obj) != typ) || !bytes.Equal(e.raw, raw) {
		return nil, false
	}
	return e.obj, true
}

// storedEncodings hands the object encodeStored encoded to the commit that stores its JSON, which
// keeps it as the JSON's decoding when losslessJSON says decoding would give it back
// (commitEncoded). An update encodes before it commits, so the object travels with its bytes.
var storedEncodings = newEncodingTable()

// encodingSlots is the number of encodings the table holds: one per write between its encoding
// and its commit, so 64 cover 16 concurrent writers with room for the collisions of their hashes
// and for encodings never committed (dry runs, no-op updates), which the next in their slot
// replaces. A lost entry costs one decoding.
const encodingSlots = 64

// encodingTable maps an encoding's JSON to the object it encoded, in encodingSlots entries chosen
// by the JSON's hash; an entry replaces the one in its slot. Safe for concurrent use.
type encodingTable struct {
	seed  maphash.Seed
	slots [encodingSlots]atomic.Pointer[decodedEntry]
}

func newEncodingTable() *encodingTable { return &encodingTable{seed: maphash.MakeSeed()} }

// put records obj as the object raw encodes. The caller gives obj up: whoever takes it owns it.
func (t *encodingTable) put(raw []byte, obj runtime.Object) {
	t.slots[maphash.Bytes(t.seed, raw)%encodingSlots].Store(&decodedEntry{raw: raw, obj: obj})
}

// take returns the object recorded for bytes equal to raw and removes it, so that one caller
// owns it; nil when there is none.
func (t *encodingTable) take(raw []byte) runtime.Object {
	s := &t.slots[maphash.Bytes(t.seed, raw)%encodingSlots]
	e := s.Load()
	if e == nil || !bytes.Equal(e.raw, raw) || !s.CompareAndSwap(e, nil) {
		return nil
	}
	return e.obj
}
