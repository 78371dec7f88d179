package fake

import (
	"bytes"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchcache/watchcache/internal/wire"
)

// VerifyStoredDecodings sets verifyStoredDecodings for the package's tests (TestMain: all but
// benchmarks, whose figures it would change).
func VerifyStoredDecodings(on bool) { verifyStoredDecodings = on }

var configMapType = reflect.TypeFor[*corev1.ConfigMap]()

// TestDecodingMemo pins what the memo returns: the object kept for bytes registered as stored and
// then decoded, for equal bytes (wherever they are) and the caller's type, and nothing else.
func TestDecodingMemo(t *testing.T) {
	m := newDecodingMemo()
	raw := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","resourceVersion":"7"},"data":{"k":"v"}}`)
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "7"}, Data: map[string]string{"k": "v"}}

	m.decoded(raw, obj)
	if _, ok := m.get(raw, configMapType); ok {
		t.Fatal("a decoding of bytes not registered as stored was kept")
	}
	m.stored(raw)
	if _, ok := m.get(raw, configMapType); ok {
		t.Fatal("registered bytes gave an object before one was decoded")
	}
	m.decoded(raw, obj)
	if got, ok := m.get(raw, configMapType); !ok || got != obj {
		t.Fatalf("get = %v, %v; want the decoded object", got, ok)
	}
	if got, ok := m.get(append([]byte(nil), raw...), nil); !ok || got != obj {
		t.Fatal("equal bytes elsewhere: want the decoded object, whose decoding they share")
	}
	if _, ok := m.get(raw, reflect.TypeFor[*corev1.Secret]()); ok {
		t.Fatal("another Go type got the kept object")
	}
	// One byte changed, and one byte fewer: what a key of the slice's address, its length or a
	// prefix would mistake for the kept bytes.
	other := append([]byte(nil), raw...)
	other[len(other)-4] = 'w'
	if _, ok := m.get(other, configMapType); ok {
		t.Fatal("other bytes of the same length got the kept object")
	}
	if _, ok := m.get(raw[:len(raw)-1], configMapType); ok {
		t.Fatal("a prefix of the bytes got the kept object")
	}
	m.decoded(raw, &corev1.ConfigMap{})
	if got, _ := m.get(raw, configMapType); got != obj {
		t.Fatal("a second decoding replaced the first")
	}
	m.stored(raw) // stored again (a no-op write): the entry starts over
	if _, ok := m.get(raw, configMapType); ok {
		t.Fatal("bytes registered again kept their earlier object")
	}
}

// TestStoredDecodingsWrites runs writes, most of whose answers are protobuf, so that each write
// finds its object's decoding kept by the commit of the previous one (the object it encoded, which
// losslessJSON let it keep), with a Store in between that keeps none, and checks each write stored
// what it asked for; every kept decoding is also checked against decodeJSON's and wire.Decode's.
func TestStoredDecodingsWrites(t *testing.T) {
	defer VerifyStoredDecodings(verifyStoredDecodings)
	VerifyStoredDecodings(true)
	s, err := NewHandler(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	do := func(method, path, ct, accept, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	hits := 0
	for i, w := range []struct{ method, path, ct, accept, body string }{
		{"POST", "/api/v1/namespaces/default/configmaps", "application/json", wire.Protobuf.MediaType(), `{"metadata":{"name":"c","annotations":{"a":"<&>\u2028"}},"data":{"k":"0"}}`},
		{"PUT", "/api/v1/namespaces/default/configmaps/c", "application/json", wire.Protobuf.MediaType(), `{"metadata":{"name":"c"},"data":{"k":"1"}}`},
		{"PUT", "/api/v1/namespaces/default/configmaps/c", "application/json", "application/json", `{"metadata":{"name":"c"},"data":{"k":"2"}}`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/c", "application/merge-patch+json", wire.Protobuf.MediaType(), `{"data":{"k":"3"}}`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/c?fieldManager=m&force=true", "application/apply-patch+yaml", wire.Protobuf.MediaType(), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"4"}}`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/c?fieldManager=m&force=true", "application/apply-patch+yaml", wire.Protobuf.MediaType(), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"5"}}`},
		{"STORE", "", "", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","uid":"u"},"Data":{"k":"6"}}`},
		{"PUT", "/api/v1/namespaces/default/configmaps/c", "application/json", wire.Protobuf.MediaType(), `{"metadata":{"name":"c"},"data":{"k":"7"}}`},
		{"PUT", "/api/v1/namespaces/default/configmaps/c", "application/json", wire.Protobuf.MediaType(), `{"metadata":{"name":"c"},"data":{"k":"8"}}`},
	} {
		if w.method == "STORE" {
			// Another spelling of a field, which encoding/json reads and the protobuf answer's
			// decoder does not: its decoding must not be kept.
			if err := s.Store(corev1.SchemeGroupVersion.WithResource("configmaps"), []byte(w.body)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		r := s.res["/v1/configmaps"]
		cur, err := current(contextBackground(), r, "default", "c")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := storedDecodings.get(cur, configMapType); ok {
			hits++
		}
		rec := do(w.method, w.path, w.ct, w.accept, w.body)
		if rec.Code >= 300 {
			t.Fatalf("write %d: %d %s", i, rec.Code, rec.Body)
		}
		stored, err := current(contextBackground(), r, "default", "c")
		if err != nil {
			t.Fatal(err)
		}
		want, err := decodeJSON(r.resourceType, stored)
		if err != nil {
			t.Fatal(err)
		}
		if got := want.(*corev1.ConfigMap).Data["k"]; got != string(rune('0'+i)) {
			t.Fatalf("write %d stored data.k %q", i, got)
		}
		if w.accept == wire.Protobuf.MediaType() {
			// The answer made from the kept object is the one made from the stored JSON.
			pb, err := wire.AppendObject(nil, r.gvk, stored)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rec.Body.Bytes(), pb) {
				t.Fatalf("write %d answered %q, want the stored JSON's protobuf %q", i, rec.Body.Bytes(), pb)
			}
		}
	}
	// Kept by the commit of every write the server encoded, whatever its answer's encoding: before
	// both PUTs after the create, the merge patch, both applies and the last PUT; not after Store.
	if hits != 6 {
		t.Fatalf("%d writes found their object's decoding kept, want 6", hits)
	}
}

// TestDecodingKeptAfterMarshal: a protobuf answer keeps its decoding only after marshalling it.
// Marshalling a Quantity field that decoding left without its string (one beyond int64's digits)
// caches the string in the object, and another write copies a kept decoding: were the object kept
// first, that copy would race the answer's marshalling (go test -race fails it).
func TestDecodingKeptAfterMarshal(t *testing.T) {
	raw := []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"n","resourceVersion":"7"},` +
		`"spec":{"containers":[{"name":"c","image":"i"}],"volumes":[{"name":"v","emptyDir":{"sizeLimit":"123456789012345678901"}}]}}`)
	storedDecodings.stored(raw)
	copied := make(chan *corev1.Pod)
	go func() {
		for {
			if obj, ok := storedDecodings.get(raw, reflect.TypeFor[*corev1.Pod]()); ok {
				copied <- obj.(*corev1.Pod).DeepCopy()
				return
			}
		}
	}()
	if _, err := protobufBody(nil, raw); err != nil {
		t.Fatal(err)
	}
	pod := <-copied
	if got := pod.Spec.Volumes[0].EmptyDir.SizeLimit; got.String() != "123456789012345678901" {
		t.Fatalf("the kept decoding's size limit: %s, want 123456789012345678901", got.String())
	}
}
