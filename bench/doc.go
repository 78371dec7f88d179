// Package bench compares watchcache.Cache with the systems Kubernetes users have today, on the
// same generated pods in the same process: client-go's Indexer, the apiserver's etcd read path
// (etcd3 store over an embedded etcd) and the apiserver's own watch cache (cacher). The
// benchmarks and the correctness tests that keep them honest are in the _test.go files; run.sh
// runs the comparison and writes BENCHMARKS.md. See README.md.
package bench
