package etcd_test

import (
	"context"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/watchcache/watchcache/source/etcd"
	"github.com/watchcache/watchcache/watchcache"
)

// Feed the pods and nodes caches from the etcd of a kube-apiserver that stores JSON
// (--storage-media-type=application/json), with consistent reads.
func Example() {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}, DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	src := etcd.New(client, etcd.Options{}) // keys under /registry
	pods := watchcache.New(watchcache.Options{
		Resource:               watchcache.Resource{Name: "pods", Namespaced: true},
		CurrentResourceVersion: src.CurrentResourceVersion, // RV="" lists wait for etcd's revision
		OnWait:                 src.WaitingFor,             // and so do lists at an exact RV
	})
	nodes := watchcache.New(watchcache.Options{
		Resource:               watchcache.Resource{Name: "nodes"},
		CurrentResourceVersion: src.CurrentResourceVersion,
	})
	if err := src.Add("pods", pods); err != nil {
		log.Fatal(err)
	}
	if err := src.Add("minions", nodes); err != nil { // nodes are stored as "minions" (rule 6.1)
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go src.Run(ctx)

	res, err := pods.List(ctx, watchcache.ListOptions{Limit: 500})
	if err != nil {
		log.Fatal(err) // 429 until the first list is in; see apistatus.FromError
	}
	log.Printf("%d pods at resourceVersion %d", len(res.Items), res.ResourceVersion)
}
