package patch

import (
	"bytes"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// An apply prunes what its manager applied last time and no longer applies (merge.Updater's
// prune): with the manager's last field set non-empty it walks the merged object some ten times
// (field sets, removals, and the sets' named parents), half of what a ConfigMap's apply costs.
// A manager that applies again what it applied before (a controller's apply loop, the same
// configuration with other values) prunes nothing, and the walks give back the merged object:
// reapply recognises that case before the apply, and gives the field manager the live object
// with the manager's last field set empty, on which it skips the prune. The set is only read by
// the prune: the apply replaces it with the configuration's set before anything else reads it,
// and the managedFields of the result are encoded from the sets after the apply, not copied
// from the live object.

// reapply is what fieldManager needs to tell a re-apply: the bare field manager's converter, its
// kind, version and subresource, and the fields its strategy resets. Safe for concurrent use.
type reapply struct {
	conv managedfields.TypeConverter
	// converted is conv's; withoutLastSet's conversions go there for the apply after it.
	converted *converted
	// covered is the last set of a recent apply that skipped the prune (shape.go).
	covered     covered
	gvk         schema.GroupVersionKind
	version     fieldpath.APIVersion
	subresource string
	reset       map[fieldpath.APIVersion]fieldpath.Filter
}

// withoutLastSet returns a shallow copy of live whose managedFields entry for manager's apply has
// an empty field set, or false when the prune might remove something or fail, so that skipping
// it could change the answer. It says yes only when
//   - every managedFields entry is of the field manager's version (the prune converts between
//     versions otherwise) and exactly one is manager's apply on this subresource, with a field
//     set (last) that decodes as the field manager decodes it;
//   - cfg, of the field manager's kind, holds no null and no empty object or list anywhere: each
//     field of its set is then one of the merged object's (an empty object or null is a field of
//     the configuration that the merge can fill from the live object);
//   - last reconciles with the schema unchanged, and is a subset of cfg's field set less the
//     reset fields, which is the manager's set after the apply.
//
// Then every field of last, and every field above one, is owned after the apply, so the prune
// removes nothing: it adds back what is owned and what no field of last covers, and returns the
// merged object. Failing conversions say no; the field manager reports them.
//
// made gets the typed values it converted cfg and live to, whatever it answers (nil for those it
// did not convert).
func (r *reapply) withoutLastSet(live, cfg runtime.Object, manager string, made *conversions) (runtime.Object, bool) {
	u, ok := cfg.(*unstructured.Unstructured)
	if !ok || u.GroupVersionKind() != r.gvk || !solid(u.Object) {
		return nil, false
	}
	m, err := meta.Accessor(live)
	if err != nil {
		return nil, false
	}
	entries := m.GetManagedFields()
	at := -1
	for i, e := range entries {
		if e.APIVersion != string(r.version) {
			return nil, false
		}
		if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == r.subresource {
			if at >= 0 {
				return nil, false
			}
			at = i
		}
	}
	if at < 0 || entries[at].FieldsV1 == nil {
		return nil, false
	}
	cfgTyped, err := r.conv.ObjectToTyped(u)
	if err != nil {
		return nil, false
	}
	made.cfg = cfgTyped
	raw := entries[at].FieldsV1.Raw
	buf := shapeBuffers.Get().(*[]byte)
	defer putShapeBuffer(buf)
	shape, shaped := shapeOf((*buf)[:0], u.Object)
	if shaped {
		*buf = shape // a larger buffer, when the shape outgrew the pooled one
	}
	last := (*fieldpath.Set)(nil)
	if shaped {
		last = r.covered.lookup(shape, raw)
	}
	if last == nil {
		set, err := cfgTyped.ToFieldSet()
		if err != nil {
			return nil, false
		}
		if f := r.reset[r.version]; f != nil {
			set = f.Filter(set)
		}
		if last, err = lastSetOf(raw, set); err != nil || last.Empty() || !last.Difference(set).Empty() {
			return nil, false
		}
		if shaped {
			r.covered.remember(shape, raw, last)
		}
	}
	liveTyped, err := r.conv.ObjectToTyped(live, typed.AllowDuplicates)
	if err != nil {
		return nil, false
	}
	made.live = liveTyped
	if reconciled, err := typed.ReconcileFieldSetWithSchema(last, liveTyped); err != nil || reconciled != nil {
		return nil, false
	}
	out, ok := shallowCopy(live)
	if !ok {
		return nil, false
	}
	om, err := meta.Accessor(out)
	if err != nil {
		return nil, false
	}
	blank := append([]metav1.ManagedFieldsEntry(nil), entries...)
	blank[at].FieldsV1 = &emptyFields
	om.SetManagedFields(blank)
	return out, true
}

// emptyFields is the empty field set withoutLastSet gives the manager's entry. It is shared by
// every object withoutLastSet returns and never changed: the field manager only decodes the
// entries of the live object it is given, and copies the object (deep) where it keeps it.
var emptyFields = metav1.FieldsV1{Raw: []byte("{}")}

// shapeBuffers holds the buffers withoutLastSet writes a configuration's shape in (*[]byte). A
// shape is read only while withoutLastSet runs: covered keeps a copy.
var shapeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// maxPooledShape is the largest shape buffer kept for reuse, a create's or an apply's: a shape
// is about as long as its object's JSON, most of which are a few KiB, and a rare large one
// should not stay allocated.
const maxPooledShape = 64 << 10

// putShapeBuffer returns a buffer to shapeBuffers unless it is larger than maxPooledShape.
func putShapeBuffer(bp *[]byte) {
	if cap(*bp) <= maxPooledShape {
		shapeBuffers.Put(bp)
	}
}

// conversions are the typed values withoutLastSet made of the configuration (converted without
// options, as the field manager converts it) and of the live object (with
// typed.AllowDuplicates, as the field manager converts it).
type conversions struct {
	cfg, live *typed.TypedValue
}

// metadataSet is the metadata the field manager takes out of the set it records for an apply
// (its stripMetaManager).
var metadataSet = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// lastSetOf decodes raw, a managedFields entry's field set, as the field manager does. A manager
// that applies again what it applied records the set of its configuration less metadataSet,
// whose encoding is then raw byte for byte: that set is returned, which spares the decoding (a
// 4 KiB buffer per set).
func lastSetOf(raw []byte, applied *fieldpath.Set) (*fieldpath.Set, error) {
	recorded := applied.Difference(metadataSet)
	if b, err := recorded.ToJSON(); err == nil && bytes.Equal(b, raw) {
		return recorded, nil
	}
	last := &fieldpath.Set{}
	if err := last.FromJSON(bytes.NewReader(raw)); err != nil {
		return nil, err
	}
	return last, nil
}

// solid reports whether v, an unstructured value, holds no null and no empty object or list.
func solid(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case map[string]any:
		if len(v) == 0 {
			return false
		}
		for _, e := range v {
			if !solid(e) {
				return false
			}
		}
	case []any:
		if len(v) == 0 {
			return false
		}
		for _, e := range v {
			if !solid(e) {
				return false
			}
		}
	}
	return true
}
