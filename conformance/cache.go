package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/index"
	"github.com/watchcache/watchcache/watchcache"
)

// CacheTarget is the Target of a *watchcache.Cache of pods: Writer calls become Replace and
// Apply, Reader calls List, Get and Watch, and errors go through apistatus.FromError, the one
// mapping the HTTP edge uses as well.
//
// Safe for concurrent use, as the Cache is.
type CacheTarget struct {
	Cache *watchcache.Cache
}

// NewCacheTarget returns a CacheTarget over a new pod cache sized by cfg, with the given indexes
// registered (so the suite runs over indexed plans too); the cache is stopped when t ends.
func NewCacheTarget(t TB, cfg Config, indexes ...index.Spec) *CacheTarget {
	t.Helper()
	c := watchcache.New(watchcache.Options{
		Resource:         watchcache.Resource{Name: "pods", Namespaced: true},
		WindowEvents:     cfg.WindowEvents,
		WaitTimeout:      cfg.WaitTimeout,
		BookmarkInterval: cfg.BookmarkInterval,
		// The suite checks what watches deliver, not the slow-watcher policy (rule 5.10): a queue
		// larger than any subtest's burst keeps a watcher starved of CPU (-race, a loaded machine)
		// from being closed mid-check.
		WatchBuffer: 1024,
	})
	t.Cleanup(c.Stop)
	for _, s := range indexes {
		if err := c.AddIndex(s); err != nil {
			t.Fatalf("AddIndex(%s): %v", s, err)
		}
	}
	return &CacheTarget{Cache: c}
}

// Replace implements Writer.
func (c *CacheTarget) Replace(objects [][]byte, rv uint64) error { return c.Cache.Replace(objects, rv) }

// Apply implements Writer.
func (c *CacheTarget) Apply(ev Event) error {
	return c.Cache.Apply(watchcache.Event{Type: watchcache.EventType(ev.Type), Object: ev.Object, ResourceVersion: ev.ResourceVersion})
}

// List implements Reader.
func (c *CacheTarget) List(ctx context.Context, namespace string, o metav1.ListOptions) (*ListResult, error) {
	res, err := c.Cache.List(ctx, watchcache.ListOptions{
		Namespace:            namespace,
		LabelSelector:        o.LabelSelector,
		FieldSelector:        o.FieldSelector,
		ResourceVersion:      o.ResourceVersion,
		ResourceVersionMatch: string(o.ResourceVersionMatch),
		Limit:                o.Limit,
		Continue:             o.Continue,
		SendInitialEvents:    o.SendInitialEvents,
	})
	if err != nil {
		return nil, apistatus.FromError(err)
	}
	return &ListResult{Items: res.Items, ListMeta: metav1.ListMeta{
		ResourceVersion:    strconv.FormatUint(res.ResourceVersion, 10),
		Continue:           res.Continue,
		RemainingItemCount: res.RemainingItemCount,
	}}, nil
}

// Get implements Reader.
func (c *CacheTarget) Get(ctx context.Context, namespace, name, resourceVersion string) ([]byte, error) {
	obj, _, err := c.Cache.Get(ctx, namespace, name, resourceVersion)
	if err != nil {
		return nil, apistatus.FromError(err)
	}
	return obj, nil
}

// Watch implements Reader.
func (c *CacheTarget) Watch(ctx context.Context, namespace string, o metav1.ListOptions) (Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	w, err := c.Cache.Watch(ctx, watchcache.WatchOptions{
		Namespace:            namespace,
		LabelSelector:        o.LabelSelector,
		FieldSelector:        o.FieldSelector,
		ResourceVersion:      o.ResourceVersion,
		ResourceVersionMatch: string(o.ResourceVersionMatch),
		SendInitialEvents:    o.SendInitialEvents,
		AllowWatchBookmarks:  o.AllowWatchBookmarks,
		Continue:             o.Continue,
	})
	if err != nil {
		cancel()
		return nil, apistatus.FromError(err)
	}
	s := &cacheStream{out: make(chan WatchEvent), cancel: cancel}
	go s.forward(ctx, w)
	return s, nil
}

// cacheStream renders a watchcache.Watcher's events as they go on the wire.
type cacheStream struct {
	out    chan WatchEvent
	cancel context.CancelFunc
}

func (s *cacheStream) Events() <-chan WatchEvent { return s.out }
func (s *cacheStream) Stop()                     { s.cancel() }

func (s *cacheStream) forward(ctx context.Context, w *watchcache.Watcher) {
	defer close(s.out)
	defer s.cancel()
	for ev := range w.Events() {
		select {
		case s.out <- wireEvent(ev):
		case <-ctx.Done():
			for range w.Events() { // the watcher closes its channel once it sees ctx end
			}
			return
		}
	}
}

// wireEvent renders one event as the HTTP edge does: bookmarks as an empty Pod carrying the RV
// (rules 5.7, 5.8), errors as their Status.
func wireEvent(ev watchcache.WatchEvent) WatchEvent {
	switch ev.Type {
	case watchcache.Bookmark:
		ann := ""
		if ev.InitialEventsEnd {
			ann = fmt.Sprintf(`,"annotations":{%q:"true"}`, metav1.InitialEventsAnnotationKey)
		}
		return WatchEvent{Type: watch.Bookmark, Object: fmt.Appendf(nil,
			`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"%d"%s},"spec":{"containers":null},"status":{}}`, ev.ResourceVersion, ann)}
	case watchcache.Error:
		st := apistatus.FromError(ev.Err).ErrStatus
		st.Kind, st.APIVersion = "Status", "v1"
		data, err := json.Marshal(st)
		if err != nil {
			panic(err) // a metav1.Status always marshals
		}
		return WatchEvent{Type: watch.Error, Object: data}
	}
	return WatchEvent{Type: watch.EventType(ev.Type), Object: ev.Object}
}
