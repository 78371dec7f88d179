package kubeapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var tableNow = time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)

// TestPodRow pins the pod columns against printPod of k8s.io/kubernetes v1.37.2, case by case.
func TestPodRow(t *testing.T) {
	const meta = `"metadata":{"name":"p","namespace":"n","creationTimestamp":"2026-01-10T11:55:00Z"}`
	tests := []struct {
		name, obj string
		cells     []any
		completed bool
	}{
		{"pending, nothing reported",
			`{` + meta + `,"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Pending"}}`,
			[]any{"p", "0/1", "Pending", "0", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"running and ready",
			`{` + meta + `,"spec":{"nodeName":"node-1","containers":[{"name":"a"},{"name":"b"}]},"status":{"phase":"Running","podIPs":[{"ip":"10.0.0.1"}],
			"containerStatuses":[{"name":"a","ready":true,"restartCount":1,"state":{"running":{}}},{"name":"b","ready":false,"restartCount":2,"state":{"running":{}}}]}}`,
			[]any{"p", "1/2", "Running", "3", "5m", "10.0.0.1", "node-1", "<none>", "<none>"}, false},
		{"crash loop with last restart",
			`{` + meta + `,"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","containerStatuses":[{"name":"a","restartCount":4,
			"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-01-10T11:58:00Z"}}}]}}`,
			[]any{"p", "0/1", "CrashLoopBackOff", "4 (2m ago)", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"status reason wins over phase",
			`{` + meta + `,"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Failed","reason":"Evicted"}}`,
			[]any{"p", "0/1", "Evicted", "0", "5m", "<none>", "<none>", "<none>", "<none>"}, true},
		{"succeeded",
			`{` + meta + `,"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Succeeded","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}}`,
			[]any{"p", "0/1", "Completed", "0", "5m", "<none>", "<none>", "<none>", "<none>"}, true},
		{"terminated with error code, no reason",
			`{` + meta + `,"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":3}}}]}}`,
			[]any{"p", "0/1", "ExitCode:3", "0", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"init container running",
			`{` + meta + `,"spec":{"initContainers":[{"name":"i1"},{"name":"i2"}],"containers":[{"name":"a"}]},"status":{"phase":"Pending",
			"initContainerStatuses":[{"name":"i1","state":{"terminated":{"exitCode":0}}},{"name":"i2","state":{"running":{}}}]}}`,
			[]any{"p", "0/1", "Init:1/2", "0", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"init container failing",
			`{` + meta + `,"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},"status":{"phase":"Pending",
			"initContainerStatuses":[{"name":"i1","restartCount":2,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}`,
			[]any{"p", "0/1", "Init:CrashLoopBackOff", "2", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"sidecar counts as a container",
			`{` + meta + `,"spec":{"initContainers":[{"name":"s","restartPolicy":"Always"}],"containers":[{"name":"a"}]},"status":{"phase":"Running",
			"conditions":[{"type":"Initialized","status":"True"}],
			"initContainerStatuses":[{"name":"s","started":true,"ready":true,"restartCount":1,"state":{"running":{}}}],
			"containerStatuses":[{"name":"a","ready":true,"state":{"running":{}}}]}}`,
			[]any{"p", "2/2", "Running", "1", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"scheduling gated",
			`{` + meta + `,"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]}}`,
			[]any{"p", "0/1", "SchedulingGated", "0", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"terminating",
			`{"metadata":{"name":"p","creationTimestamp":"2026-01-10T11:55:00Z","deletionTimestamp":"2026-01-10T11:59:00Z"},"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running"}}`,
			[]any{"p", "0/1", "Terminating", "0", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"node lost",
			`{"metadata":{"name":"p","creationTimestamp":"2026-01-10T11:55:00Z","deletionTimestamp":"2026-01-10T11:59:00Z"},"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","reason":"NodeLost"}}`,
			[]any{"p", "0/1", "Unknown", "0", "5m", "<none>", "<none>", "<none>", "<none>"}, false},
		{"readiness gates, nominated node",
			`{` + meta + `,"spec":{"containers":[{"name":"a"}],"readinessGates":[{"conditionType":"x"},{"conditionType":"y"}]},
			"status":{"phase":"Pending","nominatedNodeName":"node-9","conditions":[{"type":"x","status":"True"},{"type":"y","status":"False"}]}}`,
			[]any{"p", "0/1", "Pending", "0", "5m", "<none>", "<none>", "node-9", "1/2"}, false},
		{"no creationTimestamp",
			`{"metadata":{"name":"p"},"spec":{"containers":[]},"status":{}}`,
			[]any{"p", "0/0", "", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"}, false},
	}
	cols := len(PodPrinter().Columns)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !json.Valid([]byte(tt.obj)) {
				t.Fatal("invalid test object")
			}
			row := podRow([]byte(tt.obj), tableNow)
			if len(row.Cells) != cols || !reflect.DeepEqual(row.Cells, tt.cells) {
				t.Fatalf("cells %q\nwant  %q", row.Cells, tt.cells)
			}
			if got := len(row.Conditions) == 1 && row.Conditions[0].Type == metav1.RowCompleted; got != tt.completed {
				t.Errorf("conditions %v", row.Conditions)
			}
		})
	}
}

// TestNodeRow pins the node columns against printNode.
func TestNodeRow(t *testing.T) {
	tests := []struct {
		name, obj string
		cells     []any
	}{
		{"ready worker",
			`{"metadata":{"name":"n1","creationTimestamp":"2026-01-08T12:00:00Z","labels":{"node-role.kubernetes.io/worker":"","kubernetes.io/hostname":"n1"}},
			"status":{"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}],
			"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"InternalIP","address":"10.0.0.2"}],
			"nodeInfo":{"kubeletVersion":"v1.37.2","osImage":"Linux","kernelVersion":"6.8","architecture":"arm64","containerRuntimeVersion":"containerd://2.0"}}}`,
			[]any{"n1", "Ready", "worker", "2d", "v1.37.2", "10.0.0.1", "<none>", "Linux", "6.8 (arm64)", "containerd://2.0"}},
		{"cordoned, not ready, two roles",
			`{"metadata":{"name":"n2","creationTimestamp":"2026-01-10T09:00:00Z","labels":{"node-role.kubernetes.io/control-plane":"","kubernetes.io/role":"master"}},
			"spec":{"unschedulable":true},"status":{"conditions":[{"type":"Ready","status":"False"}],"addresses":[{"type":"ExternalIP","address":"1.2.3.4"}]}}`,
			[]any{"n2", "NotReady,SchedulingDisabled", "control-plane,master", "3h", "", "<none>", "1.2.3.4", "<unknown>", "<unknown>", "<unknown>"}},
		{"no conditions, no roles",
			`{"metadata":{"name":"n3","creationTimestamp":"2026-01-10T11:59:56Z"}}`,
			[]any{"n3", "Unknown", "<none>", "4s", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"}},
	}
	cols := len(NodePrinter().Columns)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := nodeRow([]byte(tt.obj), tableNow)
			if len(row.Cells) != cols || !reflect.DeepEqual(row.Cells, tt.cells) {
				t.Fatalf("cells %q\nwant  %q", row.Cells, tt.cells)
			}
		})
	}
}

// tableResponse is a Table as kubectl decodes it.
type tableResponse struct {
	Kind              string                         `json:"kind"`
	APIVersion        string                         `json:"apiVersion"`
	Metadata          wireListMeta                   `json:"metadata"`
	ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
	Rows              []struct {
		Cells  []any           `json:"cells"`
		Object json.RawMessage `json:"object"`
	} `json:"rows"`
}

const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// TestTableResponses pins what `kubectl get` receives: a meta.k8s.io/v1 Table with the printer's
// columns, rows whose object is the PartialObjectMetadata kubectl reads namespaces from (its
// default includeObject=Metadata), and the list metadata it pages with (--chunk-size).
func TestTableResponses(t *testing.T) {
	cl := newCluster(t, clusterOptions{now: tableNow})
	decode := func(r response) tableResponse {
		t.Helper()
		if r.code != http.StatusOK {
			t.Fatalf("code %d: %s", r.code, r.body)
		}
		var tb tableResponse
		if err := json.Unmarshal(r.body, &tb); err != nil {
			t.Fatal(err)
		}
		return tb
	}

	r := cl.get(t, "/api/v1/pods?limit=3", "Accept", kubectlAccept)
	if ct := r.header.Get("Content-Type"); ct != "application/json" { // as the apiserver: testdata/oracle/table-*.http
		t.Errorf("Content-Type %q", ct)
	}
	tb := decode(r)
	plain := cl.get(t, "/api/v1/pods?limit=3").list(t)
	if tb.Kind != "Table" || tb.APIVersion != "meta.k8s.io/v1" || tb.Metadata.ResourceVersion != plain.Metadata.ResourceVersion ||
		tb.Metadata.Continue != plain.Metadata.Continue || tb.Metadata.RemainingItemCount == nil || *tb.Metadata.RemainingItemCount != *plain.Metadata.RemainingItemCount {
		t.Fatalf("table head %+v", tb.Metadata)
	}
	var names []string
	for _, c := range tb.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if want := []string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("columns %v", names)
	}
	if len(tb.Rows) != 3 {
		t.Fatalf("%d rows", len(tb.Rows))
	}
	for i, row := range tb.Rows {
		var obj struct {
			Kind, APIVersion string
			Metadata         struct{ Name, Namespace, ResourceVersion string }
		}
		if err := json.Unmarshal(row.Object, &obj); err != nil {
			t.Fatal(err)
		}
		if obj.Kind != "PartialObjectMetadata" || obj.APIVersion != "meta.k8s.io/v1" || obj.Metadata.Namespace == "" ||
			row.Cells[0] != obj.Metadata.Name || obj.Metadata.Name != metaName(t, plain.Items[i])[len(obj.Metadata.Namespace)+1:] {
			t.Fatalf("row %d: %v %s", i, row.Cells, row.Object)
		}
	}

	t.Run("includeObject", func(t *testing.T) {
		none := decode(cl.get(t, "/api/v1/pods?limit=1&includeObject=None", "Accept", kubectlAccept))
		if string(none.Rows[0].Object) != "null" { // `"object":null`, as the apiserver writes it
			t.Errorf("None: object %s", none.Rows[0].Object)
		}
		full := decode(cl.get(t, "/api/v1/pods?limit=1&includeObject=Object", "Accept", kubectlAccept))
		// The row's object is the whole object, with kind and apiVersion (the apiserver converts
		// it to the request's version): testdata/oracle/table-configmaps-object.http.
		if string(full.Rows[0].Object) != `{"kind":"Pod","apiVersion":"v1",`+string(plain.Items[0][1:]) {
			t.Errorf("Object: %s", full.Rows[0].Object)
		}
	})
	t.Run("v1beta1", func(t *testing.T) {
		tb := decode(cl.get(t, "/api/v1/nodes", "Accept", "application/json;as=Table;v=v1beta1;g=meta.k8s.io"))
		if tb.APIVersion != "meta.k8s.io/v1beta1" || len(tb.Rows) != 10 || len(tb.ColumnDefinitions) != 10 {
			t.Fatalf("%s: %d rows, %d columns", tb.APIVersion, len(tb.Rows), len(tb.ColumnDefinitions))
		}
	})
	t.Run("get", func(t *testing.T) {
		tb := decode(cl.get(t, "/api/v1/namespaces/ns-1", "Accept", kubectlAccept))
		if len(tb.Rows) != 1 || tb.Rows[0].Cells[0] != "ns-1" || tb.Rows[0].Cells[1] != "Active" || tb.Metadata.ResourceVersion == "" {
			t.Fatalf("%+v", tb)
		}
	})
	t.Run("empty", func(t *testing.T) {
		r := cl.get(t, "/api/v1/configmaps", "Accept", kubectlAccept)
		if tb := decode(r); tb.Rows == nil || len(tb.Rows) != 0 || len(tb.ColumnDefinitions) != 3 || tb.ColumnDefinitions[1].Name != "Data" {
			t.Fatalf("%s", r.body)
		}
	})
	t.Run("watch: columns on the first event only", func(t *testing.T) {
		w := cl.watch(t, "/api/v1/pods?watch=1&resourceVersion="+strconv.FormatUint(cl.rv, 10), "Accept", kubectlAccept)
		cl.step(t, 3)
		for i := range 3 {
			ev, ok := w.next(t)
			if !ok {
				t.Fatal("stream ended")
			}
			var tb tableResponse
			if err := json.Unmarshal(ev.Object, &tb); err != nil {
				t.Fatal(err)
			}
			if tb.Kind != "Table" || len(tb.Rows) != 1 || (i == 0) != (len(tb.ColumnDefinitions) == 9) || tb.Metadata.ResourceVersion == "" {
				t.Fatalf("event %d: %s", i, ev.Object)
			}
		}
	})
}

// TestAge pins kubectl's short durations.
func TestAge(t *testing.T) {
	for _, tt := range []struct {
		ago  time.Duration
		want string
	}{{4 * time.Second, "4s"}, {5 * time.Minute, "5m"}, {3 * time.Hour, "3h"}, {50 * time.Hour, "2d2h"}, {49 * 24 * time.Hour, "49d"}} {
		ts := tableNow.Add(-tt.ago).Format(time.RFC3339)
		row := DefaultPrinter().Row([]byte(`{"metadata":{"name":"x","creationTimestamp":"`+ts+`"}}`), tableNow)
		if row.Cells[1] != tt.want {
			t.Errorf("%v ago: %v, want %s", tt.ago, row.Cells[1], tt.want)
		}
	}
}
