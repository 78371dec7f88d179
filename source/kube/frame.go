package kube

import (
	"bufio"
	"errors"
	"io"
)

// frameReader splits a watch response into its events: a stream of JSON objects, as the
// apiserver's JSON framer writes them (one per line, but any whitespace between them works). It
// finds where each object ends with one pass over its bytes — strings and escapes tracked, nothing
// else validated, since the cache validates every object it keeps (selection.Schema.Extract) — and
// returns each event in a slice of its own, of exactly its size, because the cache keeps the
// event's object as a sub-slice of it. json.Decoder, which this replaces, scanned each event twice
// (to find its end, then to copy it into a json.RawMessage).
type frameReader struct {
	r       *bufio.Reader
	scratch []byte
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// errFrame: the stream has something other than a JSON object where an event starts.
var errFrame = errors.New("watch stream: an event is not a JSON object")

// next returns the next event, io.EOF at a clean end of the stream, io.ErrUnexpectedEOF when it
// ends inside an event.
func (f *frameReader) next() ([]byte, error) {
	for {
		c, err := f.r.ReadByte()
		if err != nil {
			return nil, err
		}
		if c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			continue
		}
		if c != '{' {
			return nil, errFrame
		}
		break
	}
	out := append(f.scratch[:0], '{')
	depth, inString, escaped := 1, false, false
	for depth > 0 {
		buf, err := f.r.Peek(max(1, f.r.Buffered()))
		if len(buf) == 0 {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			f.scratch = out[:0]
			return nil, err
		}
		i := 0
	scan:
		for ; i < len(buf); i++ {
			c := buf[i]
			switch {
			case escaped:
				escaped = false
			case inString:
				switch c {
				case '\\':
					escaped = true
				case '"':
					inString = false
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth--; depth == 0 {
					i++
					break scan
				}
			}
		}
		out = append(out, buf[:i]...)
		if _, err := f.r.Discard(i); err != nil {
			return nil, err
		}
	}
	f.scratch = out[:0]
	ev := make([]byte, len(out))
	copy(ev, out)
	return ev, nil
}
