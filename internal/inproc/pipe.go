package inproc

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// pipeLimit is how many unread bytes a stream holds before the handler's writes wait for the
// reader: about what a loopback TCP connection buffers (Linux autotunes its send and receive
// buffers to 4 and 6 MiB at most), so that a handler runs as far ahead of a slow reader as it
// would on a socket. A watch whose client reads late then keeps its events instead of blocking
// and being dropped by the cache for falling behind.
const pipeLimit = 4 << 20

// errBodyClosed is what a read of a closed response body returns, in net/http's words.
var errBodyClosed = errors.New("http: read on closed response body")

// pipe is the body of a streamed response: the handler writes into a buffer, the client reads
// from it. Unlike io.Pipe a write returns before it is read (up to pipeLimit), as a write to a
// socket does.
//
// Concurrency: one writer (the handler) and one reader; Close may be called concurrently with
// Read, and ends the handler's context.
type pipe struct {
	mu   sync.Mutex
	cond sync.Cond // signalled when data, room or an end arrives
	buf  []byte
	off  int
	werr error // the writer's end: io.EOF, or why the stream broke
	rerr error // the reader's end: the body closed or the client's context ended
	// cancel ends the handler's context; stop unregisters the watch of the client's context.
	cancel func()
	stop   func() bool
}

// newPipe returns a stream that starts with buf (which it owns) and ends for the reader when ctx
// ends.
func newPipe(ctx context.Context, buf []byte, cancel func()) *pipe {
	p := &pipe{buf: buf, cancel: cancel}
	p.cond.L = &p.mu
	p.stop = context.AfterFunc(ctx, func() { p.closeRead(context.Cause(ctx)) })
	return p
}

// write appends b for the reader, waiting while the reader is pipeLimit behind.
func (p *pipe) write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.rerr == nil && len(p.buf)-p.off >= pipeLimit {
		p.cond.Wait()
	}
	if p.rerr != nil {
		return 0, errClientGone
	}
	if p.off == len(p.buf) {
		p.buf, p.off = p.buf[:0], 0
	}
	p.buf = append(p.buf, b...)
	p.cond.Broadcast()
	return len(b), nil
}

// writeErr is errClientGone once the reader has gone.
func (p *pipe) writeErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rerr != nil {
		return errClientGone
	}
	return nil
}

// closeWrite ends the stream: the reader gets what was written, then err.
func (p *pipe) closeWrite(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.werr == nil {
		p.werr = err
	}
	p.cond.Broadcast()
}

// closeRead ends the stream for the reader with err, and the handler's context with it.
func (p *pipe) closeRead(err error) {
	p.mu.Lock()
	if p.rerr == nil {
		p.rerr = err
		p.buf, p.off = nil, 0
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	p.cancel()
}

// Read reads what the handler wrote, waiting for it.
func (p *pipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.rerr == nil && p.off == len(p.buf) && p.werr == nil {
		p.cond.Wait()
	}
	if p.rerr != nil {
		return 0, p.rerr
	}
	if p.off < len(p.buf) {
		n := copy(b, p.buf[p.off:])
		p.off += n
		p.cond.Broadcast()
		return n, nil
	}
	return 0, p.werr
}

// Close closes the body: the handler's writes fail and its context ends, as when a client closes
// its connection.
func (p *pipe) Close() error {
	p.stop()
	p.closeRead(errBodyClosed)
	return nil
}

// bufferedBody is the body of an answer the handler completed before it was handed over.
// Close may be called concurrently with Read (a watch's decoder is stopped so).
type bufferedBody struct {
	b      []byte
	off    int
	closed atomic.Bool
}

func (b *bufferedBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errBodyClosed
	}
	if b.off == len(b.b) {
		return 0, io.EOF
	}
	n := copy(p, b.b[b.off:])
	b.off += n
	return n, nil
}

func (b *bufferedBody) Close() error {
	b.closed.Store(true)
	return nil
}
