package fake

import (
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// stampManagedFieldsOf puts the server's clock (Options.Now) on the managedFields entries a write
// changed: apimachinery's field manager stamps them with time.Now, which a test cannot fix. An
// entry is changed when old (the stored object, decoded; nil for a create) has no entry of its
// manager, operation, subresource and apiVersion, or one with another time. With the default
// clock it does nothing, since the field manager's time is then the server's.
func (s *Server) stampManagedFieldsOf(old, obj runtime.Object) {
	if !s.fixedClock {
		return
	}
	var entries []metav1.ManagedFieldsEntry
	if old != nil {
		if m, err := meta.Accessor(old); err == nil {
			entries = m.GetManagedFields()
		}
	}
	s.stampEntries(entries, obj)
}

// stampEntries sets the clock's time on obj's managedFields entries that are not among old;
// an entry without a time keeps none.
func (s *Server) stampEntries(old []metav1.ManagedFieldsEntry, obj runtime.Object) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	entries := m.GetManagedFields()
	if len(entries) == 0 {
		return
	}
	now := metav1.NewTime(s.opts.Now().Truncate(1e9))
	for i := range entries {
		e := &entries[i]
		if e.Time == nil {
			continue // the field manager leaves some entries without a time (a scale write's)
		}
		kept := false
		for _, o := range old {
			if o.Manager == e.Manager && o.Operation == e.Operation && o.Subresource == e.Subresource &&
				o.APIVersion == e.APIVersion && o.Time != nil && o.Time.Equal(e.Time) {
				kept = true
				break
			}
		}
		if !kept {
			e.Time = &now
		}
	}
	sortManagedFields(entries)
	m.SetManagedFields(entries)
}

// sortManagedFields orders entries as apimachinery's field manager does when it encodes them:
// by operation, then time (in seconds), manager, apiVersion and subresource. Restamped times
// change the order the field manager chose with its own clock, so it is chosen again.
func sortManagedFields(entries []metav1.ManagedFieldsEntry) {
	seconds := func(e metav1.ManagedFieldsEntry) int64 {
		if e.Time == nil {
			return 0
		}
		return e.Time.Unix()
	}
	sort.SliceStable(entries, func(i, j int) bool {
		p, q := entries[i], entries[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		if ps, qs := seconds(p), seconds(q); ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
}
