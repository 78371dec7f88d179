package fake

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// getStatus serves GET of an object's status subresource: the whole object, as the apiserver's
// status REST answers a get.
func (s *Server) getStatus(w http.ResponseWriter, r *http.Request, t target) {
	b, err := current(r.Context(), t.res, t.namespace, t.name)
	if err != nil {
		writeError(w, err)
		return
	}
	if b == nil {
		writeError(w, apierrors.NewNotFound(t.res.gvr.GroupResource(), t.name))
		return
	}
	writeBody(w, http.StatusOK, b)
}
