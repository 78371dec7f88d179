package etcd

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Prefixes of stored values the source cannot serve (k8s.io/apimachinery runtime/serializer/protobuf:
// protoEncodingPrefix; k8s.io/apiserver storage/value/encrypt: "k8s:enc:<provider>:v1:<name>:").
var (
	protobufMagic  = []byte("k8s\x00")
	encryptedMagic = []byte("k8s:enc:")
	cborMagic      = []byte{0xd9, 0xd9, 0xf7} // self-described CBOR tag 55799, the apiserver's CBOR prefix
)

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
	return decode(value, rev)
}

// decode turns a stored value into the object the cache keeps: the JSON with metadata.resourceVersion
// set to rev. The apiserver clears resourceVersion before it writes (the mod revision is the version),
// so the field is normally inserted; an existing one is replaced. The result is a fresh slice: value
// (owned by the etcd response) is not retained.
//
// Writing the RV here rather than leaving it to Cache.Apply (which would splice it too) saves the
// cache its second parse of every object.
func decode(value []byte, rev uint64) ([]byte, error) {
	v := bytes.TrimSpace(value) // json.Encoder ends every stored object with "\n"
	switch {
	case len(v) == 0:
		return nil, fmt.Errorf("%w: empty", ErrUndecodable)
	case bytes.HasPrefix(v, protobufMagic):
		return nil, fmt.Errorf("%w: protobuf (start kube-apiserver with --storage-media-type=application/json)", ErrUndecodable)
	case bytes.HasPrefix(v, encryptedMagic):
		return nil, fmt.Errorf("%w: encrypted at rest (%q)", ErrUndecodable, v[:min(len(v), 24)])
	case bytes.HasPrefix(v, cborMagic):
		return nil, fmt.Errorf("%w: CBOR (start kube-apiserver with --storage-media-type=application/json)", ErrUndecodable)
	case v[0] != '{':
		return nil, fmt.Errorf("%w: starts with %q", ErrUndecodable, v[:min(len(v), 8)])
	}
	return stampRV(v, rev)
}

// stampRV returns a copy of obj whose metadata.resourceVersion is rev: the existing value replaced,
// or the field inserted where the apiserver's encoding of ObjectMeta puts it (rvPosition). One
// gjson scan of the top level and one of metadata.
func stampRV(obj []byte, rev uint64) ([]byte, error) {
	md := gjson.GetBytes(obj, "metadata")
	if !md.IsObject() || md.Index <= 0 {
		return nil, fmt.Errorf("%w: no metadata object", ErrUndecodable)
	}
	quoted := strconv.AppendQuote(make([]byte, 0, 24), strconv.FormatUint(rev, 10))
	at, old := rvPosition(md)
	if old.Exists() {
		out := make([]byte, 0, len(obj)-len(old.Raw)+len(quoted))
		out = append(out, obj[:at]...)
		out = append(out, quoted...)
		return append(out, obj[at+len(old.Raw):]...), nil
	}
	var field []byte
	switch {
	case at < md.Index+len(md.Raw)-1: // before another member
		field = append(append([]byte(`"resourceVersion":`), quoted...), ',')
	case strings.TrimSpace(md.Raw[1:len(md.Raw)-1]) != "": // last member
		field = append([]byte(`,"resourceVersion":`), quoted...)
	default: // the only member
		field = append([]byte(`"resourceVersion":`), quoted...)
	}
	out := make([]byte, 0, len(obj)+len(field))
	out = append(out, obj[:at]...)
	out = append(out, field...)
	return append(out, obj[at:]...), nil
}

// rvPosition finds where metadata.resourceVersion belongs in md (a metadata object located in the
// whole object, md.Index > 0): the offset of the existing value, returned with it; otherwise the
// offset of the first member that ObjectMeta declares after resourceVersion — everything but
// name, generateName, namespace, selfLink and uid — or of md's closing brace. The apiserver encodes
// ObjectMeta in its field order and clears resourceVersion before it writes to etcd, so a value
// written by it gets the field back exactly where a read from the apiserver has it (after uid).
func rvPosition(md gjson.Result) (int, gjson.Result) {
	at := -1
	var old gjson.Result
	md.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "resourceVersion":
			at, old = v.Index, v
			return false
		case "name", "generateName", "namespace", "selfLink", "uid":
		default:
			if at < 0 {
				at = k.Index
			}
		}
		return true
	})
	if at < 0 {
		at = md.Index + len(md.Raw) - 1
	}
	return at, old
}
