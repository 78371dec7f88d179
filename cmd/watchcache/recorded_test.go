package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// recording is what the oracle stored in etcd and answered (testdata/etcd-*.json): the values
// under some prefixes, JSON as text or anything else in base64, and the apiserver's answers to
// requests about them.
type recording struct {
	Recorded string
	Kvs      []struct {
		Key         string
		Value       string
		ValueBase64 string `json:"value_base64"`
	}
	Answers []recordedAnswer
}

// recordedAnswer is one request to the oracle and its answer.
type recordedAnswer struct {
	Path, Accept string
	Code         int
	Body         string
}

// loadRecording reads a recording of etcd values and the oracle's answers.
func loadRecording(t *testing.T, file string) recording {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var r recording
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return r
}

// serveReplayed starts an etcd holding the recording's values and serve --etcd-endpoints on it,
// and returns serve's base URL.
func (r recording) serveReplayed(t *testing.T) string {
	t.Helper()
	cli, endpoint := startEtcd(t)
	r.replay(t, etcdPut(t, cli))
	base, _ := startServe(t, "--etcd-endpoints", endpoint)
	return base
}

// replay writes the recorded values into etcd.
func (r recording) replay(t *testing.T, put func(key, value string) int64) {
	t.Helper()
	for _, kv := range r.Kvs {
		v := kv.Value
		if kv.ValueBase64 != "" {
			b, err := base64.StdEncoding.DecodeString(kv.ValueBase64)
			if err != nil {
				t.Fatalf("%s: %v", kv.Key, err)
			}
			v = string(b)
		}
		put(kv.Key, v)
	}
}

// ask sends a GET with an Accept header and returns the status and body.
func ask(t *testing.T, url, accept string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// resourceVersions matches every resourceVersion member: a replay into another etcd gives the
// objects other revisions.
var resourceVersions = regexp.MustCompile(`"resourceVersion":"[0-9]*"`)

func withoutRVs(s string) string {
	return resourceVersions.ReplaceAllString(strings.TrimSpace(s), `"resourceVersion":"…"`)
}

// age matches a cell the apiserver prints as an age (of a date column, or a string one such as
// DeviceTaintRule's Age), which grew since the recording.
var age = regexp.MustCompile(`^[0-9]+[smhdy]([0-9]+[smh])?$`)

// sameTable compares two Tables: the same columns, and per row the same cells (but ages) and the
// same object's name.
func sameTable(t *testing.T, what, want, got string) {
	t.Helper()
	var w, g metav1.Table
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: recorded Table: %v", what, err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: our Table: %v: %s", what, err, got)
	}
	if !reflect.DeepEqual(w.ColumnDefinitions, g.ColumnDefinitions) {
		t.Errorf("%s: columns\n ours      %+v\n apiserver %+v", what, g.ColumnDefinitions, w.ColumnDefinitions)
		return
	}
	if len(w.Rows) != len(g.Rows) {
		t.Fatalf("%s: %d rows, apiserver %d", what, len(g.Rows), len(w.Rows))
	}
	name := func(r metav1.TableRow) string {
		var m metav1.PartialObjectMetadata
		_ = json.Unmarshal(r.Object.Raw, &m)
		return m.Namespace + "/" + m.Name
	}
	for i := range w.Rows {
		wc, gc := w.Rows[i].Cells, g.Rows[i].Cells
		for j, c := range w.ColumnDefinitions {
			if j >= len(wc) || j >= len(gc) {
				break
			}
			ws, _ := wc[j].(string)
			gs, _ := gc[j].(string)
			if c.Type == "date" || age.MatchString(ws) && age.MatchString(gs) {
				wc[j], gc[j] = nil, nil
			}
		}
		if !reflect.DeepEqual(wc, gc) || name(w.Rows[i]) != name(g.Rows[i]) {
			t.Errorf("%s: row %d: ours %v %s, apiserver %v %s", what, i, gc, name(g.Rows[i]), wc, name(w.Rows[i]))
		}
	}
}
