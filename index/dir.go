package index

import (
	"hash/maphash"
	"math/bits"
)

// dir is an Index's directory of values: a persistent hash trie (HAMT) of buckets keyed by value.
// The directory is only ever searched for one value (no range over values), so it hashes instead
// of comparing: a lookup is a hash of the value, a few 32-way steps and one string comparison,
// where a B-tree of a few thousand node names took a dozen string comparisons (≈4× slower).
//
// Copy-on-write like the key trees: nodes carry the write mark of the dir that may write them in
// place; clone gives both copies new marks, so the first write to a shared node copies it.
type dir[T any] struct {
	root *dirNode[T]
	own  *owner
	hash func(string) uint64
}

// dirNode is one level of the trie: slots for the 5-bit hash chunks present in bitmap, in chunk
// order. Past the last chunk (shift ≥ 64: values whose 64-bit hashes are equal) a node is a list
// of leaves searched by value, and bitmap is unused.
type dirNode[T any] struct {
	bitmap uint32
	own    *owner
	slots  []dirSlot[T]
}

// dirSlot is a sub-trie (node != nil) or a leaf: one value's bucket. The value's hash is not kept
// (8 bytes a value): a lookup compares the value itself, and a split hashes the leaf it moves down.
type dirSlot[T any] struct {
	node *dirNode[T]
	b    bucket[T]
}

const (
	dirBits  = 5
	dirMask  = 1<<dirBits - 1
	hashBits = 64
)

func newDir[T any]() dir[T] {
	seed := maphash.MakeSeed()
	return dir[T]{own: new(owner), hash: func(s string) uint64 { return maphash.String(seed, s) }}
}

// clone returns a copy sharing every node; both d and the copy copy a node before writing it.
func (d *dir[T]) clone() dir[T] {
	d.own = new(owner)
	return dir[T]{root: d.root, own: new(owner), hash: d.hash}
}

// get returns the bucket of value.
func (d *dir[T]) get(value string) (bucket[T], bool) {
	h := d.hash(value)
	n := d.root
	for shift := uint(0); n != nil; shift += dirBits {
		if shift >= hashBits {
			for i := range n.slots {
				if n.slots[i].b.value == value {
					return n.slots[i].b, true
				}
			}
			break
		}
		bit := uint32(1) << (h >> shift & dirMask)
		if n.bitmap&bit == 0 {
			break
		}
		s := &n.slots[bits.OnesCount32(n.bitmap&(bit-1))]
		if s.node != nil {
			n = s.node
			continue
		}
		if s.b.value == value {
			return s.b, true
		}
		break
	}
	return bucket[T]{}, false
}

// put stores b under b.value, replacing the bucket of that value if there is one.
func (d *dir[T]) put(b bucket[T]) {
	d.root = d.putIn(d.root, d.hash(b.value), 0, b)
}

// writable returns n itself if d may write it, otherwise a copy d may write (with room for one
// more slot).
func (d *dir[T]) writable(n *dirNode[T]) *dirNode[T] {
	if n.own == d.own {
		return n
	}
	return &dirNode[T]{bitmap: n.bitmap, own: d.own, slots: append(make([]dirSlot[T], 0, len(n.slots)+1), n.slots...)}
}

func (d *dir[T]) putIn(n *dirNode[T], h uint64, shift uint, b bucket[T]) *dirNode[T] {
	if n == nil {
		n = &dirNode[T]{own: d.own}
	} else {
		n = d.writable(n)
	}
	leaf := dirSlot[T]{b: b}
	if shift >= hashBits {
		for i := range n.slots {
			if n.slots[i].b.value == b.value {
				n.slots[i] = leaf
				return n
			}
		}
		n.slots = append(n.slots, leaf)
		return n
	}
	bit := uint32(1) << (h >> shift & dirMask)
	i := bits.OnesCount32(n.bitmap & (bit - 1))
	if n.bitmap&bit == 0 {
		n.bitmap |= bit
		n.slots = append(n.slots, dirSlot[T]{})
		copy(n.slots[i+1:], n.slots[i:])
		n.slots[i] = leaf
		return n
	}
	s := &n.slots[i]
	switch {
	case s.node != nil:
		s.node = d.putIn(s.node, h, shift+dirBits, b)
	case s.b.value == b.value:
		s.b = b
	default: // another value in this slot: both go one level down
		old := *s
		child := d.putIn(nil, d.hash(old.b.value), shift+dirBits, old.b)
		*s = dirSlot[T]{node: d.putIn(child, h, shift+dirBits, b)}
	}
	return n
}

// remove deletes the bucket of value, which must be present.
func (d *dir[T]) remove(value string) {
	d.root = d.removeIn(d.root, d.hash(value), 0, value)
}

// removeIn deletes value (present) under n and returns n's replacement: nil when n is left empty.
// A sub-trie left with one leaf is pulled up into its parent's slot, so a lookup never walks
// through nodes that hold a single value.
func (d *dir[T]) removeIn(n *dirNode[T], h uint64, shift uint, value string) *dirNode[T] {
	n = d.writable(n)
	var i int
	if shift >= hashBits {
		for i = range n.slots {
			if n.slots[i].b.value == value {
				break
			}
		}
	} else {
		bit := uint32(1) << (h >> shift & dirMask)
		i = bits.OnesCount32(n.bitmap & (bit - 1))
		if s := &n.slots[i]; s.node != nil {
			switch c := d.removeIn(s.node, h, shift+dirBits, value); {
			case c == nil: // the sub-trie is empty: drop its slot below
			case len(c.slots) == 1 && c.slots[0].node == nil:
				*s = c.slots[0]
				return n
			default:
				s.node = c
				return n
			}
		}
		n.bitmap &^= bit
	}
	copy(n.slots[i:], n.slots[i+1:])
	n.slots[len(n.slots)-1] = dirSlot[T]{}
	n.slots = n.slots[:len(n.slots)-1]
	if len(n.slots) == 0 {
		return nil
	}
	return n
}
