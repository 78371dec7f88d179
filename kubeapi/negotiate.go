package kubeapi

import (
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/watchcache/watchcache/internal/wire"
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
	// enc is the media type the format is written in: JSON, YAML (JSON converted) or protobuf.
	enc wire.Encoding
	// metaVersion is "v1" or "v1beta1" of meta.k8s.io, for formatTable and formatMeta.
	metaVersion string
	// as is the kind asked for with formatMeta: "PartialObjectMetadata" or
	// "PartialObjectMetadataList".
	as string
}

// contentType is the Content-Type of a response in this output, as the apiserver sets it: the
// encoding's media type, also for Tables and metadata (testdata/oracle/table-*.http, meta-*.http);
// the kind in the body says what it is.
func (o output) contentType() string { return o.enc.MediaType() }

// refusal says why negotiation found nothing to serve, which decides the wording of the 406.
type refusal uint8

const (
	// noMediaType: no media range names a media type the endpoint produces (application/xml,
	// application/*): the router's 406.
	noMediaType refusal = iota + 1
	// noConversion: media ranges name a media type served, but none in a form served, e.g.
	// `as=Table;v=v2`, a Table in protobuf, or a custom resource in protobuf.
	noConversion
)

// negotiate picks the representation of a resource response (list, get, watch) as the apiserver
// does (NegotiateMediaTypeOptions with the resource's endpoint restrictions). The Accept header's
// clauses are tried in goautoneg's order (q, then specific before wildcard; q=0 is tried too, last),
// each against JSON, YAML and protobuf in that order; the first that admits the clause and its
// parameters wins:
//
//   - no as/g/v: the object or list itself; protobuf only for a kind with a protobuf encoding
//     (protobuf: k8s.io/api's kinds; a custom resource has none);
//   - `as=Table;g=meta.k8s.io;v=v1|v1beta1`: a Table, in JSON or YAML only;
//   - `as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1|v1beta1`: metadata only, in any of them;
//   - `stream=watch` is admitted for JSON and protobuf.
//
// An empty header is JSON. Before negotiating, the apiserver's router refuses a header none of
// whose media types (without parameters) is one the endpoint produces or `*/*`, which
// `application/*` is not (testdata/encodings: get-configmap-application___). custom resources
// are not behind that router; they get noConversion instead.
func negotiate(header string, custom, protobuf bool) (output, refusal) {
	if strings.TrimSpace(header) == "" {
		return output{format: formatJSON, enc: wire.JSON}, 0
	}
	if !custom && !wire.RouteAdmits(header, produced) {
		return output{}, noMediaType
	}
	for _, c := range wire.ParseAccept(header) {
		for _, enc := range wire.Encodings {
			if !c.Admits(enc) {
				continue
			}
			if s, ok := c.Params["stream"]; ok && s != "" && (s != "watch" || !enc.Streams()) {
				continue
			}
			as, g, v := c.Params["as"], c.Params["g"], c.Params["v"]
			metaGV := g == "meta.k8s.io" && (v == "v1" || v == "v1beta1")
			switch {
			case as == "" && g == "" && v == "":
				if !protobuf && enc == wire.Protobuf {
					continue
				}
				return output{format: formatJSON, enc: enc}, 0
			case as == "Table" && metaGV && enc != wire.Protobuf:
				return output{format: formatTable, enc: enc, metaVersion: v}, 0
			case (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") && metaGV:
				return output{format: formatMeta, enc: enc, metaVersion: v, as: as}, 0
			}
		}
	}
	return output{}, noConversion
}

// errorEncoding is the encoding of an error Status answering a request with this Accept header
// (wire.ErrorEncoding).
func errorEncoding(header string) wire.Encoding { return wire.ErrorEncoding(header) }

// Media types a resource endpoint produces, as the apiserver lists them in a 406: a collection's
// path also serves watch streams, an object's does not (testdata/oracle/notacceptable-*.http).
var (
	produced                  = []string{wire.MediaJSON, wire.MediaYAML, wire.MediaProtobuf}
	objectRepresentations     = produced
	collectionRepresentations = []string{wire.MediaJSON, wire.MediaYAML, wire.MediaProtobuf,
		wire.MediaJSON + ";stream=watch", wire.MediaProtobuf + ";stream=watch"}
	// streamRepresentations are the media types a watch is served in: the 406 of a watch whose
	// negotiated encoding cannot stream (YAML; testdata/encodings: watch-configmaps-yaml).
	streamRepresentations = []string{wire.MediaJSON + ";stream=watch", wire.MediaProtobuf + ";stream=watch"}
	// discoveryRepresentations are what discovery documents are served in.
	discoveryRepresentations = []string{wire.MediaJSON}
)

// notAcceptableFor is the 406 of a refusal: for a media type not served, the representations the
// endpoint serves (collection: a list or watch path); for a form not served, the media types.
func notAcceptableFor(why refusal, collection bool) *apierrors.StatusError {
	if why == noConversion {
		return onlyMediaTypes(produced...)
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
	for _, c := range wire.ParseAccept(header) {
		if !c.Admits(wire.JSON) {
			continue
		}
		if c.Params["as"] == "" && c.Params["g"] == "" && c.Params["v"] == "" {
			return true, 0
		}
		why = noConversion
	}
	return false, why
}
