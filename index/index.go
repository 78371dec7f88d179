package index

import (
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/google/btree"
)

// degree is the B-tree degree of the key trees of values with more than maxSmall keys. Every write
// after a snapshot clone copies the nodes on its path, so the node size sets the cost of a write,
// and the depth the cost of a seek.
//
// Memory per entry (pointer items, 100k entries, the key strings not counted): ≈42 B when values
// have ≈20 keys each (node names, in slices), ≈53 B with 1,000 (B-trees), ≈53 B with four, ≈93 B
// with two, ≈103 B for a unique value per key. One B-tree of every (value, key) entry instead of
// a directory of values is 20–25% slower to seek and to write (watchcache BenchmarkIndexedPage,
// BenchmarkApply).
const degree = 16

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

// Index is a set of (value, key) entries in two levels: a directory of the distinct values (a
// hash trie, see dir), each with its keys — inline when there is one (a unique field such as a pod
// IP costs one directory entry per object), in a sorted slice up to maxSmall, otherwise in a
// B-tree of (key, item) of its own, ordered by key. A lookup finds the value in the directory —
// one hash and a few steps, where one B-tree of every entry would be a cold 4 MiB seek for 100k
// objects — and then ranges over that value's keys from any key. Entries do not repeat the value
// (24 bytes for a pointer item), which makes the copies of a write smaller too.
//
// An Index is not safe for concurrent mutation. Once an Index is only read (a clone handed to
// readers), any number of goroutines may read it concurrently. Items are stored by value and must
// not be mutated by readers.
type Index[T any] struct {
	dir    dir[T]
	n      int
	values int // distinct values
	// own marks the key trees this Index may write in place; a tree with another mark is shared
	// with a clone, and is cloned (O(1)) before the first write.
	own *owner
	// free is the key trees' node free list: one for the whole index (btree.NewG would give
	// every value's tree a 32-slot list of its own). Size 0: it only satisfies the API.
	free *btree.FreeListG[KeyItem[T]]
	// arena holds the directory's values back to back (see copyValue).
	arena []byte
}

// owner is a write mark; it has a size so that distinct marks have distinct addresses.
type owner struct{ _ byte }

// bucket is one value of the directory and its keys: one (one != nil), or a tree of two or more
// (keys != nil). It is kept at 32 bytes: a larger directory entry measurably slows every seek.
type bucket[T any] struct {
	value string
	keys  *keyTree[T]
	one   *KeyItem[T] // immutable: shared with clones
}

// keyTree is the keys of one value that has several: up to maxSmall in a sorted slice (small), more
// in a B-tree (t, when small is nil) — a B-tree for a handful of keys costs ≈100 bytes a key — and
// the write mark of the Index that may write it in place.
type keyTree[T any] struct {
	small []KeyItem[T]
	t     btree.BTreeG[KeyItem[T]]
	own   *owner
}

// maxSmall is the most keys a keyTree keeps in a slice; it turns back into one at maxSmall/2. A
// write copies a shared slice whole, as it copies a B-tree's node, and up to 32 keys a slice is
// as cheap to write and cheaper to range over: at 32 instead of 8 (node names have ≈20 pods each)
// watchcache's BenchmarkApply takes ≈15.0 µs against ≈15.5, BenchmarkIndexedPageCold ≈2.8 against ≈3.5.
const maxSmall = 32

// len is the number of keys.
func (kt *keyTree[T]) len() int {
	if kt.small != nil {
		return len(kt.small)
	}
	return kt.t.Len()
}

// find returns the position of the first key ≥ key in small, and whether it is key.
func (kt *keyTree[T]) find(key string) (int, bool) {
	if len(kt.small) > 0 && key < kt.small[0].Key {
		return 0, false // a first page (key "") or a range starting before the value's keys
	}
	i := sort.Search(len(kt.small), func(i int) bool { return kt.small[i].Key >= key })
	return i, i < len(kt.small) && kt.small[i].Key == key
}

// has reports whether key is one of the keys.
func (kt *keyTree[T]) has(key string) bool {
	if kt.small != nil {
		_, ok := kt.find(key)
		return ok
	}
	return kt.t.Has(KeyItem[T]{Key: key})
}

// put adds or replaces e (kt must be writable) and reports whether it replaced a key.
func (kt *keyTree[T]) put(e KeyItem[T], free *btree.FreeListG[KeyItem[T]]) bool {
	if kt.small == nil {
		_, replaced := kt.t.ReplaceOrInsert(e)
		return replaced
	}
	i, ok := kt.find(e.Key)
	switch {
	case ok:
		kt.small[i] = e
		return true
	case len(kt.small) < maxSmall:
		kt.small = slices.Insert(kt.small, i, e)
		return false
	}
	kt.t = *btree.NewWithFreeListG(degree, keyItemLess[T], free)
	for _, k := range kt.small {
		kt.t.ReplaceOrInsert(k)
	}
	kt.small = nil
	kt.t.ReplaceOrInsert(e)
	return false
}

// remove deletes key, present (kt must be writable).
func (kt *keyTree[T]) remove(key string) {
	if kt.small != nil {
		i, _ := kt.find(key)
		kt.small = slices.Delete(kt.small, i, i+1)
		return
	}
	kt.t.Delete(KeyItem[T]{Key: key})
	if kt.t.Len() <= maxSmall/2 {
		kt.small = make([]KeyItem[T], 0, maxSmall)
		kt.t.Ascend(func(e KeyItem[T]) bool {
			kt.small = append(kt.small, e)
			return true
		})
		kt.t = btree.BTreeG[KeyItem[T]]{}
	}
}

// KeyItem is one key of a value and the item stored with it.
type KeyItem[T any] struct {
	Key  string
	Item T
}

func keyItemLess[T any](a, b KeyItem[T]) bool { return a.Key < b.Key }

// New returns an empty index.
func New[T any]() *Index[T] {
	return &Index[T]{dir: newDir[T](), own: new(owner), free: btree.NewFreeListG[KeyItem[T]](0)}
}

// Clone returns a copy-on-write copy of x in O(1). x and the clone may then be used independently;
// a write to either copies only the nodes on its path. Clone must not run concurrently with writes
// to x (it changes x's write marks).
func (x *Index[T]) Clone() *Index[T] {
	out := &Index[T]{dir: x.dir.clone(), n: x.n, values: x.values, own: new(owner), free: x.free}
	x.own = new(owner) // every key tree is now shared with the clone
	return out
}

// Len is the number of entries.
func (x *Index[T]) Len() int { return x.n }

// Values is the number of distinct values.
func (x *Index[T]) Values() int { return x.values }

// Insert adds or replaces the entry (value, key).
func (x *Index[T]) Insert(value, key string, item T) {
	e := KeyItem[T]{Key: key, Item: item}
	b, ok := x.dir.get(value)
	switch {
	case !ok:
		x.dir.put(bucket[T]{value: x.copyValue(value), one: &KeyItem[T]{Key: key, Item: item}})
		x.n++
		x.values++
	case b.one != nil && b.one.Key == key:
		b.one = &KeyItem[T]{Key: key, Item: item}
		x.dir.put(b)
	case b.one != nil: // a second key: the value gets a keyTree
		kt := &keyTree[T]{small: make([]KeyItem[T], 1, 2), own: x.own}
		kt.small[0] = *b.one
		kt.put(e, x.free)
		b.keys, b.one = kt, nil
		x.dir.put(b)
		x.n++
	default:
		if !x.writable(b).put(e, x.free) {
			x.n++
		}
	}
}

// Delete removes the entry (value, key) and reports whether it was present.
func (x *Index[T]) Delete(value, key string) bool {
	b, ok := x.dir.get(value)
	switch {
	case !ok:
		return false
	case b.one != nil:
		if b.one.Key != key {
			return false
		}
		x.dir.remove(b.value)
		x.values--
	case !b.keys.has(key):
		return false
	default:
		kt := x.writable(b)
		kt.remove(key)
		if kt.len() == 1 { // back to one key, inline
			last := kt.small[0]
			b.keys, b.one = nil, &last
			x.dir.put(b)
		}
	}
	x.n--
	return true
}

// writable returns b's key tree in a form this Index may write: the tree itself when x owns it,
// otherwise an O(1) clone of the shared tree, stored in x's directory.
func (x *Index[T]) writable(b bucket[T]) *keyTree[T] {
	if b.keys.own == x.own {
		return b.keys
	}
	// Clone writes to the header it is called on: clone a copy of the shared header, never the
	// header a published clone holds.
	kt := &keyTree[T]{own: x.own}
	if b.keys.small != nil {
		kt.small = append(make([]KeyItem[T], 0, len(b.keys.small)+1), b.keys.small...) // room for one insert
	} else {
		shared := b.keys.t
		kt.t = *shared.Clone()
	}
	b.keys = kt
	x.dir.put(b)
	return kt
}

// arenaChunk is the size of the value arena's chunks; values longer than a quarter of it get an
// allocation of their own. A chunk lives as long as one of its values is in the directory.
const arenaChunk = 16 << 10

// copyValue returns a copy of v that aliases nothing of the caller's (a value may be a view of an
// object's JSON, which the directory would otherwise keep alive). Short values are copied back to
// back into chunks, so the values a directory seek compares sit in a few dense cache lines.
func (x *Index[T]) copyValue(v string) string {
	switch {
	case v == "":
		return ""
	case len(v) > arenaChunk/4:
		return strings.Clone(v)
	case cap(x.arena)-len(x.arena) < len(v):
		x.arena = make([]byte, 0, arenaChunk)
	}
	start := len(x.arena)
	x.arena = append(x.arena, v...)
	return unsafe.String(&x.arena[start], len(v))
}

// Keys is one value's keys as found by Lookup: a handle on the Index's content at that time,
// valid while the Index is not written (a clone handed to readers never is).
type Keys[T any] struct {
	b bucket[T]
}

// Lookup finds value in the directory once; the result counts and ranges its keys without looking
// again, and without an Entry per key (the hot path: Ascend is the convenient one).
func (x *Index[T]) Lookup(value string) Keys[T] {
	b, _ := x.dir.get(value)
	return Keys[T]{b}
}

// Value is the value as the directory holds it (its own copy), or "" when the value has no keys.
func (k Keys[T]) Value() string { return k.b.value }

// Len is the number of keys: O(1).
func (k Keys[T]) Len() int {
	switch {
	case k.b.one != nil:
		return 1
	case k.b.keys != nil:
		return k.b.keys.len()
	}
	return 0
}

// MaxSlice is the most keys a value keeps in a slice (Slice): more are in a B-tree, which turns
// back into a slice when the value shrinks to MaxSlice/2.
const MaxSlice = maxSmall

// Slice returns the keys ≥ fromKey with their items, in key order, when the value holds at most
// MaxSlice keys (a slice, or one inline), for a caller that loops without a call per key; ok is
// false when they are in a B-tree (use Ascend). The slice is the Index's: read it only.
func (k Keys[T]) Slice(fromKey string) (keys []KeyItem[T], ok bool) {
	switch b := k.b; {
	case b.one != nil:
		if b.one.Key < fromKey {
			return nil, true
		}
		return unsafe.Slice(b.one, 1), true
	case b.keys == nil:
		return nil, true
	case b.keys.small != nil:
		i, _ := b.keys.find(fromKey)
		return b.keys.small[i:], true
	}
	return nil, false
}

// Ascend calls yield with each key ≥ fromKey and its item, in key order, until yield returns false.
func (k Keys[T]) Ascend(fromKey string, yield func(key string, item T) bool) {
	switch b := k.b; {
	case b.one != nil:
		if b.one.Key >= fromKey {
			yield(b.one.Key, b.one.Item)
		}
	case b.keys == nil:
	case b.keys.small != nil:
		i, _ := b.keys.find(fromKey)
		for _, e := range b.keys.small[i:] {
			if !yield(e.Key, e.Item) {
				return
			}
		}
	default:
		b.keys.t.AscendGreaterOrEqual(KeyItem[T]{Key: fromKey}, func(e KeyItem[T]) bool {
			return yield(e.Key, e.Item)
		})
	}
}
