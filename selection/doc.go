// Package selection parses and evaluates Kubernetes label and field selectors over values
// extracted once from an object's raw JSON, and holds the per-resource registry of selectable
// fields.
//
// The pieces, in the order a watch cache uses them:
//
//   - Schema lists a resource's selectable fields and where each value is in the JSON. PodSchema
//     and NodeSchema reproduce the apiserver's (rules 4.3, 4.4 of reference/apiserver-semantics.md);
//     NewSchema and CustomResourceSchema the defaults; WithField adds any gjson path at runtime.
//     Schemas are immutable and field positions append-only.
//   - Schema.Extract reads an object's name, namespace, resourceVersion, labels and field values
//     in one gjson pass over the bytes, returning strings that alias them (zero-copy): the bytes
//     must never be modified afterwards.
//   - ParseLabels and Schema.ParseFields parse selectors exactly as the apiserver does
//     (apimachinery's parsers, then the kind's field-label conversion), with the apiserver's error
//     messages, and compile them to matchers that run without allocating.
//   - LabelSelector.Exact, FieldSelector.Exact and FieldSelector.Requires expose the exact-match
//     requirements that let a caller narrow a scan with an index or a namespace (rules 4.6, 4.7).
//
// Errors are sentinels (errors.go): ErrMalformed for objects, ErrInvalidSelector and
// ErrUnsupportedField for selectors (both 400 BadRequest at the HTTP edge), ErrInvalidField for
// registrations.
//
// Everything here is either immutable or a value, and safe for concurrent use.
package selection
