package patch

import (
	"errors"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	sigsjson "sigs.k8s.io/json"

	"github.com/watchcache/watchcache/fake/internal/patch/internal/handlers"
)

// maxJSONPatchOperations is the apiserver's limit on the operations of one JSON patch; past it the
// answer is 413.
const maxJSONPatchOperations = 10000

// jsonPatch applies an RFC 6902 JSON patch or an RFC 7386 merge patch to live, as the apiserver
// does: on the versioned JSON of the stored object, then decoded back into the kind.
func (p *Patcher) jsonPatch(k kind, fm *fieldManager, live runtime.Object, req Request, fc *fieldCheck) (runtime.Object, error) {
	currentJS, err := p.encode(k, live)
	if err != nil {
		return nil, err
	}
	var strictErrs []error
	var patchedJS []byte
	switch req.Type {
	case types.JSONPatchType:
		if fc.strict {
			if strictErrs, err = handlers.StrictOps(req.Patch); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
		}
		ops, err := jsonpatch.DecodePatch(req.Patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
				"The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		if patchedJS, err = applyOps(ops, currentJS); err != nil {
			if errors.Is(err, ErrAborted) {
				return nil, err
			}
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
	case types.MergePatchType:
		if fc.strict {
			v := map[string]any{}
			if strictErrs, err = sigsjson.UnmarshalStrict(req.Patch, &v); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
		}
		patchedJS, err = jsonpatch.MergePatch(currentJS, req.Patch)
		if err == jsonpatch.ErrBadJSONPatch {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if err != nil {
			return nil, err
		}
	}
	obj, err := p.decodePatched(k, patchedJS, fc, strictErrs)
	if err != nil {
		return nil, err
	}
	if err := p.pruneCustom(k, obj, fc); err != nil {
		return nil, err
	}
	return fm.UpdateNoErrors(live, obj, req.FieldManager), nil
}

// decodePatched decodes the patched JSON into the kind; a body that does not fit the type is the
// apiserver's 422 on the field "patch", whose value is the whole patched document.
func (p *Patcher) decodePatched(k kind, patchedJS []byte, fc *fieldCheck, strictErrs []error) (runtime.Object, error) {
	into := k.empty()
	var err error
	if k.typed {
		s := p.serializer
		if fc.strict {
			s = p.strict
		}
		// On a strict error the serializer has still decoded everything into into.
		_, _, err = s.Decode(patchedJS, &k.gvk, into)
	} else {
		into, err = p.decode(k, patchedJS)
	}
	if err := fc.decoded(string(patchedJS), err, strictErrs); err != nil {
		return nil, err
	}
	// The apiserver's decoder defaults what it decodes; the scheme defaults only if the caller
	// registered defaulting functions (client-go's scheme has none; NewWithDefaults supplies them).
	p.defaulter.Default(into)
	into.GetObjectKind().SetGroupVersionKind(k.gvk)
	return into, nil
}

// ErrAborted is returned when the JSON patch library panics on a patch (json-patch v4 dereferences
// nil on a "test" operation without a value at the document root). kube-apiserver 1.37.2 runs the
// same library and answers no response at all on that request: its panic filter aborts the
// connection (HTTP/1.1: empty reply; HTTP/2: stream reset; reference/observed-patch.md, "library
// panic"). A server calling Patch aborts the request likewise.
var ErrAborted = errors.New("patch: the JSON patch library panicked; the apiserver aborts the request")

// applyOps applies ops, turning a panic of the library into ErrAborted.
func applyOps(ops jsonpatch.Patch, doc []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: %v", ErrAborted, r)
		}
	}()
	return ops.Apply(doc)
}
