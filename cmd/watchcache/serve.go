package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchcache/watchcache/cmd/watchcache/internal/gate"
	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/kubeapi"
	"github.com/watchcache/watchcache/watchcache"
)

// podIndexes are the indexes serve registers on pods: the apiserver's own (spec.nodeName, rule
// 4.7), and a label index on app, the label most selectors of the generated cluster name.
var podIndexes = []index.Spec{
	{Kind: index.Field, Name: "spec.nodeName"},
	{Kind: index.Label, Name: "app"},
}

// serve runs the API server until ctx ends.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on (port 0 picks a free port)")
	var sf sourceFlags
	fs.IntVar(&sf.gen.Pods, "pods", 10000, "pods in the generated cluster (0 without --nodes and --namespaces: an empty cluster)")
	fs.IntVar(&sf.gen.Nodes, "nodes", 500, "nodes in the generated cluster")
	fs.IntVar(&sf.gen.Namespaces, "namespaces", 20, "namespaces in the generated cluster")
	fs.Int64Var(&sf.gen.Seed, "seed", 1, "seed of the generated cluster")
	fs.Float64Var(&sf.churn, "churn", 50, "pod changes per second (0: none)")
	fs.StringVar(&sf.etcdEndpoints, "etcd-endpoints", "", "comma-separated etcd URLs of a kube-apiserver (its --etcd-servers): serve the built-in resources it stores (protobuf, CBOR or JSON) instead of a generated cluster")
	fs.StringVar(&sf.etcdPrefix, "etcd-prefix", "/registry", "the kube-apiserver's --etcd-prefix (with --etcd-endpoints)")
	addEtcdFlags(fs, &sf.etcd)
	requestTimeout := fs.Duration("request-timeout", kubeapi.DefaultRequestTimeout, "the longest a list or get may take, a wait for the source included, before a 504 (as the kube-apiserver's --request-timeout)")
	var sec safetyFlags
	addSafetyFlags(fs, &sec)
	logLevel := fs.String("log-level", "info", "log level: debug (logs every request), info, warn, error")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: watchcache serve [flags]\n\nServe the Kubernetes API from watch caches: a writable fake cluster (every built-in\nresource; create, update, patch, delete) seeded with a generated cluster, or the read path\nof what a kube-apiserver stores in etcd (--etcd-endpoints).\nPrints the server's URL as the first line of output.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", fs.Args())
	}
	sf.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { sf.set[f.Name] = true })
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	if !sf.set["write-timeout"] {
		sec.writeTimeout = *requestTimeout + time.Second
	}
	if err := delegate(&sec, sf.etcd.kubeconfig, sf.set); err != nil {
		return err
	}
	// Check the listen address, TLS and credentials before a long load.
	front, err := newFront(*listen, sec, log)
	if err != nil {
		return err
	}
	if sec.encryptionConfig != "" {
		if sf.etcdEndpoints == "" {
			return errors.New("--encryption-provider-config needs --etcd-endpoints")
		}
		sf.etcd.encryptionConfig = sec.encryptionConfig
	}
	src, err := newSource(sf, log)
	if err != nil {
		return err
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}

	// Bind first, so that a bad address fails before a long load.
	ln, err := front.listen(*listen)
	if err != nil {
		return err
	}
	defer ln.Close()

	var handler http.Handler
	var cs caches
	var srv *kubeapi.Server // the façade serving a read-only source; nil for the writable fake
	if g, ok := src.(*generated); ok {
		// Serving its own data, serve is a writable fake cluster: every built-in resource, with
		// the generated cluster stored through the fake.
		// The generated pods name ReplicaSets the cluster does not hold: with the garbage
		// collector on, any write to such a pod (kubectl label) would get it collected, as a
		// real cluster collects the dependents of absent owners. An empty cluster (--pods 0)
		// keeps it, for objects users create.
		f, err := fake.NewHandler(fake.Options{Logger: log, NoGarbageCollector: !g.empty})
		if err != nil {
			return err
		}
		defer f.Close()
		g.store = f
		cs = caches{}
		for _, info := range src.Resources() {
			c := f.Cache(schema.GroupVersionResource{Version: "v1", Resource: info.Resource})
			if c == nil {
				return fmt.Errorf("serve: the fake serves no %s", info.Resource)
			}
			cs[info.Resource] = c
		}
		handler = gateUserFake{f}
	} else {
		cs, srv, err = build(src, kubeapi.Options{Logger: log, RequestTimeout: *requestTimeout, MinRequestTimeout: sec.minRequestTimeout})
		if err != nil {
			return err
		}
		handler = srv
	}
	defer func() {
		for _, c := range cs {
			c.Stop()
		}
	}()
	if err := src.Load(ctx, cs); err != nil {
		return err
	}
	if fl, ok := src.(follower); ok && srv != nil {
		// Following ends with the source (its Close), after the drain, not at the signal: the
		// resources it serves stay served through the shutdown delay.
		fl.follow(context.Background(), srv)
	}
	for _, spec := range podIndexes {
		if c, ok := cs["pods"]; ok {
			if err := c.AddIndex(spec); err != nil {
				return err
			}
		}
	}

	return front.serve(ctx, ln, handler, cs, src, stdout)
}

// build creates a cache per resource of the source and a server registering them.
func build(src source, so kubeapi.Options) (caches, *kubeapi.Server, error) {
	cs := caches{}
	srv := kubeapi.NewServer(so)
	for _, info := range src.Resources() {
		// A resource served in several versions (a custom resource's) is one cache, registered
		// in each.
		key := cacheKey(info.Resource, info.Group)
		if info.Convert != nil {
			// Converted from the core resource of the same name (events.k8s.io Events from
			// core Events), registered before it.
			key = cacheKey(info.Resource, "")
		}
		c := cs[key]
		if c == nil {
			opts := watchcache.Options{
				Resource: watchcache.Resource{Name: info.Resource, Group: info.Group, Namespaced: info.Namespaced},
			}
			if cc, ok := src.(cacheConfigurer); ok {
				cc.configure(&opts)
			}
			c = watchcache.New(opts)
			cs[key] = c
		}
		if err := srv.Register(info, c); err != nil {
			return nil, nil, err
		}
	}
	if err := addReadyChecks(src, srv); err != nil {
		return nil, nil, err
	}
	return cs, srv, nil
}

// newLogger returns a text logger on w at the named level.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// gateUserFake is the fake told who each request is when serve's gate authenticated it, so that
// its review APIs (kubectl auth whoami, auth can-i) answer for the gate's user rather than read a
// token only the gate knows. It keeps the fake's other methods (its /readyz checks).
type gateUserFake struct{ *fake.Server }

func (g gateUserFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u, ok := gate.User(r.Context()); ok {
		r = r.WithContext(fake.WithUser(r.Context(), fake.User{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}))
	}
	g.Server.ServeHTTP(w, r)
}
