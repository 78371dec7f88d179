//go:build amd64 && !purego

package selection

import "testing"

// withEachMarker runs f once for each implementation of markChunks this CPU can run.
func withEachMarker(t *testing.T, f func(t *testing.T)) {
	saved := hasAVX2
	defer func() { hasAVX2 = saved }()
	hasAVX2 = false
	t.Run("sse2", f)
	if detectAVX2() {
		hasAVX2 = true
		t.Run("avx2", f)
	}
}

// benchEachMarker runs f once for each implementation of markChunks this CPU can run.
func benchEachMarker(b *testing.B, f func(b *testing.B)) {
	saved := hasAVX2
	defer func() { hasAVX2 = saved }()
	hasAVX2 = false
	b.Run("sse2", f)
	if detectAVX2() {
		hasAVX2 = true
		b.Run("avx2", f)
	}
}
