//go:build amd64 && !purego

package selection

import "testing"

// eachMarker calls run once for each implementation of markChunks this CPU can run, with that
// implementation selected.
func eachMarker(run func(name string)) {
	saved := hasAVX2
	defer func() { hasAVX2 = saved }()
	hasAVX2 = false
	run("sse2")
	if detectAVX2() {
		hasAVX2 = true
		run("avx2")
	}
}

// withEachMarker runs f once for each implementation of markChunks this CPU can run.
func withEachMarker(t *testing.T, f func(t *testing.T)) {
	eachMarker(func(name string) { t.Run(name, f) })
}

// benchEachMarker runs f once for each implementation of markChunks this CPU can run.
func benchEachMarker(b *testing.B, f func(b *testing.B)) {
	eachMarker(func(name string) { b.Run(name, f) })
}
