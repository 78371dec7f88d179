package patch

import (
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
)

// maxJSONPatchOperations is the apiserver's limit on the operations of one JSON patch; past it the
// answer is 413.
const maxJSONPatchOperations = 10000

// jsonPatchOp is the shape of one RFC 6902 operation, used only to find unknown or duplicate
// fields under fieldValidation=Strict.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// jsonPatch applies an RFC 6902 JSON patch or an RFC 7386 merge patch to live, as the apiserver
// does: on the versioned JSON of the stored object, then decoded back into the kind.
func (p *Patcher) jsonPatch(k kind, fm *managedfields.FieldManager, live runtime.Object, req Request) (runtime.Object, error) {
	currentJS, err := p.encode(k, live.DeepCopyObject())
	if err != nil {
		return nil, err
	}
	strict := req.FieldValidation == metav1.FieldValidationStrict
	var strictErrs []error
	var patchedJS []byte
	switch req.Type {
	case types.JSONPatchType:
		if strict {
			var ops []jsonPatchOp
			if strictErrs, err = sigsjson.UnmarshalStrict(req.Patch, &ops); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
			for i, e := range strictErrs {
				strictErrs[i] = fmt.Errorf("json patch %v", e)
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
		if strict {
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
	obj, err := p.decodePatched(k, patchedJS, strict, strictErrs)
	if err != nil {
		return nil, err
	}
	return fm.UpdateNoErrors(live, obj, req.FieldManager), nil
}

// decodePatched decodes the patched JSON into the kind; a body that does not fit the type is the
// apiserver's 422 on the field "patch", whose value is the whole patched document.
func (p *Patcher) decodePatched(k kind, patchedJS []byte, strict bool, strictErrs []error) (runtime.Object, error) {
	into := k.empty()
	var obj runtime.Object
	var err error
	if k.typed {
		s := p.serializer
		if strict {
			s = p.strict
		}
		obj, _, err = s.Decode(patchedJS, &k.gvk, into)
	} else {
		obj, err = p.decode(k, patchedJS)
	}
	if err := decodeFailure(string(patchedJS), err, strictErrs); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(k.gvk)
	return obj, nil
}

// decodeFailure is the apiserver's 422 for a patched document that does not decode into the kind,
// or (under fieldValidation=Strict) has unknown or duplicate fields: one Invalid cause on the
// field "patch" whose value is the patched document (the patch map for strategic merge). A
// non-strict decoding error wins over the strict ones, which would be incomplete.
func decodeFailure(value string, err error, strictErrs []error) error {
	invalid := func(detail string) error {
		return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), value, detail)})
	}
	if err != nil {
		se, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict {
			return invalid(err.Error())
		}
		return invalid(runtime.NewStrictDecodingError(append(strictErrs, se.Errors()...)).Error())
	}
	if len(strictErrs) > 0 {
		return invalid(runtime.NewStrictDecodingError(strictErrs).Error())
	}
	return nil
}
