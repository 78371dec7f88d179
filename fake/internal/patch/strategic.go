package patch

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	sigsjson "sigs.k8s.io/json"
)

// strategicPatch applies a strategic merge patch with the kind's Go struct as the schema (patch
// strategies and merge keys come from its struct tags), as the apiserver does for built-in kinds.
func (p *Patcher) strategicPatch(k kind, fm *fieldManager, live runtime.Object, req Request, fc *fieldCheck) (runtime.Object, error) {
	if !k.typed {
		return nil, unsupportedMediaType(k)
	}
	original, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
	if err != nil {
		return nil, err
	}
	patchMap := map[string]any{}
	var strictErrs []error
	if fc.strict {
		if strictErrs, err = sigsjson.UnmarshalStrict(req.Patch, &patchMap); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	} else if err = sigsjson.UnmarshalCaseSensitivePreserveInts(req.Patch, &patchMap); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	patched, err := strategicpatch.StrategicMergeMapPatch(original, patchMap, k.empty())
	if err != nil {
		return nil, strategicError(err)
	}
	obj := k.empty()
	err = runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(patched, obj, fc.strict)
	if err := fc.decoded(fmt.Sprintf("%+v", patchMap), err, strictErrs); err != nil {
		return nil, err
	}
	p.defaulter.Default(obj)
	obj.GetObjectKind().SetGroupVersionKind(k.gvk)
	return fm.UpdateNoErrors(live, obj, req.FieldManager), nil
}

// strategicError gives strategicpatch's sentinel errors the apiserver's codes: malformed patches
// are 400, patches that contradict the schema 422, anything else 500.
func strategicError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return apierrors.NewBadRequest(err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	}
	return err
}
