package kubeapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// readyCheck is one named condition of /readyz.
type readyCheck struct {
	name  string
	check func() error
}

// AddReadyCheck adds a condition to /readyz, shown as "[+]name ok" or "[-]name failed: reason
// withheld", and served alone at /readyz/name, as the apiserver's checks are (its etcd check is
// "etcd"). check is called on every /readyz request, from the request's goroutine, so it must be
// cheap and safe for concurrent use. Names are unique; AddReadyCheck may be called at any time.
func (s *Server) AddReadyCheck(name string, check func() error) error {
	if name == "" || strings.ContainsAny(name, " \n") || check == nil {
		return fmt.Errorf("kubeapi: invalid ready check %q", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.readyChecks {
		if c.name == name {
			return fmt.Errorf("kubeapi: ready check %q added twice", name)
		}
	}
	s.readyChecks = append(s.readyChecks, readyCheck{name, check})
	return nil
}

// checks returns the checks of an endpoint: ping for all; for /readyz also one per resource
// ("resource/pods", "resource/deployments.apps": its cache has its first list, rule 3.7) and those
// AddReadyCheck added.
func (s *Server) checks(ready bool) []readyCheck {
	out := []readyCheck{{"ping", func() error { return nil }}}
	if !ready {
		return out
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	seen := map[string]bool{} // a resource served in several versions is one check
	for _, g := range s.groups {
		for _, gv := range g.versions {
			for _, res := range gv.resources {
				if name := "resource/" + res.gr.String(); !seen[name] {
					seen[name] = true
					out = append(out, readyCheck{name, res.cache.Ready})
				}
			}
		}
	}
	return append(out, s.readyChecks...)
}

// serveHealth answers /healthz, /livez and /readyz as the apiserver's healthz handler does
// (k8s.io/apiserver server/healthz): "ok" when every check passes (with ?verbose, one line per
// check and "<endpoint> check passed"); otherwise 500 listing every check, failures as
// "[-]name failed: reason withheld" (the reason is logged, not shown: the endpoint is public),
// ending "<endpoint> check failed". ?exclude=name skips a check. /readyz/name runs one check.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, segs []string) {
	endpoint := segs[0]
	checks := s.checks(endpoint == "readyz")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if len(segs) > 1 {
		name := strings.Join(segs[1:], "/")
		i := slices.IndexFunc(checks, func(c readyCheck) bool { return c.name == name })
		if i < 0 {
			writeStatus(w, notFound())
			return
		}
		if err := checks[i].check(); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "internal server error: %v\n", err)
			return
		}
		fmt.Fprint(w, "ok")
		return
	}
	excluded := r.URL.Query()["exclude"]
	var out strings.Builder
	var failed []string
	for _, c := range checks {
		if slices.Contains(excluded, c.name) {
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.name)
			continue
		}
		if err := c.check(); err != nil {
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.name)
			failed = append(failed, c.name+": "+err.Error())
			continue
		}
		fmt.Fprintf(&out, "[+]%s ok\n", c.name)
	}
	if len(failed) > 0 {
		s.log.Info(endpoint+" check failed", "failed", failed)
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "%s%s check failed\n", out.String(), endpoint)
		return
	}
	if _, verbose := r.URL.Query()["verbose"]; !verbose {
		fmt.Fprint(w, "ok")
		return
	}
	fmt.Fprintf(w, "%s%s check passed\n", out.String(), endpoint)
}
