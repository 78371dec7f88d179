package patch

import (
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	sigsjson "sigs.k8s.io/json"

	"github.com/watchcache/watchcache/fake/internal/patch/internal/handlers"
)

// maxJSONPatchOperations is the apiserver's limit on the operations of one JSON patch; past it the
// answer is 413.
const maxJSONPatchOperations = 10000

// jsonPatch applies an RFC 6902 JSON patch or an RFC 7386 merge patch to live, as the apiserver
// does: on the versioned JSON of the stored object, then decoded back into the kind.
func (p *Patcher) jsonPatch(k kind, fm *managedfields.FieldManager, live runtime.Object, req Request, fc *fieldCheck) (runtime.Object, error) {
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
		if patchedJS, err = ops.Apply(currentJS); err != nil {
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
	// registered defaulting functions (client-go's scheme has none).
	p.scheme.Default(into)
	into.GetObjectKind().SetGroupVersionKind(k.gvk)
	return into, nil
}
