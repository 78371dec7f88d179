package index

import "iter"

// Entry, Ascend and Count read an index as (value, key, item) entries, for the tests: the cache
// reads through Lookup and Keys.

// Entry is one (value, key) pair and the item stored with it.
type Entry[T any] struct {
	Value string
	Key   string
	Item  T
}

// Ascend yields the entries whose value is value and whose key is ≥ fromKey, in key order.
// Cost: a seek in the directory and one in the value's keys, then O(1) per entry.
func (x *Index[T]) Ascend(value, fromKey string) iter.Seq[Entry[T]] {
	return func(yield func(Entry[T]) bool) {
		x.Lookup(value).Ascend(fromKey, func(key string, item T) bool {
			return yield(Entry[T]{Value: value, Key: key, Item: item})
		})
	}
}

// Count returns the number of entries with the value, at most max when max > 0. It costs one
// directory seek, whatever the count.
func (x *Index[T]) Count(value string, max int) int {
	n := x.Lookup(value).Len()
	if max > 0 && n > max {
		return max
	}
	return n
}
