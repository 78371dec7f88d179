package kubeapi

import (
	"bufio"
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/apistatus"
	"github.com/watchcache/watchcache/internal/wire"
	"github.com/watchcache/watchcache/watchcache"
)

// maxBatch bounds the events written between two flushes while events keep coming (a watch-list's
// initial events, a burst of changes), so that none waits long in the buffer.
const maxBatch = 64

// serveWatch streams a watch as the apiserver does over HTTP/1.1 and HTTP/2 without websockets:
// 200 with `Content-Type: application/json` and `Transfer-Encoding: chunked`, the headers flushed
// at once, then one JSON object per event,
//
//	{"type":"ADDED","object":{...}}
//
// flushed whenever no further event is ready (the apiserver flushes when its result channel is
// empty). Errors in the options (400, 422) and readiness (429) are answered as a plain Status
// before the stream starts; errors found after the cache accepted the watch (410 too old, 504 a
// wait that timed out) arrive as one ERROR event carrying the Status, which ends the stream
// (rule 5.1). The stream also ends at timeoutSeconds (or a random time between one and two times
// Options.MinRequestTimeout without it), when the client goes away, and when the cache closes the
// watch (re-list, a watcher that fell behind, Stop): the client then re-watches from the last
// resourceVersion it saw.
//
// In protobuf (Content-Type `application/vnd.kubernetes.protobuf;stream=watch`) each event is a
// length-prefixed metav1.WatchEvent frame (wire.AppendWatchFrame). YAML cannot stream: a watch
// that negotiated it is the apiserver's 406, in YAML (testdata/encodings: watch-configmaps-yaml).
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, req *request) {
	if !req.out.enc.Streams() {
		writeStatus(w, onlyMediaTypes(streamRepresentations...))
		return
	}
	o := req.opts
	timeout := time.Duration(0)
	if o.TimeoutSeconds != nil {
		timeout = time.Duration(*o.TimeoutSeconds) * time.Second
	}
	if timeout == 0 {
		timeout = time.Duration(float64(s.opts.MinRequestTimeout) * (1 + rand.Float64()))
	}
	// The cache schedules the bookmarks of a watch with a deadline 2 s before it (rule 5.7). A
	// negative timeout (timeoutSeconds < 0, or so large that the product overflows, as it does in
	// the apiserver's same arithmetic) is a deadline already past: the watch is still validated
	// (its option errors come first), then ends with expired.
	expired := timeout < 0
	ctx, cancel := context.WithCancel(r.Context())
	if !expired {
		ctx, cancel = context.WithTimeout(r.Context(), timeout)
	}
	defer cancel()
	wt, err := req.res.cache.Watch(ctx, watchcache.WatchOptions{
		Namespace:            req.namespace,
		LabelSelector:        o.LabelSelector,
		FieldSelector:        o.FieldSelector,
		ResourceVersion:      o.ResourceVersion,
		ResourceVersionMatch: string(o.ResourceVersionMatch),
		SendInitialEvents:    o.SendInitialEvents,
		AllowWatchBookmarks:  o.AllowWatchBookmarks,
		Continue:             o.Continue,
	})
	if err != nil {
		writeStatus(w, apistatus.FromError(err))
		return
	}
	defer wt.Stop()

	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", req.out.enc.StreamMediaType())
	h.Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil || r.Method == http.MethodHead {
		return
	}
	bw := bufio.NewWriterSize(w, bodyBuffer)
	enc := &eventEncoder{res: req.res, protobuf: req.out.enc == wire.Protobuf}
	if expired {
		enc.write(bw, watchcache.WatchEvent{Type: watchcache.Error, Err: errDeadlinePassed})
		_ = bw.Flush()
		return
	}
	if req.out.format == formatMeta && req.out.as != "PartialObjectMetadata" {
		// The apiserver cannot encode an event as a list: its stream ends without one
		// (testdata/oracle/watch-configmaps-metalist.http).
		return
	}
	if req.out.format == formatMeta {
		enc.metaVersion = req.out.metaVersion
	}
	if req.out.format == formatTable {
		enc.table = s.newTable(req)
	}
	events := wt.Events()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			// Write the events that are ready (at most maxBatch), then flush once.
			for n := 1; ; n++ {
				enc.write(bw, ev)
				if ev.Type == watchcache.Error {
					_ = bw.Flush()
					_ = rc.Flush()
					return
				}
				more := false
				if n < maxBatch {
					select {
					case ev, more = <-events:
					default:
					}
				}
				if !more {
					break
				}
			}
			if bw.Flush() != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// errDeadlinePassed is the ERROR a watch whose timeout is already past ends with: the
// apiserver's answer to timeoutSeconds=10000000000 (whose duration overflows to a negative one),
// testdata/oracle/watch-timeout-huge.http. Its handler races the expired deadline against the
// watch's first events, so it also answers such watches with an empty stream or with a few
// initial events (reference/observed-fidelity.md); this server always gives the ERROR.
var errDeadlinePassed = &apierrors.StatusError{ErrStatus: metav1.Status{
	Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
	Message: context.DeadlineExceeded.Error(),
}}

// eventEncoder writes watch events as JSON lines.
type eventEncoder struct {
	res   *resource
	table *table // non-nil for a Table watch: every object becomes a one-row Table
	// metaVersion is the meta.k8s.io version of a metadata-only watch: every object becomes a
	// PartialObjectMetadata. "" otherwise.
	metaVersion string
	// headersSent: the column definitions went out with the first event.
	headersSent bool
	// protobuf: events are protobuf frames; frame is the buffer they are built in.
	protobuf bool
	frame    []byte
}

// write writes one event. The object of an ADDED, MODIFIED or DELETED event is the cache's bytes
// (with kind and apiVersion added if they were not stored); a BOOKMARK carries an empty object of
// the kind with only metadata.resourceVersion, plus the annotation k8s.io/initial-events-end on
// the bookmark that ends a watch-list's initial events (rule 5.8); an ERROR carries the Status.
func (e *eventEncoder) write(bw *bufio.Writer, ev watchcache.WatchEvent) {
	if e.protobuf {
		e.writeProtobuf(bw, ev)
		return
	}
	bw.WriteString(`{"type":"`)
	bw.WriteString(string(ev.Type))
	bw.WriteString(`","object":`)
	var obj []byte
	switch ev.Type {
	case watchcache.Error:
		bw.Write(statusJSON(apistatus.FromError(ev.Err)))
		bw.WriteString("}\n")
		return
	case watchcache.Bookmark:
		obj = e.bookmark(ev)
	default:
		obj = e.res.withKind(ev.Object)
	}
	if t := e.table; t != nil {
		// The apiserver converts each event's object to a Table; only the first carries the
		// column definitions.
		headers := !e.headersSent
		e.headersSent, t.rows = true, 0
		t.writeHead(bw, []byte(`{"resourceVersion":"`+strconv.FormatUint(ev.ResourceVersion, 10)+`"}`), headers)
		t.writeRow(bw, obj)
		t.writeTail(bw)
	} else if e.metaVersion != "" {
		writePartial(bw, e.metaVersion, obj)
	} else {
		bw.Write(obj)
	}
	bw.WriteString("}\n")
}

// bookmark renders a BOOKMARK's object (rules 5.7, 5.8): an empty object of the kind, as the
// apiserver encodes one (`{"kind":"Pod","apiVersion":"v1","metadata":{...},"spec":{"containers":null},"status":{}}`,
// testdata/oracle/watchlist-pods.http), with only the resourceVersion and the annotation.
func (e *eventEncoder) bookmark(ev watchcache.WatchEvent) []byte {
	b := make([]byte, 0, 160)
	b = append(b, `{"kind":`...)
	b = append(b, jsonString(e.res.info.Kind)...)
	b = append(b, `,"apiVersion":`...)
	b = append(b, jsonString(e.res.gv)...)
	b = append(b, `,"metadata":{"resourceVersion":"`...)
	b = strconv.AppendUint(b, ev.ResourceVersion, 10)
	b = append(b, '"')
	if ev.InitialEventsEnd {
		b = append(b, `,"annotations":{"`+watchcache.InitialEventsAnnotation+`":"true"}`...)
	}
	b = append(b, '}')
	return append(b, e.res.emptyTail...)
}

// writeProtobuf writes one event as a protobuf frame: the same object as the JSON event's, decoded
// into its type and marshalled in its envelope (or its PartialObjectMetadata); an ERROR's Status.
// An object that does not decode ends the watch with an ERROR of the failure, as the apiserver
// ends a watch it cannot encode.
func (e *eventEncoder) writeProtobuf(bw *bufio.Writer, ev watchcache.WatchEvent) {
	var obj []byte
	var err error
	switch ev.Type {
	case watchcache.Error:
		obj = wire.Status(&apistatus.FromError(ev.Err).ErrStatus)
	case watchcache.Bookmark:
		obj, err = e.protobufObject(e.bookmark(ev))
	default:
		obj, err = e.protobufObject(ev.Object)
	}
	typ := string(ev.Type)
	if err != nil {
		typ, obj = string(watchcache.Error), wire.Status(&apierrors.NewInternalError(err).ErrStatus)
	}
	e.frame = wire.AppendWatchFrame(e.frame[:0], typ, obj)
	bw.Write(e.frame)
}

func (e *eventEncoder) protobufObject(obj []byte) ([]byte, error) {
	if e.metaVersion != "" {
		return wire.AppendPartial(nil, e.metaVersion, metadataOf(obj))
	}
	return wire.AppendObject(nil, e.res.gvk, obj)
}
