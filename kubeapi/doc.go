// Package kubeapi serves the Kubernetes REST read path from watch caches: an http.Handler that
// answers discovery, list, get and watch requests the way a kube-apiserver 1.37 does, so that
// kubectl, client-go (clientsets, pagers, reflectors, informers, discovery) and plain HTTP clients
// can read from a watchcache.Cache as they read from a cluster.
//
// A Server holds one Cache per resource (Register). Each request is parsed with the apiserver's
// own parameter conversions and answered by the cache's List, Get or Watch, whose errors become
// the apiserver's Status through apistatus.FromError — with the same codes, messages, causes,
// continue tokens and Retry-After headers (rules 2.9, 3.4, 3.7 of reference/apiserver-semantics.md).
//
// Responses are spliced, not re-encoded: a list is written item by item from the cache's stored
// bytes through a small buffer, so a page costs a copy of its bytes and nothing per object; a
// watch is a chunked stream of {"type":...,"object":...} lines flushed as events arrive. When
// kubectl asks for a Table (Accept: application/json;as=Table;v=v1;g=meta.k8s.io), rows are
// printed from the stored JSON with gjson by the resource's Printer: PrinterFor returns the
// columns and cells kube-apiserver 1.37.2 prints for 56 built-in resources (pods, nodes,
// deployments, jobs, events, PVs, …; reference/observed-tables.md); GenericPrinter is the
// apiserver's default (Name, Created At) for the others. Bodies are kube-apiserver
// 1.37.2's bytes: list items without kind and apiVersion, objects alone with them; metadata-only
// answers (PartialObjectMetadata[List]) copy the stored metadata; /openapi/v2 and /openapi/v3
// serve the apiserver's recorded documents for the registered resources (openapi.go), and for
// a resource registered with a Model (a custom resource) what the apiextensions apiserver builds
// from its schema (openapi_custom.go).
//
// JSON responses are spliced; a client that asks for protobuf (client-go's typed clients,
// kube-controller-manager, kube-scheduler) or YAML gets them as the apiserver negotiates and encodes
// them (internal/wire, reference/observed-encodings.md): protobuf decodes each stored object's
// JSON into its k8s.io/api type and marshals it, item by item; YAML converts the JSON answer.
//
// Only reads are served: other methods get 405, unknown paths 404. Discovery is served in both
// forms: the legacy documents, and the aggregated one (apidiscovery.k8s.io/v2) at /api and /apis,
// which kubectl and client-go read in two requests (aggregated.go).
package kubeapi
