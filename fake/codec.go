package fake

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/watchcache/watchcache/internal/wire"
)

// maxBodyBytes is the apiserver's limit on a request body (3 MiB,
// DefaultMaxRequestSizeBytes); larger ones get 413.
const maxBodyBytes = 3 * 1024 * 1024

// strictCodec decodes request bodies into client-go's typed objects and reports unknown and
// duplicate fields as strict decoding errors (the object is still decoded), which fieldValidation
// turns into a 400, warnings, or nothing.
var strictCodec = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
	kjson.SerializerOptions{Strict: true})

// bodyTypes are the media types of request bodies the fake decodes.
var bodyTypes = []string{"application/json", "application/yaml", protobufType}

// protobufType is the media type of Kubernetes' protobuf encoding, which client-go's typed
// clients send by default.
const protobufType = "application/vnd.kubernetes.protobuf"

// protobufCodec decodes protobuf bodies (their envelope names the kind).
var protobufCodec = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

// isProtobuf reports whether a body starts with the protobuf envelope's magic number.
func isProtobuf(body []byte) bool { return bytes.HasPrefix(body, []byte{0x6b, 0x38, 0x73, 0x00}) }

// decoded is a request body decoded for a resource.
type decoded struct {
	obj runtime.Object
	// unknown are the strict decoding problems (unknown or duplicate fields), as the apiserver
	// words them.
	unknown []string
}

// bodyJSON returns a request body for a resource of type t as JSON: JSON as sent, YAML converted.
// Other media types get the apiserver's 415. A protobuf body is returned as sent, for decodeBody.
// A body whose encoding is not its Content-Type's gets the 400 of the decoder the Content-Type
// picks (mismatchedBody); t nil skips that check.
func bodyJSON(r *http.Request, body []byte, t *resourceType) ([]byte, error) {
	j, _, err := bodyJSONStrict(r, body, t)
	return j, err
}

// bodyJSONStrict is bodyJSON that also returns the YAML strict decoding error of a YAML body
// (duplicate keys, which the conversion to JSON drops), as the apiserver's strict YAML decoder
// reports it before the JSON's own problems.
func bodyJSONStrict(r *http.Request, body []byte, t *resourceType) ([]byte, []string, error) {
	ct := r.Header.Get("Content-Type")
	var mt string
	var err error
	switch ct {
	case "", "application/json":
		mt = "application/json"
	case protobufType, "application/yaml":
		mt = ct // what ParseMediaType gives for these, without the map of parameters it makes
	default:
		mt, _, err = mime.ParseMediaType(ct)
	}
	if err != nil {
		return nil, nil, unsupportedMediaType(bodyTypes...)
	}
	switch mt {
	case "application/json", "*/*", protobufType:
		if err := mismatchedBody(t, mt == protobufType, body); err != nil {
			return nil, nil, err
		}
		return body, nil, nil
	case "application/yaml":
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		if _, err := yaml.YAMLToJSONStrict(body); err != nil {
			return j, []string{err.Error()}, nil
		}
		return j, nil, nil
	default:
		return nil, nil, unsupportedMediaType(bodyTypes...)
	}
}

// mismatchedBody is the apiserver's 400 for a body of a built-in resource's type t whose encoding is
// not the one its Content-Type names (protobuf or JSON), or nil: the apiserver decodes a body with
// the decoder of its Content-Type, where decodeBody tells the two encodings apart by the protobuf
// envelope's magic number (reference/observed-writes-more.md, strict). The error is that decoder's.
func mismatchedBody(t *resourceType, protobufType bool, body []byte) error {
	if t == nil || t.custom != nil || isProtobuf(body) == protobufType {
		return nil
	}
	codec := runtime.Decoder(strictCodec)
	if protobufType {
		codec = protobufCodec
	}
	gvk := t.gvk
	_, got, err := codec.Decode(body, &gvk, t.newObject())
	if err == nil {
		return nil
	}
	return decodeError(t, body, got, err)
}

// decodeBody decodes a JSON body into the resource's type. The kind and apiVersion default to the
// resource's; others are the apiserver's 400s.
func decodeBody(t *resourceType, body []byte) (*decoded, error) {
	if t.custom != nil {
		return decodeCustom(t, body)
	}
	gvk := t.gvk
	codec := runtime.Decoder(strictCodec)
	if isProtobuf(body) {
		codec = protobufCodec
	}
	obj, got, err := codec.Decode(body, &gvk, t.newObject())
	d := &decoded{obj: obj}
	if err != nil {
		if strictErr, ok := runtime.AsStrictDecodingError(err); ok && obj != nil {
			for _, e := range strictErr.Errors() {
				d.unknown = append(d.unknown, e.Error())
			}
		} else {
			return nil, decodeError(t, body, got, err)
		}
	}
	if got != nil && *got != t.gvk && obj != nil {
		// Another kind of the scheme: the apiserver cannot convert it to the resource's kind.
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: converting (%s) to (%s.%s): unknown conversion",
			got.Kind, got.Version, t.gvk.Kind, strings.TrimPrefix(reflect.TypeOf(obj).String(), "*"), internalPackage(t.gvk.Group), t.gvk.Kind))
	}
	applyDefaults(d.obj)
	return d, nil
}

// internalPackage is the Go package name of a group's internal types in the apiserver, which its
// conversion errors name: "core" for the core group, else the group's first label.
func internalPackage(group string) string {
	if group == "" {
		return "core"
	}
	first, _, _ := strings.Cut(group, ".")
	return first
}

// decodeError is the apiserver's 400 for a body it cannot decode (transformDecodeError): with the
// kind the body names, `<Kind> in version "<v>" cannot be handled as a <Kind>: <error>`; without
// one, `the object provided is unrecognized (must be of type <Kind>): <error> (<body summary>)`.
func decodeError(t *resourceType, body []byte, got *schema.GroupVersionKind, err error) error {
	msg := strings.ReplaceAll(err.Error(), schemeName, "pkg/runtime/scheme.go:111")
	if runtime.IsNotRegisteredError(err) {
		got = &t.gvk // the apiserver reports the defaulted kind
	}
	if runtime.IsStrictDecodingError(err) {
		got = &t.gvk
	}
	if got != nil && got.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", got.Kind, got.Version, t.gvk.Kind, msg))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %s (%s)", t.gvk.Kind, msg, summarize(body, 30)))
}

// schemeName is how client-go's scheme names itself in its errors; the apiserver's scheme is
// named "pkg/runtime/scheme.go:111".
var schemeName = func() string {
	_, err := scheme.Scheme.New(schema.GroupVersionKind{Group: "x.invalid", Version: "v1", Kind: "X"})
	msg := err.Error()
	if i := strings.LastIndex(msg, "in scheme \""); i >= 0 {
		return strings.TrimSuffix(msg[i+len("in scheme \""):], "\"")
	}
	return "\x00"
}()

// summarize is the apiserver's summary of a body in a decode error (summarizeData).
func summarize(b []byte, max int) string {
	switch {
	case len(b) == 0:
		return "<empty>"
	case b[0] == '{':
		if len(b) > max {
			return string(b[:max]) + " ..."
		}
		return string(b)
	default:
		if len(b) > max {
			return hex.EncodeToString(b[:max]) + " ..."
		}
		return hex.EncodeToString(b)
	}
}

// encode returns an object's JSON as the apiserver stores and serves it: apiVersion and kind of the
// resource, then the fields in the Go type's order.
func encode(t *resourceType, obj runtime.Object) ([]byte, error) {
	obj.GetObjectKind().SetGroupVersionKind(t.gvk)
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("encode %s: %w", t.gvk.Kind, err))
	}
	return b, nil
}

// encodeStored returns an object's JSON as a kube-apiserver serves it after storing it: the
// apiserver stores protobuf (its default storage media type), and the round trip through it turns
// empty lists and maps that JSON would keep ("rules": []) into absent ones (null), so the object
// goes through the same round trip here.
func encodeStored(t *resourceType, obj runtime.Object) ([]byte, error) {
	if t.custom != nil {
		return encode(t, obj) // stored as JSON, as the apiserver stores custom resources
	}
	obj.GetObjectKind().SetGroupVersionKind(t.gvk)
	stored := t.newObject()
	pm, ok := obj.(protoMessage)
	ps, sok := stored.(protoMessage)
	if ok && sok {
		// The generated marshalling the codec calls, without its envelope (the kind, which the
		// JSON encoding sets anyway) and the copies into and out of it, into a pooled buffer:
		// the generated Unmarshal copies every string and byte slice out of its input.
		bp := protoBuffers.Get().(*[]byte)
		defer putProtoBuffer(bp)
		size := pm.Size()
		if cap(*bp) < size {
			*bp = make([]byte, size)
		}
		b := (*bp)[:size]
		n, err := pm.MarshalToSizedBuffer(b)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("encode %s: %w", t.gvk.Kind, err))
		}
		if err := ps.Unmarshal(b[size-n:]); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("decode %s: %w", t.gvk.Kind, err))
		}
	} else {
		var buf bytes.Buffer
		if err := protobufCodec.Encode(obj, &buf); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("encode %s: %w", t.gvk.Kind, err))
		}
		gvk := t.gvk
		if _, _, err := protobufCodec.Decode(buf.Bytes(), &gvk, stored); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("decode %s: %w", t.gvk.Kind, err))
		}
	}
	// The apiserver's storage codec defaults what it reads, which restores what protobuf does not
	// keep (the kind and apiVersion of a stateful set's claim templates).
	applyDefaults(stored)
	b, err := encode(t, stored)
	if err != nil {
		return nil, err
	}
	storedEncodings.put(b, stored) // for the commit, if one stores b
	return b, nil
}

// protoMessage is the generated protobuf marshalling of a built-in kind's Go type.
type protoMessage interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
	Unmarshal([]byte) error
}

// protoBuffers are the buffers of encodeStored's round trip.
var protoBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledProto is the largest buffer kept for reuse: most objects are a few KiB, and a rare
// large one (up to the 3 MiB body limit) should not stay allocated.
const maxPooledProto = 64 << 10

// putProtoBuffer returns a buffer to protoBuffers unless it is larger than maxPooledProto.
func putProtoBuffer(bp *[]byte) {
	if cap(*bp) <= maxPooledProto {
		protoBuffers.Put(bp)
	}
}

// decodeStored decodes an object the fake stored (no strictness needed: it encoded it), with the
// apiserver's defaults applied, as its storage decoder applies them: an object stored without
// them (Store, Options.Objects) then compares with a defaulted update as the apiserver's would.
// A decoding of the same bytes that storedDecodings kept is copied instead (decoded.go).
func decodeStored(t *resourceType, b []byte) (runtime.Object, error) {
	if kept, ok := storedDecodings.get(b, reflect.PointerTo(t.goType)); ok {
		obj := kept.DeepCopyObject()
		if verifyStoredDecodings {
			verifyDecoding(t, b, obj)
		}
		applyDefaults(obj)
		return obj, nil
	}
	obj, err := decodeJSON(t, b)
	if err != nil {
		return nil, err
	}
	applyDefaults(obj)
	return obj, nil
}

// decodeJSON decodes stored JSON into a new object of the resource's type.
func decodeJSON(t *resourceType, b []byte) (runtime.Object, error) {
	obj := t.newObject()
	if err := json.Unmarshal(b, obj); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("decode stored %s: %w", t.gvk.Kind, err))
	}
	return obj, nil
}

// verifyStoredDecodings makes decodeStored check every decoding storedDecodings kept against
// decodeJSON's (verifyDecoding). The package's tests set it, so that every write they make again
// checks the decoders agree; it costs a decoding, which storedDecodings is there to save.
var verifyStoredDecodings = false

// verifyDecoding panics unless kept, a copy of the decoding storedDecodings kept of b, is what
// decodeJSON makes of b.
func verifyDecoding(t *resourceType, b []byte, kept runtime.Object) {
	want, err := decodeJSON(t, b)
	if err != nil || !reflect.DeepEqual(kept, want) {
		panic(fmt.Sprintf("fake: the kept decoding of a stored %s is not decodeJSON's (%v):\nkept %#v\nwant %#v\njson %s", t.gvk.Kind, err, kept, want, b))
	}
}

// verifyKept panics unless kept, the object commitEncoded keeps as the decoding of the stored
// JSON b, is what both decoders of stored JSON make of b: decodeJSON's (decodeStored) and
// wire.Decode's (the protobuf answer).
func verifyKept(t *resourceType, b []byte, kept runtime.Object) {
	want, err := decodeJSON(t, b)
	if err != nil || !reflect.DeepEqual(kept, want) {
		panic(fmt.Sprintf("fake: the kept encoding of a stored %s is not decodeJSON's (%v):\nkept %#v\nwant %#v\njson %s", t.gvk.Kind, err, kept, want, b))
	}
	if want, err = wire.Decode(t.gvk, b); err != nil || !reflect.DeepEqual(kept, want) {
		panic(fmt.Sprintf("fake: the kept encoding of a stored %s is not wire.Decode's (%v):\nkept %#v\nwant %#v\njson %s", t.gvk.Kind, err, kept, want, b))
	}
}
