package kubeapi

import (
	"cmp"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/munnerz/goautoneg"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Aggregated discovery: /api and /apis answer an APIGroupDiscoveryList (apidiscovery.k8s.io/v2)
// to a client that asks for one, so that client-go and kubectl learn every group, version and
// resource in two requests instead of one per group-version. The documents are built from the
// same registrations as the legacy ones, once per change of them (Server.gen), with the
// apiserver's ETag; a request whose If-None-Match names it gets 304.
//
// kube-apiserver 1.37.2 serves only v2: v2beta1 went with AggregatedDiscoveryRemoveBetaType,
// locked on since 1.35, so an Accept naming only v2beta1 gets the legacy document or its 406
// (testdata/oracle/aggdisc-*.http, reference/observed-discovery.md).

// The media types an aggregated document is written in, in the order the apiserver's codec
// factory lists them (a wildcard clause gets the first): JSON, YAML, protobuf (CBOR is off in
// 1.37). The Content-Type is the media type with the aggregated kind's parameters
// (testdata/oracle/aggdisc-api-v2.http, aggdisc-api-yaml.http, aggdisc-api-protobuf.http).
var aggregatedMediaTypes = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}

// aggregatedParams are the parameters of an aggregated document's Content-Type.
const aggregatedParams = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// aggregatedDoc is one aggregated document as served: its JSON, its ETag, and its YAML and
// protobuf forms, made on first use. Safe for concurrent use; the bodies are never modified.
type aggregatedDoc struct {
	list apidiscoveryv2.APIGroupDiscoveryList
	json []byte // with kind and apiVersion, and the encoder's final newline
	etag string // quoted

	yamlOnce, protoOnce sync.Once
	yaml, proto         []byte
	protoErr, yamlErr   error
}

// aggregatedSet is the aggregated documents of one generation of registrations.
type aggregatedSet struct {
	gen       uint64
	api, apis *aggregatedDoc
}

// wantsAggregated decides, as the apiserver's discovery wrapper (k8s.io/apiserver
// pkg/endpoints/discovery/aggregated: WrapAggregatedDiscoveryToHandler) does, whether a request
// to /api or /apis gets the aggregated document, and in which media type. The wrapper admits a
// clause only if it asks for the aggregated kind, so a plain application/json listed first (or
// with a higher q) does not win over an aggregated clause after it: clauses are taken in
// goautoneg's order (by q; q=0 is not a refusal there), and the first of a served media type
// with g=apidiscovery.k8s.io, v=v2 and as=APIGroupDiscoveryList decides
// (testdata/oracle/aggdisc-*-json-first.http, -v2-q0.http, -v2beta1-first.http).
func wantsAggregated(header string) (string, bool) {
	for _, c := range goautoneg.ParseAccept(header) {
		if c.Params["g"] != "apidiscovery.k8s.io" || c.Params["v"] != "v2" || c.Params["as"] != "APIGroupDiscoveryList" {
			continue
		}
		for _, mt := range aggregatedMediaTypes {
			typ, sub, _ := strings.Cut(mt, "/")
			if !(c.Type == typ && (c.SubType == sub || c.SubType == "*") || c.Type == "*" && c.SubType == "*") {
				continue
			}
			// The discovery endpoint refuses a server version (sv) and any stream but watch,
			// which YAML has no serializer for.
			if c.Params["sv"] != "" || c.Params["stream"] != "" && (c.Params["stream"] != "watch" || sub == "yaml") {
				continue
			}
			return mt, true
		}
	}
	return "", false
}

// serveAggregated writes an aggregated document in a media type with the apiserver's caching
// headers, or 304 when the request's If-None-Match is its ETag (compared as a whole string, as
// the apiserver compares it: an unquoted or listed ETag does not match;
// testdata/oracle/aggdisc-*-inm*.http).
func serveAggregated(w http.ResponseWriter, r *http.Request, d *aggregatedDoc, mediaType string) {
	h := w.Header()
	h.Set("Cache-Control", "public")
	h.Set("Etag", d.etag)
	h.Set("Vary", "Accept")
	if r.Header.Get("If-None-Match") == d.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, err := d.encoded(mediaType)
	if err != nil {
		for _, k := range []string{"Cache-Control", "Etag", "Vary"} {
			h.Del(k)
		}
		writeStatus(w, apierrors.NewInternalError(err))
		return
	}
	h.Set("Content-Type", mediaType+aggregatedParams)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// protobufMagic begins every Kubernetes protobuf body (k8s.io/apimachinery
// pkg/runtime/serializer/protobuf).
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// encoded returns the document in a media type of aggregatedMediaTypes: YAML is the JSON
// converted as the apiserver's YAML serializer converts it (keys sorted), protobuf the list in a
// runtime.Unknown envelope after the magic prefix, as its protobuf serializer writes it.
func (d *aggregatedDoc) encoded(mediaType string) ([]byte, error) {
	switch mediaType {
	case "application/yaml":
		d.yamlOnce.Do(func() {
			d.yaml, d.yamlErr = yaml.JSONToYAML(d.json)
			if d.yamlErr != nil {
				d.yamlErr = fmt.Errorf("kubeapi: aggregated discovery as YAML: %w", d.yamlErr)
			}
		})
		return d.yaml, d.yamlErr
	case "application/vnd.kubernetes.protobuf":
		d.protoOnce.Do(func() {
			d.proto, d.protoErr = protobufEnvelope(&d.list, d.list.TypeMeta)
		})
		return d.proto, d.protoErr
	}
	return d.json, nil
}

// protobufEnvelope encodes an object as the apiserver's protobuf serializer does.
func protobufEnvelope(obj interface{ Marshal() ([]byte, error) }, tm metav1.TypeMeta) ([]byte, error) {
	raw, err := obj.Marshal()
	if err != nil {
		return nil, fmt.Errorf("kubeapi: aggregated discovery as protobuf: %w", err)
	}
	unk := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: tm.APIVersion, Kind: tm.Kind}, Raw: raw}
	b, err := unk.Marshal()
	if err != nil {
		return nil, fmt.Errorf("kubeapi: aggregated discovery as protobuf: %w", err)
	}
	return append(append([]byte(nil), protobufMagic...), b...), nil
}

// aggregated returns the aggregated documents of the current registrations, building them on
// first use after a change.
func (s *Server) aggregated() (*aggregatedSet, error) {
	s.mu.RLock()
	set := s.discovery
	ok := set != nil && set.gen == s.gen
	s.mu.RUnlock()
	if ok {
		return set, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.discovery != nil && s.discovery.gen == s.gen {
		return s.discovery, nil
	}
	var core, named []apidiscoveryv2.APIGroupDiscovery
	for _, g := range s.groups {
		if g.name == "" {
			core = append(core, g.aggregated())
		} else {
			named = append(named, g.aggregated())
		}
	}
	set = &aggregatedSet{gen: s.gen}
	var err error
	if set.api, err = newAggregatedDoc(core); err != nil {
		return nil, err
	}
	if set.apis, err = newAggregatedDoc(named); err != nil {
		return nil, err
	}
	s.discovery = set
	return set, nil
}

// newAggregatedDoc encodes a list of groups. The ETag is the apiserver's: the upper-case hex
// SHA-512 of the list's JSON without kind and apiVersion (aggregated/etag.go: calculateETag), so
// the same registrations give the same ETag as a kube-apiserver serving the same document.
func newAggregatedDoc(groups []apidiscoveryv2.APIGroupDiscovery) (*aggregatedDoc, error) {
	l := apidiscoveryv2.APIGroupDiscoveryList{Items: groups}
	if l.Items == nil {
		l.Items = []apidiscoveryv2.APIGroupDiscovery{}
	}
	hashed, err := json.Marshal(&l)
	if err != nil {
		return nil, fmt.Errorf("kubeapi: aggregated discovery: %w", err)
	}
	l.TypeMeta = metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: apidiscoveryv2.SchemeGroupVersion.String()}
	body, err := json.Marshal(&l)
	if err != nil {
		return nil, fmt.Errorf("kubeapi: aggregated discovery: %w", err)
	}
	return &aggregatedDoc{list: l, json: append(body, '\n'), etag: strconv.Quote(fmt.Sprintf("%X", sha512.Sum512(hashed)))}, nil
}

// aggregated is a group's entry in the aggregated document: its versions in the order of the
// legacy APIGroup (preferred first), each with its resources by name, as the apiserver sorts
// them (the installer sorts a group-version's paths; the CRD discovery controller its
// resources).
func (g *apiGroup) aggregated() apidiscoveryv2.APIGroupDiscovery {
	out := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.name}}
	for _, gv := range g.versions {
		v := apidiscoveryv2.APIVersionDiscovery{Version: gv.version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
		for _, r := range gv.resources {
			v.Resources = append(v.Resources, r.info.aggregated())
		}
		slices.SortFunc(v.Resources, func(a, b apidiscoveryv2.APIResourceDiscovery) int { return cmp.Compare(a.Resource, b.Resource) })
		out.Versions = append(out.Versions, v)
	}
	return out
}

// aggregated is the resource's entry in the aggregated document, with its subresources in the
// order they are registered, converted as the apiserver converts its legacy list
// (endpoints.ConvertGroupVersionIntoToDiscovery): a kind's group and version stay as the legacy
// entry has them (empty for a built-in resource), unless QualifiedKinds names them.
func (i ResourceInfo) aggregated() apidiscoveryv2.APIResourceDiscovery {
	scope := apidiscoveryv2.ScopeCluster
	if i.Namespaced {
		scope = apidiscoveryv2.ScopeNamespace
	}
	kind := metav1.GroupVersionKind{Kind: i.Kind}
	if i.QualifiedKinds {
		kind.Group, kind.Version = i.Group, i.Version
	}
	out := apidiscoveryv2.APIResourceDiscovery{
		Resource:         i.Resource,
		ResponseKind:     &kind,
		Scope:            scope,
		SingularResource: i.SingularName,
		Verbs:            i.Verbs,
		ShortNames:       i.ShortNames,
		Categories:       i.Categories,
	}
	for _, sub := range i.Subresources {
		_, name, _ := strings.Cut(sub.Name, "/")
		// A subresource without a kind has an empty responseKind, not none: client-go v0.26.0 to
		// v0.26.3 dereference it.
		k := metav1.GroupVersionKind{}
		if sub.Kind != "" {
			k = metav1.GroupVersionKind{Group: sub.Group, Version: sub.Version, Kind: sub.Kind}
			if i.QualifiedKinds && k.Group == "" && k.Version == "" {
				k.Group, k.Version = i.Group, i.Version
			}
		}
		out.Subresources = append(out.Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: name, ResponseKind: &k, Verbs: sub.Verbs,
		})
	}
	return out
}
