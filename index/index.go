package index

import (
	"iter"

	"github.com/google/btree"
)

// Degree is the B-tree degree of an index. Index entries are small (two string headers and the
// caller's item); degree 32 is the store's measured optimum (reference/feasibility.md: insert
// 658 ns, page of 500 in 4.2 µs) and path copies after a clone stay a few KiB.
const Degree = 32

// Kind says what an index is keyed on.
type Kind uint8

const (
	// Field indexes the value of a selectable field (a field selector name such as spec.nodeName).
	// Every object has a value; a missing field indexes as "", as it matches in a field selector.
	Field Kind = iota
	// Label indexes the value of one label key. Objects without the label are not in the index,
	// because `k=v` never matches an object that lacks k, even for v == "".
	Label
)

// Spec names an index: a field or a label key.
type Spec struct {
	Kind Kind
	Name string // field name (e.g. "spec.nodeName") or label key (e.g. "app")
}

// String returns "field:<name>" or "label:<key>".
func (s Spec) String() string {
	if s.Kind == Label {
		return "label:" + s.Name
	}
	return "field:" + s.Name
}

// Entry is one (value, key) pair and the item stored with it.
type Entry[T any] struct {
	Value string
	Key   string
	Item  T
}

func less[T any](a, b Entry[T]) bool {
	if a.Value != b.Value {
		return a.Value < b.Value
	}
	return a.Key < b.Key
}

// Index is an ordered set of (value, key) entries.
//
// An Index is not safe for concurrent mutation. Once an Index is only read (a clone handed to
// readers), any number of goroutines may read it concurrently. Items are stored by value and must
// not be mutated by readers.
type Index[T any] struct {
	tree     *btree.BTreeG[Entry[T]]
	distinct int
}

// New returns an empty index.
func New[T any]() *Index[T] {
	return &Index[T]{tree: btree.NewG(Degree, less[T])}
}

// Clone returns a copy-on-write copy of x in O(1). x and the clone may then be used independently;
// a write to either copies only the nodes on its path. Clone must not run concurrently with writes
// to x.
func (x *Index[T]) Clone() *Index[T] {
	return &Index[T]{tree: x.tree.Clone(), distinct: x.distinct}
}

// Len is the number of entries.
func (x *Index[T]) Len() int { return x.tree.Len() }

// Distinct is the number of distinct values, maintained in O(log n) per write. Len/Distinct is the
// average number of keys per value, the planner's selectivity estimate.
func (x *Index[T]) Distinct() int { return x.distinct }

// Insert adds or replaces the entry (value, key).
func (x *Index[T]) Insert(value, key string, item T) {
	fresh := !x.hasValue(value)
	if _, replaced := x.tree.ReplaceOrInsert(Entry[T]{Value: value, Key: key, Item: item}); !replaced && fresh {
		x.distinct++
	}
}

// Delete removes the entry (value, key) and reports whether it was present.
func (x *Index[T]) Delete(value, key string) bool {
	if _, ok := x.tree.Delete(Entry[T]{Value: value, Key: key}); !ok {
		return false
	}
	if !x.hasValue(value) {
		x.distinct--
	}
	return true
}

// hasValue reports whether any entry has the value: O(log n).
func (x *Index[T]) hasValue(value string) bool {
	found := false
	x.tree.AscendGreaterOrEqual(Entry[T]{Value: value}, func(e Entry[T]) bool {
		found = e.Value == value
		return false
	})
	return found
}

// Ascend yields the entries whose value is value and whose key is ≥ fromKey, in key order.
// Cost: O(log n) to find the start, then O(1) per entry.
func (x *Index[T]) Ascend(value, fromKey string) iter.Seq[Entry[T]] {
	return func(yield func(Entry[T]) bool) {
		x.tree.AscendGreaterOrEqual(Entry[T]{Value: value, Key: fromKey}, func(e Entry[T]) bool {
			return e.Value == value && yield(e)
		})
	}
}

// Count returns the number of entries with the value, counting at most max (max ≤ 0: no bound).
// The planner uses a bounded count to compare candidate indexes without paying for large ones.
func (x *Index[T]) Count(value string, max int) int {
	n := 0
	for range x.Ascend(value, "") {
		n++
		if n == max {
			break
		}
	}
	return n
}
