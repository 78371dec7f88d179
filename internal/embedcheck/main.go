// Command embedcheck is a controller's view of the project: a module of its own that imports only
// the cache and the feed from a real apiserver. scripts/test.sh lists its modules (`go list -m all`,
// outside the workspace) and fails if one of etcd's server, raft, bbolt, OpenTelemetry's SDK, zap
// or etcd's pin of gRPC is among them: embedding the cache must not pay for what only the etcd
// source and the storage suite need.
package main

import (
	"fmt"

	"github.com/watchcache/watchcache/source/kube"
	"github.com/watchcache/watchcache/watchcache"
)

func main() {
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	defer c.Stop()
	var _ *kube.Source
	fmt.Println(c.Resource().Name)
}
