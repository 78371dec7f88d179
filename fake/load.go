package fake

import (
	"fmt"
	"maps"
	"reflect"
	goruntime "runtime"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/watchcache/watchcache/watchcache"
)

// load stores the default namespaces, the system priority classes and Options.Objects, each at
// the next resourceVersion, and makes every cache ready with one re-list at the last one.
func (s *Server) load() error {
	now := metav1.NewTime(s.opts.Now().Truncate(time.Second))
	objs := make([]runtime.Object, 0, len(defaultNamespaces)+2+len(s.opts.Objects))
	if !s.opts.NoDefaultNamespaces {
		for _, name := range defaultNamespaces {
			objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
		objs = append(objs, systemPriorityClassObjects(now)...)
	}
	objs = append(objs, s.opts.Objects...)
	type item struct {
		r   *served
		obj runtime.Object
		rv  uint64
		uid types.UID // drawn here, in order, so that a seed gives the same uids
	}
	items := make([]item, 0, len(objs))
	seen := make(map[lockKey]bool, len(objs))
	// Objects without a kind are resolved by their Go type, once per type: the scheme's lookup
	// is a reflection and two map reads per object otherwise.
	byType := make(map[reflect.Type]*served)
	var rv uint64
	first := len(objs) - len(s.opts.Objects) // index of Options.Objects[0]
	for i, obj := range objs {
		if i >= first {
			if gvk, custom := s.isCustomSeed(obj); custom {
				s.customSeeds = append(s.customSeeds, customSeed{index: i - first, obj: obj, gvk: gvk})
				continue
			}
		}
		var r *served
		var err error
		if obj.GetObjectKind().GroupVersionKind().Empty() {
			t := reflect.TypeOf(obj)
			if r = byType[t]; r == nil {
				if r, err = s.servedFor(obj); err == nil {
					byType[t] = r
				}
			}
		} else {
			r, err = s.servedFor(obj)
		}
		if err != nil {
			return fmt.Errorf("fake: Objects[%d]: %w", i-first, err)
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("fake: Objects[%d]: %w", i-first, err)
		}
		ns := m.GetNamespace()
		if !r.namespaced {
			ns = ""
		} else if ns == "" {
			ns = metav1.NamespaceDefault
		}
		key := lockKey{r: r, namespace: ns, name: m.GetName()}
		if seen[key] {
			if _, isNS := obj.(*corev1.Namespace); isNS && i >= first {
				// An Objects namespace replaces a default one of the same name.
				for j := range items {
					if items[j].r == r && items[j].obj.(metav1.Object).GetName() == m.GetName() {
						items[j].obj = obj
					}
				}
				continue
			}
			return fmt.Errorf("fake: Objects: %s %s/%s twice", r.gvr.Resource, ns, m.GetName())
		}
		seen[key] = true
		rv++
		items = append(items, item{r: r, obj: obj, rv: rv, uid: s.names.uid()})
	}
	// Encoding is most of the cost: it runs on every core, each object encoded from a shallow
	// copy of its metadata, so that the caller's objects are not changed.
	encoded := make([][]byte, len(items))
	metas := make([]gcMeta, len(items))
	errs := make([]error, len(items))
	workers := goruntime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(items); i += workers {
				encoded[i], metas[i], errs[i] = s.encodeSeed(items[i].r, items[i].obj, items[i].rv, items[i].uid, now)
			}
		})
	}
	wg.Wait()
	byRes := make(map[*served][][]byte)
	for i, it := range items {
		if errs[i] != nil {
			return fmt.Errorf("fake: Objects: %w", errs[i])
		}
		byRes[it.r] = append(byRes[it.r], encoded[i])
	}
	// An empty store is at revision 1, as a new etcd is: a list must have a resourceVersion.
	rv = max(rv, 1)
	for _, r := range s.order {
		if err := r.cache.Replace(byRes[r], rv); err != nil {
			return fmt.Errorf("fake: load %s: %w", r.gvr.Resource, err)
		}
	}
	s.rv.Store(rv)
	// The controllers see the seed as created: dependents of absent owners go, and so do
	// namespaces seeded as terminating, once their content has.
	// No other goroutine runs yet, so the graph is written without the lock.
	var terminating []string
	for i, it := range items {
		s.observeMetaLocked(it.r, watchcache.Added, metas[i])
		if ns, ok := it.obj.(*corev1.Namespace); ok && ns.DeletionTimestamp != nil && !s.opts.NoNamespaceController {
			terminating = append(terminating, ns.Name)
		}
	}
	for _, name := range terminating {
		s.finalizeNamespaceLater(name)
	}
	return nil
}

// encodeSeed encodes a seed object as stored at rv: with its namespace defaulted, uid as its uid
// and a creationTimestamp when it has none, generation 1 where the resource has one, and a namespace's
// phase, finalizer and name label. Only the metadata (and a namespace's spec and status) is
// copied; the caller's object is left as it was. now is the load's creationTimestamp. It also
// returns what the garbage collector's graph needs of the stored metadata, read from the typed
// object rather than parsed back from the encoding.
func (s *Server) encodeSeed(r *served, obj runtime.Object, rv uint64, uid types.UID, now metav1.Time) ([]byte, gcMeta, error) {
	acc, ok := obj.(metav1.ObjectMetaAccessor)
	var om *metav1.ObjectMeta
	if ok {
		om, ok = acc.GetObjectMeta().(*metav1.ObjectMeta)
	}
	if !ok {
		return nil, gcMeta{}, fmt.Errorf("%T has no ObjectMeta", obj)
	}
	saved := *om
	defer func() { *om = saved }()
	if ns, isNS := obj.(*corev1.Namespace); isNS {
		om.Labels = maps.Clone(om.Labels) // the name label is added to a copy
		spec, status := ns.Spec, ns.Status
		defer func() { ns.Spec, ns.Status = spec, status }()
		if ns.Status.Phase == "" {
			ns.Status.Phase = corev1.NamespaceActive
		}
		if len(ns.Spec.Finalizers) == 0 {
			ns.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
		}
		setNamespaceNameLabel(ns)
	}
	if !r.namespaced {
		om.Namespace = ""
	} else if om.Namespace == "" {
		om.Namespace = metav1.NamespaceDefault
	}
	if om.UID == "" {
		om.UID = uid
	}
	if om.CreationTimestamp.IsZero() {
		om.CreationTimestamp = now
	}
	if r.generation && om.Generation == 0 {
		om.Generation = 1
	}
	om.ResourceVersion = rvString(rv)
	gvk := obj.GetObjectKind().GroupVersionKind()
	defer obj.GetObjectKind().SetGroupVersionKind(gvk)
	b, err := encode(r.resourceType, obj)
	if err != nil {
		return nil, gcMeta{}, err
	}
	return b, gcMetaOfObject(om), nil
}

// gcMetaOfObject is gcMetaOf of a typed object's metadata, as its encoding would read.
func gcMetaOfObject(om *metav1.ObjectMeta) gcMeta {
	gm := gcMeta{namespace: om.Namespace, name: om.Name, uid: om.UID, deleting: om.DeletionTimestamp != nil}
	if len(om.OwnerReferences) > 0 {
		gm.owners = make([]types.UID, len(om.OwnerReferences))
		for i, ref := range om.OwnerReferences {
			gm.owners[i] = ref.UID
		}
	}
	for _, f := range om.Finalizers {
		switch f {
		case metav1.FinalizerDeleteDependents:
			gm.foreground = true
		case metav1.FinalizerOrphanDependents:
			gm.orphan = true
		}
	}
	return gm
}

// servedFor returns the resource of a typed object, from its kind or its Go type.
func (s *Server) servedFor(obj runtime.Object) (*served, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			return nil, fmt.Errorf("unknown kind of %T: %v", obj, err)
		}
		gvk = gvks[0]
	}
	if r := s.byGVK[gvk]; r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("no served resource of kind %s", gvk)
}
