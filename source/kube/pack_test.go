package kube

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"unsafe"

	"github.com/watchcache/watchcache/watchcache"
)

// TestPacker: objects keep their bytes, have no spare capacity, follow one another in a block, and
// a large object gets an allocation of its own.
func TestPacker(t *testing.T) {
	var p packer
	a := p.copy([]byte(`{"a":1}`))
	b := p.copy([]byte(`{"b":22}`))
	big := p.copy(bytes.Repeat([]byte("x"), packMax+1))
	c := p.copy([]byte(`{}`))
	if string(a) != `{"a":1}` || string(b) != `{"b":22}` || string(c) != `{}` || len(big) != packMax+1 {
		t.Fatalf("copies %q %q %q (%d)", a, b, c, len(big))
	}
	for _, s := range [][]byte{a, b, big, c} {
		if cap(s) != len(s) {
			t.Errorf("cap %d, len %d", cap(s), len(s))
		}
	}
	if !follows(a, b) || !follows(b, c) {
		t.Error("small objects are not packed one after the other")
	}
	if follows(b, big) || follows(big, c) {
		t.Error("a large object was packed")
	}
	_ = append(a, '!') // must not write into b
	if string(b) != `{"b":22}` {
		t.Errorf("an append to one object wrote into the next: %q", b)
	}
	for range packBlock / 1000 {
		c = p.copy(make([]byte, 1000))
	}
	if d := p.copy(make([]byte, 1000)); follows(c, d) && len(p.block) > packBlock {
		t.Error("a block grew past its size")
	}
}

// follows reports whether b starts where a ends.
func follows(a, b []byte) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(a)))+uintptr(len(a)) == uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

// TestPackLists: with PackLists, the objects of a paged list and of a watch-list's initial events
// (with and without a Transform) are stored byte for byte as listed, one after the other in shared
// blocks; without it, each has an allocation of its own.
func TestPackLists(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		contigMin float64 // of the stored objects, the share that start where another ends
		contigMax float64
	}{
		{"paged list", Options{PageSize: 40, PackLists: true}, 0.9, 1},
		{"watch-list", Options{WatchList: true, PackLists: true}, 0.9, 1},
		{"watch-list, transform", Options{WatchList: true, PackLists: true, Transform: watchcache.StripManagedFields}, 0.9, 1},
		{"paged list, not packed", Options{PageSize: 40}, 0, 0.1},
		{"watch-list, not packed", Options{WatchList: true}, 0, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newUpstream(t, 300, watchcache.Options{Transform: tt.opts.Transform})
			_, client := serve(t, a.cache)
			_, b := newDownstream(t, client, tt.opts)
			assertSame(t, a.cache, b)
			rb, err := b.List(context.Background(), watchcache.ListOptions{ResourceVersion: "0"})
			if err != nil {
				t.Fatal(err)
			}
			items := slices.Clone(rb.Items)
			slices.SortFunc(items, func(x, y []byte) int {
				return int(uintptr(unsafe.Pointer(unsafe.SliceData(x))) - uintptr(unsafe.Pointer(unsafe.SliceData(y))))
			})
			contig := 0
			for i := 1; i < len(items); i++ {
				if follows(items[i-1], items[i]) {
					contig++
				}
			}
			share := float64(contig) / float64(len(items))
			if share < tt.contigMin || share > tt.contigMax {
				t.Errorf("%.2f of the objects follow another in memory, want %.2f–%.2f", share, tt.contigMin, tt.contigMax)
			}
		})
	}
}
