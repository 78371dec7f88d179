package etcd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// Prefixes of the encodings the apiserver stores (k8s.io/apimachinery runtime/serializer/protobuf:
// protoEncodingPrefix; runtime/serializer/cbor: selfDescribedCBOR; k8s.io/apiserver
// storage/value/encrypt: "k8s:enc:<provider>:v1:<name>:").
var (
	protobufMagic  = []byte("k8s\x00")
	encryptedMagic = []byte("k8s:enc:")
	cborMagic      = []byte{0xd9, 0xd9, 0xf7} // self-described CBOR tag 55799
)

// decoder turns stored values into the JSON the apiserver serves. Protobuf and CBOR values are
// decoded into the scheme's typed objects, the mod revision is set as metadata.resourceVersion, and
// the object is written with encoding/json, as the apiserver's JSON serializer writes it: fields in
// struct order, apiVersion and kind as stored. JSON values are kept as stored, the revision spliced
// in. Its methods are safe for concurrent use: the serializers hold no per-call state.
type decoder struct {
	proto *protobuf.Serializer
	cbor  runtime.Serializer
}

// newDecoder returns a decoder of the types registered in s; nil means client-go's scheme (every
// built-in type of k8s.io/api).
func newDecoder(s *runtime.Scheme) *decoder {
	if s == nil {
		s = scheme.Scheme
	}
	return &decoder{proto: protobuf.NewSerializer(s, s), cbor: cbor.NewSerializer(s, s)}
}

// decodeError is why a value cannot be decoded. reason is the same for every value that fails the
// same way (the encoding and kind, not the key or the bytes), so that the log says it once.
type decodeError struct {
	reason string
	err    error // the serializer's error, if any
}

func (e *decodeError) Error() string {
	if e.err == nil {
		return ErrUndecodable.Error() + ": " + e.reason
	}
	return ErrUndecodable.Error() + ": " + e.reason + ": " + e.err.Error()
}

func (e *decodeError) Is(target error) bool { return target == ErrUndecodable }
func (e *decodeError) Unwrap() error        { return e.err }

func undecodable(reason string, err error) error { return &decodeError{reason: reason, err: err} }

// reasonOf is the class of a skip error, the key of the once-per-reason warning.
func reasonOf(err error) string {
	if de, ok := errors.AsType[*decodeError](err); ok {
		return de.reason
	}
	if errors.Is(err, ErrUntransformable) {
		return ErrUntransformable.Error()
	}
	return "rejected by the cache"
}

// read turns the value etcd holds under key into the object the cache keeps: Options.Transform,
// if set, then decode. A failed transformation is ErrUntransformable.
func (s *Source) read(ctx context.Context, key, value []byte, rev uint64) ([]byte, error) {
	if s.opts.Transform != nil {
		v, err := s.opts.Transform(ctx, string(key), value)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUntransformable, err)
		}
		value = v
	}
	return s.dec.decode(value, rev)
}

// decode turns a stored value into the object the cache keeps: the JSON the apiserver serves, with
// metadata.resourceVersion set to rev. The apiserver clears resourceVersion before it writes (the
// mod revision is the version), so the field is normally added; an existing one is replaced. The
// result is a fresh slice: value (owned by the etcd response) is not retained.
//
// One conversion per value: a protobuf or CBOR value is decoded once into its typed object and
// encoded once as JSON (BenchmarkDecode measures it beside the apiserver's own decode); a JSON value
// is scanned once to splice the revision in. Writing the RV here rather than leaving it to
// Cache.Apply (which would splice it too) saves the cache its second parse of every object.
func (d *decoder) decode(value []byte, rev uint64) ([]byte, error) {
	switch {
	case bytes.HasPrefix(value, protobufMagic):
		return d.decodeProtobuf(value, rev)
	case bytes.HasPrefix(value, cborMagic):
		return d.decodeCBOR(value, rev)
	case bytes.HasPrefix(value, encryptedMagic):
		return nil, undecodable(encryptedReason(value), nil)
	}
	v := bytes.TrimSpace(value) // json.Encoder ends every stored object with "\n"
	switch {
	case len(v) == 0:
		return nil, undecodable("empty value", nil)
	case v[0] != '{':
		return nil, undecodable(fmt.Sprintf("neither JSON, protobuf nor CBOR (starts with %q)", v[:min(len(v), 4)]), nil)
	}
	return stampRV(v, rev)
}

// decodeProtobuf decodes a protobuf value (runtime.Unknown after the "k8s\x00" prefix) into the
// scheme's type for the kind it names.
func (d *decoder) decodeProtobuf(value []byte, rev uint64) ([]byte, error) {
	obj, gvk, err := d.proto.Decode(value, nil, nil)
	if err != nil {
		if runtime.IsNotRegisteredError(err) && gvk != nil {
			return nil, undecodable(fmt.Sprintf("protobuf value of %s, a kind the scheme lacks", gvk), nil)
		}
		return nil, undecodable("malformed protobuf value", err)
	}
	return encodeJSON(obj, rev, "protobuf")
}

// decodeCBOR decodes a CBOR value into the scheme's type for its apiVersion and kind, or, for a kind
// the scheme lacks (a custom resource), into unstructured content, as the apiserver does.
func (d *decoder) decodeCBOR(value []byte, rev uint64) ([]byte, error) {
	obj, _, err := d.cbor.Decode(value, nil, nil)
	if runtime.IsNotRegisteredError(err) {
		obj, _, err = d.cbor.Decode(value, nil, &unstructured.Unstructured{})
	}
	if err != nil {
		return nil, undecodable("malformed CBOR value", err)
	}
	return encodeJSON(obj, rev, "CBOR")
}

// encodeJSON sets obj's resourceVersion and writes it as the apiserver's JSON serializer does
// (encoding/json, without its trailing newline).
func encodeJSON(obj runtime.Object, rev uint64, encoding string) ([]byte, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, undecodable(encoding+" value without metadata", err)
	}
	m.SetResourceVersion(strconv.FormatUint(rev, 10))
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, undecodable(encoding+" value not representable as JSON", err)
	}
	return out, nil
}

// encryptedReason names the provider and key of a value encrypted at rest
// ("k8s:enc:aescbc:v1:key1:" → provider aescbc, key key1): values of one key fail alike.
func encryptedReason(v []byte) string {
	parts := bytes.SplitN(v[len(encryptedMagic):], []byte(":"), 4)
	name := "an unknown provider"
	if len(parts) == 4 {
		name = fmt.Sprintf("provider %q, key %q", parts[0], parts[2])
	}
	return fmt.Sprintf("encrypted at rest by %s; read it through Options.Transform with the apiserver's EncryptionConfiguration", name)
}

// metaOrder is the position of each ObjectMeta field in the struct (k8s.io/apimachinery
// pkg/apis/meta/v1 types.go), the order encoding/json writes them in.
var metaOrder = map[string]int{
	"name": 1, "generateName": 2, "namespace": 3, "selfLink": 4, "uid": 5, "resourceVersion": 6,
	"generation": 7, "creationTimestamp": 8, "deletionTimestamp": 9, "deletionGracePeriodSeconds": 10,
	"labels": 11, "annotations": 12, "ownerReferences": 13, "finalizers": 14, "managedFields": 15,
}

// stampRV returns a copy of obj whose metadata.resourceVersion is rev: the existing value replaced,
// or the field inserted where the apiserver's encoder writes it — in ObjectMeta's field order for a
// built-in type (after uid), or in key order when metadata's keys are sorted and not in field order
// (a custom resource, written from a map: creationTimestamp before name) — so that a stored object comes out as the apiserver serves it. One gjson
// scan of the top level and one of metadata's keys.
func stampRV(obj []byte, rev uint64) ([]byte, error) {
	md := gjson.GetBytes(obj, "metadata")
	if !md.IsObject() || md.Index <= 0 {
		return nil, undecodable("JSON value without a metadata object", nil)
	}
	quoted := strconv.AppendQuote(make([]byte, 0, 24), strconv.FormatUint(rev, 10))
	var (
		old          gjson.Result
		structAt     = -1   // offset in obj of the first key after resourceVersion in struct order
		sortedAt     = -1   // offset in obj of the first key after "resourceVersion" in key order
		sorted       = true // metadata's keys are in key order
		inStruct     = true // and in ObjectMeta's field order
		prev         string
		first, count = true, 0
	)
	md.ForEach(func(k, v gjson.Result) bool {
		count++
		name := k.Str
		if name == "resourceVersion" {
			old = v
			return false
		}
		if !first && name < prev {
			sorted = false
		}
		if !first && metaOrder[name] < metaOrder[prev] {
			inStruct = false
		}
		first, prev = false, name
		if structAt < 0 && metaOrder[name] > metaOrder["resourceVersion"] {
			structAt = k.Index
		}
		if sortedAt < 0 && name > "resourceVersion" {
			sortedAt = k.Index
		}
		return true
	})
	// ForEach gives offsets in obj (md.Index plus the offset in md.Raw).
	if old.Exists() && old.Index > 0 {
		at := old.Index
		out := make([]byte, 0, len(obj)-len(old.Raw)+len(quoted))
		out = append(out, obj[:at]...)
		out = append(out, quoted...)
		return append(out, obj[at+len(old.Raw):]...), nil
	}
	insertAt := structAt
	if sorted && !inStruct {
		insertAt = sortedAt
	}
	field := append([]byte(`"resourceVersion":`), quoted...)
	var out []byte
	switch {
	case count == 0: // {} or { }: the field alone
		at := md.Index + 1
		out = make([]byte, 0, len(obj)+len(field))
		out = append(out, obj[:at]...)
		out = append(out, field...)
		out = append(out, obj[at:]...)
	case insertAt >= 0: // before a key: "field,"
		at := insertAt
		out = make([]byte, 0, len(obj)+len(field)+1)
		out = append(out, obj[:at]...)
		out = append(out, field...)
		out = append(out, ',')
		out = append(out, obj[at:]...)
	default: // after the last value: ",field" before metadata's closing brace
		at := md.Index + len(md.Raw) - 1
		for at > md.Index && isSpace(obj[at-1]) {
			at--
		}
		out = make([]byte, 0, len(obj)+len(field)+1)
		out = append(out, obj[:at]...)
		out = append(out, ',')
		out = append(out, field...)
		out = append(out, obj[at:]...)
	}
	return out, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
