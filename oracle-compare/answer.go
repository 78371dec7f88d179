package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// protobuf is the media type of client-go's typed clients (and kubectl's, for built-in kinds).
const protobuf = "application/vnd.kubernetes.protobuf"

// server is one side of the comparison.
type server struct {
	name, base, token string
	client            *http.Client
	// body is reused for every answer's bytes, so the time measured to the last byte does not
	// include growing a fresh buffer (io.ReadAll) and collecting it — the client's cost, not the
	// server's, and at ~1 ms per page of 500 as large as our server's own time.
	body []byte
}

// answer is what a list request got, reduced to what is compared.
type answer struct {
	Code       int           `json:"code"`
	RetryAfter string        `json:"retryAfter,omitempty"`
	Took       time.Duration `json:"took"`
	Bytes      int           `json:"bytes"`
	// ContentType is the answer's Content-Type header.
	ContentType string `json:"contentType,omitempty"`
	Err         string `json:"err,omitempty"` // transport error

	// A list.
	Kind      string   `json:"kind,omitempty"`
	RV        string   `json:"rv,omitempty"`
	Continue  string   `json:"continue,omitempty"`
	Remaining *int64   `json:"remaining,omitempty"`
	Items     []string `json:"items,omitempty"` // namespace/name (or name), in order
	ItemRVs   []string `json:"-"`
	// ItemsWithKind counts items that carry kind and apiVersion (the apiserver's list items don't).
	ItemsWithKind int `json:"itemsWithKind,omitempty"`
	// Body is the answer's bytes, compared byte for byte once everything above agrees.
	Body []byte `json:"-"`

	// A Status.
	Reason     string   `json:"reason,omitempty"`
	Message    string   `json:"message,omitempty"`
	Causes     []string `json:"causes,omitempty"`
	RetrySecs  int      `json:"retryAfterSeconds,omitempty"`
	StatusCont string   `json:"statusContinue,omitempty"`
}

type wireList struct {
	Kind     string `json:"kind"`
	Metadata struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Metadata   struct {
			Namespace       string `json:"namespace"`
			Name            string `json:"name"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	} `json:"items"`
	// Status fields.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Details *struct {
		Causes []struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"causes"`
		RetryAfterSeconds int `json:"retryAfterSeconds"`
	} `json:"details"`
}

// readBody reads r to EOF into s.body (grown as needed, kept for the next answer).
func (s *server) readBody(r io.Reader) ([]byte, error) {
	if s.body == nil {
		s.body = make([]byte, 0, 4<<20)
	}
	b := s.body[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			s.body = b
			return b, nil
		}
		if err != nil {
			s.body = b
			return b, err
		}
	}
}

// get sends GET base+path asking for JSON and reduces the answer.
func (s *server) get(path string) answer {
	return s.getAs(path, "")
}

// getAs sends GET base+path with Accept: accept (JSON when empty) and reduces the answer.
func (s *server) getAs(path, accept string) answer {
	return s.send(http.MethodGet, path, accept, "", nil)
}

func (s *server) do(method, path, contentType string, body []byte) answer {
	return s.send(method, path, "", contentType, body)
}

func (s *server) send(method, path, accept, contentType string, body []byte) answer {
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return answer{Err: err.Error()}
	}
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return answer{Err: err.Error(), Took: time.Since(start)}
	}
	data, err := s.readBody(resp.Body)
	resp.Body.Close()
	a := answer{Code: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After"), Took: time.Since(start), Bytes: len(data),
		ContentType: resp.Header.Get("Content-Type")}
	if err != nil {
		a.Err = err.Error()
		return a
	}
	a.Body = bytes.Clone(data) // data is the reused buffer
	if a.Code == http.StatusOK && isWatch(path) {
		a.Kind = "watch"
		a.Items = watchEvents(a.Body, a.ContentType)
		return a
	}
	if strings.HasPrefix(a.ContentType, protobuf) {
		// The reduction reads JSON: decode the protobuf as client-go does and re-encode it; the
		// bodies are still compared as sent.
		if data, err = protobufToJSON(a.Body); err != nil {
			a.Err = "decode protobuf: " + err.Error()
			return a
		}
	}
	var w wireList
	if err := json.Unmarshal(data, &w); err != nil {
		a.Err = "decode: " + err.Error() + ": " + truncate(string(data), 200)
		return a
	}
	a.Kind = w.Kind
	if w.Kind == "Status" {
		a.Reason, a.Message, a.StatusCont = w.Reason, w.Message, w.Metadata.Continue
		if w.Details != nil {
			a.RetrySecs = w.Details.RetryAfterSeconds
			for _, c := range w.Details.Causes {
				a.Causes = append(a.Causes, c.Reason+"/"+c.Field+": "+c.Message)
			}
		}
		return a
	}
	a.RV, a.Continue, a.Remaining = w.Metadata.ResourceVersion, w.Metadata.Continue, w.Metadata.RemainingItemCount
	a.Items = make([]string, 0, len(w.Items))
	for _, it := range w.Items {
		n := it.Metadata.Name
		if it.Metadata.Namespace != "" {
			n = it.Metadata.Namespace + "/" + n
		}
		a.Items = append(a.Items, n)
		a.ItemRVs = append(a.ItemRVs, it.Metadata.ResourceVersion)
		if it.Kind != "" || it.APIVersion != "" {
			a.ItemsWithKind++
		}
	}
	return a
}

// isWatch reports whether the request is a watch (its answer a stream of events).
func isWatch(path string) bool {
	_, q, _ := strings.Cut(path, "?")
	for kv := range strings.SplitSeq(q, "&") {
		if kv == "watch=1" || kv == "watch=true" {
			return true
		}
	}
	return false
}

// watchEvents lists a JSON watch stream's events as "TYPE namespace/name" (a protobuf stream as
// its byte count only: the bodies are compared as sent either way).
func watchEvents(b []byte, contentType string) []string {
	if strings.HasPrefix(contentType, protobuf) {
		return nil
	}
	var out []string
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Kind     string `json:"kind"`
				Reason   string `json:"reason"`
				Metadata struct {
					Namespace, Name string
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			if err != io.EOF {
				out = append(out, "undecodable: "+err.Error())
			}
			return out
		}
		n := ev.Object.Metadata.Name
		if ev.Object.Metadata.Namespace != "" {
			n = ev.Object.Metadata.Namespace + "/" + n
		}
		if ev.Object.Kind == "Status" {
			n = "Status " + ev.Object.Reason
		}
		out = append(out, ev.Type+" "+n)
	}
}

// protobufToJSON decodes a protobuf body into its k8s.io/api type and encodes that as JSON, with
// the kind the envelope names.
func protobufToJSON(b []byte) ([]byte, error) {
	obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(b, nil, nil)
	if err != nil {
		return nil, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u["kind"], u["apiVersion"] = gvk.Kind, gvk.GroupVersion().String()
	return json.Marshal(u)
}

// token is a decoded continue token (rule 2.1).
type token struct {
	V     string `json:"v"`
	RV    int64  `json:"rv"`
	Start string `json:"start"`
}

func decodeToken(s string) (token, error) {
	var t token
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return t, err
	}
	err = json.Unmarshal(b, &t)
	return t, err
}

func encodeToken(t token) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (t token) String() string {
	return fmt.Sprintf("{rv:%d start:%s}", t.RV, strings.ReplaceAll(fmt.Sprintf("%q", t.Start), `\x00`, `\0`))
}

func showToken(s string) string {
	if s == "" {
		return "none"
	}
	t, err := decodeToken(s)
	if err != nil {
		return "undecodable " + truncate(s, 20)
	}
	return t.String()
}

// summary is one table cell for an answer.
func (a answer) summary() string {
	if a.Err != "" {
		return "error: " + truncate(a.Err, 120)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", a.Code)
	if a.Kind == "Status" {
		fmt.Fprintf(&b, " %s %q", a.Reason, truncate(a.Message, 160))
		if len(a.Causes) > 0 {
			fmt.Fprintf(&b, " causes %s", strings.Join(a.Causes, "; "))
		}
		if a.RetrySecs > 0 || a.RetryAfter != "" {
			fmt.Fprintf(&b, " retryAfterSeconds=%d Retry-After=%q", a.RetrySecs, a.RetryAfter)
		}
		if a.StatusCont != "" {
			fmt.Fprintf(&b, " continue %s", showToken(a.StatusCont))
		}
		if a.Took > time.Second {
			fmt.Fprintf(&b, " after %.1fs", a.Took.Seconds())
		}
		return b.String()
	}
	if a.Kind == "watch" {
		fmt.Fprintf(&b, " watch, %d bytes, %d events", a.Bytes, len(a.Items))
		if n := len(a.Items); n > 0 {
			fmt.Fprintf(&b, ": %s … %s", a.Items[0], a.Items[n-1])
		}
		return b.String()
	}
	fmt.Fprintf(&b, " %s rv=%s, %d items", a.Kind, a.RV, len(a.Items))
	switch n := len(a.Items); {
	case n == 0:
	case n <= 3:
		fmt.Fprintf(&b, " %s", strings.Join(a.Items, " "))
	default:
		fmt.Fprintf(&b, " %s … %s", a.Items[0], a.Items[n-1])
	}
	if a.Continue != "" {
		fmt.Fprintf(&b, ", continue %s", showToken(a.Continue))
	}
	if a.Remaining != nil {
		fmt.Fprintf(&b, ", remaining %d", *a.Remaining)
	}
	return b.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
