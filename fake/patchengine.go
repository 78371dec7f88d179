package fake

import (
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// patcher computes patched objects. The stand-in below handles JSON patch, JSON merge patch and
// strategic merge patch with apimachinery's libraries; server-side apply needs the field manager
// of the patch engine.
type patcher interface {
	patch(current []byte, req patchRequest) ([]byte, error)
}

// libraryPatcher patches with evanphx/json-patch and apimachinery's strategicpatch.
type libraryPatcher struct{}

func (p libraryPatcher) patch(current []byte, req patchRequest) ([]byte, error) {
	switch req.typ {
	case types.JSONPatchType:
		patch, err := jsonpatch.DecodePatch(req.patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		out, err := patch.Apply(current)
		if err != nil {
			return nil, statusError(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, err.Error())
		}
		return out, nil
	case types.MergePatchType:
		out, err := jsonpatch.MergePatch(current, req.patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	case types.StrategicMergePatchType:
		out, err := strategicpatch.StrategicMergePatch(current, req.patch, req.res.newObject())
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	default:
		return nil, statusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, fmt.Sprintf("fake: %s is not supported yet", req.typ))
	}
}
