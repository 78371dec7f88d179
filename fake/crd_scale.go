package fake

import (
	"encoding/json"
	"net/http"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/watchcache/watchcache/fake/internal/patch"
)

// customScale serves GET and PUT of a custom resource's scale subresource: an autoscaling/v1 Scale
// read from (and, for PUT, written to) the paths the CRD's scale subresource names
// (reference/observed-crds.md, lifecycle / get scale, update scale). A scale update is an update
// of the object: it bumps its generation.
func (s *Server) customScale(w http.ResponseWriter, r *http.Request, t target) {
	sc := t.res.custom.scale
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		cur, err := current(r.Context(), t.res, t.namespace, t.name)
		if err != nil || cur == nil {
			if err == nil {
				err = apierrors.NewNotFound(t.res.gvr.GroupResource(), t.name)
			}
			writeError(w, err)
			return
		}
		s.answerCustomScale(w, cur, t)
	case http.MethodPut:
		body, err := readJSONBody(r)
		if err != nil {
			writeError(w, err)
			return
		}
		var in autoscalingv1.Scale
		if err := json.Unmarshal(body, &in); err != nil {
			writeError(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		s.mu.Lock()
		cur, err := current(r.Context(), t.res, t.namespace, t.name)
		if err == nil && cur == nil {
			err = apierrors.NewNotFound(t.res.gvr.GroupResource(), t.name)
		}
		var b []byte
		if err == nil {
			var old *unstructured.Unstructured
			obj, derr := decodeStored(t.res.resourceType, cur)
			if derr != nil {
				err = derr
			} else {
				old = obj.(*unstructured.Unstructured)
				u := old.DeepCopy()
				_ = unstructured.SetNestedField(u.Object, int64(in.Spec.Replicas), pathFields(sc.SpecReplicasPath)...)
				if in.ResourceVersion != "" {
					u.SetResourceVersion(in.ResourceVersion)
				} // else the scale updates the current object, unconditionally
				main := t
				main.subresource = ""
				manager := patch.ManagerFromUserAgent(r.UserAgent())
				if err = s.track(t.res, u, old, "scale", manager); err == nil {
					b, err = s.updateLocked(main, u, old, cur, false, manager, true)
				}
			}
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		s.answerCustomScale(w, b, t)
	default:
		writeError(w, methodNotSupported(t, r.Method))
	}
}

// answerCustomScale writes the autoscaling/v1 Scale of a stored custom resource, read from the
// paths its CRD's scale subresource names.
func (s *Server) answerCustomScale(w http.ResponseWriter, obj []byte, t target) {
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(obj); err != nil {
		writeError(w, internalError("scale of %s: %v", t.name, err))
		return
	}
	sc := t.res.custom.scale
	out := autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{
			Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp(),
		},
	}
	if n, ok, _ := unstructured.NestedInt64(u.Object, pathFields(sc.SpecReplicasPath)...); ok {
		out.Spec.Replicas = int32(n)
	}
	if n, ok, _ := unstructured.NestedInt64(u.Object, pathFields(sc.StatusReplicasPath)...); ok {
		out.Status.Replicas = int32(n)
	}
	if sc.LabelSelectorPath != nil {
		if sel, ok, _ := unstructured.NestedString(u.Object, pathFields(*sc.LabelSelectorPath)...); ok {
			out.Status.Selector = sel
		}
	}
	b, err := json.Marshal(&out)
	if err != nil {
		writeError(w, internalError("scale of %s: %v", t.name, err))
		return
	}
	writeBody(w, http.StatusOK, b)
}

// pathFields splits a scale subresource's JSONPath (".spec.replicas") into its fields.
func pathFields(jsonPath string) []string {
	return strings.Split(strings.TrimPrefix(jsonPath, "."), ".")
}
