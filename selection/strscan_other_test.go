//go:build !amd64 || purego

package selection

import "testing"

// withEachMarker runs f with the portable markChunks, the only one.
func withEachMarker(t *testing.T, f func(t *testing.T)) { t.Run("portable", f) }

// benchEachMarker runs f with the portable markChunks, the only one.
func benchEachMarker(b *testing.B, f func(b *testing.B)) { b.Run("portable", f) }
