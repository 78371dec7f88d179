package inproc

import (
	"net/http"
	"strconv"
	"testing"
)

// TestStatusLine checks the made-once Status of every code against the one made per response.
func TestStatusLine(t *testing.T) {
	for code := 100; code <= 999; code++ {
		if got, want := statusLine(code), strconv.Itoa(code)+" "+statusText(code); got != want {
			t.Fatalf("statusLine(%d) = %q, want %q", code, got, want)
		}
	}
}

// TestAddedValues checks that the values response adds in the spare room of the sent headers'
// array are each the header's own: appending to one changes no other.
func TestAddedValues(t *testing.T) {
	w := &responseWriter{header: http.Header{"X": {"x"}}}
	w.sent, w.spare = cloneHeader(w.header)
	if len(w.spare) != addedHeaders {
		t.Fatalf("spare room for %d values, want %d", len(w.spare), addedHeaders)
	}
	h := w.sent
	h["Date"], h["Content-Length"], h["Content-Type"] = w.value("d"), w.value("1"), w.value("t")
	h["Extra"] = w.value("e") // beyond the room: a new array
	for _, k := range []string{"X", "Date", "Content-Length", "Content-Type", "Extra"} {
		h[k] = append(h[k], "appended")
	}
	want := map[string]string{"X": "x", "Date": "d", "Content-Length": "1", "Content-Type": "t", "Extra": "e"}
	for k, v := range want {
		if got := h[k]; len(got) != 2 || got[0] != v || got[1] != "appended" {
			t.Errorf("%s = %q, want [%s appended]", k, got, v)
		}
	}
	if w.header["X"][0] != "x" || len(w.header["X"]) != 1 {
		t.Errorf("the handler's header changed: %q", w.header["X"])
	}
}
