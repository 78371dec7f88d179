// Package peers adapts the systems the cache is compared with — client-go's Indexer, the
// apiserver's etcd read path, the apiserver's watch cache — and the cache itself to one small
// query interface, so that benchmarks and correctness tests drive all of them with the same data
// and the same queries.
package peers
