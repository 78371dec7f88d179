package etcd

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"

	"github.com/watchcache/watchcache/watchcache"
)

// CurrentResourceVersion returns etcd's current revision: the header revision of a Get on the path
// prefix key, as the apiserver's GetCurrentResourceVersion does (rule 1.8). It is meant for
// watchcache.Options.CurrentResourceVersion, so that a List with resourceVersion "" waits until the
// cache has seen every write made before the list started:
//
//	src := etcd.New(client, etcd.Options{})
//	pods := watchcache.New(watchcache.Options{
//		Resource:               watchcache.Resource{Name: "pods", Namespaced: true},
//		CurrentResourceVersion: src.CurrentResourceVersion,
//		OnWait:                 src.WaitingFor,
//	})
//	src.Add("pods", pods)
//
// The Get is linearizable: it costs one etcd round trip through the leader, and its revision is the
// one to reach. The revision is etcd-global: the last write may belong to another resource, and the
// cache would then only reach it with etcd's next progress notification (by default every 10
// minutes). So the running source also requests one (rule 3.3, the apiserver's
// ConditionalProgressRequester). While reads find the caches behind etcd, it sends the request
// before the Get, so that the notification travels while the Get does and a read after another
// resource's write costs about one round trip instead of two; otherwise right after the Get if a
// cache is below the revision. Only one request is in flight at a time, shared by concurrent reads;
// an unanswered one is repeated every Options.ProgressInterval until every cache has reached the
// revision or Options.ProgressTimeout has passed. A notification requested before the Get may carry
// a lower revision than the Get's (a write committed in between): it only brings the caches closer,
// and another request follows at once. The Get's revision stays the one to reach.
func (s *Source) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	low := s.progress.speculate(ctx)
	resp, err := s.client.Get(ctx, s.revisionKey, clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("etcd: current revision: %w", err)
	}
	if resp.Header.Revision <= 0 {
		return 0, ErrZeroRevision
	}
	rev := uint64(resp.Header.Revision)
	s.progress.want(ctx, rev, low)
	return rev, nil
}

// WaitingFor tells the running source that a read waits until its cache reaches rv: unless every
// cache has, it requests progress notifications every Options.ProgressInterval until they have or
// Options.ProgressTimeout has passed (rule 3.3). It is meant for watchcache.Options.OnWait, so that a
// read at an exact resourceVersion written to another resource does not wait for etcd's periodic
// notification; consistent reads need no more than CurrentResourceVersion. It never blocks: the
// first request goes out on a timer's goroutine.
func (s *Source) WaitingFor(rv uint64) { s.progress.wait(rv) }

// RequestProgress asks etcd once for a progress notification on the source's watches. Each watch
// that has delivered every event up to etcd's current revision receives one and applies it to its
// cache as a bookmark. CurrentResourceVersion already arranges this for consistent reads; call it
// directly to bring the caches' clocks forward for another reason (e.g. before comparing a cache
// with etcd in a test).
func (s *Source) RequestProgress(ctx context.Context) error {
	s.stats.progressRequests.Add(1)
	if err := s.client.RequestProgress(watchContext(ctx)); err != nil {
		return fmt.Errorf("etcd: request progress: %w", err)
	}
	return nil
}

// progressRequester requests progress notifications for reads waiting for a revision some cache has
// not reached (rule 3.3). At most one request is in flight: from when it is sent until a
// notification arrives or Options.ProgressInterval has passed (etcd drops a request while a watch of
// the stream is catching up, and a broken stream never answers), so any number of concurrent reads
// share it. The waits are merged into one target (the highest revision wanted) and one deadline
// (ProgressTimeout after the latest want).
//
//   - speculate, at the start of a consistent read, sends a request unless one is in flight or the
//     previous read found every cache at etcd's revision (see lagging);
//   - want, once the read's Get returned the revision, makes it the target and sends a request if
//     some cache is below it and none is in flight;
//   - notified, on the first notification after a request, sends another at once if the
//     notification's revision is below the target (a write committed between request and Get);
//   - tick, ProgressInterval after each request, sends another while some cache is below the target
//     and the deadline has not passed, and forgets the target otherwise.
//
// The caller that decides a request sends it on its own goroutine (only wait and the interval go
// through the timer's): a consistent read's request costs no goroutine hand-off. Sending blocks only
// until the client's watch stream goroutine takes the request.
type progressRequester struct {
	s     *Source
	timer *time.Timer // runs tick; armed with each request

	mu       sync.Mutex
	md       metadata.MD         // the watches' outgoing metadata: a request must carry it to reach their stream
	ctx      context.Context     // Run's watch context; nil while Run is not running
	caches   []*watchcache.Cache // the source's caches; Add and Remove change it while Run runs
	target   uint64
	deadline time.Time
	inFlight bool
	// lagging says that the last consistent read started with a cache below etcd's revision: the
	// next one speculates.
	lagging bool
	// answerRev is the revision of the last answer seen, answers the number of answers seen at it
	// (see notified).
	answerRev uint64
	answers   int
}

func newProgressRequester(s *Source) *progressRequester {
	p := &progressRequester{s: s}
	p.timer = time.AfterFunc(time.Hour, p.tick)
	p.timer.Stop()
	return p
}

// start makes the requester send its requests on the watch stream of ctx, for caches.
func (p *progressRequester) start(ctx context.Context, caches []*watchcache.Cache) {
	ctx = watchContext(ctx)
	md, _ := metadata.FromOutgoingContext(ctx)
	p.mu.Lock()
	p.ctx, p.md, p.caches = ctx, md, caches
	p.mu.Unlock()
}

// addCache adds a cache added while Run runs.
func (p *progressRequester) addCache(c *watchcache.Cache) {
	p.mu.Lock()
	p.caches = append(slices.Clip(p.caches), c)
	p.mu.Unlock()
}

// removeCache forgets a cache whose feed was removed.
func (p *progressRequester) removeCache(c *watchcache.Cache) {
	p.mu.Lock()
	p.caches = slices.DeleteFunc(slices.Clone(p.caches), func(x *watchcache.Cache) bool { return x == c })
	p.mu.Unlock()
}

// stop ends the requests: Run is returning.
func (p *progressRequester) stop() {
	p.mu.Lock()
	p.ctx, p.target, p.inFlight = nil, 0, false
	p.mu.Unlock()
	p.timer.Stop()
}

// speculate sends a request for a consistent read about to ask etcd for its revision, unless one is
// in flight or the previous read found every cache at etcd's revision (a quiet etcd: the request
// would be wasted, and the read sends one after its Get if it must). The request carries the
// reader's ctx, so that it gives up with the read. speculate returns the lowest revision of the
// ready caches, for want.
func (p *progressRequester) speculate(ctx context.Context) (low uint64) {
	p.mu.Lock()
	low = p.lowLocked()
	send := p.ctx != nil && p.lagging && !p.inFlight
	if send {
		ctx = metadata.NewOutgoingContext(ctx, p.md)
	}
	p.unlockSend(ctx, send)
	return low
}

// want registers a consistent read waiting for rev, and sends a request if some cache is below rev
// and none is in flight. low is what speculate returned: whether the caches were behind etcd when
// the read started decides whether the next read speculates.
func (p *progressRequester) want(ctx context.Context, rev, low uint64) {
	p.mu.Lock()
	p.lagging = low < rev
	send := p.wantLocked(rev)
	if send {
		ctx = metadata.NewOutgoingContext(ctx, p.md)
	}
	p.unlockSend(ctx, send)
}

// wait registers a read waiting for rev without a context; the request, if one is needed, goes out
// from the timer's goroutine.
func (p *progressRequester) wait(rev uint64) {
	p.mu.Lock()
	if p.wantLocked(rev) {
		p.inFlight = true // tick sends it, at once
		p.timer.Reset(0)
	}
	p.mu.Unlock()
}

// wantLocked raises the target to rev if some cache is below it, and reports whether a request must
// be sent: none is in flight.
func (p *progressRequester) wantLocked(rev uint64) bool {
	if p.ctx == nil || !p.behindLocked(rev) {
		return false
	}
	p.target = max(p.target, rev)
	p.deadline = time.Now().Add(p.s.opts.ProgressTimeout)
	return !p.inFlight
}

// notified is called by a feed for each progress notification it applied, with its revision.
//
// etcd answers a request with one notification that the client hands to every watch of the stream,
// so each feed reports each answer once: only the first report of an answer ends the request in
// flight, the other feeds' are duplicates. Answers come in order, with non-decreasing revisions, so
// a report is a new answer if its revision is higher than the last answer's, or if it is this
// feed's n-th notification at that revision and fewer than n answers at it were seen. (etcd's
// periodic notifications, sent to idle watches only, may count as an answer: at worst a request is
// sent early.)
func (p *progressRequester) notified(f *feed, rev uint64) {
	if rev != f.notifiedRev {
		f.notifiedRev, f.notifiedAt = rev, 0
	}
	f.notifiedAt++
	p.mu.Lock()
	switch {
	case rev > p.answerRev:
		p.answerRev, p.answers = rev, f.notifiedAt
	case rev == p.answerRev && f.notifiedAt > p.answers:
		p.answers = f.notifiedAt
	default: // another feed reported this answer first
		p.mu.Unlock()
		return
	}
	if !p.inFlight {
		p.mu.Unlock()
		return
	}
	p.inFlight = false
	ctx := p.ctx
	send := ctx != nil && p.target > rev && time.Now().Before(p.deadline) && p.behindLocked(p.target)
	p.unlockSend(ctx, send)
}

// tick runs ProgressInterval after a request: the request is answered or lost; another goes out if
// some cache is still below the target before its deadline.
func (p *progressRequester) tick() {
	p.mu.Lock()
	p.inFlight = false
	ctx := p.ctx
	send := ctx != nil && p.target > 0 && time.Now().Before(p.deadline) && p.behindLocked(p.target)
	if !send {
		p.target = 0
	}
	p.unlockSend(ctx, send)
}

// unlockSend releases p.mu and, if send, sends one request on ctx, marked in flight before the
// lock is released so that concurrent reads share it.
func (p *progressRequester) unlockSend(ctx context.Context, send bool) {
	if send {
		p.sentLocked()
	}
	p.mu.Unlock()
	if send {
		p.send(ctx)
	}
}

// sentLocked marks a request in flight and arms tick.
func (p *progressRequester) sentLocked() {
	p.inFlight = true
	p.timer.Reset(p.s.opts.ProgressInterval)
}

// lowLocked returns the lowest revision of the ready caches (0 if none is ready).
func (p *progressRequester) lowLocked() uint64 {
	low, found := uint64(0), false
	for _, c := range p.caches {
		if c.Ready() != nil {
			continue
		}
		if rv := c.ResourceVersion(); !found || rv < low {
			low, found = rv, true
		}
	}
	return low
}

// behindLocked reports whether a ready cache is below rev.
func (p *progressRequester) behindLocked(rev uint64) bool {
	for _, c := range p.caches {
		if c.ResourceVersion() < rev && c.Ready() == nil {
			return true
		}
	}
	return false
}

// send sends one request on the watch stream named by ctx's metadata.
func (p *progressRequester) send(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	p.s.stats.progressRequests.Add(1)
	if err := p.s.client.RequestProgress(ctx); err != nil && ctx.Err() == nil {
		p.s.log.Debug("etcd: progress request failed", "err", err)
	}
}
