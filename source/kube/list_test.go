package kube

import (
	"errors"
	"slices"
	"testing"
)

func TestParseList(t *testing.T) {
	tests := []struct {
		name, body string
		rv         uint64
		cont       string
		items      []string
		err        bool
	}{
		{name: "items with type meta are copied as they are",
			body: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"12","continue":"tok"},"items":[{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}]}`,
			rv:   12, cont: "tok", items: []string{`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`}},
		{name: "apiserver items get the list's type meta",
			body: `{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a"}}, { }]}`,
			rv:   7, items: []string{`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"a"}}`, `{"kind":"Deployment","apiVersion":"apps/v1"}`}},
		{name: "a kind without List names no items",
			body: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a"}}]}`,
			rv:   7, items: []string{`{"metadata":{"name":"a"}}`}},
		{name: "empty list", body: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[]}`, rv: 3},
		{name: "null items", body: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":null}`, rv: 3},
		{name: "no resourceVersion", body: `{"kind":"PodList","metadata":{},"items":[]}`, err: true},
		{name: "resourceVersion 0", body: `{"metadata":{"resourceVersion":"0"},"items":[]}`, err: true},
		{name: "items not an array", body: `{"metadata":{"resourceVersion":"3"},"items":{}}`, err: true},
		{name: "item not an object", body: `{"metadata":{"resourceVersion":"3"},"items":[1]}`, err: true},
		{name: "not an object", body: `[]`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			page, err := parseList(body)
			if tt.err {
				if !errors.Is(err, ErrMalformedResponse) {
					t.Fatalf("err = %v, want ErrMalformedResponse", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, len(page.items))
			for i, it := range page.items {
				got[i] = string(it)
			}
			if page.rv != tt.rv || page.cont != tt.cont || !slices.Equal(got, tt.items) {
				t.Fatalf("got rv %d, continue %q, items %q", page.rv, page.cont, got)
			}
			for i := range body { // items are copies: the response buffer may go
				body[i] = 'X'
			}
			for i, it := range page.items {
				if string(it) != tt.items[i] {
					t.Fatalf("item %d aliases the response", i)
				}
			}
		})
	}
}
