package kubeapi

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/watchcache/watchcache/selection"
	"github.com/watchcache/watchcache/watchcache"
)

// TestAnyVersion: one cache of a custom resource's stored objects — written at two versions —
// registered in both versions serves each object with the apiVersion of the request's version
// (gets, list items, watch events, Tables with the object), as the apiserver serves a CRD's
// versions with conversion None; each version checks its own field selectors; /readyz lists the
// resource once.
func TestAnyVersion(t *testing.T) {
	schema, err := selection.CustomResourceSchema(true).WithField("spec.color", "spec.color")
	if err != nil {
		t.Fatal(err)
	}
	c := watchcache.New(watchcache.Options{Resource: watchcache.Resource{Name: "widgets", Group: "example.com", Namespaced: true}, Schema: schema})
	defer c.Stop()
	if err := c.Replace([][]byte{
		[]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"ns","resourceVersion":"5"},"spec":{"color":"red"}}`),
		[]byte(`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w2","namespace":"ns","resourceVersion":"6"},"spec":{"color":"blue"}}`),
	}, 6); err != nil {
		t.Fatal(err)
	}
	s := NewServer(Options{})
	for _, v := range []string{"v1", "v1beta1"} {
		info := ResourceInfo{Group: "example.com", Version: v, Resource: "widgets", Kind: "Widget", Namespaced: true, Unstructured: true, AnyVersion: true}
		if v == "v1beta1" {
			info.FieldSchema = selection.CustomResourceSchema(true) // v1beta1 has no selectableFields
		}
		if err := s.Register(info, c); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	send := func(path, accept string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", hs.URL+path, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if strings.Contains(path, "watch=") {
			line, _ := bufio.NewReader(resp.Body).ReadString('\n')
			return resp.StatusCode, line
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	for _, tc := range []struct {
		path, accept string
		code         int
		has, hasNot  []string
	}{
		{"/apis/example.com/v1beta1/namespaces/ns/widgets/w1", "", 200, []string{`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w1"`}, nil},
		{"/apis/example.com/v1/namespaces/ns/widgets/w2", "", 200, []string{`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w2"`}, nil},
		{"/apis/example.com/v1beta1/namespaces/ns/widgets", "", 200,
			[]string{`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w1"`, `{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w2"`}, []string{`"example.com/v1"`}},
		{"/apis/example.com/v1/namespaces/ns/widgets", "", 200, []string{`"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w2"`}, []string{`example.com/v1beta1`}},
		{"/apis/example.com/v1beta1/namespaces/ns/widgets?watch=1&resourceVersion=0", "", 200, []string{`"object":{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w1"`}, nil},
		{"/apis/example.com/v1beta1/namespaces/ns/widgets?includeObject=Object", table, 200, []string{`"object":{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w1"`}, []string{`"example.com/v1"`}},
		{"/apis/example.com/v1/widgets?fieldSelector=spec.color%3Dblue", "", 200, []string{`"name":"w2"`}, []string{`"name":"w1"`}},
		{"/apis/example.com/v1beta1/widgets?fieldSelector=spec.color%3Dblue", "", 400, []string{`"message":"field label not supported: spec.color","reason":"BadRequest","code":400`}, nil},
		{"/readyz?verbose", "", 200, []string{"[+]resource/widgets.example.com ok\n"}, nil},
	} {
		code, body := send(tc.path, tc.accept)
		if code != tc.code {
			t.Errorf("GET %s: %d %.300s, want %d", tc.path, code, body, tc.code)
			continue
		}
		for _, h := range tc.has {
			if !strings.Contains(body, h) {
				t.Errorf("GET %s: %.400s\nlacks %s", tc.path, body, h)
			}
		}
		for _, h := range tc.hasNot {
			if strings.Contains(body, h) {
				t.Errorf("GET %s: %.400s\nhas %s", tc.path, body, h)
			}
		}
		if tc.path == "/readyz?verbose" && strings.Count(body, "resource/widgets.example.com") != 1 {
			t.Errorf("/readyz lists widgets %d times:\n%s", strings.Count(body, "resource/widgets.example.com"), body)
		}
	}
}
