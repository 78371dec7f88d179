// Command watchcache serves the Kubernetes API's read path from in-process watch caches, and
// demonstrates the cache on a generated cluster.
//
//	watchcache serve [--listen 127.0.0.1:8080] [--pods 10000 --nodes 500 --namespaces 20 --seed 1 --churn 50]
//	watchcache serve [--listen 127.0.0.1:8080] --etcd-endpoints https://10.0.0.1:2379 [--etcd-prefix /registry]
//	                 [--etcd-cafile ca.crt --etcd-certfile client.crt --etcd-keyfile client.key] [--resources pods,deploy]
//	watchcache serve [--listen 127.0.0.1:8080] --kubeconfig ~/.kube/config [--resources pods,deploy]
//	watchcache serve --listen 0.0.0.0:8443 --tls-self-signed --token-auth-file tokens.csv ...
//	watchcache demo  [--pods 100000 ...]
//
// Plain HTTP is served only on loopback; any other address needs TLS and an authenticator (a
// token file, a client CA, or the cluster's TokenReview), with an optional authorizer (the
// cluster's SubjectAccessReview or an ABAC policy), and every answer is bounded: in-flight limits
// answered with 429, timeouts, write deadlines, a drain on SIGTERM. /metrics has the apiserver's
// request metrics and the caches' figures.
//
// serve loads a generated cluster into caches, keeps changing its pods, and answers kubectl and
// client-go on the address it prints as its first line of output:
//
//	$ watchcache serve --listen 127.0.0.1:0 &
//	http://127.0.0.1:40123
//	$ kubectl --server http://127.0.0.1:40123 get pods -A --chunk-size=500
//
// With --etcd-endpoints it serves instead the built-in resources a kube-apiserver keeps in that
// etcd (protobuf, its default, CBOR or JSON; --resources narrows them), next to the apiserver and
// with its semantics, consistent reads included, custom resources in every version their CRD
// serves. With --kubeconfig it serves every listable resource of a live cluster (built-in, custom
// and aggregated), each fed through the cluster's apiserver by a reflector, and asks that cluster
// who a client is and what it may read (TokenReview, SubjectAccessReview), as an aggregated
// apiserver does; --delegated-auth=false serves without credentials, on loopback only.
//
// demo loads pods into a cache and prints the answers and timings of the queries a user runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "watchcache:", err)
		}
		os.Exit(2)
	}
}

const usage = `watchcache: an in-process Kubernetes watch cache.

Usage:
  watchcache serve [flags]   serve the Kubernetes API (discovery, list, get, watch) from caches
                             loaded with a generated cluster whose pods keep changing, or
                             fed from a kube-apiserver's etcd (--etcd-endpoints)
  watchcache demo  [flags]   load generated pods into a cache and time the queries users run

Run "watchcache <command> -h" for the flags of a command.
`

// run is the whole command, testable: it returns when the command is done or ctx ends (serve
// shuts down cleanly then and returns nil).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "demo":
		return demo(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
