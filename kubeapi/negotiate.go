package kubeapi

import (
	"mime"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// format is the representation a response is written in.
type format uint8

const (
	// formatJSON is the object or list itself, as stored.
	formatJSON format = iota + 1
	// formatTable is a meta.k8s.io Table (kubectl get's human-readable output).
	formatTable
	// formatMeta is the objects' metadata only: PartialObjectMetadata for an object or a watch
	// event, PartialObjectMetadataList for a list (client-go's metadata client).
	formatMeta
)

// output is the outcome of content negotiation.
type output struct {
	format format
	// metaVersion is "v1" or "v1beta1" of meta.k8s.io, for formatTable and formatMeta.
	metaVersion string
	// as is the kind asked for with formatMeta: "PartialObjectMetadata" or
	// "PartialObjectMetadataList".
	as string
}

// contentType is the Content-Type of a response in this output, as the apiserver sets it: plain
// JSON for Tables and metadata too (testdata/oracle/table-*.http, meta-*.http); the kind in the
// body says what it is.
func (o output) contentType() string { return "application/json" }

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ    string // "application/json", "*/*", ...
	params map[string]string
	q      float64
	pos    int
}

// parseAccept splits an Accept header into media ranges, most preferred first (by q, then order).
// Malformed entries are skipped.
func parseAccept(header string) []mediaRange {
	var out []mediaRange
	for i, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		typ, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if v, err := strconv.ParseFloat(s, 64); err == nil {
				q = v
			}
			delete(params, "q")
		}
		if q <= 0 {
			continue
		}
		out = append(out, mediaRange{typ: typ, params: params, q: q, pos: i})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].q > out[b].q })
	return out
}

// jsonType reports whether a media range admits plain JSON.
func (m mediaRange) jsonType() bool {
	return m.typ == "application/json" || m.typ == "application/*" || m.typ == "*/*"
}

// refusal says why negotiation found nothing to serve, which decides the wording of the 406.
type refusal uint8

const (
	// noMediaType: no media range admits JSON (application/xml, protobuf only, ...).
	noMediaType refusal = iota + 1
	// noConversion: a media range admits JSON but asks for a form of it (as=, g=, v=) that is not
	// served, e.g. `as=Table;v=v2`.
	noConversion
)

// negotiate picks the representation of a resource response (list, get, watch): plain JSON, a
// Table when kubectl asks for one (`application/json;as=Table;v=v1;g=meta.k8s.io`), or metadata
// only (`application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`, also v1beta1).
// Other encodings (protobuf, YAML, CBOR) are skipped, so a client that lists JSON as a fallback —
// client-go always does — gets JSON. An empty header is JSON. When nothing can be served, the
// refusal says why.
func negotiate(header string) (output, refusal) {
	if strings.TrimSpace(header) == "" {
		return output{format: formatJSON}, 0
	}
	why := noMediaType
	for _, m := range parseAccept(header) {
		if !m.jsonType() {
			continue
		}
		why = noConversion
		as := m.params["as"]
		switch {
		case as == "" && m.params["g"] == "" && m.params["v"] == "":
			return output{format: formatJSON}, 0
		case as == "Table" && m.params["g"] == "meta.k8s.io" && (m.params["v"] == "v1" || m.params["v"] == "v1beta1"):
			return output{format: formatTable, metaVersion: m.params["v"]}, 0
		case (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") && m.params["g"] == "meta.k8s.io" &&
			(m.params["v"] == "v1" || m.params["v"] == "v1beta1"):
			return output{format: formatMeta, metaVersion: m.params["v"], as: as}, 0
		}
	}
	return output{}, why
}

// Media types listed in a 406, as the apiserver lists its own: a collection's path also serves
// watch streams, an object's does not (testdata/oracle/notacceptable-*.http).
var (
	objectRepresentations     = []string{"application/json"}
	collectionRepresentations = []string{"application/json", "application/json;stream=watch"}
)

// notAcceptableFor is the 406 of a refusal: for a media type not served, the representations the
// endpoint serves (collection: a list or watch path); for a form of JSON not served, the media types.
func notAcceptableFor(why refusal, collection bool) *apierrors.StatusError {
	if why == noConversion {
		return onlyMediaTypes("application/json")
	}
	if collection {
		return notAcceptable(collectionRepresentations...)
	}
	return notAcceptable(objectRepresentations...)
}

// acceptsPlainJSON reports whether a legacy discovery request admits a plain JSON document,
// and if not why: a form of JSON (as=, g=, v=) is a noConversion, which the apiserver refuses
// in the words of its media types at every discovery path (testdata/oracle/aggdisc-core-v2.http,
// aggdisc-api-v2beta1-only.http); anything else is a noMediaType.
func acceptsPlainJSON(header string) (bool, refusal) {
	if strings.TrimSpace(header) == "" {
		return true, 0
	}
	why := noMediaType
	for _, m := range parseAccept(header) {
		if !m.jsonType() {
			continue
		}
		if m.params["as"] == "" && m.params["g"] == "" && m.params["v"] == "" {
			return true, 0
		}
		why = noConversion
	}
	return false, why
}
