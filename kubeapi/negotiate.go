package kubeapi

import (
	"mime"
	"sort"
	"strconv"
	"strings"
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

// negotiate picks the representation of a resource response (list, get, watch): plain JSON, a
// Table when kubectl asks for one (`application/json;as=Table;v=v1;g=meta.k8s.io`), or metadata
// only (`application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`, also v1beta1).
// Other encodings (protobuf, YAML, CBOR) are skipped, so a client that lists JSON as a fallback —
// client-go always does — gets JSON. An empty header is JSON.
func negotiate(header string) (output, bool) {
	if strings.TrimSpace(header) == "" {
		return output{format: formatJSON}, true
	}
	for _, m := range parseAccept(header) {
		if !m.jsonType() {
			continue
		}
		as := m.params["as"]
		switch {
		case as == "" && m.params["g"] == "" && m.params["v"] == "":
			return output{format: formatJSON}, true
		case as == "Table" && m.params["g"] == "meta.k8s.io" && (m.params["v"] == "v1" || m.params["v"] == "v1beta1"):
			return output{format: formatTable, metaVersion: m.params["v"]}, true
		case (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") && m.params["g"] == "meta.k8s.io" &&
			(m.params["v"] == "v1" || m.params["v"] == "v1beta1"):
			return output{format: formatMeta, metaVersion: m.params["v"], as: as}, true
		}
	}
	return output{}, false
}

// acceptsPlainJSON reports whether a discovery request admits a plain JSON document. kubectl and
// client-go ask for the aggregated discovery document (`as=APIGroupDiscoveryList`) first and list
// `application/json` as a fallback: answering the fallback makes them use the legacy discovery
// endpoints, which is what this server serves.
func acceptsPlainJSON(header string) bool {
	if strings.TrimSpace(header) == "" {
		return true
	}
	for _, m := range parseAccept(header) {
		if m.jsonType() && m.params["as"] == "" && m.params["g"] == "" && m.params["v"] == "" {
			return true
		}
	}
	return false
}
