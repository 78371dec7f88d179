package fake

import (
	"context"
	"slices"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/watchcache/watchcache/watchcache"
)

// The garbage collector is kube-controller-manager's, reduced to what a test can observe: it
// follows every write the server commits (whatever the resource, so resources registered later
// join without change), keeps the owner → dependents graph of metadata.ownerReferences, and
// works a queue of objects to look at on a goroutine of its own, each item under the write lock,
// with the decisions of kcm's attemptToDeleteItem and orphanDependents
// (k8s.io/kubernetes v1.37.2 pkg/controller/garbagecollector/garbagecollector.go):
//
//   - an owner that is gone (or that is there with another uid) is absent: a dependent whose
//     owners are all absent is deleted, with the policy its own finalizers ask for (Background
//     when none);
//   - a dependent with at least one owner still there loses its references to the absent ones
//     and to those deleting their dependents in the foreground, and stays;
//   - an owner deleting its dependents in the foreground (deletionTimestamp and the
//     foregroundDeletion finalizer) has them deleted, and loses its finalizer once no dependent
//     with blockOwnerDeletion is left;
//   - an owner with the orphan finalizer has its dependents' references to it removed, then
//     loses the finalizer.
//
// A cluster-scoped dependent naming a namespaced owner, or a reference to a kind the server does
// not serve, is never resolved, so such a dependent is never collected (kcm reports the first
// with an OwnerRefInvalidNamespace event and retries the second until its kind appears).

// gcManager is the field manager of the collector's writes (kube-controller-manager's user agent).
const gcManager = "kube-controller-manager"

// objectKey names one object of a resource.
type objectKey struct {
	gr              schema.GroupResource
	namespace, name string
}

// gcOp is what the collector does with a queued object.
type gcOp uint8

const (
	// gcDelete is kcm's attemptToDelete: collect the object if its owners are absent, or finish
	// a foreground deletion.
	gcDelete gcOp = iota
	// gcOrphan is kcm's attemptToOrphan: remove the references to an owner deleted with the
	// orphan finalizer, then the finalizer.
	gcOrphan
)

type gcItem struct {
	op  gcOp
	key objectKey
}

// collector is the garbage collector's state. Every field is guarded by the server's write lock
// but kick, which the worker waits on.
type collector struct {
	// dependents maps an owner's uid to the objects that name it in their ownerReferences.
	dependents map[types.UID]map[objectKey]struct{}
	// owners maps each object with ownerReferences to the uids they name.
	owners map[objectKey][]types.UID
	// foreground maps the uids of objects deleting their dependents in the foreground to them.
	foreground map[types.UID]objectKey

	queue  []gcItem
	queued map[gcItem]struct{}
	kick   chan struct{}
}

func newCollector() *collector {
	return &collector{
		dependents: map[types.UID]map[objectKey]struct{}{},
		owners:     map[objectKey][]types.UID{},
		foreground: map[types.UID]objectKey{},
		queued:     map[gcItem]struct{}{},
		kick:       make(chan struct{}, 1),
	}
}

// add queues an item once.
func (g *collector) add(op gcOp, key objectKey) {
	it := gcItem{op, key}
	if _, ok := g.queued[it]; ok {
		return
	}
	g.queued[it] = struct{}{}
	g.queue = append(g.queue, it)
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

func (g *collector) pop() (gcItem, bool) {
	if len(g.queue) == 0 {
		return gcItem{}, false
	}
	it := g.queue[0]
	g.queue = g.queue[1:]
	delete(g.queued, it)
	return it, true
}

// gcMeta is what the collector's graph needs of an object's metadata.
type gcMeta struct {
	namespace, name string
	uid             types.UID
	owners          []types.UID // the uids of its ownerReferences
	deleting        bool        // it has a deletionTimestamp
	foreground      bool        // it has the foregroundDeletion finalizer
	orphan          bool        // it has the orphan finalizer
}

// gcMetaOf reads gcMeta from an object's JSON as stored, in one pass over its metadata: the first
// occurrence of each field counts, as a gjson lookup of it finds.
func gcMetaOf(b []byte) gcMeta {
	var gm gcMeta
	var seen uint8
	const (
		sawNamespace = 1 << iota
		sawName
		sawUID
		sawOwners
		sawDeletion
		sawFinalizers
	)
	first := func(bit uint8) bool {
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}
	gjson.GetBytes(b, "metadata").ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "namespace":
			if first(sawNamespace) {
				gm.namespace = v.String()
			}
		case "name":
			if first(sawName) {
				gm.name = v.String()
			}
		case "uid":
			if first(sawUID) {
				gm.uid = types.UID(v.String())
			}
		case "ownerReferences":
			if first(sawOwners) {
				v.ForEach(func(_, ref gjson.Result) bool {
					gm.owners = append(gm.owners, types.UID(ref.Get("uid").String()))
					return true
				})
			}
		case "deletionTimestamp":
			if first(sawDeletion) {
				gm.deleting = true
			}
		case "finalizers":
			if first(sawFinalizers) {
				v.ForEach(func(_, f gjson.Result) bool {
					switch f.String() {
					case metav1.FinalizerDeleteDependents:
						gm.foreground = true
					case metav1.FinalizerOrphanDependents:
						gm.orphan = true
					}
					return true
				})
			}
		}
		return true
	})
	return gm
}

// observeMetaLocked updates the graph with one committed event of r, whose stored metadata gm
// describes (gcMetaOf of its JSON), and queues what kcm's graph builder queues for it. The
// caller holds s.mu.
func (s *Server) observeMetaLocked(r *served, typ watchcache.EventType, gm gcMeta) {
	g := s.gc
	if g == nil {
		return
	}
	key := objectKey{gr: r.gvr.GroupResource(), namespace: gm.namespace, name: gm.name}
	uid := gm.uid
	var owners []types.UID
	if typ != watchcache.Deleted {
		owners = gm.owners
	}
	old := g.owners[key]
	added := false
	for _, u := range old {
		if slices.Contains(owners, u) {
			continue
		}
		if deps := g.dependents[u]; deps != nil {
			delete(deps, key)
			if len(deps) == 0 {
				delete(g.dependents, u)
			}
		}
		if o, ok := g.foreground[u]; ok {
			g.add(gcDelete, o) // a dependent it may have waited for went
		}
	}
	for _, u := range owners {
		if slices.Contains(old, u) {
			continue
		}
		added = true
		deps := g.dependents[u]
		if deps == nil {
			deps = map[objectKey]struct{}{}
			g.dependents[u] = deps
		}
		deps[key] = struct{}{}
	}
	if len(owners) > 0 {
		g.owners[key] = owners
	} else {
		delete(g.owners, key)
	}
	if typ == watchcache.Deleted {
		delete(g.foreground, uid)
		for dep := range g.dependents[uid] {
			g.add(gcDelete, dep)
		}
		return
	}
	if added {
		g.add(gcDelete, key) // its new owners may be absent
	}
	if gm.deleting && gm.foreground {
		if _, ok := g.foreground[uid]; !ok {
			g.foreground[uid] = key
			for dep := range g.dependents[uid] {
				g.add(gcDelete, dep)
			}
		}
		g.add(gcDelete, key)
	} else {
		delete(g.foreground, uid)
	}
	if gm.deleting && gm.orphan {
		g.add(gcOrphan, key)
	}
}

// startCollector starts the collector's worker; it ends when the server closes.
func (s *Server) startCollector() {
	if s.gc == nil {
		return
	}
	s.controllers.Add(1)
	go func() {
		defer s.controllers.Done()
		for {
			select {
			case <-s.done:
				return
			case <-s.gc.kick:
			}
			for {
				s.mu.Lock()
				it, ok := s.gc.pop()
				if ok {
					s.collectLocked(it)
				}
				s.mu.Unlock()
				if !ok {
					break
				}
				select {
				case <-s.done:
					return
				default:
				}
			}
		}
	}()
}

// gcObject is an object the collector looks at: its resource, decoded state and stored JSON.
type gcObject struct {
	r   *served
	obj runtime.Object
	m   metav1Object
	cur []byte
}

// getLocked reads an object for the collector; ok is false when it is not there.
func (s *Server) getLocked(r *served, namespace, name string) (gcObject, bool) {
	cur, err := current(context.Background(), r, namespace, name)
	if err != nil || cur == nil {
		return gcObject{}, false
	}
	obj, err := decodeStored(r.resourceType, cur)
	if err != nil {
		return gcObject{}, false
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return gcObject{}, false
	}
	return gcObject{r: r, obj: obj, m: m, cur: cur}, true
}

// collectLocked does one queued item. The caller holds s.mu.
func (s *Server) collectLocked(it gcItem) {
	r := s.servedGR(it.key.gr)
	if r == nil {
		return
	}
	o, ok := s.getLocked(r, it.key.namespace, it.key.name)
	if !ok {
		return
	}
	switch it.op {
	case gcOrphan:
		s.orphanLocked(o)
	case gcDelete:
		s.attemptToDeleteLocked(o)
	}
}

// ownerState is what the collector found of one owner reference.
type ownerState uint8

const (
	ownerSolid   ownerState = iota // there, not deleting its dependents
	ownerAbsent                    // not there, or there with another uid
	ownerWaiting                   // there, deleting its dependents in the foreground
)

// ownerStateLocked resolves one owner reference of an object of r in namespace; ok is false when
// it cannot be resolved (an unserved kind, or a namespaced owner of a cluster-scoped object).
func (s *Server) ownerStateLocked(r *served, namespace string, ref metav1.OwnerReference) (ownerState, bool) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return 0, false
	}
	or := s.servedKind(gv.WithKind(ref.Kind))
	if or == nil {
		return 0, false
	}
	ns := ""
	if or.namespaced {
		if !r.namespaced {
			return 0, false
		}
		ns = namespace
	}
	cur, err := current(context.Background(), or, ns, ref.Name)
	if err != nil {
		return 0, false
	}
	if cur == nil || types.UID(gjson.GetBytes(cur, "metadata.uid").String()) != ref.UID {
		return ownerAbsent, true
	}
	if gjson.GetBytes(cur, "metadata.deletionTimestamp").Exists() &&
		slices.ContainsFunc(gjson.GetBytes(cur, "metadata.finalizers").Array(), func(f gjson.Result) bool {
			return f.String() == metav1.FinalizerDeleteDependents
		}) {
		return ownerWaiting, true
	}
	return ownerSolid, true
}

// servedKind returns the resource of a kind: of its version, else of any version of its group,
// as kcm's RESTMapper maps an owner reference of another version.
func (s *Server) servedKind(gvk schema.GroupVersionKind) *served {
	if r := s.byGVK[gvk]; r != nil {
		return r
	}
	for _, r := range s.allResources() {
		if r.gvk.Group == gvk.Group && r.gvk.Kind == gvk.Kind {
			return r
		}
	}
	return nil
}

// servedGR returns the resource of a group and resource: a built-in one, or one served version of
// a custom resource (each version holds the same objects).
func (s *Server) servedGR(gr schema.GroupResource) *served {
	if r := s.byGR[gr]; r != nil {
		return r
	}
	for _, r := range s.allResources() {
		if r.gvr.GroupResource() == gr {
			return r
		}
	}
	return nil
}

// attemptToDeleteLocked is kcm's attemptToDeleteItem. The caller holds s.mu.
func (s *Server) attemptToDeleteLocked(o gcObject) {
	if o.m.GetDeletionTimestamp() != nil {
		if hasFinalizer(o.m.GetFinalizers(), metav1.FinalizerDeleteDependents) {
			s.processDeletingDependentsLocked(o)
		}
		return
	}
	refs := o.m.GetOwnerReferences()
	if len(refs) == 0 {
		return
	}
	var solid, dropped, waiting []types.UID
	for _, ref := range refs {
		st, ok := s.ownerStateLocked(o.r, o.m.GetNamespace(), ref)
		if !ok {
			return
		}
		switch st {
		case ownerSolid:
			solid = append(solid, ref.UID)
		case ownerAbsent:
			dropped = append(dropped, ref.UID)
		case ownerWaiting:
			waiting = append(waiting, ref.UID)
		}
	}
	switch {
	case len(solid) > 0:
		// Owned by something that stays: only the references to absent owners and to owners
		// deleting their dependents go.
		if len(dropped)+len(waiting) == 0 {
			return
		}
		drop := append(dropped, waiting...)
		o.m.SetOwnerReferences(slices.DeleteFunc(refs, func(ref metav1.OwnerReference) bool { return slices.Contains(drop, ref.UID) }))
		s.gcUpdateLocked(o)
	case len(waiting) > 0 && len(s.gc.dependents[o.m.GetUID()]) > 0:
		// An owner waits for it and it has dependents of its own: it deletes them first, in the
		// foreground too. Should one of them be deleting its dependents already (a cycle, maybe),
		// it first stops blocking its owners, so that the cycle cannot wedge them.
		if s.anyDeletingDependentsLocked(o.m.GetUID()) {
			unblocked := false
			for i := range refs {
				if refs[i].BlockOwnerDeletion != nil && *refs[i].BlockOwnerDeletion {
					refs[i].BlockOwnerDeletion = new(bool)
					unblocked = true
				}
			}
			if unblocked {
				o.m.SetOwnerReferences(refs)
				s.gcUpdateLocked(o)
			}
		}
		s.gcDeleteLocked(o, metav1.DeletePropagationForeground)
	default:
		policy := metav1.DeletePropagationBackground
		switch {
		case hasFinalizer(o.m.GetFinalizers(), metav1.FinalizerOrphanDependents):
			policy = metav1.DeletePropagationOrphan
		case hasFinalizer(o.m.GetFinalizers(), metav1.FinalizerDeleteDependents):
			policy = metav1.DeletePropagationForeground
		}
		s.gcDeleteLocked(o, policy)
	}
}

// anyDeletingDependentsLocked reports whether a dependent of uid is deleting its own dependents
// in the foreground. The caller holds s.mu.
func (s *Server) anyDeletingDependentsLocked(uid types.UID) bool {
	for dep := range s.gc.dependents[uid] {
		for _, k := range s.gc.foreground {
			if k == dep {
				return true
			}
		}
	}
	return false
}

// processDeletingDependentsLocked finishes a foreground deletion once no dependent with
// blockOwnerDeletion is left, by removing the foregroundDeletion finalizer; until then it
// queues the blocking dependents. The caller holds s.mu.
func (s *Server) processDeletingDependentsLocked(o gcObject) {
	uid := o.m.GetUID()
	blocking := 0
	for _, dep := range s.dependentsOf(uid) {
		r := s.servedGR(dep.gr)
		if r == nil {
			continue
		}
		d, ok := s.getLocked(r, dep.namespace, dep.name)
		if !ok {
			continue
		}
		for _, ref := range d.m.GetOwnerReferences() {
			if ref.UID == uid && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
				blocking++
				if !(d.m.GetDeletionTimestamp() != nil && hasFinalizer(d.m.GetFinalizers(), metav1.FinalizerDeleteDependents)) {
					s.gc.add(gcDelete, dep)
				}
				break
			}
		}
	}
	if blocking > 0 {
		return
	}
	o.m.SetFinalizers(slices.DeleteFunc(o.m.GetFinalizers(), func(f string) bool { return f == metav1.FinalizerDeleteDependents }))
	s.gcUpdateLocked(o)
}

// orphanLocked is kcm's attemptToOrphan: the dependents of an owner with the orphan finalizer
// lose their references to it, then it loses the finalizer. The caller holds s.mu.
func (s *Server) orphanLocked(o gcObject) {
	if o.m.GetDeletionTimestamp() == nil || !hasFinalizer(o.m.GetFinalizers(), metav1.FinalizerOrphanDependents) {
		return
	}
	uid := o.m.GetUID()
	for _, dep := range s.dependentsOf(uid) {
		r := s.servedGR(dep.gr)
		if r == nil {
			continue
		}
		d, ok := s.getLocked(r, dep.namespace, dep.name)
		if !ok {
			continue
		}
		refs := d.m.GetOwnerReferences()
		kept := slices.DeleteFunc(slices.Clone(refs), func(ref metav1.OwnerReference) bool { return ref.UID == uid })
		if len(kept) == len(refs) {
			continue
		}
		d.m.SetOwnerReferences(kept)
		s.gcUpdateLocked(d)
	}
	o.m.SetFinalizers(slices.DeleteFunc(o.m.GetFinalizers(), func(f string) bool { return f == metav1.FinalizerOrphanDependents }))
	s.gcUpdateLocked(o)
}

// dependentsOf returns the objects naming uid as an owner, in no particular order.
func (s *Server) dependentsOf(uid types.UID) []objectKey {
	out := make([]objectKey, 0, len(s.gc.dependents[uid]))
	for k := range s.gc.dependents[uid] {
		out = append(out, k)
	}
	return out
}

// gcUpdateLocked stores the collector's change of an object's metadata as an update would (an
// object whose last finalizer went is deleted). A failure leaves the object as it was: the next
// event about it queues it again.
func (s *Server) gcUpdateLocked(o gcObject) {
	old, err := decodeStored(o.r.resourceType, o.cur)
	if err != nil {
		return
	}
	t := target{res: o.r, namespace: o.m.GetNamespace(), name: o.m.GetName()}
	_, _ = s.updateLocked(t, o.obj, old, o.cur, false, gcManager, false)
}

// gcDeleteLocked deletes an object with a propagation policy and a precondition on its uid, as
// kcm's deleteObject does.
func (s *Server) gcDeleteLocked(o gcObject, policy metav1.DeletionPropagation) {
	uid := o.m.GetUID()
	opts := &metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid}}
	_, _ = s.deleteLocked(context.Background(), o.r, o.m.GetNamespace(), o.m.GetName(), opts, false)
}

// gcPolicy is a resource's default garbage collection policy (the apiserver's
// rest.GarbageCollectionPolicy of its strategy), which applies to a delete that names none.
type gcPolicy uint8

const (
	gcDeleteDependents gcPolicy = iota // Background
	gcOrphanDependents                 // the orphan finalizer
	gcUnsupported                      // propagation policies are ignored
)

// defaultGCPolicy is DefaultGarbageCollectionPolicy of each strategy (k8s.io/kubernetes v1.37.2
// pkg/registry): v1 ReplicationControllers and batch/v1 Jobs orphan for backwards compatibility,
// events take no policy, everything else (custom resources too) deletes its dependents.
func defaultGCPolicy(gvr schema.GroupVersionResource) gcPolicy {
	switch gvr {
	case schema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"},
		schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}:
		return gcOrphanDependents
	case schema.GroupVersionResource{Version: "v1", Resource: "events"},
		schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}:
		return gcUnsupported
	}
	return gcDeleteDependents
}

// jobDeleteWarning is the warning of a Job delete that names no policy
// (pkg/registry/batch/job/storage, deleteOptionWarnings; reference/observed-gc.md, default policies).
const jobDeleteWarning = "child pods are preserved by default when jobs are deleted; " +
	"set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"

// deleteWarnings are the warnings of a delete or deletecollection of r with opts.
func deleteWarnings(r *served, opts *metav1.DeleteOptions) []string {
	//nolint:staticcheck // the deprecated field still counts as naming a policy
	if opts.PropagationPolicy == nil && opts.OrphanDependents == nil &&
		r.gvr == (schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}) {
		return []string{jobDeleteWarning}
	}
	return nil
}
