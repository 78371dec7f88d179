package fake

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// trackCreate records a create by manager ("" records nothing), with what the apiserver has set
// before its field manager runs.
func (s *Server) trackCreate(r *served, obj runtime.Object, manager string) error {
	if manager == "" {
		return nil
	}
	if ds, ok := obj.(*appsv1.DaemonSet); ok {
		setTemplateGeneration(ds)
	}
	return s.track(r, obj, nil, "", manager)
}

// track records a create (old nil) or an update by manager in the object's managedFields, with
// the patch engine's field manager (apimachinery's managedfields), as the apiserver does for
// every write that is not an apply. It works on the decoded objects and leaves old as it is.
func (s *Server) track(r *served, obj, old runtime.Object, subresource, manager string) error {
	out, err := s.fields.UpdateObject(old, obj, r.gvk, subresource, manager)
	if err != nil {
		return err
	}
	if out == obj {
		s.stampManagedFieldsOf(old, obj)
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return internalError("%s: %v", r.gvk.Kind, err)
	}
	om, err := meta.Accessor(out)
	if err != nil {
		return internalError("%s: %v", r.gvk.Kind, err)
	}
	m.SetManagedFields(om.GetManagedFields())
	s.stampManagedFieldsOf(old, obj)
	return nil
}
