package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestFrameReader: events are split where each JSON object ends, whatever the whitespace, with
// braces and escaped quotes inside strings ignored, across buffer boundaries; an event cut short is
// io.ErrUnexpectedEOF and anything but an object is refused.
func TestFrameReader(t *testing.T) {
	big := `{"type":"ADDED","object":{"s":"` + strings.Repeat(`x\"}{`, 40_000) + `"}}`
	for _, tc := range []struct {
		name string
		in   string
		want []string
		err  error
	}{
		{"lines", "{\"a\":1}\n{\"b\":[1,{\"c\":2}]}\n", []string{`{"a":1}`, `{"b":[1,{"c":2}]}`}, io.EOF},
		{"no separator", `{"a":"}"}{"b":"\\\\"}`, []string{`{"a":"}"}`, `{"b":"\\\\"}`}, io.EOF},
		{"spaces", " \r\n\t{}\n\n", []string{`{}`}, io.EOF},
		{"escaped quote", `{"a":"\"}"}`, []string{`{"a":"\"}"}`}, io.EOF},
		{"big", big + "\n" + big, []string{big, big}, io.EOF},
		{"cut", `{"a":{"b":1}`, nil, io.ErrUnexpectedEOF},
		{"not an object", `[1]`, nil, errFrame},
		{"empty", ``, nil, io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFrameReader(strings.NewReader(tc.in))
			var got []string
			var err error
			for {
				var ev []byte
				if ev, err = f.next(); err != nil {
					break
				}
				if cap(ev) != len(ev) {
					t.Fatalf("event of %d bytes in a slice of %d", len(ev), cap(ev))
				}
				got = append(got, string(ev))
			}
			if !errors.Is(err, tc.err) || strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %d events (%.80q), err %v; want %d, %v", len(got), got, err, len(tc.want), tc.err)
			}
		})
	}
}

// FuzzFrameReader: on any stream json.Decoder reads as a sequence of objects, the frame reader
// returns the same events, byte for byte.
func FuzzFrameReader(f *testing.F) {
	for _, s := range []string{`{"a":1}{"b":2}`, "{\"a\":\"}\\\"{\"}\n{}", `{"a":[{"b":"]"}]} {"c":null}`, `{"\u007d":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want [][]byte
		dec := json.NewDecoder(bytes.NewReader(in))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if !errors.Is(err, io.EOF) {
					return // not a valid stream: no claim
				}
				break
			}
			if len(raw) == 0 || raw[0] != '{' {
				return
			}
			want = append(want, raw)
		}
		fr := newFrameReader(bytes.NewReader(in))
		for i, w := range want {
			got, err := fr.next()
			if err != nil || !bytes.Equal(got, w) {
				t.Fatalf("event %d: %q, %v; want %q", i, got, err, w)
			}
		}
		if _, err := fr.next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after %d events: %v, want io.EOF", len(want), err)
		}
	})
}
