// Package testdata generates realistic Kubernetes object JSON — pods, nodes,
// namespaces and a stream of pod changes — for tests, benchmarks and the demo
// command.
//
// Everything is a pure function of (Config.Seed, index, version): the same
// seed yields the same bytes on every run and every machine, a different
// seed yields different uids, labels, placements and timestamps. Nothing is
// stored per object, so generating the millionth pod costs the same as the
// first and a Generator can be shared by any number of goroutines.
//
// The objects follow what kube-apiserver returns for a Deployment's pods —
// field order, ownerReferences, managedFields of kube-controller-manager
// and kubelet, probes, conditions, container statuses — trimmed where real
// objects run longer (managedFields stop one level below the keyed lists;
// the service-account token is a secret volume, not the projected one) so
// that a pod is 2–4 KiB as created, about 3.5 KiB on average. Label values
// are skewed the way real clusters are — a few popular apps, a long tail —
// so label selectors and indexes see realistic cardinality: at most 1,500
// distinct label sets however many pods there are.
//
// Note for callers: the go command skips directories named testdata when
// expanding patterns such as ./..., so run this package's tests by its path
// (go test ./internal/testdata).
package testdata
