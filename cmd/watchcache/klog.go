package main

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"k8s.io/klog/v2"
)

// klog's logger is one per process, but a process (a test binary) may run several serves, each
// with its own log: klog gets one forwarding handler, once, and each serve swaps the logger it
// forwards to atomically, so setting it never races with a running serve's klog calls.
var (
	klogOnce   sync.Once
	klogTarget atomic.Pointer[slog.Logger]
)

// logKlogTo sends klog's output (k8s.io/apiserver's authenticators, client-go) to log.
func logKlogTo(log *slog.Logger) {
	klogTarget.Store(log)
	klogOnce.Do(func() { klog.SetSlogLogger(slog.New(forwardHandler{})) })
}

// forwardHandler hands each record to the handler of the logger klogTarget holds when the
// record is logged, with the attributes and groups added to it meanwhile.
type forwardHandler struct {
	ops []func(slog.Handler) slog.Handler
}

func (f forwardHandler) target() slog.Handler {
	h := klogTarget.Load().Handler()
	for _, op := range f.ops {
		h = op(h)
	}
	return h
}

// Enabled implements slog.Handler.
func (f forwardHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return klogTarget.Load().Handler().Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (f forwardHandler) Handle(ctx context.Context, r slog.Record) error {
	return f.target().Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (f forwardHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return f.with(func(h slog.Handler) slog.Handler { return h.WithAttrs(attrs) })
}

// WithGroup implements slog.Handler.
func (f forwardHandler) WithGroup(name string) slog.Handler {
	return f.with(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

func (f forwardHandler) with(op func(slog.Handler) slog.Handler) forwardHandler {
	return forwardHandler{ops: append(f.ops[:len(f.ops):len(f.ops)], op)}
}
