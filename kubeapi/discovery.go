package kubeapi

import (
	"encoding/json"
	"net/http"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Discovery: the legacy (unaggregated) documents of the apiserver — APIVersions at /api,
// APIGroupList at /apis, APIGroup at /apis/{group}, APIResourceList at /api/v1 and
// /apis/{group}/{version} — plus /version and the root path list. Only registered resources are
// listed.
//
// kubectl and client-go first ask /api and /apis for the aggregated document
// (`Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json`),
// which aggregated.go answers; the legacy documents answer the rest. A client that accepts
// neither plain JSON nor the aggregated form gets 406.

// writeJSON answers 200 with a JSON document.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeStatus(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
}

// discoveryAccepted checks the Accept header of a legacy discovery request, answering 406 if it
// admits no plain JSON, in the words of the apiserver's endpoint: a form of JSON it does not
// serve (an aggregated kind of another version, or at a path that has none) is refused with the
// media types everywhere; another media type with them at /apis and /apis/{group}, which the
// apiserver's aggregator answers (byMediaTypes), and with the representations at /api and the
// group-version documents (testdata/oracle/notacceptable-*.http, aggdisc-*-only.http,
// aggdisc-core-v2.http).
func discoveryAccepted(w http.ResponseWriter, r *http.Request, byMediaTypes bool) bool {
	ok, why := acceptsPlainJSON(r.Header.Get("Accept"))
	if ok {
		return true
	}
	if byMediaTypes || why == noConversion {
		writeStatus(w, onlyMediaTypes(discoveryRepresentations...))
	} else {
		writeStatus(w, notAcceptable(discoveryRepresentations...))
	}
	return false
}

// serveRoot lists the paths this server answers, as the apiserver's / does.
func (s *Server) serveRoot(w http.ResponseWriter, r *http.Request) {
	paths := []string{"/api", "/apis", "/healthz", "/livez", "/readyz", "/version"}
	s.mu.RLock()
	for _, g := range s.groups {
		for _, gv := range g.versions {
			if g.name == "" {
				paths = append(paths, "/api/"+gv.version)
				continue
			}
			paths = append(paths, "/apis/"+g.name, "/apis/"+g.name+"/"+gv.version)
		}
	}
	s.mu.RUnlock()
	sort.Strings(paths)
	paths = compactStrings(paths)
	writeJSON(w, struct {
		Paths []string `json:"paths"`
	}{paths})
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// serveVersion answers /version.
func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.opts.Version)
}

// servedAggregated answers with the aggregated discovery document doc picks (of /api or /apis)
// when the Accept header asks for one, and reports whether it did.
func (s *Server) servedAggregated(w http.ResponseWriter, r *http.Request, doc func(*aggregatedSet) *aggregatedDoc) bool {
	mt, ok := wantsAggregated(r.Header.Get("Accept"))
	if !ok {
		return false
	}
	set, err := s.aggregated()
	if err != nil {
		writeStatus(w, apierrors.NewInternalError(err))
		return true
	}
	serveAggregated(w, r, doc(set), mt)
	return true
}

// serveAPIVersions answers /api.
func (s *Server) serveAPIVersions(w http.ResponseWriter, r *http.Request) {
	if s.servedAggregated(w, r, func(set *aggregatedSet) *aggregatedDoc { return set.api }) {
		return
	}
	if !discoveryAccepted(w, r, false) {
		return
	}
	v := metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
		Versions: []string{},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
			{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host},
		},
	}
	s.mu.RLock()
	if g := s.groupLocked(""); g != nil {
		for _, gv := range g.versions {
			v.Versions = append(v.Versions, gv.version)
		}
	}
	s.mu.RUnlock()
	writeJSON(w, &v)
}

// describe returns the discovery document of a named group.
func (g *apiGroup) describe() metav1.APIGroup {
	out := metav1.APIGroup{Name: g.name}
	for _, gv := range g.versions {
		out.Versions = append(out.Versions, metav1.GroupVersionForDiscovery{
			GroupVersion: g.name + "/" + gv.version, Version: gv.version,
		})
	}
	if len(out.Versions) > 0 {
		out.PreferredVersion = out.Versions[0]
	}
	return out
}

// serveGroupList answers /apis.
func (s *Server) serveGroupList(w http.ResponseWriter, r *http.Request) {
	if s.servedAggregated(w, r, func(set *aggregatedSet) *aggregatedDoc { return set.apis }) {
		return
	}
	if !discoveryAccepted(w, r, true) {
		return
	}
	l := metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   []metav1.APIGroup{},
	}
	s.mu.RLock()
	for _, g := range s.groups {
		if g.name != "" {
			l.Groups = append(l.Groups, g.describe())
		}
	}
	s.mu.RUnlock()
	writeJSON(w, &l)
}

// serveGroup answers /apis/{group}.
func (s *Server) serveGroup(w http.ResponseWriter, r *http.Request, name string) {
	s.mu.RLock()
	g := s.groupLocked(name)
	var d metav1.APIGroup
	if g != nil && name != "" {
		d = g.describe()
	}
	s.mu.RUnlock()
	if g == nil || name == "" {
		writeStatus(w, notFound())
		return
	}
	if !discoveryAccepted(w, r, true) {
		return
	}
	d.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	writeJSON(w, &d)
}

// serveResourceList answers /api/{version} and /apis/{group}/{version}.
func (s *Server) serveResourceList(w http.ResponseWriter, r *http.Request, group, version string) {
	gv := s.lookup(group, version)
	if gv == nil {
		writeStatus(w, notFound())
		return
	}
	if !discoveryAccepted(w, r, false) {
		return
	}
	l := metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: version,
		APIResources: []metav1.APIResource{},
	}
	if group != "" {
		l.GroupVersion = group + "/" + version
	}
	s.mu.RLock()
	for _, res := range gv.resources {
		i := res.info
		l.APIResources = append(l.APIResources, metav1.APIResource{
			Name:         i.Resource,
			SingularName: i.SingularName,
			Namespaced:   i.Namespaced,
			Kind:         i.Kind,
			Verbs:        metav1.Verbs(i.Verbs),
			ShortNames:   i.ShortNames,
			Categories:   i.Categories,

			StorageVersionHash: i.StorageVersionHash,
		})
		l.APIResources = append(l.APIResources, i.Subresources...)
	}
	s.mu.RUnlock()
	writeJSON(w, &l)
}
