package informer

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// FactoryOptions configure a Factory.
type FactoryOptions struct {
	// Scheme maps Go types to kinds; nil means client-go's kubernetes/scheme (the built-in types).
	Scheme *runtime.Scheme
	// Mapper maps kinds to resources; nil means a discovery-backed mapper of the config's server.
	Mapper meta.RESTMapper
	// Namespace, LabelSelector and FieldSelector restrict every informer's feed, as
	// informers.WithNamespace and WithTweakListOptions do.
	Namespace, LabelSelector, FieldSelector string
	// ResyncPeriod is the handlers' default resync period (0: none).
	ResyncPeriod time.Duration
	// StripManagedFields removes metadata.managedFields from every object before it is stored.
	StripManagedFields bool
}

// Factory makes one Informer per Go type, over one feed each, as client-go's
// SharedInformerFactory does, and starts them together.
//
// Concurrency: all methods are safe for concurrent use.
type Factory struct {
	cfg    *rest.Config
	opts   FactoryOptions
	scheme *runtime.Scheme

	mu        sync.Mutex
	mapper    meta.RESTMapper
	informers map[reflect.Type]*Informer
	running   map[reflect.Type]bool
	ctx       context.Context
	wg        sync.WaitGroup
}

// NewFactory returns a factory of informers reading through cfg.
func NewFactory(cfg *rest.Config, opts FactoryOptions) *Factory {
	s := opts.Scheme
	if s == nil {
		s = scheme.Scheme
	}
	return &Factory{cfg: rest.CopyConfig(cfg), opts: opts, scheme: s, mapper: opts.Mapper,
		informers: map[reflect.Type]*Informer{}, running: map[reflect.Type]bool{}}
}

// InformerFor returns the informer of obj's Go type (e.g. &corev1.Pod{}), making it on first use.
// An informer made after Start starts at once.
func (f *Factory) InformerFor(obj runtime.Object) (*Informer, error) {
	t := reflect.TypeOf(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	if inf, ok := f.informers[t]; ok {
		return inf, nil
	}
	gvks, _, err := f.scheme.ObjectKinds(obj)
	if err != nil {
		return nil, fmt.Errorf("informer: kind of %T: %w", obj, err)
	}
	gvk := gvks[0]
	mapping, err := f.mapping(gvk)
	if err != nil {
		return nil, err
	}
	client, err := RESTClientFor(f.cfg, gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	newObj := func() runtime.Object { return reflect.New(t.Elem()).Interface().(runtime.Object) }
	inf := New(client, FeedOptions{
		Resource:           mapping.Resource.Resource,
		Group:              gvk.Group,
		Namespaced:         mapping.Scope.Name() == meta.RESTScopeNameNamespace,
		Namespace:          f.opts.Namespace,
		LabelSelector:      f.opts.LabelSelector,
		FieldSelector:      f.opts.FieldSelector,
		StripManagedFields: f.opts.StripManagedFields,
		WatchList:          true,
	}, Options{Decode: Typed(newObj), Name: t.String(), ResyncPeriod: f.opts.ResyncPeriod})
	f.informers[t] = inf
	if f.ctx != nil {
		f.startLocked(t, inf)
	}
	return inf, nil
}

func (f *Factory) mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	if f.mapper == nil {
		dc, err := discovery.NewDiscoveryClientForConfig(f.cfg)
		if err != nil {
			return nil, fmt.Errorf("informer: discovery: %w", err)
		}
		f.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	}
	m, err := f.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("informer: resource of %s: %w", gvk, err)
	}
	return m, nil
}

// RESTClientFor returns a REST client of one group and version of cfg's server, as source/kube
// needs it (it asks for JSON and decodes nothing itself).
func RESTClientFor(cfg *rest.Config, gv schema.GroupVersion) (rest.Interface, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &gv
	c.APIPath = "/apis"
	if gv.Group == "" {
		c.APIPath = "/api"
	}
	c.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	client, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("informer: REST client for %s: %w", gv, err)
	}
	return client, nil
}

// Start runs every informer made so far, and those made later, until stopCh is closed.
func (f *Factory) Start(stopCh <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx == nil {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-stopCh; cancel() }()
		f.ctx = ctx
	}
	for t, inf := range f.informers {
		f.startLocked(t, inf)
	}
}

func (f *Factory) startLocked(t reflect.Type, inf *Informer) {
	if f.running[t] {
		return
	}
	f.running[t] = true
	f.wg.Go(func() { inf.RunWithContext(f.ctx) })
}

// WaitForCacheSync waits until every started informer has synced or stopCh is closed, and reports
// which have, as SharedInformerFactory.WaitForCacheSync does.
func (f *Factory) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	f.mu.Lock()
	infs := map[reflect.Type]*Informer{}
	for t, inf := range f.informers {
		if f.running[t] {
			infs[t] = inf
		}
	}
	f.mu.Unlock()
	out := map[reflect.Type]bool{}
	for t, inf := range infs {
		select {
		case <-inf.synced:
			out[t] = true
		case <-stopCh:
			out[t] = inf.HasSynced()
		}
	}
	return out
}

// Shutdown waits until every informer has stopped (after stopCh of Start is closed).
func (f *Factory) Shutdown() { f.wg.Wait() }
