package ctrlcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/watchcache/watchcache/informer"
)

// nsInformer is the cache.Informer of one kind and form: one informer.Informer per cached
// namespace (one for all namespaces in the common case), with handlers and indexers added to each.
type nsInformer struct {
	name string
	infs []*informer.Informer

	mu      sync.Mutex
	cancel  context.CancelFunc
	running bool
}

func (n *nsInformer) run(ctx context.Context, wg *sync.WaitGroup) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.running {
		return
	}
	n.running = true
	ctx, n.cancel = context.WithCancel(ctx)
	for _, inf := range n.infs {
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
}

func (n *nsInformer) stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cancel != nil {
		n.cancel()
	}
}

// registration is the registration of one handler with each namespace's informer.
type registration struct {
	regs []toolscache.ResourceEventHandlerRegistration
	done chan struct{}
	name string
}

func (r *registration) HasSynced() bool {
	for _, reg := range r.regs {
		if !reg.HasSynced() {
			return false
		}
	}
	return true
}

func (r *registration) HasSyncedChecker() toolscache.DoneChecker {
	return allDone(r.name, func() []toolscache.DoneChecker {
		out := make([]toolscache.DoneChecker, len(r.regs))
		for i, reg := range r.regs {
			out[i] = reg.HasSyncedChecker()
		}
		return out
	}())
}

// AddEventHandler adds h to every namespace's informer with the default resync period.
func (n *nsInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return n.AddEventHandlerWithOptions(h, toolscache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod adds h with its own resync period.
func (n *nsInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, p time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return n.AddEventHandlerWithOptions(h, toolscache.HandlerOptions{ResyncPeriod: &p})
}

// AddEventHandlerWithOptions adds h to every namespace's informer. Handlers get typed objects
// decoded once per event and shared by the informer's handlers: they must not mutate them.
func (n *nsInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, o toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	if len(n.infs) == 1 {
		return n.infs[0].AddEventHandlerWithOptions(h, o)
	}
	r := &registration{name: n.name}
	for _, inf := range n.infs {
		reg, err := inf.AddEventHandlerWithOptions(h, o)
		if err != nil {
			for i, done := range r.regs {
				_ = n.infs[i].RemoveEventHandler(done)
			}
			return nil, err
		}
		r.regs = append(r.regs, reg)
	}
	return r, nil
}

// RemoveEventHandler removes a handler added by AddEventHandler*.
func (n *nsInformer) RemoveEventHandler(reg toolscache.ResourceEventHandlerRegistration) error {
	if r, ok := reg.(*registration); ok {
		var errs []error
		for i, one := range r.regs {
			errs = append(errs, n.infs[i].RemoveEventHandler(one))
		}
		return errors.Join(errs...)
	}
	if len(n.infs) == 1 {
		return n.infs[0].RemoveEventHandler(reg)
	}
	return fmt.Errorf("ctrlcache: registration %T is not one of this informer's", reg)
}

// AddIndexers adds client-go indexers (Go functions, evaluated on the decoded object per event).
func (n *nsInformer) AddIndexers(ix toolscache.Indexers) error {
	for _, inf := range n.infs {
		if err := inf.AddIndexers(ix); err != nil {
			return err
		}
	}
	return nil
}

// HasSynced reports whether every namespace's informer has synced.
func (n *nsInformer) HasSynced() bool {
	for _, inf := range n.infs {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// HasSyncedChecker returns HasSynced as a DoneChecker.
func (n *nsInformer) HasSyncedChecker() toolscache.DoneChecker {
	cs := make([]toolscache.DoneChecker, len(n.infs))
	for i, inf := range n.infs {
		cs[i] = inf.HasSyncedChecker()
	}
	return allDone(n.name, cs)
}

// IsStopped reports whether the informers have stopped.
func (n *nsInformer) IsStopped() bool {
	for _, inf := range n.infs {
		if !inf.IsStopped() {
			return false
		}
	}
	return true
}

// allDone is a DoneChecker done when every one of cs is.
func allDone(name string, cs []toolscache.DoneChecker) toolscache.DoneChecker {
	if len(cs) == 1 {
		return cs[0]
	}
	ch := make(chan struct{})
	go func() {
		for _, c := range cs {
			<-c.Done()
		}
		close(ch)
	}()
	return done{name: name, ch: ch}
}

type done struct {
	name string
	ch   chan struct{}
}

func (d done) Name() string          { return d.name }
func (d done) Done() <-chan struct{} { return d.ch }

var _ cache.Informer = (*nsInformer)(nil)
