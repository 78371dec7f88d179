package backoff

import (
	"context"
	"testing"
	"time"
)

func TestWaitGrowsAndResets(t *testing.T) {
	b := New(time.Millisecond, 4*time.Millisecond)
	for range 4 {
		if !b.Wait(context.Background()) {
			t.Fatal("Wait returned false with a live context")
		}
	}
	if b.next != 4*time.Millisecond {
		t.Fatalf("next = %v, want the 4ms cap", b.next)
	}
	b.Reset()
	if b.next != time.Millisecond {
		t.Fatalf("after Reset next = %v", b.next)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b = New(time.Hour, time.Hour)
	if b.Wait(ctx) {
		t.Fatal("Wait returned true with a cancelled context")
	}
}
