package fake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"unsafe"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/watchcache/watchcache/watchcache"
)

// How a write is serialized, as an apiserver over etcd does it: each write holds its object's
// lock (objectLocks) from reading the stored object to storing the new one, so two writes of one
// object never interleave; writes of different objects run side by side. The server-wide s.mu is
// held only to take the next resourceVersion and apply the event to the resource's cache (commit),
// with the object already encoded, so that the events of all resources reach their caches in
// resourceVersion order. Lock order: an object's lock, then s.mu.
//
// Paths that hold s.mu across a read and a write (single deletes, each delete of a
// deletecollection, a whole deletecollection while no webhook is configured, the namespace
// controller) are atomic against everything else; commit checks that the object it replaces is
// still the stored one (as etcd's transaction compares the key's mod revision), so that a write
// racing one of those paths, or Store and Remove, fails with a conflict instead of undoing it.
//
// A write that may call admission webhooks holds the object's lock only around its commit while
// any webhook is configured (lockForAdmission): a webhook may itself write the object through the
// server, and would wait for a lock its caller held until the call timed out. Such a write is
// computed from what it read and committed only if the object is still that; an update computed
// from a version that changed meanwhile runs again from a fresh read (staleError), as the
// apiserver's GuaranteedUpdate runs its update function, admission included, again after etcd's
// compare failed. Taking the lock for the commit keeps the paths that hold it from their read to
// their commit (a binding, an eviction's budget) free of a write between the two.

// lockKey names one object of one resource.
type lockKey struct {
	r               *served
	namespace, name string
}

// objectLocks are the per-object locks of a Server. An entry lives while someone holds or waits
// for it, so the map holds only the objects being written.
type objectLocks struct {
	mu sync.Mutex
	m  map[lockKey]*objectLock
}

type objectLock struct {
	mu   sync.Mutex
	refs int // holders and waiters, under objectLocks.mu
	// locks and key place the entry in its table while refs > 0. unlock is release as a func,
	// made once per entry: entries are pooled (freeObjectLocks), so taking a lock allocates
	// neither the entry nor the unlock it returns.
	locks  *objectLocks
	key    lockKey
	unlock func()
}

// freeObjectLocks are entries that nobody holds or waits for.
var freeObjectLocks sync.Pool

// lockObject takes the lock of one object and returns its unlock, which the caller calls once.
func (s *Server) lockObject(r *served, namespace, name string) (unlock func()) {
	if !r.namespaced {
		namespace = ""
	}
	k := lockKey{r: r, namespace: namespace, name: name}
	l := &s.locks
	l.mu.Lock()
	if l.m == nil {
		l.m = make(map[lockKey]*objectLock)
	}
	e := l.m[k]
	if e == nil {
		e, _ = freeObjectLocks.Get().(*objectLock)
		if e == nil {
			e = new(objectLock)
			e.unlock = e.release
		}
		e.locks, e.key = l, k
		l.m[k] = e
	}
	e.refs++
	l.mu.Unlock()
	e.mu.Lock()
	return e.unlock
}

// release is the unlock lockObject returns. The last holder removes the entry from its table
// and pools it: nobody else can reach it then, since lockObject finds entries in the table only.
func (e *objectLock) release() {
	e.mu.Unlock()
	l := e.locks
	l.mu.Lock()
	e.refs--
	free := e.refs == 0
	if free {
		delete(l.m, e.key)
	}
	l.mu.Unlock()
	if free {
		e.locks, e.key = nil, lockKey{}
		freeObjectLocks.Put(e)
	}
}

// lockForAdmission takes the lock of the object the write t admits and stores, when no webhook
// configuration is stored; with one, it takes nothing and marks t to take the lock only around its
// commit (commitFor), as said above.
func (s *Server) lockForAdmission(t *target, namespace, name string) (unlock func()) {
	if t.lockCommit = s.anyWebhooks(); t.lockCommit {
		return func() {}
	}
	return s.lockObject(t.res, namespace, name)
}

// commitFor is the commit of the write t: commitEncoded, or commitLocking when the write does
// not hold the object's lock (lockForAdmission).
func (s *Server) commitFor(t target) func(r *served, typ watchcache.EventType, obj runtime.Object, b, stored []byte) ([]byte, error) {
	if t.lockCommit {
		return s.commitLocking
	}
	return s.commitEncoded
}

// commitLocking is commitEncoded under the object's lock, for a write that does not hold it.
func (s *Server) commitLocking(r *served, typ watchcache.EventType, obj runtime.Object, b, stored []byte) ([]byte, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, internalError("%s: %v", r.gvk.Kind, err)
	}
	defer s.lockObject(r, m.GetNamespace(), m.GetName())()
	return s.commitEncoded(r, typ, obj, b, stored)
}

// staleError is commit's conflict when the stored object is no longer the one the change was
// computed from. It is the apiserver's 409 to a caller that answers it; an update retries it from
// a fresh read (stale), as the apiserver's storage does.
type staleError struct{ *apierrors.StatusError }

// stale reports whether an update answered a staleError to a client that still waits: the
// caller runs it again, as the apiserver's GuaranteedUpdate runs its update function until its
// commit's compare holds — reading the object again and running the whole update on it (patch,
// admission, the resourceVersion precondition, which then fails).
func stale(ctx context.Context, err error) bool {
	return err != nil && errors.As(err, new(staleError)) && ctx.Err() == nil
}

// commit stores one change of an object as one event at the next resourceVersion. obj is
// encoded before s.mu is taken; under it, the new resourceVersion is written into the encoded
// bytes, so the cache parses the object once and no encoding runs under the server-wide lock.
// stored is the object's JSON the change was computed from (nil for a create): if the stored
// object is no longer it, nothing is written and commit answers the apiserver's conflict (a
// staleError for an update). The caller holds the object's lock, not s.mu.
func (s *Server) commit(r *served, typ watchcache.EventType, obj runtime.Object, stored []byte) ([]byte, error) {
	return s.commitEncoded(r, typ, obj, nil, stored)
}

// commitEncoded is commit of an object the caller has already encoded (encodeStored) with its
// current metadata, as an update does to tell a no-op: b is stored with the new resourceVersion
// written into it, so the object is not encoded twice. A nil b is encoded here.
func (s *Server) commitEncoded(r *served, typ watchcache.EventType, obj runtime.Object, b, stored []byte) ([]byte, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, internalError("%s: %v", r.gvk.Kind, err)
	}
	if b == nil {
		if m.GetResourceVersion() == "" {
			m.SetResourceVersion("0") // a placeholder the encoding keeps, replaced under the lock
		}
		if b, err = encodeStored(r.resourceType, obj); err != nil {
			return nil, err
		}
	}
	at, end, ok := resourceVersionValue(b)
	// The object b encodes, when decoding b gives it back: kept as b's decoding, it spares the
	// protobuf answer and the object's next write their decoding of the stored JSON.
	var kept runtime.Object
	if r.custom == nil {
		if x := storedEncodings.take(b); x != nil && losslessJSON(x, b) {
			kept = x
		}
	}
	var gm gcMeta
	if s.gc != nil {
		// Neither reads the resourceVersion, the one field written under the lock.
		if om := objectMetaOf(kept); om != nil {
			gm = gcMetaOfObject(om) // what gcMetaOf reads in b, which encodes it
		} else {
			gm = gcMetaOf(b)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := current(contextBackground(), r, m.GetNamespace(), m.GetName())
	if err != nil {
		return nil, err
	}
	if !sameBytes(cur, stored) {
		if stored == nil {
			return nil, alreadyExists(r, m.GetName())
		}
		return nil, staleError{apierrors.NewConflict(r.gvr.GroupResource(), m.GetName(), errors.New(optimisticLockMessage))}
	}
	rv := s.rv.Load() + 1
	if ok {
		b = writeResourceVersion(b, at, end, rv)
	} else {
		// Not found where every built-in kind puts it: encode again, under the lock.
		m.SetResourceVersion(rvString(rv))
		if b, err = encodeStored(r.resourceType, obj); err != nil {
			return nil, err
		}
		kept = nil
	}
	if err := r.cache.Apply(watchcache.Event{Type: typ, Object: b, ResourceVersion: rv}); err != nil {
		return nil, internalError("store %s %s: %v", r.gvr.Resource, m.GetName(), err)
	}
	rvs := rvString(rv)
	switch {
	case kept != nil:
		km, err := meta.Accessor(kept)
		if err != nil {
			return nil, internalError("%s: %v", r.gvk.Kind, err)
		}
		km.SetResourceVersion(rvs) // the one written into b
		if verifyStoredDecodings {
			verifyKept(r.resourceType, b, kept)
			if s.gc != nil && !reflect.DeepEqual(gm, gcMetaOf(b)) {
				panic(fmt.Sprintf("fake: the collector's view of a kept %s is %+v, its JSON's %+v", r.gvk.Kind, gm, gcMetaOf(b)))
			}
		}
		storedDecodings.keep(b, kept)
	case r.custom == nil:
		storedDecodings.stored(b)
	}
	s.rv.Store(rv)
	s.committedMetaLocked(r, typ, b, rv, gm)
	m.SetResourceVersion(rvs)
	return b, nil
}

// objectMetaOf returns a typed object's metadata, or nil (for nil too).
func objectMetaOf(obj runtime.Object) *metav1.ObjectMeta {
	a, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil
	}
	om, _ := a.GetObjectMeta().(*metav1.ObjectMeta)
	return om
}

// writeResourceVersion returns b with b[at:end] replaced by rv's digits, in b's own array when
// its capacity has the room (an encoding's usually has: allocations are rounded up to a size
// class), else in a new one. b is the caller's encoding, which nobody else holds.
func writeResourceVersion(b []byte, at, end int, rv uint64) []byte {
	var buf [20]byte // the digits of the largest uint64
	digits := strconv.AppendUint(buf[:0], rv, 10)
	n := len(b) - (end - at) + len(digits)
	if n > cap(b) {
		out := make([]byte, 0, n)
		out = append(out, b[:at]...)
		out = append(out, digits...)
		return append(out, b[end:]...)
	}
	tail := b[end:]
	b = b[:n]
	copy(b[at+len(digits):], tail) // copy moves overlapping bytes as memmove does
	copy(b[at:], digits)
	return b
}

// rvKey is how an encoded object's metadata.resourceVersion starts.
var rvKey = []byte(`"resourceVersion":"`)

// resourceVersionValue returns where the value of metadata.resourceVersion lies in an encoded
// object. The first occurrence of the key is metadata's: the encoding writes kind, apiVersion and
// then metadata, whose fields before resourceVersion are strings, in which a quote is escaped.
func resourceVersionValue(b []byte) (at, end int, ok bool) {
	i := bytes.Index(b, rvKey)
	if i < 0 {
		return 0, 0, false
	}
	at = i + len(rvKey)
	j := bytes.IndexByte(b[at:], '"')
	if j < 0 {
		return 0, 0, false
	}
	return at, at + j, true
}

// sameBytes reports whether a and b are the same stored bytes: the cache hands out the bytes it
// keeps, and every write stores new ones, so identity is equality of versions.
func sameBytes(a, b []byte) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	return len(a) == 0 || unsafe.SliceData(a) == unsafe.SliceData(b)
}
