package fake

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// track records a create (oldJSON nil) or an update by manager in the object's managedFields,
// with the patch engine's field manager (apimachinery's managedfields), as the apiserver does for
// every write that is not an apply.
func (s *Server) track(r *served, obj runtime.Object, oldJSON []byte, subresource, manager string) error {
	newJSON, err := encode(r.resourceType, obj)
	if err != nil {
		return err
	}
	out, err := s.fields.Update(oldJSON, newJSON, r.gvk, subresource, manager)
	if err != nil {
		return err
	}
	var tracked struct {
		Metadata struct {
			ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &tracked); err != nil {
		return internalError("managedFields of %s: %v", r.gvk.Kind, err)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return internalError("%s: %v", r.gvk.Kind, err)
	}
	m.SetManagedFields(tracked.Metadata.ManagedFields)
	s.stampManagedFields(oldJSON, obj)
	return nil
}
