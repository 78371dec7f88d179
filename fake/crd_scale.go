package fake

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"sort"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/watchcache/watchcache/fake/internal/patch"
)

// customScale serves a custom resource's scale subresource: an autoscaling/v1 Scale read from the
// paths the CRD's scale subresource names (reference/observed-crds.md, lifecycle / get scale,
// update scale). PUT, and PATCH with a JSON or merge patch of the Scale (what kubectl scale
// sends), write the replicas path; a scale write is an update of the object, so it bumps its
// generation.
func (s *Server) customScale(w http.ResponseWriter, r *http.Request, t target) {
	manager := patch.ManagerFromUserAgent(r.UserAgent())
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		cur, err := current(r.Context(), t.res, t.namespace, t.name)
		if err == nil && cur == nil {
			err = apierrors.NewNotFound(t.res.gvr.GroupResource(), t.name)
		}
		if err != nil {
			writeError(w, err)
			return
		}
		s.answerCustomScale(w, cur, t)
	case http.MethodPut:
		body, err := readJSONBody(r, nil)
		if err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		b, err := s.updateCustomScaleLocked(r.Context(), t, body, nil, "", manager)
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		s.answerCustomScale(w, b, t)
	case http.MethodPatch:
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		pt := types.PatchType(mt)
		if pt != types.JSONPatchType && pt != types.MergePatchType {
			writeError(w, unsupportedMediaType(string(types.JSONPatchType), string(types.MergePatchType)))
			return
		}
		body, err := readBody(r)
		if err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		b, err := s.updateCustomScaleLocked(r.Context(), t, nil, body, pt, manager)
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

// updateCustomScaleLocked writes a Scale (body, or the current Scale patched by p of type pt) to
// the object's replicas path and stores the object. A Scale without a resourceVersion updates the
// current object. The caller holds s.mu across the read and the write.
func (s *Server) updateCustomScaleLocked(ctx context.Context, t target, body, p []byte, pt types.PatchType, manager string) ([]byte, error) {
	cur, err := current(ctx, t.res, t.namespace, t.name)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, apierrors.NewNotFound(t.res.gvr.GroupResource(), t.name)
	}
	if p != nil {
		if body, err = customScaleOf(cur, t); err == nil {
			if pt == types.JSONPatchType {
				var ops jsonpatch.Patch
				if ops, err = jsonpatch.DecodePatch(p); err == nil {
					body, err = ops.Apply(body)
				}
			} else {
				body, err = jsonpatch.MergePatch(body, p)
			}
		}
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	var in autoscalingv1.Scale
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	obj, err := decodeStored(t.res.resourceType, cur)
	if err != nil {
		return nil, err
	}
	old := obj.(*unstructured.Unstructured)
	u := old.DeepCopy()
	if err := unstructured.SetNestedField(u.Object, int64(in.Spec.Replicas), pathFields(t.res.custom.scale.SpecReplicasPath)...); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if in.ResourceVersion != "" {
		u.SetResourceVersion(in.ResourceVersion)
	}
	if err := s.track(t.res, u, old, "scale", manager); err != nil {
		return nil, err
	}
	untimeScaleEntry(u, manager)
	main := t
	main.subresource = ""
	return s.updateLocked(main, u, old, cur, false, manager, true)
}

// untimeScaleEntry drops the time of a scale write's managedFields entry and puts the entries
// back in the field manager's order (operation, then time, a missing time first), as the
// apiserver, whose scale handler converts the entry through the Scale and loses its time,
// stores them (reference/observed-crds.md, lifecycle / after scale).
func untimeScaleEntry(u *unstructured.Unstructured, manager string) {
	mf := u.GetManagedFields()
	for i := range mf {
		if mf[i].Subresource == "scale" && mf[i].Manager == manager {
			mf[i].Time = nil
		}
	}
	unix := func(e metav1.ManagedFieldsEntry) int64 {
		if e.Time == nil {
			return 0
		}
		return e.Time.Unix()
	}
	sort.SliceStable(mf, func(i, j int) bool {
		if mf[i].Operation != mf[j].Operation {
			return mf[i].Operation < mf[j].Operation
		}
		return unix(mf[i]) < unix(mf[j])
	})
	u.SetManagedFields(mf)
}

// customScaleOf is the Scale of a stored custom resource.
func customScaleOf(obj []byte, t target) ([]byte, error) {
	b, err := CustomResourceScale(obj, t.res.custom.scale)
	if err != nil {
		return nil, internalError("scale of %s: %v", t.name, err)
	}
	return b, nil
}

// CustomResourceScale is the autoscaling/v1 Scale the apiextensions apiserver answers for a GET
// of a custom resource's scale subresource: the object's name, namespace, uid, resourceVersion
// and creationTimestamp, and the replicas and selector found at sc's paths (a missing one is
// left zero, so omitted). It may be called concurrently; obj is not modified.
func CustomResourceScale(obj []byte, sc *apiextensionsv1.CustomResourceSubresourceScale) ([]byte, error) {
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(obj); err != nil {
		return nil, err
	}
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
	return json.Marshal(&out)
}

// answerCustomScale writes the autoscaling/v1 Scale of a stored custom resource.
func (s *Server) answerCustomScale(w http.ResponseWriter, obj []byte, t target) {
	b, err := customScaleOf(obj, t)
	if err != nil {
		writeError(w, err)
		return
	}
	writeBody(w, http.StatusOK, b)
}

// pathFields splits a scale subresource's JSONPath (".spec.replicas") into its fields.
func pathFields(jsonPath string) []string {
	return strings.Split(strings.TrimPrefix(jsonPath, "."), ".")
}
