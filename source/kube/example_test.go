package kube_test

import (
	"context"
	"log"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/watchcache/watchcache/source/kube"
	"github.com/watchcache/watchcache/watchcache"
)

// Feed a pods cache from the cluster of a kubeconfig.
func Example() {
	cfg, err := clientcmd.BuildConfigFromFlags("", "/path/to/kubeconfig")
	if err != nil {
		log.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	pods := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "pods", Namespaced: true}})
	src := kube.New(cs.CoreV1().RESTClient(), kube.Options{})
	if err := src.Add("pods", pods); err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go src.Run(ctx)

	res, err := pods.List(ctx, watchcache.ListOptions{ResourceVersion: "0", FieldSelector: "spec.nodeName=node-1"})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d pods on node-1", len(res.Items))
}
