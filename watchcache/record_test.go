package watchcache

import (
	"testing"
	"unsafe"
)

// TestRecordSize: a record is one allocation per stored version, so its size is per object. It
// fits the 96 B size class (selection.Object kept whole made it 184 B, in the 192 B class).
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(record{}); n > 96 {
		t.Errorf("a record is %d B, want at most 96", n)
	}
}
