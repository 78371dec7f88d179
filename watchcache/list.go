package watchcache

import (
	"context"
	"errors"

	"github.com/watchcache/watchcache/selection"
)

// ListResult is one page of a list.
type ListResult struct {
	// Items are the stored objects in key order; each is the object's JSON with
	// metadata.resourceVersion set to the RV of its last change. Shared: do not modify.
	Items [][]byte
	// ResourceVersion is the list's RV (rules 1.6–1.9, 2.8): the requested RV for Exact and continue
	// reads, the cache's current RV for the others.
	ResourceVersion uint64
	// Continue resumes the list after the last item; "" on the last page.
	Continue string
	// RemainingItemCount is the number of objects after this page, set only with a continue token
	// and no selector (rule 2.7).
	RemainingItemCount *int64
}

// List answers a list request with the kube-apiserver's semantics: validation and errors (rule 0),
// resourceVersion routing (rule 1), pagination with continue tokens at a consistent snapshot
// (rule 2), readiness and waiting (rule 3) and selectors (rule 4). See ListOptions.
//
// Cost: O(log n + scanned) where scanned is the page size for an indexed exact-match selector, and
// the keys walked to fill the page otherwise; no allocation per scanned object.
func (c *Cache) List(ctx context.Context, o ListOptions) (*ListResult, error) {
	q, err := c.prepare(o.Namespace, o.LabelSelector, o.FieldSelector)
	if err != nil {
		return nil, err
	}
	var issued *issuedToken
	if o.Continue != "" {
		if tok, ok := c.tokens.lookup(o.Continue, q.prefix); ok {
			issued = &tok
		}
	}
	r, err := routeList(o, q.prefix, c.opts.IgnoreLimitForRV0, issued)
	if err := c.admit(q.unsupported, err); err != nil {
		return nil, err
	}
	var v view
	var rv uint64
	if issued != nil && r.kind == readExact {
		// The page after one this cache issued reads the view that page read, if it is still
		// in the window; the cache has long reached the token's RV.
		v, rv = issued.enter(), r.rv
	}
	if v == nil {
		v, rv, err = c.readView(ctx, r, q.prefix)
		if errors.Is(err, ErrExpired) && r.kind == readExact && c.opts.History != nil {
			return c.listHistory(ctx, q, r, r.rv, err)
		}
		if err != nil {
			return nil, err
		}
	}
	defer v.leave()
	pl := makePlan(v, q.prefix, r.start, c.opts.Resource.Namespaced, q.labels, q.fields)
	// The collector and its predicate stay on the stack: no allocation for them per request.
	var cl collector
	cl.pred.init(q.schema, c.labels.Load(), &q.labels, &q.fields)
	cl.rv, cl.limit = v.at(), r.limit
	cl.pred.use(pl)
	// The result slice starts small and grows: a page of 500 pointers allocated up front costs
	// more than a 20-item indexed page itself.
	cl.items = make([][]byte, 0, pageCap(v, pl, &cl.pred, r.limit))
	page(v, pl, &cl)
	res := &ListResult{Items: cl.items, ResourceVersion: rv}
	if cl.more {
		start := cl.last + "\x00"
		res.Continue = encodeContinue(start, q.prefix, int64(rv))
		next := issuedToken{prefix: q.prefix, start: start, rv: int64(rv), remaining: -1}
		if cl.pred.empty() {
			switch {
			case pl.start == q.prefix:
				// A first page without a selector holds every key of the prefix up to its last:
				// the rest is the prefix's count less the page, without walking the keys after it.
				next.remaining = v.count(q.prefix) - cl.n
			case issued != nil && issued.remaining >= 0 && pl.start == issued.start:
				// The page after one this cache issued, at the same immutable state: the keys
				// after it are those after the previous page less this page's.
				next.remaining = issued.remaining - cl.n
			default:
				next.remaining = v.countAfter(q.prefix, cl.last)
			}
			n := next.remaining
			res.RemainingItemCount = &n
		}
		if decodesTo(next) {
			c.tokens.add(res.Continue, next, v)
		}
	}
	return res, nil
}

// query is a request's parsed selectors and list root. schema is the one the field selector was
// compiled against: a snapshot older than a RegisterField holds records extracted under an older
// schema, and they are read through this one (record.fields re-extracts them).
type query struct {
	schema *selection.Schema
	labels selection.LabelSelector
	fields selection.FieldSelector
	prefix string
	// unsupported is a field-label conversion error, reported only after the options validated:
	// the apiserver parses selectors (400), validates options (422), then converts field labels (400).
	unsupported error
}

// prepare parses the selectors (400 on error, rules 4.1–4.3) and computes the list root (rule 4.6).
// An unsupported field is kept in query.unsupported, to be reported after validation.
func (c *Cache) prepare(namespace, labelSelector, fieldSelector string) (query, error) {
	schema := c.schema.Load()
	p := c.selectors.parse(schema, labelSelector, fieldSelector)
	q := query{schema: schema, labels: p.labels, fields: p.fields}
	err := p.err
	if errors.Is(err, selection.ErrUnsupportedField) {
		q.unsupported, err = err, nil
	}
	if err != nil {
		return query{}, err
	}
	if !c.opts.Resource.Namespaced {
		namespace = ""
	}
	q.prefix = listPrefix(c.opts.Resource.Namespaced, namespace, q.fields)
	return q, nil
}

// admit returns a request's first error in the apiserver's order: selector syntax (400, already
// returned by prepare), option validation (422), field-label conversion (400, the query's
// unsupported error), the rest of the routing — resourceVersion, continue token (400) — then
// readiness (429). routeErr is what routing the options returned.
func (c *Cache) admit(unsupported, routeErr error) error {
	switch {
	case routeErr == nil && unsupported == nil:
		// The common case, without errors.Is's walk.
	case errors.Is(routeErr, ErrInvalidOptions):
		return routeErr
	case unsupported != nil:
		return unsupported
	case routeErr != nil:
		return routeErr
	}
	return c.clock.Ready()
}

// readView waits as the route requires and returns the view to read, entered (the caller leaves
// it when done), and the list's RV.
func (c *Cache) readView(ctx context.Context, r route, prefix string) (view, uint64, error) {
	switch r.kind {
	case readExact:
		if _, err := c.waitFor(ctx, r.rv); err != nil {
			return nil, 0, err
		}
		e, ok := c.pub.atOrBefore(r.rv)
		var v view
		if ok {
			if v, ok = e.view(); !ok {
				v, ok = c.viewAt(e.rv)
			}
		}
		// A view the window evicted since it was found is as expired as one it had evicted before.
		ok = ok && v.enter()
		if !ok {
			if r.continued {
				return nil, 0, &ExpiredError{Message: msgContinueTooOld, Continue: encodeContinueEtcdForm(r.start, prefix, -1)}
			}
			return nil, 0, &ExpiredError{Message: msgListTooOld}
		}
		return v, r.rv, nil
	case readConsistent:
		target, err := c.currentSourceRV(ctx)
		if err != nil {
			return nil, 0, err
		}
		if _, err := c.waitFor(ctx, target); err != nil {
			return nil, 0, err
		}
	default:
		if _, err := c.waitFor(ctx, r.rv); err != nil {
			return nil, 0, err
		}
	}
	for {
		// The head fails to enter only if the window evicted it since it was loaded: a newer head
		// exists by then.
		if h := c.current(); h.st.enter() {
			return h.st, h.rv, nil
		}
	}
}

// currentSourceRV is the RV a consistent read must reach (rule 1.8): the source's, or, for a cache
// without a source, its own current RV.
func (c *Cache) currentSourceRV(ctx context.Context) (uint64, error) {
	if c.opts.CurrentResourceVersion == nil {
		return c.clock.Current(), nil
	}
	return c.opts.CurrentResourceVersion(ctx)
}

// Get returns one object (rule 6.7): resourceVersion "" reads consistently, "0" the latest state,
// N the latest state once the cache has reached N. The returned RV is the cache's at the read.
func (c *Cache) Get(ctx context.Context, namespace, name, resourceVersion string) ([]byte, uint64, error) {
	rv, err := parseResourceVersion(resourceVersion)
	if err != nil {
		return nil, 0, err
	}
	if err := c.clock.Ready(); err != nil {
		return nil, 0, err
	}
	r := route{kind: readLatest, rv: rv}
	if resourceVersion == "" {
		r.kind = readConsistent
	}
	v, at, err := c.readView(ctx, r, "/")
	if err != nil {
		return nil, 0, err
	}
	defer v.leave()
	rec, ok := v.get(requestKey(c.opts.Resource.Namespaced, namespace, name))
	if !ok {
		return nil, at, &NotFoundError{Group: c.opts.Resource.Group, Resource: c.opts.Resource.Name, Name: name, ResourceVersion: at}
	}
	return rec.raw, at, nil
}

// Newest returns the object stored under namespace and name as of the last applied event, and
// false when there is none; it fails as Get does when the cache is not ready. It reads the working
// content under the writer lock and publishes nothing: it is for the one writer, which checks the
// version it replaces before each Apply (as etcd's transaction compares a key's revision) and
// through Get would publish a snapshot at every event, whose B-tree clones the next write then
// copies (publishEvery). Safe for concurrent use; the bytes are the cache's and must not be
// modified.
func (c *Cache) Newest(namespace, name string) ([]byte, bool, error) {
	if err := c.clock.Ready(); err != nil {
		return nil, false, err
	}
	key := requestKey(c.opts.Resource.Namespaced, namespace, name)
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.work.cells[key]
	if !ok {
		return nil, false, nil
	}
	return cl.head.Load().raw, true, nil
}

// waitFor waits until the cache has reached rv (rule 3.3), telling the source first through
// Options.OnWait so that it can ask for a progress notification instead of waiting for the next
// periodic one.
func (c *Cache) waitFor(ctx context.Context, rv uint64) (uint64, error) {
	if rv > c.clock.Current() && c.opts.OnWait != nil {
		c.opts.OnWait(rv)
	}
	return c.clock.WaitFor(ctx, rv)
}
