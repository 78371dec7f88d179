package main

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestServeEtcdOlderStorage: the built-in resources kube-apiserver 1.37.2 stores at an older
// version than it serves (clustertrustbundles and podcertificaterequests at certificates.k8s.io
// v1beta1, devicetaintrules at resource.k8s.io v1beta2, storageversionmigrations at
// storagemigration.k8s.io v1beta1) are served from their protobuf values at v1, as the apiserver
// serves them: gets byte for byte and list items alike (but for the revisions, which the replay
// into another etcd changes), and Tables with its columns. The values and answers are the
// oracle's (testdata/etcd-older-storage.json, reference/observed-etcd-layout.md).
func TestServeEtcdOlderStorage(t *testing.T) {
	rec := loadRecording(t, "testdata/etcd-older-storage.json")
	for _, kv := range rec.Kvs {
		if kv.ValueBase64 == "" {
			t.Fatalf("%s: recorded as JSON, want the protobuf value", kv.Key)
		}
	}
	base := rec.serveReplayed(t)
	for _, a := range rec.Answers {
		table := strings.Contains(a.Accept, "as=Table")
		name := a.Path
		if table {
			name += " as Table"
		}
		t.Run(name, func(t *testing.T) {
			code, body := ask(t, base+a.Path, a.Accept)
			if code != a.Code {
				t.Fatalf("%d %.300s, apiserver %d", code, body, a.Code)
			}
			switch {
			case table:
				sameTable(t, a.Path, a.Body, body)
			case gjson.Get(a.Body, "items").Exists():
				compareLists(t, []byte(withoutRVs(a.Body)), []byte(withoutRVs(body)), false)
			default:
				if withoutRVs(body) != withoutRVs(a.Body) {
					t.Errorf("\n ours      %s\n apiserver %s", withoutRVs(body), withoutRVs(a.Body))
				}
			}
		})
	}
}
