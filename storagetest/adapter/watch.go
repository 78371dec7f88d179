package adapter

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/watchcache"
)

// resultBuffer is the result channel's size: the etcd3 store's (outgoingBufSize = 100). Events the
// cache delivered before Stop stay readable after it, as with both apiserver implementations.
const resultBuffer = 100

// Watch implements storage.Interface from the cache (rule 5).
//
// storage.ListOptions are the storage-level options, below the registry's defaulting: with
// SendInitialEvents unset, RV "" and "0" are the legacy watch (the current state as ADDED events,
// then changes, and no initial-events-end bookmark) — the cache would default them to a watch-list
// (rule 0.7), so the adapter drops that bookmark; with SendInitialEvents set the storage layer does
// not require resourceVersionMatch (the registry's validation did), so the adapter supplies
// NotOlderThan. ProgressNotify is ignored, as by the apiserver's cacher: bookmarks come from
// Predicate.AllowWatchBookmarks.
func (s *Store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	preparedKey, err := s.prepareKey(key, opts.Recursive)
	if err != nil {
		return nil, err
	}
	pred := opts.Predicate
	sc := s.narrow(s.parseScope(preparedKey, opts.Recursive), pred.Field)
	wo := watchcache.WatchOptions{
		Namespace:           sc.namespace,
		LabelSelector:       labelString(pred.Label),
		FieldSelector:       sc.fieldSelector(pred.Field),
		ResourceVersion:     opts.ResourceVersion,
		AllowWatchBookmarks: pred.AllowWatchBookmarks,
	}
	legacy := false
	if opts.SendInitialEvents != nil {
		wo.SendInitialEvents = opts.SendInitialEvents
		wo.ResourceVersionMatch = watchcache.MatchNotOlderThan
	} else if opts.ResourceVersion == "" || opts.ResourceVersion == "0" {
		legacy = true
	}
	if opts.SendInitialEvents == nil || !*opts.SendInitialEvents {
		rv, err := s.versioner.ParseResourceVersion(opts.ResourceVersion)
		if err != nil {
			return nil, err
		}
		if floor := s.watchFloor.Load(); rv > 0 && rv < floor {
			utilflowcontrol.WatchInitialized(ctx)
			st := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, floor))
			return errWatcher(&st.ErrStatus), nil
		}
	}
	cw, err := s.cache.Watch(ctx, wo)
	if err != nil {
		return nil, toStorageError(err, preparedKey, 0)
	}
	w := &watcher{
		s:      s,
		cw:     cw,
		legacy: legacy,
		result: make(chan watch.Event, resultBuffer),
		stopCh: make(chan struct{}),
	}
	go w.run()
	utilflowcontrol.WatchInitialized(ctx)
	return w, nil
}

// watcher turns the cache's events into watch.Events of decoded objects.
type watcher struct {
	s      *Store
	cw     *watchcache.Watcher
	legacy bool
	result chan watch.Event

	stopOnce sync.Once
	stopCh   chan struct{}
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

func (w *watcher) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopCh)
		w.cw.Stop()
	})
}

func (w *watcher) run() {
	defer close(w.result)
	defer w.cw.Stop()
	for ev := range w.cw.Events() {
		out, ok := w.convert(ev)
		if !ok {
			continue
		}
		select {
		case w.result <- out:
		case <-w.stopCh:
			return
		}
		if out.Type == watch.Error {
			return
		}
	}
}

func (w *watcher) convert(ev watchcache.WatchEvent) (watch.Event, bool) {
	switch ev.Type {
	case watchcache.Added, watchcache.Modified, watchcache.Deleted:
		obj := w.s.newFunc()
		if err := runtime.DecodeInto(w.s.codec, ev.Object, obj); err != nil {
			return internalError(fmt.Errorf("adapter: decoding a %s event at %d: %w", ev.Type, ev.ResourceVersion, err)), true
		}
		return watch.Event{Type: watch.EventType(ev.Type), Object: obj}, true
	case watchcache.Bookmark:
		if ev.InitialEventsEnd && w.legacy {
			return watch.Event{}, false
		}
		obj := w.s.newFunc()
		if err := w.s.versioner.UpdateObject(obj, ev.ResourceVersion); err != nil {
			return internalError(err), true
		}
		if ev.InitialEventsEnd {
			if err := storage.AnnotateInitialEventsEndBookmark(obj); err != nil {
				return internalError(err), true
			}
		}
		return watch.Event{Type: watch.Bookmark, Object: obj}, true
	case watchcache.Error:
		st := apistatus.FromError(ev.Err)
		return watch.Event{Type: watch.Error, Object: &st.ErrStatus}, true
	}
	return internalError(fmt.Errorf("adapter: unknown event type %q", ev.Type)), true
}

func internalError(err error) watch.Event {
	return watch.Event{Type: watch.Error, Object: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Reason: metav1.StatusReasonInternalError, Message: err.Error(),
	}}
}

// errWatcher is a watch that delivers one ERROR event and ends (rule 5.1).
func errWatcher(st *metav1.Status) watch.Interface {
	ch := make(chan watch.Event, 1)
	ch <- watch.Event{Type: watch.Error, Object: st}
	close(ch)
	return &closedWatcher{ch: ch}
}

type closedWatcher struct{ ch chan watch.Event }

func (w *closedWatcher) ResultChan() <-chan watch.Event { return w.ch }
func (w *closedWatcher) Stop()                          {}
