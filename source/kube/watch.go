package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/rvclock"
	"github.com/watchcache/watchcache/watchcache"
)

// maxSkipWarnings is how many skipped objects the source reports at Warn level; the rest go to
// Debug (Stats.Skipped still counts them all).
const maxSkipWarnings = 10

// watch follows the resource from s.rv until the stream ends, fails or ctx ends. It reports whether
// any event arrived (to reset the backoff) and why it stopped: ErrWatchEnded when the server ended
// the stream normally, a 410 StatusError when the history from s.rv is gone.
func (s *feed) watch(ctx context.Context) (progressed bool, err error) {
	return s.stream(ctx, false)
}

// watchList streams the state with a watch-list into the cache (Replace at the initial-events-end
// bookmark), then follows the same stream as watch does. s.rv stays 0 until the bookmark.
func (s *feed) watchList(ctx context.Context) (progressed bool, err error) {
	return s.stream(ctx, true)
}

// watchListRefused reports a server that does not serve watch-lists: it refused the parameters, or
// ended the stream before the initial-events-end bookmark.
func watchListRefused(err error) bool {
	return apierrors.IsBadRequest(err) || apierrors.IsInvalid(err) || apierrors.IsForbidden(err) ||
		apierrors.IsNotFound(err) || errors.Is(err, ErrWatchEnded) || errors.Is(err, errNoInitialEnd)
}

// errNoInitialEnd: a watch-list's stream carried an event other than ADDED or the bookmark before
// the initial-events-end bookmark, which a server that ignores sendInitialEvents would do.
var errNoInitialEnd = errors.New("kube: watch-list without its initial-events-end bookmark")

func (s *feed) stream(ctx context.Context, initial bool) (progressed bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timeout := s.opts.WatchTimeout + rand.N(s.opts.WatchTimeout)
	req := s.request().
		Param("watch", "true").
		Param("allowWatchBookmarks", "true").
		Param("timeoutSeconds", strconv.FormatInt(max(1, int64(timeout/time.Second)), 10))
	if initial {
		req = req.Param("sendInitialEvents", "true").Param("resourceVersionMatch", "NotOlderThan").Param("resourceVersion", "")
	} else {
		req = req.Param("resourceVersion", strconv.FormatUint(s.rv, 10))
	}
	body, err := req.Stream(ctx)
	if err != nil {
		return false, fmt.Errorf("kube: watch %s from %d: %w", s.resource, s.rv, err)
	}
	defer body.Close()
	s.stats.watches.Add(1)
	frames := newFrameReader(body)
	var items [][]byte
	var pack *packer
	if s.opts.PackLists {
		pack = &packer{}
	}
	start := time.Now()
	for {
		raw, err := frames.next() // a fresh slice per event: the cache keeps the object, a sub-slice of it
		if err != nil {
			if errors.Is(err, io.EOF) {
				return progressed, fmt.Errorf("kube: watch %s from %d: %w", s.resource, s.rv, ErrWatchEnded)
			}
			return progressed, fmt.Errorf("kube: watch %s at %d: read: %w", s.resource, s.rv, err)
		}
		progressed = true
		if initial {
			done, err := s.initialEvent(raw, &items, pack)
			if err != nil {
				return progressed, fmt.Errorf("kube: watch-list %s: %w", s.resource, err)
			}
			if done {
				initial, items, pack = false, nil, nil
				s.log.Info("kube: listed by watch-list", "resourceVersion", s.rv, "objects", s.cache.Len(), "elapsed", time.Since(start).Round(time.Millisecond))
			}
			continue
		}
		if err := s.handle(raw); err != nil {
			return progressed, fmt.Errorf("kube: watch %s at %d: %w", s.resource, s.rv, err)
		}
	}
}

// initialEvent handles one event of a watch-list's initial events: ADDED objects are collected,
// and the bookmark annotated k8s.io/initial-events-end replaces the cache's content with them at
// its resourceVersion (done). Other bookmarks are progress only. With pack, objects are copied into
// its blocks (Options.PackLists).
func (s *feed) initialEvent(raw []byte, items *[][]byte, pack *packer) (done bool, err error) {
	ev := gjson.ParseBytes(raw)
	typ := ev.Get("type").String()
	obj := ev.Get("object")
	if !obj.IsObject() || obj.Index <= 0 {
		return false, malformed("event without an object: %.120s", raw)
	}
	objRaw := raw[obj.Index : obj.Index+len(obj.Raw)]
	switch watchcache.EventType(typ) {
	case watchcache.Added:
		if t := s.opts.Transform; t != nil {
			objRaw = t(objRaw)
		}
		if pack != nil {
			objRaw = pack.copy(objRaw)
		}
		*items = append(*items, objRaw)
		return false, nil
	case watchcache.Bookmark:
		if obj.Get(`metadata.annotations.k8s\.io/initial-events-end`).String() != "true" {
			return false, nil
		}
		rvText := obj.Get("metadata.resourceVersion").String()
		rv, err := strconv.ParseUint(rvText, 10, 64)
		if err != nil || rv == 0 {
			return false, malformed("initial-events-end bookmark with resourceVersion %q", rvText)
		}
		if held := s.cache.ResourceVersion(); rv < held {
			return false, fmt.Errorf("watch-list at resourceVersion %d: %w (the cache is at %d)", rv, ErrListBehind, held)
		}
		if err := s.cache.Replace(*items, rv); err != nil {
			return false, fmt.Errorf("replace at resourceVersion %d: %w", rv, err)
		}
		s.stats.lists.Add(1)
		s.rv = rv
		return true, nil
	case watchcache.Error:
		var st metav1.Status
		if err := json.Unmarshal(objRaw, &st); err != nil {
			return false, malformed("ERROR event: %v", err)
		}
		return false, &apierrors.StatusError{ErrStatus: st}
	}
	return false, fmt.Errorf("%w: a %s event came first", errNoInitialEnd, typ)
}

// handle applies one watch event, `{"type":...,"object":{...}}`.
func (s *feed) handle(raw []byte) error {
	var typ string
	var obj []byte
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v.String()
		case "object":
			if v.IsObject() && v.Index > 0 {
				obj = raw[v.Index : v.Index+len(v.Raw)]
			}
		}
		return true
	})
	if obj == nil {
		return malformed("event without an object: %.120s", raw)
	}
	if typ == string(watchcache.Error) {
		var st metav1.Status
		if err := json.Unmarshal(obj, &st); err != nil {
			return malformed("ERROR event: %v", err)
		}
		return &apierrors.StatusError{ErrStatus: st}
	}
	rvText := gjson.GetBytes(obj, "metadata.resourceVersion").String()
	rv, err := strconv.ParseUint(rvText, 10, 64)
	if err != nil || rv == 0 {
		return malformed("%s event with resourceVersion %q", typ, rvText)
	}
	switch watchcache.EventType(typ) {
	case watchcache.Bookmark:
		if err := s.bookmark(rv); err != nil {
			return err
		}
		s.stats.bookmarks.Add(1)
		return nil
	case watchcache.Added, watchcache.Modified, watchcache.Deleted:
	default:
		return malformed("event type %q", typ)
	}
	if rv <= s.rv {
		return nil // already applied (a server may repeat the event at the RV it was asked to start at)
	}
	if t := s.opts.Transform; t != nil {
		obj = t(obj)
	}
	err = s.cache.Apply(watchcache.Event{Type: watchcache.EventType(typ), Object: obj, ResourceVersion: rv})
	switch {
	case err == nil:
		s.stats.events.Add(1)
		s.rv = rv
		return nil
	case errors.Is(err, rvclock.ErrStopped):
		return err
	}
	// Rejected by the cache (malformed object, unknown key): the object is left out, the
	// resourceVersion is still reached.
	s.skip(rv, err)
	return s.bookmark(rv)
}

// bookmark advances the cache's clock to rv without a change (rule 3.1).
func (s *feed) bookmark(rv uint64) error {
	if rv <= s.rv {
		return nil
	}
	if err := s.cache.Apply(watchcache.Event{Type: watchcache.Bookmark, ResourceVersion: rv}); err != nil {
		if errors.Is(err, rvclock.ErrStopped) {
			return err
		}
		s.log.Warn("kube: cache refused a bookmark", "resourceVersion", rv, "err", err)
	}
	s.rv = rv
	return nil
}

// skip counts and reports an event left out.
func (s *feed) skip(rv uint64, err error) {
	n := s.stats.skipped.Add(1)
	level := slog.LevelWarn
	if s.skipped++; s.skipped > maxSkipWarnings {
		level = slog.LevelDebug
	}
	s.log.Log(context.Background(), level, "kube: object skipped", "resourceVersion", rv, "err", err, "skippedTotal", n)
}
