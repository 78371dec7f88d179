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
// or the field inserted first in metadata. One gjson scan of the top level and one of metadata.
func stampRV(obj []byte, rev uint64) ([]byte, error) {
	md := gjson.GetBytes(obj, "metadata")
	if !md.IsObject() || md.Index <= 0 {
		return nil, fmt.Errorf("%w: no metadata object", ErrUndecodable)
	}
	quoted := strconv.AppendQuote(make([]byte, 0, 24), strconv.FormatUint(rev, 10))
	if old := gjson.Get(md.Raw, "resourceVersion"); old.Exists() && old.Index > 0 {
		at := md.Index + old.Index
		out := make([]byte, 0, len(obj)-len(old.Raw)+len(quoted))
		out = append(out, obj[:at]...)
		out = append(out, quoted...)
		return append(out, obj[at+len(old.Raw):]...), nil
	}
	at := md.Index + 1 // just after metadata's '{'
	field := append([]byte(`"resourceVersion":`), quoted...)
	if strings.TrimSpace(md.Raw[1:len(md.Raw)-1]) != "" {
		field = append(field, ',')
	}
	out := make([]byte, 0, len(obj)+len(field))
	out = append(out, obj[:at]...)
	out = append(out, field...)
	return append(out, obj[at:]...), nil
}
