package kubeapi

import "fmt"

// Unregister stops serving a resource registered with Register: discovery no longer lists it and
// its paths answer 404; a group/version (and a group) left without resources disappears from
// discovery. Watches already running on its cache are not ended here: the caller stops the cache
// (watchcache.Cache.Stop), which ends them. Unregistering a resource that is not registered is an
// error.
func (s *Server) Unregister(group, version, resource string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupLocked(group)
	if g == nil {
		return fmt.Errorf("kubeapi: unregister %s: group %q is not registered", resource, group)
	}
	gv := g.version(version)
	if gv == nil || gv.byName[resource] == nil {
		return fmt.Errorf("kubeapi: unregister %s: not registered in %s/%s", resource, group, version)
	}
	delete(gv.byName, resource)
	for i, r := range gv.resources {
		if r.info.Resource == resource {
			gv.resources = append(gv.resources[:i:i], gv.resources[i+1:]...)
			break
		}
	}
	if len(gv.resources) == 0 {
		for i, v := range g.versions {
			if v == gv {
				g.versions = append(g.versions[:i:i], g.versions[i+1:]...)
				break
			}
		}
	}
	if len(g.versions) == 0 {
		for i, x := range s.groups {
			if x == g {
				s.groups = append(s.groups[:i:i], s.groups[i+1:]...)
				break
			}
		}
	}
	s.gen++
	return nil
}
