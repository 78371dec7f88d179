package crdcel_test

import (
	"compress/gzip"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/watchcache/watchcache/fake"
	"github.com/watchcache/watchcache/fake/crdcel"
)

// TestObservedCRDsWithValidator replays the fake's own CRD recording
// (../testdata/observed-crds.json.gz, kube-apiserver 1.37.2; reference/observed-crds.md) against
// the fake with crdcel's validator, which replaces the fake's CRD and schema validation: every
// answer's code must still be the apiserver's, and a 422's causes the same (in any order: the
// apiserver lists several schema causes in kube-openapi's map order).
func TestObservedCRDsWithValidator(t *testing.T) {
	f, err := os.Open("../testdata/observed-crds.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var recorded []struct {
		Name  string `json:"name"`
		Steps []struct {
			Name        string          `json:"name"`
			Method      string          `json:"method"`
			Path        string          `json:"path"`
			ContentType string          `json:"contentType"`
			Body        string          `json:"body"`
			Code        int             `json:"code"`
			Response    json.RawMessage `json:"response"`
		} `json:"steps"`
	}
	if err := json.NewDecoder(zr).Decode(&recorded); err != nil {
		t.Fatal(err)
	}
	for _, rc := range recorded {
		t.Run(rc.Name, func(t *testing.T) {
			c := celCase{Name: rc.Name}
			for _, st := range rc.Steps {
				c.Steps = append(c.Steps, celStep{Name: st.Name, Method: st.Method, Path: st.Path, ContentType: st.ContentType, Body: st.Body})
			}
			srv := fake.NewTest(t, fake.Options{CustomResourceValidator: crdcel.New()})
			tg := target{base: srv.URL(), client: &http.Client{Transport: srv.Transport()}}
			defer tg.client.CloseIdleConnections()
			got := runCase(t, tg, c, 0)
			for i, w := range rc.Steps {
				g := got.Steps[i]
				t.Run(w.Name, func(t *testing.T) {
					if g.Code != w.Code {
						t.Fatalf("code %d, apiserver %d\n got: %s\nwant: %s", g.Code, w.Code, g.Response, w.Response)
					}
					if gc, wc := causes(g.Response), causes(w.Response); !reflect.DeepEqual(gc, wc) {
						t.Errorf("causes %q, apiserver %q", gc, wc)
					}
				})
			}
		})
	}
}

// causes returns a Status's causes as sorted "field|reason|message" strings.
func causes(b []byte) []string {
	var st struct {
		Details struct {
			Causes []struct{ Reason, Message, Field string } `json:"causes"`
		} `json:"details"`
	}
	_ = json.Unmarshal(b, &st)
	var out []string
	for _, c := range st.Details.Causes {
		out = append(out, c.Field+"|"+c.Reason+"|"+c.Message)
	}
	sort.Strings(out)
	return out
}
