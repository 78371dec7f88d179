package fake

import (
	kruntime "k8s.io/apimachinery/pkg/runtime"
)

// trackCreate records a create in the object's managedFields. The field manager is the patch
// engine's; until it is wired, managedFields are left as the request sent them.
func (s *Server) trackCreate(r *served, obj kruntime.Object, manager string) error { return nil }

// trackUpdate records an update in the object's managedFields (see trackCreate).
func (s *Server) trackUpdate(r *served, obj, old kruntime.Object, subresource, manager string) error {
	return nil
}
