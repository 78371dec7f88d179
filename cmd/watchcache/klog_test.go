package main

import (
	"log/slog"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// TestLogKlogToSwapsWhileLogging: a serve starting (which points klog at its log) while another
// serve's goroutines log through klog is race-free (-race), and klog's records reach the logger
// set last, with the attributes a klog logger added.
func TestLogKlogToSwapsWhileLogging(t *testing.T) {
	var first, last lockedBuffer
	logKlogTo(slog.New(slog.NewTextHandler(&first, nil)))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 2000 {
			klog.InfoS("rediscovering")
		}
	}()
	for swapping := true; swapping; {
		select {
		case <-done:
			swapping = false
		default:
			logKlogTo(slog.New(slog.NewTextHandler(&first, nil)))
		}
	}
	logKlogTo(slog.New(slog.NewTextHandler(&last, nil)))
	klog.Background().WithValues("resource", "pods").Info("synced")
	if got := last.String(); !strings.Contains(got, "msg=synced") || !strings.Contains(got, "resource=pods") {
		t.Errorf("the last logger got %q, want the synced record with its resource", got)
	}
	if strings.Contains(first.String(), "msg=synced") {
		t.Errorf("an earlier logger got a record logged after the swap: %q", first.String())
	}
}
