package main

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestServeEtcdEventsV1: serve --etcd-endpoints serves events.k8s.io/v1 Events from the core
// Events stored in etcd (protobuf, as kube-apiserver 1.37.2 stores them), converted, and answers
// as the apiserver answered the same requests about the same objects through both groups
// (testdata/etcd-events-v1.json: an Event written through core/v1 and one through
// events.k8s.io/v1): gets, lists and watch events byte for byte but for the revisions of the
// replay, Tables with the core Events' columns, the field selectors events.k8s.io accepts
// (regarding.*, reason, type, reportingController, metadata.*) selecting the same objects and
// the others refused with the apiserver's 400, and discovery.
func TestServeEtcdEventsV1(t *testing.T) {
	rec := loadRecording(t, "testdata/etcd-events-v1.json")
	base := rec.serveReplayed(t)
	for _, a := range rec.Answers {
		name := a.Path
		if strings.Contains(a.Accept, "as=Table") {
			name += " as Table"
		}
		t.Run(name, func(t *testing.T) {
			code, body := ask(t, base+a.Path, a.Accept)
			if code != a.Code {
				t.Fatalf("%d %.300s, apiserver %d %.300s", code, body, a.Code, a.Body)
			}
			switch {
			case code != 200:
				if withoutRVs(body) != withoutRVs(a.Body) {
					t.Errorf("\n ours      %s\n apiserver %s", body, a.Body)
				}
			case strings.Contains(a.Accept, "as=Table"):
				sameTable(t, a.Path, a.Body, body)
			case gjson.Get(a.Body, "kind").Str == "APIResourceList":
				sameDiscovery(t, a.Body, body)
			case gjson.Get(a.Body, "kind").Str == "APIGroup":
				if w, g := gjson.Get(a.Body, "versions").Raw, gjson.Get(body, "versions").Raw; w != g {
					t.Errorf("versions %s, apiserver %s", g, w)
				}
			case gjson.Get(a.Body, "items").Exists():
				if w, g := gjson.Get(withoutRVs(a.Body), "items").Raw, gjson.Get(withoutRVs(body), "items").Raw; w != g {
					t.Errorf("items\n ours      %s\n apiserver %s", g, w)
				}
				if w, g := gjson.Get(a.Body, "kind").Str+" "+gjson.Get(a.Body, "apiVersion").Str, gjson.Get(body, "kind").Str+" "+gjson.Get(body, "apiVersion").Str; w != g {
					t.Errorf("list %s, apiserver %s", g, w)
				}
			default: // an object, or a watch's events
				if withoutRVs(body) != withoutRVs(a.Body) {
					t.Errorf("\n ours      %s\n apiserver %s", withoutRVs(body), withoutRVs(a.Body))
				}
			}
		})
	}
}
