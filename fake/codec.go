package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
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

// bodyJSON returns a request body as JSON: JSON as sent, YAML converted. Other media types get the
// apiserver's 415.
func bodyJSON(r *http.Request, body []byte) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" {
		mt, err = "application/json", nil
	}
	if err != nil {
		return nil, unsupportedMediaType(bodyTypes...)
	}
	switch mt {
	case "application/json", "*/*", protobufType:
		return body, nil
	case "application/yaml":
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return j, nil
	default:
		return nil, unsupportedMediaType(bodyTypes...)
	}
}

// decodeBody decodes a JSON body into the resource's type. The kind and apiVersion default to the
// resource's; others are the apiserver's 400s.
func decodeBody(t *resourceType, body []byte) (*decoded, error) {
	gvk := t.gvk
	codec := runtime.Decoder(strictCodec)
	if isProtobuf(body) {
		codec = protobufCodec
	}
	obj, got, err := codec.Decode(body, &gvk, t.newObject())
	d := &decoded{obj: obj}
	if err != nil {
		if strictErr, ok := runtime.AsStrictDecodingError(err); ok {
			for _, e := range strictErr.Errors() {
				d.unknown = append(d.unknown, e.Error())
			}
		} else {
			return nil, decodeError(t, body, err)
		}
	}
	if got != nil && *got != t.gvk {
		return nil, kindMismatch(t, *got)
	}
	return d, nil
}

// decodeError is the apiserver's 400 for a body that is not an object of the resource's kind:
// `<Kind> in version "<v>" cannot be handled as a <Kind>: <decoder error>`.
func decodeError(t *resourceType, body []byte, err error) error {
	if runtime.IsMissingKind(err) || runtime.IsMissingVersion(err) {
		return apierrors.NewBadRequest(err.Error())
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return apierrors.NewBadRequest("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml")
	}
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", t.gvk.Kind, t.gvk.Version, t.gvk.Kind, err))
}

// kindMismatch is the apiserver's 400 for a body of another kind or apiVersion.
func kindMismatch(t *resourceType, got schema.GroupVersionKind) error {
	if got.GroupVersion() != t.gvk.GroupVersion() {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", got.GroupVersion().String(), t.gvk.GroupVersion().String()))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", got.Kind, t.gvk.Kind))
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

// decodeStored decodes an object the fake stored (no strictness needed: it encoded it).
func decodeStored(t *resourceType, b []byte) (runtime.Object, error) {
	obj := t.newObject()
	if err := json.Unmarshal(b, obj); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("decode stored %s: %w", t.gvk.Kind, err))
	}
	return obj, nil
}
