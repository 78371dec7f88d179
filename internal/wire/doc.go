// Package wire encodes the answers of the Kubernetes API in the media types kube-apiserver
// serves besides JSON: protobuf (`application/vnd.kubernetes.protobuf`, what client-go's typed
// clients, kube-controller-manager and kube-scheduler ask for) and YAML (`application/yaml`). The
// caches hold JSON; a protobuf answer decodes each object's JSON into its k8s.io/api type and
// marshals it, a YAML answer converts the JSON the JSON answer would be
// (reference/observed-encodings.md).
//
// Its functions are pure and safe for concurrent use; a List is used by one goroutine.
package wire
