package patch

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// validateBody rejects a body that is not JSON (YAML for apply) before any patching, as the
// apiserver does when it transcodes the patch for its audit log.
func validateBody(t types.PatchType, body []byte) error {
	if t == types.ApplyPatchType {
		if _, err := yaml.ToJSON(body); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("error encoding patch: %v", err))
		}
		return nil
	}
	if !json.Valid(body) {
		return apierrors.NewBadRequest("invalid JSON patch")
	}
	return nil
}

// crdPatchTypes lists the Content-Types the apiserver accepts for a patch of a custom resource,
// in the order its 415 message names them: no strategic merge.
var crdPatchTypes = []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyPatchType)}

// unsupportedMediaType is the apiserver's 415 for a Content-Type it does not accept for the kind.
// Built-in kinds are routed by go-restful, which rejects the Content-Type itself with a terse
// message and empty details; custom resources reach the patch handler, which lists the types.
// Strategic merge on a custom resource is the latter.
func unsupportedMediaType(k kind) *apierrors.StatusError {
	if k.typed {
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusUnsupportedMediaType,
			Reason:  metav1.StatusReasonUnsupportedMediaType,
			Message: "415: Unsupported Media Type",
			Details: &metav1.StatusDetails{},
		}}
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(crdPatchTypes, ", "),
	}}
}
